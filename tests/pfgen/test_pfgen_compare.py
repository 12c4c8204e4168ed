"""Comparing results takes a path-free shortcut when they are the same, and decides exactly
as the field-by-field walk that names the first difference does."""

from __future__ import annotations

import copy
import math
from collections import OrderedDict
from typing import Any

from _shared import needs
from hyoka.pfgen.compare import _compare, first_difference, same_results

needs("hypothesis")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.floats(width=64)
    | st.sampled_from((0.0, -0.0, 1.0, math.nan, math.inf))
    | st.text(max_size=3)
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=2), inner),
    max_leaves=20,
)
#: What may become of a leaf: a twin that is equal in Python but not in JSON, or another value.
TWINS = st.sampled_from(
    (lambda v: v, lambda v: float(v) if type(v) is int else v, lambda v: 1, lambda v: True)
)


def mutated(value: Any, data: st.DataObject) -> Any:
    """``value`` with some leaves replaced (by their Python-equal twins or other values)
    and some dicts reordered or made ``OrderedDict``."""
    if isinstance(value, dict):
        items = [(k, mutated(v, data)) for k, v in value.items()]
        if data.draw(st.booleans()):
            items.reverse()
        kind = data.draw(st.sampled_from((dict, dict, OrderedDict)))
        return kind(items)
    if isinstance(value, list):
        return [mutated(v, data) for v in value]
    return data.draw(TWINS)(value) if data.draw(st.booleans()) else value


@settings(max_examples=400, deadline=None)
@given(VALUES, st.data())
def test_the_shortcut_decides_as_the_field_by_field_walk(value: Any, data: st.DataObject) -> None:
    pairs = [
        (value, copy.deepcopy(value)),
        (value, mutated(value, data)),
        (mutated(value, data), mutated(value, data)),
    ]
    for left, right in pairs:
        published, recomputed = {"x": left}, {"x": right}
        walked = _compare(published, recomputed, "")
        assert (first_difference(published, recomputed) is None) is (walked is None)
        assert first_difference(published, recomputed) == walked
        assert same_results(published, recomputed) is (walked is None)


def test_python_equal_is_not_json_equal() -> None:
    for a, b in ((1, 1.0), (True, 1), ([1, 2], (1, 2)), (math.nan, math.nan)):
        assert first_difference({"a": [a]}, {"a": [b]}) is not None
    assert first_difference({"a": {"x": 1, "y": 2}}, {"a": {"y": 2, "x": 1}}) is not None
    assert first_difference({"a": [{"p": 0.5}], "b": "日"}, {"a": [{"p": 0.5}], "b": "日"}) is None
