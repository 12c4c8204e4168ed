"""Format constraints that parse the response: JSON, CSV, TSV, XML, Python, unified diff,
bullet points and indentation.

Written from reading upstream's ``constraints/format`` (c8fed01). Upstream counts any
exception a check raises as a failed constraint, so every parser's failure here is a
``False``. Two readings decide many verdicts: JSON must be the *whole* response (no code
fence), while XML, YAML and diff first drop one code fence that wraps the entire response;
CSV and TSV only require every line to have the first line's number of fields (a plain
sentence is one-column CSV). Python is parsed by the running interpreter's ``ast``, so a
construct newer than it fails (upstream runs Python 3.12 or later).
"""

from __future__ import annotations

import ast
import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable

_WHOLE_FENCE = re.compile(r"\A```[^\n]*\n(.*)\n```\s*\Z", re.DOTALL)


def without_whole_fence(value: str) -> str:
    """The inside of a code fence that is the whole (stripped) response, else the response."""
    found = _WHOLE_FENCE.match(value.strip())
    return value if found is None else found.group(1)


def json_format(value: str) -> bool:
    try:
        json.loads(value)
    except (ValueError, RecursionError):
        return False
    return True


def _same_field_counts(separator: str) -> Callable[[str], bool]:
    def check(value: str) -> bool:
        lines = value.strip().split("\n")
        width = len(lines[0].split(separator))
        return all(len(line.split(separator)) == width for line in lines[1:])

    return check


csv_format = _same_field_counts(",")
tsv_format = _same_field_counts("\t")


def xml_format(value: str) -> bool:
    try:
        ET.fromstring(without_whole_fence(value))
    except (ET.ParseError, ValueError, RecursionError):
        return False
    return True


def _parses(code: str) -> bool:
    try:
        ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def python_format(value: str) -> bool:
    """The first fenced block (labelled python or not, backticks before tildes) parses, or
    the whole response when there is none."""
    for fence in ("```", "~~~"):
        found = re.search(rf"{fence}(?:python)?\s*(.*?)\s*{fence}", value, flags=re.S | re.I)
        if found is not None:
            return _parses(found.group(1))
    return _parses(value)


_LEADING_FENCE = re.compile(
    r"(?P<fence>```|~~~)(?P<lang>[a-zA-Z0-9_+-]*)\s*\n?(?P<code>.*?)(?:\n)?(?P=fence)", re.S
)


def _leading_fence(value: str) -> tuple[str, str] | None:
    found = _LEADING_FENCE.match(value.lstrip())
    return None if found is None else (found.group("code"), found.group("lang"))


def python_without_fence(value: str) -> bool:
    """No code fence at the start (after leading whitespace), and the response parses."""
    return _leading_fence(value) is None and _parses(value)


def python_with_fence(value: str) -> bool:
    """A code fence at the start, labelled ``py`` or with ``python`` in its label, whose
    code parses."""
    fenced = _leading_fence(value)
    if fenced is None:
        return False
    code, label = fenced
    label = label.lower()
    return bool(label) and ("python" in label or label == "py") and _parses(code)


def bullet_points(token: str) -> Callable[[str], bool]:
    """At least one line starting (after indentation) with ``token`` and then content, and
    no line that is the token alone or the token followed only by more of it."""
    escaped = re.escape(token)
    good = re.compile(rf"^\s*{escaped}\s*(?!{escaped}\b)\S")
    alone = re.compile(rf"^\s*{escaped}\s*$")

    def check(value: str) -> bool:
        found = False
        for line in value.splitlines():
            if not line.strip():
                continue
            kept = line.lstrip()
            if alone.match(kept):
                return False
            if kept.startswith(token) and not kept[len(token) :].strip(token).strip():
                return False
            found = found or good.match(kept) is not None
        return found

    return check


