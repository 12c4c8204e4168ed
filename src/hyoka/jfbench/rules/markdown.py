"""Markdown constraints read with markdown-it-py's CommonMark parser, as upstream reads them.

Written from reading upstream's ``constraints/format/markdown.py`` (c8fed01): the parse
itself (which fails only on an internal error), fences each closed by a fence of the same
character at least as long, and headings whose level never rises by more than one (at
least one heading required). Upstream locks markdown-it-py 4.0.0.
"""

from __future__ import annotations

import functools
import re
from itertools import pairwise
from typing import Any

#: the package whose version decides these verdicts
PACKAGES = ("markdown-it-py",)
_FENCE = re.compile(r"^\s{0,3}([`~]{3,})([^`~\n]*)$")


@functools.cache
def _parser() -> Any:
    return _new_parser()


def parseable(value: str) -> bool:
    try:
        _parser().parse(value)
    except Exception:  # upstream counts any failure of the parser as a failed check
        return False
    return True


def closed_fences(value: str) -> bool:
    """Every fence line (up to three spaces, three or more backticks or tildes) is closed
    by a later one of the same character and at least its length."""
    open_fences: list[tuple[str, int]] = []
    for line in value.splitlines():
        found = _FENCE.match(line)
        if found is None:
            continue
        fence = found.group(1)
        if open_fences and open_fences[-1][0] == fence[0] and len(fence) >= open_fences[-1][1]:
            open_fences.pop()
        else:
            open_fences.append((fence[0], len(fence)))
    return not open_fences


def no_heading_jumps(value: str) -> bool:
    """At least one heading, and no heading more than one level below the one before."""
    levels = [int(t.tag[1]) for t in _parser().parse(value) if t.type == "heading_open"]
    return bool(levels) and all(b <= a + 1 for a, b in pairwise(levels))


def _slug(title: str) -> str:
    """A heading's slug as upstream makes it: lower-cased, only letters, digits, spaces and
    hyphens kept, whitespace runs as one hyphen, hyphens trimmed."""
    kept = "".join(ch for ch in title.strip().lower() if ch.isalnum() or ch in (" ", "-"))
    return re.sub(r"\s+", "-", kept).strip("-")


def headings_structure(value: str) -> bool:
    """Exactly one H1, no empty heading, no two headings with the same slug."""
    tokens = _parser().parse(value)
    top = 0
    slugs: set[str] = set()
    for heading, inline in pairwise(tokens):
        if heading.type != "heading_open" or inline.type != "inline":
            continue
        title = inline.content.strip()
        slug = _slug(title)
        if not title or slug in slugs:
            return False
        slugs.add(slug)
        top += heading.tag == "h1"
    return top == 1


@functools.cache
def _table_parser() -> Any:
    return _new_parser().enable("table")


def _new_parser() -> Any:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark")


def _table_rows(tokens: list[Any], start: int) -> tuple[list[list[str]], int]:
    """The cells' inline text of each row of the table opened at ``start``, and where the
    table closes."""
    rows: list[list[str]] = []
    j = start + 1
    while j < len(tokens) and tokens[j].type != "table_close":
        if tokens[j].type == "tr_open":
            cells: list[str] = []
            k = j + 1
            while k < len(tokens) and tokens[k].type != "tr_close":
                if tokens[k].type in ("th_open", "td_open"):
                    m = k + 1
                    parts: list[str] = []
                    while m < len(tokens) and tokens[m].type not in ("th_close", "td_close"):
                        if tokens[m].type == "inline":
                            parts.append(tokens[m].content)
                        m += 1
                    cells.append("".join(parts))
                    k = m
                k += 1
            rows.append(cells)
            j = k
        j += 1
    return rows, j


def table_structure(value: str) -> bool:
    """Every table (CommonMark with tables) has as many cells in each row as in its header,
    and no blank header cell; a text without tables passes."""
    tokens = list(_table_parser().parse(value))
    i = 0
    while i < len(tokens):
        if tokens[i].type != "table_open":
            i += 1
            continue
        rows, end = _table_rows(tokens, i)
        if rows and (
            any(len(row) != len(rows[0]) for row in rows) or any(not c.strip() for c in rows[0])
        ):
            return False
        i = max(i + 1, end + 1)
    return True
