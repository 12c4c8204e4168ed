"""A response with citations in its text and a list of references after it, checked as
upstream's ``CitationFormatConstraint`` checks it (``constraints/format/citation.py``,
c8fed01).

The stripped response, code blocks (backticks or tildes) removed, is split into a body
and a references section: after the last references heading ("References",
"Bibliography", "参考文献", ... alone on a line, ``#`` marks and a trailing colon allowed)
that has a reference-like line (a list marker, ``[1]``, ``[^1]``, or a year) among the
five lines below it; without one, the last block of reference-like lines, which must
follow a blank line or start with a list marker. The body must cite: ``(... 2020 ...)``,
``[1]`` or ``[^1]``. The references are the entries (list items, or lines run together up
to a blank line) before the next heading or the blank line after an entry; each must have
a year (``2020``, ``2020a``, ``n.d.``) after an optional ``[1]`` and at least two parts
split on periods and semicolons. Numbered references must cover every number cited;
unnumbered ones must be at least as many as the distinct numbers cited.
"""

from __future__ import annotations

import re

_HEADINGS = (
    "references",
    "bibliography",
    "works cited",
    "sources",
    "参考文献",
    "引用文献",
    "出典",
    "文献",
)
_PARENTHETICAL = re.compile(r"\([^)]+?(?:19|20)\d{2}[a-z]?[^)]*\)")
_NUMBERED = re.compile(r"(?<!\^)\[(\d+)\]")
_FOOTNOTE = re.compile(r"\[\^(\d+)\]")
_YEAR = re.compile(
    r"(?:\b(?:1[0-9]|20)\d{2}[a-z]?(?:(?=\b)|(?=[^\w])|(?=年))|n\.d\.)", re.IGNORECASE
)
_ENTRY_START = re.compile(r"^\s*(?:[\-\*\+]\s+|\[\^?\d+\]\s*|\d+\.\s+|•\s+)")
_NEXT_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+\S")
_CODE = (re.compile(r"```.*?```", re.S), re.compile(r"~~~.*?~~~", re.S))
_LEADING_NUMBER = re.compile(r"^\s*\[(\^)?(\d+)\]\s*")
_PARTS = re.compile(r"[.;　。.]")


def _reference_like(line: str) -> bool:
    return bool(_ENTRY_START.match(line) or _YEAR.search(line))


def _heading(line: str) -> bool:
    stripped = line.strip()
    if not stripped:
        return False
    bare = re.sub(r"^#{1,6}\s*", "", stripped).strip().lower()
    return any(
        form in _HEADINGS or form.rstrip("：:") in _HEADINGS for form in (stripped.lower(), bare)
    )


def _split(lines: list[str]) -> tuple[list[str], list[str]] | None:
    """The body's lines and the references' lines, or ``None`` if there are no
    references."""
    for index in reversed([i for i, line in enumerate(lines) if _heading(line)]):
        if any(_reference_like(line) for line in lines[index + 1 : index + 6]):
            return lines[:index], lines[index + 1 :]
    anchor: int | None = None
    start: int | None = None
    for index in range(len(lines) - 1, -1, -1):
        line = lines[index]
        if not line.strip():
            if anchor is not None:
                start = index + 1
                break
            continue
        if _reference_like(line):
            anchor = index
            continue
        if anchor is not None:
            anchor = None
            break
    if start is None and anchor is not None and _ENTRY_START.match(lines[anchor]):
        start = anchor
    return None if start is None else (lines[:start], lines[start:])


def _entries(lines: list[str]) -> list[str]:
    entries: list[str] = []
    pending: list[str] = []

    def close() -> None:
        entry = " ".join(part.strip() for part in pending if part.strip())
        if entry:
            entries.append(entry)
        pending.clear()

    for line in lines:
        if _NEXT_HEADING.match(line):
            break
        if not line.strip():
            close()
            if entries:
                break
            continue
        if _ENTRY_START.match(line) and pending:
            close()
        pending.append(line)
    close()
    return entries


def citations(value: str) -> bool:
    text = value.strip()
    if not text:
        return False
    for block in _CODE:
        text = block.sub("", text)
    found = _split(text.splitlines())
    if found is None:
        return False
    body = "\n".join(found[0])
    numbered = set(_NUMBERED.findall(body))
    footnotes = set(_FOOTNOTE.findall(body))
    if not (_PARENTHETICAL.search(body) or numbered or footnotes):
        return False
    entries = _entries(found[1])
    if not entries:
        return False
    listed: set[str] = set()
    any_numbered = False
    for entry in entries:
        number = _LEADING_NUMBER.match(entry)
        rest = entry
        if number:
            any_numbered = True
            listed.add(number.group(2))
            rest = entry[number.end() :]
        if not _YEAR.search(rest) or len([p for p in _PARTS.split(rest) if p.strip()]) < 2:
            return False
    cited = numbered | footnotes
    if cited and any_numbered:
        return cited <= listed
    return not cited or len(entries) >= len(cited)