def indent(unit: str) -> Callable[[str], bool]:
    """Every indented line's leading whitespace is whole repeats of ``unit``."""

    def check(value: str) -> bool:
        if not unit:
            return True
        for line in value.splitlines():
            width = len(line) - len(line.lstrip())
            if line and width and not _repeats(line[:width], unit):
                return False
        return True

    return check


def _repeats(leading: str, unit: str) -> bool:
    return len(leading) % len(unit) == 0 and leading == unit * (len(leading) // len(unit))


_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
#: the file-header lines a block may hold before its ``---``/``+++`` pair (upstream's list)
_FILE_HEADERS = (
    "index ",
    "new file mode ",
    "deleted file mode ",
    "old mode ",
    "new mode ",
    "similarity index ",
    "rename from ",
    "rename to ",
    "--- ",
    "+++ ",
)


class _NotADiffError(Exception):
    """The text is not a unified diff."""


def _hunks(lines: list[str], i: int) -> tuple[int, bool]:
    found = False
    while i < len(lines):
        line = lines[i]
        if line.startswith("diff --git "):
            break
        if line.startswith("@@ "):
            found = True
            header = _HUNK.match(line)
            if header is None:
                raise _NotADiffError
            old_len, new_len = int(header.group(2) or "1"), int(header.group(4) or "1")
            i += 1
            old = new = 0
            while i < len(lines) and not lines[i].startswith(("@@ ", "diff --git ", "--- ")):
                body = lines[i]
                if not body:
                    raise _NotADiffError
                if body[0] == " ":
                    old, new = old + 1, new + 1
                elif body[0] == "-":
                    old += 1
                elif body[0] == "+":
                    new += 1
                elif not body.startswith("\\ No newline at end of file"):
                    raise _NotADiffError
                i += 1
            if old > old_len or new > new_len:
                raise _NotADiffError
            continue
        if not line.strip():
            i += 1
            continue
        raise _NotADiffError
    return i, found


def _file_diff(lines: list[str], i: int) -> tuple[int, bool]:
    while i < len(lines):
        line = lines[i]
        if line.startswith("diff --git "):
            break
        if line.startswith(_FILE_HEADERS):
            if line.startswith("--- "):
                i += 1
                if i >= len(lines) or not lines[i].startswith("+++ "):
                    raise _NotADiffError
                return _hunks(lines, i + 1)
            if line.startswith("+++ "):
                raise _NotADiffError
            i += 1
        elif not line.strip():
            i += 1
        else:
            raise _NotADiffError
    raise _NotADiffError  # a block without its --- and +++ headers


def _diff_has_hunk(text: str) -> bool:
    if not text.strip():
        raise _NotADiffError
    lines = text.splitlines()
    i = 0
    while i < len(lines) and not lines[i].strip():
        i += 1
    if i < len(lines) and lines[i].startswith("--- "):
        return _file_diff(lines, i)[1]
    any_block = any_hunk = False
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
        elif line.startswith("diff --git "):
            any_block = True
            i, hunk = _file_diff(lines, i + 1)
            any_hunk = any_hunk or hunk
        elif line.startswith("--- "):
            any_block = True
            i, hunk = _file_diff(lines, i)
            any_hunk = any_hunk or hunk
        else:
            raise _NotADiffError
    if not any_block:
        raise _NotADiffError
    return any_hunk


def diff_format(value: str) -> bool:
    """A unified (git) diff with at least one hunk, each hunk's body no longer than its
    header's counts (shorter is accepted, as upstream accepts it)."""
    try:
        return _diff_has_hunk(without_whole_fence(value).rstrip("\n"))
    except _NotADiffError:
        return False


def yaml_format(value: str) -> bool:
    """PyYAML's safe loader reads the response (one whole-response code fence dropped)."""
    import yaml  # type: ignore[import-untyped]

    try:
        yaml.safe_load(without_whole_fence(value))
    except (yaml.YAMLError, ValueError, RecursionError):
        return False
    return True
