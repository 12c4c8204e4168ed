"""Tables in Markdown, HTML, LaTeX and MediaWiki, each checked as upstream checks it.

Written from reading upstream's ``constraints/format/tables.py`` (c8fed01). None of them
parses the table fully; each checks a shape:

- Markdown: a header row and a separator row split on ``|`` into two parts or more, each
  inner separator cell starting and ending with ``-`` or ``:``, and every later line split
  into as many parts as the header (the stripped response, split on newlines);
- HTML: the response is one ``<table ...>...</table>`` (whitespace and comments aside, as
  BeautifulSoup's ``html.parser`` reads it) with a row, and each row has a ``td`` or
  ``th`` child and sits in the table or its head, body or foot;
- LaTeX: comments dropped and a ``\\[ \\]`` wrapper opened, exactly one un-nested
  ``tabular`` (or ``tabular*``) block with nothing around it, and a column spec after its
  ``\\begin``;
- MediaWiki: ``{|`` opens the first line and ``|}`` is the whole last one (HTML comments
  dropped), no ``{|`` or ``|}`` between, and every other non-blank line a caption (``|+``),
  row break (``|-``), header (``!``) or cell (``|``) line, with a header and a cell, and no
  first header after a cell.
"""

from __future__ import annotations

import re

#: the package whose version decides the HTML verdicts (upstream's uv.lock: 4.14.2)
PACKAGES = ("bs4",)

_SEPARATOR_ENDS = ("-", ":")


def markdown_table(value: str) -> bool:
    lines = value.strip().split("\n")
    if len(lines) < 2:
        return False
    header, separator = lines[0].split("|"), lines[1].split("|")
    if len(header) < 2 or len(separator) < 2:
        return False
    for cell in separator[1:-1]:
        cell = cell.strip()
        if not (cell.startswith(_SEPARATOR_ENDS) and cell.endswith(_SEPARATOR_ENDS)):
            return False
    return all(len(line.split("|")) == len(header) for line in lines[2:])


_TABLE_FRAGMENT = re.compile(r"^\s*<table\b[^>]*>.*</table>\s*$", re.I | re.S)
_ROW_PARENTS = frozenset({"thead", "tbody", "tfoot", "table"})


def html_table(value: str) -> bool:
    from bs4 import BeautifulSoup
    from bs4.element import Comment, NavigableString

    if not _TABLE_FRAGMENT.match(value):
        return False
    soup = BeautifulSoup(value, "html.parser")
    body = soup.body or soup
    kept = [
        node
        for node in getattr(body, "contents", [])
        if not isinstance(node, Comment) and (not isinstance(node, NavigableString) or node.strip())
    ]
    if len(kept) != 1 or getattr(kept[0], "name", None) != "table":
        return False
    rows = kept[0].find_all("tr")
    return bool(rows) and all(
        row.find(["td", "th"], recursive=False)
        and not (row.parent and row.parent.name not in _ROW_PARENTS)
        for row in rows
    )


_TEX_COMMENT = re.compile(r"(?<!\\)%[^\n]*")
_TABULAR = re.compile(r"\\(begin|end)\{(tabular\*?)\}")
_TABULAR_HEAD = re.compile(
    r"\\begin\{(tabular\*?)\}\s*(?:\[[^\]]*\]\s*)?\{(?:[^{}]|\{[^{}]*\})*\}", re.DOTALL
)
_DISPLAY_MATH = re.compile(r"^\s*\\\[(.*)\\\]\s*$", re.DOTALL)


def latex_table(value: str) -> bool:
    text = _TEX_COMMENT.sub("", value).strip()
    wrapped = _DISPLAY_MATH.match(text)
    if wrapped:
        text = wrapped.group(1).strip()
    marks = list(_TABULAR.finditer(text))
    if not text or not marks:
        return False
    open_: str | None = None
    blocks = 0
    for mark in marks:
        kind, environment = mark.groups()
        if kind == "begin":
            if open_ is not None:
                return False  # nested
            open_ = environment
        else:
            if open_ != environment:
                return False
            open_ = None
            blocks += 1
    if open_ is not None or blocks != 1:
        return False
    first, last = marks[0], marks[-1]
    if text[: first.start()].strip() or text[last.end() :].strip():
        return False
    return _TABULAR_HEAD.match(text, first.start()) is not None


_HTML_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_OPENS = re.compile(r"^\s*\{\|")
_CLOSES = re.compile(r"^\s*\|\}\s*$")


def mediawiki_table(value: str) -> bool:
    lines = _HTML_COMMENT.sub("", value.strip()).splitlines()
    if not lines or not _OPENS.match(lines[0]) or not _CLOSES.match(lines[-1]):
        return False
    inner = lines[1:-1]
    if any("{|" in line or "|}" in line for line in inner):
        return False
    header = cell = False
    for line in (raw.strip() for raw in inner):
        if not line or line.startswith(("|+", "|-")):
            continue
        if line.startswith("!"):
            if cell and not header:
                return False
            header = True
        elif line.startswith("|"):
            cell = True
        else:
            return False
    return header and cell
