"""llm-jp-judge's judge prompt file (``mt_bench_ja_prompt_v1.yaml``), read without a YAML library.

The file is one mapping of prompt names to mappings of ``regex``, ``prompt_template``,
``system_prompt`` (and ``type``), written as plain scalars on one line or as literal block
scalars (``|-``: the final newline stripped; ``|+``: every trailing newline kept; ``|``: one
kept), as llm-jp-judge's Hydra config loader reads them. hyoka reads exactly that subset and
refuses anything else in one line naming the file and line, so no YAML dependency is needed
and a construct it does not know can never be read wrongly (the variants pin the file's
bytes by SHA-256 as well; a test holds the result equal to PyYAML's).
"""

from __future__ import annotations

import re
from pathlib import Path

from hyoka.errors import DataError

_NAME = re.compile(r"^([A-Za-z0-9_.-]+):\s*$")
_FIELD = re.compile(r"^  ([A-Za-z_]+): ?(.*)$")
_BLOCK = re.compile(r"^\|([-+]?)$")
#: a plain scalar this reader takes as it stands: no quotes, flow, anchors, tags or comments
_UNSAFE_PLAIN = re.compile(r"""^["'&*!%@`{\[>|]|: | #|^-( |$)|^\?( |$)""")


def read_prompt_yaml(path: Path, data: bytes) -> dict[str, dict[str, str]]:
    """The prompts of ``data`` (``path``'s bytes) by name, each as its fields."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DataError(f"{path}: not UTF-8 ({exc.reason})") from None
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()  # the split's empty piece after the last line break is no line
    prompts: dict[str, dict[str, str]] = {}
    current: dict[str, str] | None = None
    number = 0
    while number < len(lines):
        line = lines[number]
        number += 1
        if not line.strip() or line.startswith("#"):
            continue
        if named := _NAME.match(line):
            if named.group(1) in prompts:
                raise DataError(f"{path}:{number}: prompt {named.group(1)!r} named twice")
            current = prompts[named.group(1)] = {}
            continue
        field = _FIELD.match(line)
        if field is None or current is None:
            raise DataError(f"{path}:{number}: not a prompt name or field this reader knows")
        key, value = field.group(1), field.group(2).rstrip(" ")
        if key in current:
            raise DataError(f"{path}:{number}: field {key!r} given twice")
        block = _BLOCK.match(value)
        if block is None:
            if not value or _UNSAFE_PLAIN.search(value):
                raise DataError(f"{path}:{number}: a value this reader does not take as plain")
            current[key] = value
            continue
        body, number = _block(lines, number)
        # the file's last line may lack its line break: a block ending there has none
        broken = number < len(lines) or text.endswith("\n")
        current[key] = _chomp(body, block.group(1), last_break=broken)
    return prompts


def _block(lines: list[str], start: int) -> tuple[list[str], int]:
    """The lines of a literal block from ``start`` (0-based), with its indentation (that of
    its first non-empty line) removed; and where the mapping goes on."""
    indent: str | None = None
    body: list[str] = []
    number = start
    while number < len(lines):
        line = lines[number]
        if line.strip():
            if indent is None:
                indent = line[: len(line) - len(line.lstrip(" "))]
                if len(indent) <= 2:
                    break  # an empty block: the next field or prompt follows
            if not line.startswith(indent):
                break
            body.append(line[len(indent) :])
        else:
            body.append("")
        number += 1
    return body, number


def _chomp(body: list[str], indicator: str, *, last_break: bool = True) -> str:
    """A literal block's text: its lines joined by newlines, then YAML's chomping: ``-``
    no final newline, ``+`` every trailing newline, none given one (``last_break``:
    whether the block's last line ends in a line break, as all but a file's last do)."""
    content = list(body)
    trailing = 0
    while content and content[-1] == "":
        content.pop()
        trailing += 1
    text = "\n".join(content)
    if not content:
        return "\n" * trailing if indicator == "+" else ""
    if indicator == "-" or (not last_break and not trailing):
        return text
    if indicator == "+":
        return text + "\n" * (trailing + 1)
    return text + "\n"
