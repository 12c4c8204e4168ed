"""``gc_paused``: the cyclic collector is off inside and comes back as it was, whatever the
body raised; scoring runs inside it (``hyoka.pfgen.runs.score_runs``)."""

from __future__ import annotations

import gc

import pytest

from hyoka._gc_pause import gc_paused


def test_the_collector_is_off_inside_and_restored_after() -> None:
    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the inner pause leaves the outer one in force
    assert gc.isenabled()


def test_the_collector_comes_back_after_an_error() -> None:
    with pytest.raises(KeyError), gc_paused():
        raise KeyError("x")
    assert gc.isenabled()


def test_a_collector_turned_off_by_the_caller_stays_off() -> None:
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
