"""Upstream's Python files read for the exact texts a protocol sends (the ``sources`` data
group: FastChat's conversation templates, Shaberi's prompts, JFBench's constraint
wordings): parsed into a syntax tree, never imported or run, so a file fetched from
elsewhere can hand hyoka nothing but the literals it holds. One home for the parse, so a
file that is not Python, or nests too deeply for the parser, is one error naming it
wherever it is read.
"""

from __future__ import annotations

import ast
from pathlib import Path

from hyoka.errors import DataError


def parsed_source(path: Path, data: bytes) -> ast.Module:
    """The syntax tree of ``data``, the bytes of ``path`` (named in the error)."""
    try:
        return ast.parse(data.decode("utf-8"), filename=str(path))
    except (SyntaxError, UnicodeDecodeError, ValueError) as exc:
        raise DataError(f"{path}: not readable Python ({exc})") from None
    except (RecursionError, MemoryError):  # what CPython's parser raises when nesting runs deep
        raise DataError(f"{path}: not readable Python (nested too deeply to parse)") from None
