"""Markdown's quality checks: links and images, reference links, lists, emphasis markers,
and all nine Markdown checks together, read with markdown-it-py's CommonMark parser.

Written from reading upstream's ``constraints/format/markdown.py`` (c8fed01):

- links and images: at least one link and one image; every link has an address whose
  scheme, if any, is http(s), mailto, tel or ftp; every image a source and alt text;
- reference links: every ``[text][label]`` or ``[label][]`` names a defined ``[label]:``
  (labels trimmed and lower-cased), no label defined twice with two addresses, and every
  ``[text](#anchor)`` names a heading's slug;
- lists: every item holds something besides a nested list; no list inside another list
  of the other kind at the same depth while it is open; a one-item list has a blank line
  (or the start) before it and a blank line (or the end) after it; an ordered list
  starting at 1900 or more is a list of years (two or more, 1900 to 2100, not falling);
- emphasis: at least one emphasis or strong emphasis, and every ``*`` or ``_`` run left
  in the text (unescaped) can open or close one (CommonMark's flanking rules, an ``_``
  between letters or digits never);
- Markdown format: all nine of upstream's Markdown checks pass.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from itertools import pairwise
from typing import Any
from urllib.parse import urlparse

from hyoka.jfbench.rules.markdown import (
    _parser,
    _slug,
    closed_fences,
    headings_structure,
    no_heading_jumps,
    parseable,
    table_structure,
)

_SCHEMES = frozenset({"http", "https", "mailto", "tel", "ftp"})


def _walk(tokens: Sequence[Any]) -> Any:
    for token in tokens:
        yield token
        if token.children:
            yield from _walk(token.children)


def links_and_images(value: str) -> bool:
    links = images = 0
    for token in _walk(_parser().parse(value)):
        if token.type == "link_open":
            links += 1
            address = dict(token.attrs or {}).get("href", "")
            if not address.strip():
                return False
            scheme = (urlparse(address).scheme or "").lower()
            if scheme and scheme not in _SCHEMES:
                return False
        elif token.type == "image":
            images += 1
            source = (token.attrGet("src") or "").strip()
            alt = (token.attrGet("alt") or token.content or "").strip()
            if not source or not alt:
                return False
    return links > 0 and images > 0


_DEFINITION = re.compile(r"^\s*\[([^\]]+)\]:\s*(\S+)", re.MULTILINE)
_REFERENCE = re.compile(r"\[([^\]]+)\]\[([^\]]+)\]|\[([^\]]+)\]\[\]")
_ANCHOR = re.compile(r"\[[^\]]*\]\(#([^)#\s]+)\)")


def reference_links(value: str) -> bool:
    tokens = _parser().parse(value)
    slugs = {
        _slug(b.content.strip())
        for a, b in pairwise(tokens)
        if a.type == "heading_open" and b.type == "inline"
    }
    addresses: dict[str, str] = {}
    for found in _DEFINITION.finditer(value):
        label, address = found.group(1).strip().lower(), found.group(2).strip()
        if addresses.setdefault(label, address) != address:
            return False
    for found in _REFERENCE.finditer(value):
        label = (found.group(2) or found.group(3) or "").strip().lower()
        if label and label not in addresses:
            return False
    return all(a.group(1).strip().lower() in slugs for a in _ANCHOR.finditer(value))


_ORDERED_ITEM = re.compile(r"^(\s*)(\d{1,9})([.)])([ \t]+)(.*)$")
_CONTENT = frozenset(
    {
        "paragraph_open",
        "fence",
        "code_block",
        "blockquote_open",
        "table_open",
        "heading_open",
        "html_block",
        "html_inline",
    }
)
_LIST_OPEN = {"bullet_list_open": "bullet_list_close", "ordered_list_open": "ordered_list_close"}
_YEARS = (1900, 2100)


def _closing(tokens: Sequence[Any], start: int, opening: str, closing: str) -> int:
    """Where the block opened at ``start`` closes (``start`` itself if never)."""
    depth = 0
    for at in range(start, len(tokens)):
        if tokens[at].type == opening:
            depth += 1
        elif tokens[at].type == closing:
            depth -= 1
            if depth == 0:
                return at
    return start


def _items_have_content(tokens: Sequence[Any]) -> bool:
    at = 0
    while at < len(tokens):
        if tokens[at].type != "list_item_open":
            at += 1
            continue
        end = _closing(tokens, at, "list_item_open", "list_item_close")
        inside = tokens[at + 1 : end]
        if not any(
            t.type in _CONTENT or (t.type == "inline" and (t.content or "").strip()) for t in inside
        ):
            return False
        at = end + 1
    return True


def _kinds_not_mixed(tokens: Sequence[Any]) -> bool:
    kinds: dict[int, str] = {}
    depth = 0
    for token in tokens:
        if token.type in _LIST_OPEN:
            if kinds.setdefault(depth, token.type) != token.type:
                return False
            depth += 1
        elif token.type in _LIST_OPEN.values():
            depth = max(0, depth - 1)
            kinds.pop(depth, None)
    return True


def _blank(lines: Sequence[str], index: int) -> bool:
    return not lines[index].strip()


def _number(line: str) -> int | None:
    found = _ORDERED_ITEM.match(line)
    return None if found is None else int(found.group(2))


def _no_accidental_lists(value: str, tokens: Sequence[Any]) -> bool:
    lines = value.splitlines()
    at = 0
    while at < len(tokens):
        opening = tokens[at]
        if opening.type not in _LIST_OPEN:
            at += 1
            continue
        end = _closing(tokens, at, opening.type, _LIST_OPEN[opening.type])
        items = [k for k in range(at + 1, end) if tokens[k].type == "list_item_open"]
        first = tokens[items[0]].map[0] if items and tokens[items[0]].map else None
        after = tokens[end].map[0] if tokens[end].map else None
        if len(items) == 1 and first is not None:
            if first - 1 >= 0 and not _blank(lines, first - 1):
                return False
            if after is not None and after < len(lines) and not _blank(lines, after):
                return False
        if opening.type == "ordered_list_open" and items and first is not None:
            start = _number(lines[first]) if first < len(lines) else None
            if start is not None and start >= _YEARS[0]:
                numbers = [
                    n
                    for k in items
                    if tokens[k].map
                    and tokens[k].map[0] < len(lines)
                    and (n := _number(lines[tokens[k].map[0]])) is not None
                ]
                years = (
                    len(numbers) >= 2
                    and all(_YEARS[0] <= n <= _YEARS[1] for n in numbers)
                    and all(a <= b for a, b in pairwise(numbers))
                )
                if not years:
                    return False
        at = end + 1
    return True


def list_structure(value: str) -> bool:
    tokens = _parser().parse(value)
    return (
        _items_have_content(tokens)
        and _kinds_not_mixed(tokens)
        and _no_accidental_lists(value, tokens)
    )


def _space(char: str | None) -> bool:
    return char is None or char.isspace()


def _punctuation(char: str | None) -> bool:
    return bool(char) and unicodedata.category(char or " ")[0] in "PS"


def _alphanumeric(char: str | None) -> bool:
    return bool(char) and unicodedata.category(char or " ")[0] in "LN"


def _neighbour(children: Sequence[Any], index: int, step: int) -> str | None:
    """The nearest character of another text child before (step -1) or after (step 1)."""
    at = index + step
    while 0 <= at < len(children):
        child = children[at]
        if child.type == "text" and child.content:
            return str(child.content[-1 if step < 0 else 0])
        at += step
    return None


def _unconsumed(children: Sequence[Any], index: int) -> bool:
    text: str = children[index].content
    at = 0
    while at < len(text):
        marker = text[at]
        if marker not in "*_":
            at += 1
            continue
        end = at
        while end < len(text) and text[end] == marker:
            end += 1
        backslashes = len(text[:at]) - len(text[:at].rstrip("\\"))
        if backslashes % 2 == 0:
            before = text[at - 1] if at > 0 else _neighbour(children, index, -1)
            after = text[end] if end < len(text) else _neighbour(children, index, 1)
            opens = not _space(after) and (
                not _punctuation(after) or _space(before) or _punctuation(before)
            )
            closes = not _space(before) and (
                not _punctuation(before) or _space(after) or _punctuation(after)
            )
            if marker == "_" and _alphanumeric(before) and _alphanumeric(after):
                opens = closes = False
            if not opens and not closes:
                return True
        at = end
    return False


def emphasis_markers(value: str) -> bool:
    emphasised = False
    for token in _parser().parse(value):
        if token.type != "inline" or not token.children:
            continue
        children = list(token.children)
        emphasised |= any(c.type in ("em_open", "strong_open") for c in children)
        for index, child in enumerate(children):
            if child.type == "text" and child.content and _unconsumed(children, index):
                return False
    return emphasised


def markdown_format(value: str) -> bool:
    """All nine of upstream's Markdown checks."""
    checks = (
        parseable,
        closed_fences,
        no_heading_jumps,
        links_and_images,
        headings_structure,
        reference_links,
        list_structure,
        table_structure,
        emphasis_markers,
    )
    return all(check(value) for check in checks)
