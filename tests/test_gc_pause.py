"""``gc_paused``: the cyclic collector is off inside and comes back as it was, whatever the
body raised; scoring runs inside it (``hyoka.pfgen.runs.score_runs``). ``gc_relaxed``: on,
but seldom, what existed before set aside, and all as it was after (judging runs inside
it: ``test_judge_engine``)."""

from __future__ import annotations

import gc

import pytest

from hyoka._gc_pause import RELAXED_YOUNG, gc_paused, gc_relaxed


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


def test_relaxed_collects_seldom_sets_aside_what_exists_and_restores_it_all() -> None:
    thresholds = gc.get_threshold()
    gc.unfreeze()  # an earlier test's ``hyoka.cli.main.run`` may have frozen its objects
    kept: list[list[object]] = [[] for _ in range(100)]  # made before: set aside inside
    with pytest.raises(KeyError), gc_relaxed():
        assert gc.isenabled() and gc.get_threshold() == (RELAXED_YOUNG, *thresholds[1:])
        assert gc.get_freeze_count() >= len(kept)
        raise KeyError("x")
    assert gc.get_threshold() == thresholds and gc.get_freeze_count() == 0


def test_relaxed_leaves_what_the_caller_froze_frozen() -> None:
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        with gc_relaxed():
            pass
        assert gc.get_freeze_count() >= frozen
    finally:
        gc.unfreeze()
