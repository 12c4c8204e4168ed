"""The compensated float sum (CPython 3.12's ``sum``) compiled into the kernel gives every bit
its Python twin gives, and over one or two values both summations are the plain left-to-right
sum, which is what lets scoring skip the compensated loop (and re-summing) for such answers.
"""

from __future__ import annotations

import math
import struct
from fractions import Fraction
from typing import Any

import pytest

from _shared import needs
from hyoka.pfgen._pysum import (
    Summation,
    compensated_sum_in_python,
    float_sum,
    plain_sum_is_compensated,
    summing,
)

needs("hypothesis")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

kernel = pytest.importorskip(
    "hyoka.pfgen._ngram_kernel", reason="the compiled kernel is not built (see setup.py)"
)

PROPERTY = settings(max_examples=400, deadline=None)

#: Doubles of every kind: any bit pattern (subnormals, the largest, NaN payloads, both
#: zeros, infinities) and the values where the two summations part ways.
DOUBLES = (
    st.floats(width=64)
    | st.integers(0, 2**64 - 1).map(lambda bits: struct.unpack("<d", bits.to_bytes(8, "little"))[0])
    | st.sampled_from((0.1, 1e16, -1e16, 1e308, -1e308, 5e-324, -5e-324, -0.0, 0.0, math.inf))
)


def bits(value: float) -> bytes:
    """The value's eight bytes, which tell -0.0 from 0.0; any NaN is one value (C may add
    ``a + b`` as ``b + a``, so which payload survives is not Python's to promise: ``repr``
    and JSON write every NaN alike)."""
    return b"nan" if math.isnan(value) else struct.pack("<d", value)


@PROPERTY
@given(st.lists(DOUBLES, max_size=40))
def test_the_compiled_compensated_sum_is_the_python_loop_bit_for_bit(values: list[float]) -> None:
    assert bits(kernel.compensated_sum(values)) == bits(compensated_sum_in_python(values))
    assert bits(float_sum(values)) == bits(compensated_sum_in_python(values))
    for summation in Summation:
        assert bits(summing(summation)(values)) == bits(float_sum(values, summation))


def test_the_compiled_sum_takes_what_float_takes_and_fails_as_it_fails() -> None:
    """Any iterable; each value through ``float()`` (ints, bools, numeric strings), the
    same errors where ``float()`` refuses a value."""
    values = iter([1, True, "2.5", 0.25, Fraction(1, 4)])
    assert kernel.compensated_sum(values) == 5.0 == compensated_sum_in_python([1, 1, 2.5, 0.5])
    assert kernel.compensated_sum({"a": 0.1, "b": 0.2}.values()) == 0.1 + 0.2
    assert kernel.compensated_sum(()) == 0.0
    refused: list[list[Any]] = [["x"], [None], [10**400]]
    for bad in refused:
        with pytest.raises((ValueError, TypeError, OverflowError)) as compiled:
            kernel.compensated_sum(bad)
        with pytest.raises(compiled.type):
            compensated_sum_in_python(bad)
    with pytest.raises(TypeError):
        kernel.compensated_sum(1.0)


def test_where_the_summations_differ_the_compiled_sum_is_compensated() -> None:
    """Three values are enough to tell them apart (the case real answers with three
    reference sets hit)."""
    values = [1e16, 1.0, -1e16]
    assert float_sum(values) == 1.0
    assert float_sum(values, Summation.SEQUENTIAL) == 0.0


@PROPERTY
@given(st.lists(DOUBLES, max_size=2))
def test_one_or_two_values_sum_alike_under_both_summations(values: list[float]) -> None:
    """The proof in ``plain_sum_is_compensated``, checked on every kind of double."""
    assert plain_sum_is_compensated(len(values))
    plain = 0.0
    for value in values:
        plain += value
    assert bits(compensated_sum_in_python(values)) == bits(plain)
    assert bits(float_sum(values, Summation.SEQUENTIAL)) == bits(plain)
    assert not plain_sum_is_compensated(3)
