"""Terminal tables that stay readable however narrow the terminal is.

rich shrinks a table that is wider than the terminal by cropping its columns: at 80
columns the pfgen score table lost Truthfulness and Helpfulness and its headers read
``Mo…``. Every command therefore prints its tables through :func:`print_table`: a table
that fits is printed as it is, full width; one that does not is turned on its side, one
``field  value`` line per cell and a section per row, where every header shows in full and
long values (model names, paths) fold instead of being cut.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

#: Wide enough that no table is shrunk while its natural width is measured.
_MEASURING_WIDTH = 10_000


def natural_width(table: Table) -> int:
    """The columns ``table`` needs to show every cell uncut: on one line, except in a column
    that folds (``overflow="fold"`` with a ``min_width``), counted at that width."""
    from rich.cells import cell_len
    from rich.console import Console

    folding = [c for c in table.columns if c.overflow == "fold" and c.min_width is not None]
    widest = [c.max_width for c in folding]
    scratch = Console(file=io.StringIO(), width=_MEASURING_WIDTH, color_system=None)
    try:
        for column in folding:
            column.max_width = column.min_width
        with scratch.capture() as captured:
            scratch.print(table)
    finally:
        for column, width in zip(folding, widest, strict=True):
            column.max_width = width
    return max((cell_len(line) for line in captured.get().splitlines()), default=0)


def vertical(table: Table) -> Table:
    """``table`` on its side: for each row, one ``header  value`` line per column."""
    from rich.table import Table

    side = Table(title=table.title, show_header=False, caption=table.caption)
    side.add_column("field", style="bold", no_wrap=True)
    side.add_column("value", overflow="fold")
    columns = table.columns
    rows = [list(column.cells) for column in columns]
    count = min((len(cells) for cells in rows), default=0)
    for index in range(count):
        for position, column in enumerate(columns):
            last = position == len(columns) - 1 and index < count - 1
            side.add_row(column.header, rows[position][index], end_section=last)
    return side


def fitted(table: Table, width: int) -> Table:
    """``table`` as it is when it fits in ``width`` columns (or has no headers to repeat),
    else :func:`vertical`."""
    if not table.show_header or natural_width(table) <= width:
        return table
    return vertical(table)


def print_table(table: Table, console: Console | None = None) -> None:
    """Print ``table`` on ``console`` (stdout by default), fitted to its width."""
    if console is None:
        from hyoka.cli._common import console as stdout

        console = stdout
    console.print(fitted(table, console.width))
