"""Text from outside made fit to show: the one rule for a server's fields, a model's name
and a file's contents on their way to a terminal, a log line or a stored record.

A terminal acts on some characters instead of showing them: ``ESC`` starts a sequence
that can clear the screen, set the window's title or recolour what follows; a carriage
return or a newline lets text pose as a line of hyoka's own (``error: ...``); the C1
controls (``\\x9b`` is a one-character ``ESC [``) act on many terminals too; and the
bidirectional overrides (U+202E) make text read in another order than it is written.
``printable`` shows each such character as its Python escape (``\\x1b``, ``\\n``,
``\\u202e``), so nothing is hidden or lost, and everything else, any script's letters
included, passes as it is. A lone surrogate, which no UTF-8 terminal or file can take, is
shown the same way.

``limit`` bounds the length where outside text is kept or repeated (a 1 MB model name is
no name): the first ``limit`` characters, then ``…``.

Two kinds of text a command prints whole have rules of their own. JSON (``printable_json``)
must stay JSON: each such character becomes its ``\\u`` escape, which decodes to the same
value (``json.dumps`` escapes the C0 controls but writes DEL, the C1 controls and the
bidirectional overrides as they are). A Markdown table cell (``markdown_cell``) must stay
one cell: a line break would end its row and let a name forge the next, a ``|`` add a cell.
A line of a document (a note, a title) holds a name on one line (``one_line``). CSV
(``csv_text``, every command's one writer) keeps each value whole in its quoted field,
line breaks included: a file written is data. Shown on a terminal (``printable_csv``) a
field's line breaks are escaped, as JSON's are, so no name starts a line of its own.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence

#: Characters a terminal may act on besides tab and newline: the other C0 controls, DEL
#: and the C1 controls, the line and paragraph separators, the bidirectional marks and
#: overrides, and lone surrogates.
_ACTING = (
    "\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029"
    "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff"
)
#: What ``printable`` escapes in text of several lines (a table, an answer), and in one line
_IN_LINES = re.compile(f"[{_ACTING}]")
_IN_ONE_LINE = re.compile(f"[\t\n{_ACTING}]")

#: The longest name a server may give for what served a call (``GenerationResponse.model``).
NAME_LIMIT = 256
#: The most of a server's own message an error repeats.
MESSAGE_LIMIT = 500


def _escaped(match: re.Match[str]) -> str:
    return ascii(match.group())[1:-1]


def printable(text: str, *, limit: int | None = None, lines: bool = False) -> str:
    """``text`` with every character a terminal acts on shown as its escape (module
    docstring); ``lines``: tabs and newlines kept, for text shown as several lines;
    ``limit``: at most that many characters shown, then ``…`` (the escapes count, so a
    bounded result is bounded however many there were).

    The result holds only printable characters: applying it again changes nothing.
    """
    pattern = _IN_LINES if lines else _IN_ONE_LINE
    head = text if limit is None else text[: limit + 1]
    shown = pattern.sub(_escaped, head) if pattern.search(head) else head
    if limit is not None and len(shown) > limit:
        return shown[:limit] + "…"
    return shown


def printable_json(text: str) -> str:
    """JSON text with every character a terminal acts on (module docstring) written as its
    JSON escape (``\\u009b``): the same JSON value, shown. Outside its strings JSON text
    holds none of them (its line breaks and indentation are kept), and inside them a
    ``\\u`` escape means the character itself; everything else, Japanese included, stays
    as it is."""
    return _IN_LINES.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def shown_alike(text: str) -> str:
    """What ``text`` looks like on screen, as one key: its NFC form. Names that differ only
    in Unicode normalisation (``ガ`` as one code point or as ``カ`` + U+3099) are shown
    identically, so rows labelled with them must be told apart as rows of one label."""
    return unicodedata.normalize("NFC", text)


def unicode_form(text: str) -> str:
    """Which normalisation ``text`` is written in, to tell names ``shown_alike`` apart."""
    if unicodedata.is_normalized("NFC", text):
        return "NFC"
    return "NFD" if unicodedata.is_normalized("NFD", text) else "mixed form"


def markdown_cell(text: str) -> str:
    """``text`` as one cell of a Markdown table: on one line (each line break a space), its
    ``\\`` and ``|`` escaped, so a name from a file can neither end its row nor add a cell.
    The characters a terminal acts on are left to ``printable``, where the table is shown:
    a file keeps the text as it was."""
    return one_line(text).replace("\\", "\\\\").replace("|", "\\|")


#: What a Markdown link's destination cannot hold as it is: it would end the destination
#: (a space, a parenthesis, an angle bracket) or the cell (``|``), or be read as an escape
#: or a percent sign's code; with control and space characters, percent-encoded.
_LINK_UNSAFE = frozenset(' ()<>[]\\|%"`')


def markdown_link_target(target: str) -> str:
    """``target`` (a path) as a Markdown link's destination: each character that could end
    the link, start another or break the cell (``_LINK_UNSAFE``, control and space
    characters, line breaks included) percent-encoded as UTF-8, as a URL would be; others,
    non-ASCII letters included, kept, so a plain path reads as it is written."""
    return "".join(
        "".join(f"%{byte:02X}" for byte in char.encode("utf-8", "surrogatepass"))
        if char in _LINK_UNSAFE or unicodedata.category(char)[0] in "CZ"
        else char
        for char in target
    )


def markdown_link_text(text: str) -> str:
    """``text`` as a Markdown link's text inside a table's cell (``markdown_cell``), its
    brackets escaped so that a name cannot close the link and open one of its own."""
    return markdown_cell(text).replace("[", "\\[").replace("]", "\\]")


def one_line(text: str) -> str:
    """``text`` with each line break (any ``str.splitlines`` splits at) a space: a name
    inside a line of Markdown (a table's cell, a list's item) that cannot end it."""
    return " ".join(text.splitlines())


def csv_text(rows: Iterable[Sequence[object]], comments: Iterable[str] = ()) -> str:
    """``rows`` as CSV records (``None`` an empty field), then each of ``comments`` on a
    ``#`` line of its own, made one line: what every command writes for ``--format csv``.

    A field a spreadsheet would run as a formula (it starts with ``=``, ``@``, a tab, a
    carriage return, or ``+``/``-`` followed by an operator, a call or a link such as
    ``-1+cmd|...``) gets a ``'`` before it, as OWASP advises, so it is shown as text; numbers,
    negative ones included, and labels such as ``-1σ`` are written as they are.
    A field is quoted, its ``"`` doubled, where it holds a comma, a quote or a line break
    (a carriage return too, which Python's ``csv`` leaves bare under a ``\\n`` line end,
    and which ends a record for most readers), or starts with ``#`` (a record is never
    read as a comment); else written as it is, as ``csv.writer`` writes it. So in the text
    a ``"`` only opens or closes a field, and only a comment starts with ``#``:
    ``printable_csv`` tells the line breaks inside fields from those between records."""
    lines = []
    for row in rows:
        fields = [_csv_field(value) for value in row]
        lines.append('""' if fields == [""] else ",".join(fields))
    lines.extend(f"# {one_line(comment)}" for comment in comments)
    return "".join(f"{line}\n" for line in lines)


def table_text(
    header: Sequence[str], rows: Iterable[Sequence[str]], notes: Sequence[str], fmt: str
) -> str:
    """A table and the notes under it, as ``--format`` asks: ``csv`` (``csv_text``, the
    notes as ``#`` comments), ``md`` (a Markdown table, each cell ``markdown_cell``) or
    plain (cells joined by ``|``, each ``printable``); each note one line. The one writer
    of the tables the ranked benchmarks print (Rakuda's, M-IFEval-Ja's, JFBench's)."""
    table = [list(header), *(list(row) for row in rows)]
    if fmt == "csv":
        return csv_text(table, notes).removesuffix("\n")
    if fmt == "md":
        lines = [f"| {' | '.join(markdown_cell(cell) for cell in row)} |" for row in table]
        lines.insert(1, "|" + "|".join(["---"] * len(header)) + "|")
    else:  # a name on one line, as in every table
        lines = [" | ".join(printable(cell) for cell in row) for row in table]
    return "\n".join([*lines, *map(one_line, notes)])


def _csv_field(value: object) -> str:
    text = "" if value is None else str(value)
    if _CSV_FORMULA.match(text) and not _is_number(text):
        text = "'" + text  # read as text, not run as a formula (OWASP's CSV injection rule)
    if text.startswith("#") or _CSV_QUOTED.search(text):
        return '"' + text.replace('"', '""') + '"'
    return text


_CSV_QUOTED = re.compile('[,"\r\n]')
#: What a spreadsheet reads as the start of a formula (``=HYPERLINK(...)`` in a model name
#: would be run when the CSV is opened; ``+cmd|' /C calc'!A0``): a sign counts only before an
#: operator, a call or a link, so a number (``-0.5``), a lone sign and a label (``-1σ``) are data
_CSV_FORMULA = re.compile(r"[=@\t\r]|[+-].*[-+*/^&=(!|@\"]")


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


#: A comment line, or a quoted field (``csv_text``'s: nothing else holds a ``"``)
_CSV_COMMENT_OR_FIELD = re.compile(r'^#[^\n]*|"(?:[^"]|"")*"', re.MULTILINE)


def printable_csv(text: str) -> str:
    """CSV text of ``csv_text`` made printable for a terminal: each quoted field on one line
    (its line breaks and tabs escaped, as ``printable`` shows them), the records' line
    breaks kept, so a name with a line break shows where it is, not as a line of its own."""
    fields_one_line = _CSV_COMMENT_OR_FIELD.sub(lambda match: printable(match.group()), text)
    return printable(fields_one_line, lines=True)
