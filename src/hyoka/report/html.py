"""The few HTML pieces every report page is made of, escaped once, here.

Pages are plain strings built from these helpers: no template engine (one dependency fewer,
and every value passes through ``esc``). Links are relative, so the site opens from
``file://`` wherever it is copied, and every page loads the same two asset files.
"""

from __future__ import annotations

import base64
import gzip
import html
import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from hyoka import __version__

ASSET_CSS = "assets/site.css"
ASSET_JS = "assets/site.js"


def esc(value: object) -> str:
    return html.escape(str(value), quote=True)


def num(value: float | None, digits: int = 3) -> str:
    """A number for a table cell; an en dash for a missing or non-finite one."""
    if value is None or not math.isfinite(value):
        return "–"
    return f"{value:.{digits}f}"


def prefix_for(path: str) -> str:
    """The relative way back to the site root from a page at ``path`` (``a/b.html`` -> ``../``)."""
    return "../" * path.count("/")


@dataclass(frozen=True)
class Cell:
    """A table cell: shown text (already HTML), a sort key, a tooltip and CSS classes."""

    content: str
    sort: str | float | None = None
    title: str | None = None
    classes: str = ""
    header: bool = False


def cell(
    content: str,
    sort: str | float | None = None,
    title: str | None = None,
    classes: str = "",
) -> Cell:
    return Cell(content, sort, title, classes)


def table(
    headers: Sequence[str | tuple[str, str]] | Sequence[str],
    rows: Iterable[Sequence[Cell | str]] | Iterable[Sequence[Cell]],
    *,
    sortable: bool = True,
    table_id: str | None = None,
    classes: str = "",
    row_classes: Sequence[str] | None = None,
) -> str:
    """A table whose columns sort on a click on their header (when ``sortable``).

    A header may be ``(text, tooltip)``; a string cell is escaped text sorted as shown.
    """
    head = []
    for header in headers:
        text, tip = header if isinstance(header, tuple) else (header, None)
        tip_attr = f' title="{esc(tip)}"' if tip else ""
        head.append(f"<th{tip_attr}>{esc(text)}</th>")
    body = []
    for position, row in enumerate(rows):
        cells = []
        for item in row:
            c = item if isinstance(item, Cell) else Cell(esc(item))
            attrs = ""
            if c.sort is not None:
                attrs += f' data-sort="{esc(c.sort)}"'
            if c.title:
                attrs += f' title="{esc(c.title)}"'
            if c.classes:
                attrs += f' class="{esc(c.classes)}"'
            tag = "th" if c.header else "td"
            cells.append(f"<{tag}{attrs}>{c.content}</{tag}>")
        extra = row_classes[position] if row_classes else ""
        row_attr = f' class="{esc(extra)}"' if extra else ""
        body.append(f"<tr{row_attr}>{''.join(cells)}</tr>")
    classes = " ".join(c for c in ("sortable" if sortable else "", classes) if c)
    id_attr = f' id="{esc(table_id)}"' if table_id else ""
    return (
        f'<table class="{classes}"{id_attr}><thead><tr>{"".join(head)}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table>"
    )


def packed(element_id: str, payload: dict[str, str]) -> str:
    """``payload`` (element id -> HTML) gzip-compressed in the page; site.js unpacks it
    into the named elements. Long texts (a judge's reasoning) shrink about threefold, which
    keeps a site of thousands of judgments small."""
    raw = json.dumps(payload, ensure_ascii=False).encode("utf-8")
    data = base64.b64encode(gzip.compress(raw, compresslevel=9, mtime=0)).decode("ascii")
    kind = 'type="application/octet-stream" class="packed"'
    return f'<script {kind} id="{esc(element_id)}">{data}</script>'


def page(title: str, body: str, *, path: str, footer: str = "", subtitle: str = "") -> str:
    """A whole page at ``path`` (relative to the site root) linking the shared assets."""
    up = prefix_for(path)
    nav = (
        f'<nav><a href="{up}index.html">hyoka report</a>'
        f'<a href="{up}pfgen/index.html">pfgen-bench</a>'
        f'<a href="{up}mtbench/index.html">MT-bench</a>'
        f'<a href="{up}pairwise/index.html">pairwise</a></nav>'
    )
    sub = f'<p class="subtitle">{subtitle}</p>' if subtitle else ""
    return (
        "<!DOCTYPE html>\n"
        f'<html lang="ja"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<link rel="icon" href="data:,">'
        f"<title>{esc(title)}</title>"
        f'<link rel="stylesheet" href="{up}{ASSET_CSS}">'
        f'<script defer src="{up}{ASSET_JS}"></script></head>'
        f"<body>{nav}<main><h1>{esc(title)}</h1>{sub}{body}</main>"
        f'<footer>{footer}<p class="made">made by hyoka {esc(__version__)}, '
        "offline: no script or style is loaded from anywhere else</p></footer>"
        "</body></html>\n"
    )
