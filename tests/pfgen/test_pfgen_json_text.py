"""result.json is written as ``json.dumps(result, indent=2, ensure_ascii=False)`` writes it,
character for character, by a faster writer (``hyoka.pfgen._json_text``): checked on every
published sample result, on a rescored run's file, and on random JSON values."""

from __future__ import annotations

import enum
import json
import math
from collections import OrderedDict
from pathlib import Path
from typing import Any

import pytest

from _shared import PFGEN_RESULTS, data_mark, needs, writable_run_copy
from hyoka.pfgen import PfgenBenchmark, score_run
from hyoka.pfgen._json_text import _LeftToJsonError, _Writer, dumps

needs("hypothesis")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

PUBLISHED = sorted(PFGEN_RESULTS.rglob("result.json"))

#: Scalars as JSON holds them, with the values whose text is easy to get wrong: exponents,
#: negative zero, non-finite floats (``NaN``, ``Infinity``), control and non-ASCII
#: characters, lone surrogates, escapes.
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(width=64)
    | st.sampled_from((1e-7, 1e16, -0.0, 0.1, 1e22, 5e-324, math.inf, -math.inf, math.nan))
    | st.text()
    | st.sampled_from(("日本語", "\x00\x1f\x7f", '"\\/', "\ud800", "\u2028", "é\n\t"))
)
KEYS = st.text(max_size=6) | st.sampled_from(("fluency", "scores", "日本"))
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(KEYS, inner, max_size=4)
    ),
    max_leaves=30,
)


def writer_text(value: Any, indent: int = 2, ensure_ascii: bool = False) -> str:
    """The fast writer's own text: raises rather than handing the value to ``json.dumps``."""
    make = json.encoder.c_make_encoder  # type: ignore[attr-defined]
    text: str = _Writer(make, " " * indent, ensure_ascii).text(value)
    return text


@settings(max_examples=400, deadline=None)
@given(VALUES, st.sampled_from((0, 1, 2, 4)), st.booleans())
def test_random_json_values_are_written_as_json_dumps_writes_them(
    value: Any, indent: int, ensure_ascii: bool
) -> None:
    expected = json.dumps(value, indent=indent, ensure_ascii=ensure_ascii)
    assert writer_text(value, indent, ensure_ascii) == expected
    assert dumps(value, indent=indent, ensure_ascii=ensure_ascii) == expected


class Colour(enum.IntEnum):
    RED = 1


class Text(str):
    pass


def test_values_outside_plain_json_are_left_to_json_dumps() -> None:
    """Subclasses, keys that are not strings, unknown objects and cycles: the same text,
    or the same error, as ``json.dumps``."""
    cyclic: list[Any] = []
    cyclic.append([cyclic])
    odd: list[Any] = [
        {"a": [Colour.RED, 1.5]},
        {"a": {"b": Text("x")}, "c": [1]},
        {2: [2], None: {"x": 1.0}, 2.5: [], True: {}},
        {"a": OrderedDict(b=[1, (2, 3)])},
        [[1], {1: 2, False: None}],
    ]
    for value in odd:
        assert dumps(value, indent=2, ensure_ascii=False) == json.dumps(
            value, indent=2, ensure_ascii=False
        )
    with pytest.raises(_LeftToJsonError):
        writer_text(["x", Colour.RED, [1]])
    for bad, error in (({"a": [object()]}, TypeError), (cyclic, ValueError)):
        with pytest.raises(error) as expected:
            json.dumps(bad, indent=2)
        with pytest.raises(error) as got:
            dumps(bad, indent=2, ensure_ascii=False)
        assert str(got.value) == str(expected.value)


@data_mark(PFGEN_RESULTS)
@pytest.mark.parametrize("path", PUBLISHED, ids=lambda p: str(p.parent.relative_to(PFGEN_RESULTS)))
def test_every_published_result_is_written_as_json_dumps_writes_it(path: Path) -> None:
    """Without handing anything to ``json.dumps``: the fast path covers the whole shape."""
    result = json.loads(path.read_text(encoding="utf-8"))
    for ensure_ascii in (False, True):
        expected = json.dumps(result, indent=2, ensure_ascii=ensure_ascii)
        assert writer_text(result, ensure_ascii=ensure_ascii) == expected


@data_mark(PFGEN_RESULTS / "openai/chatgpt-o1/9a61e92")
@pytest.mark.usefixtures("hyoka_env")
def test_a_rescored_result_json_holds_json_dumps_bytes(
    tmp_path: Path, benchmark: PfgenBenchmark
) -> None:
    folder = writable_run_copy("openai/chatgpt-o1/9a61e92", tmp_path)
    outcome = score_run(folder, benchmark, force=True)
    written = (folder / "result.json").read_bytes()
    expected = json.dumps(outcome.result, indent=2, ensure_ascii=False).encode("utf-8")
    assert written == expected
    assert json.loads(written) == outcome.result
