"""Cells run side by side in one process (``RayExecutor`` runs ``cells`` of them at once):
each keeps the warnings it raised itself, its notes in the manifest as if it ran alone.

Two threads step through a fixed order (barriers, no sleeps): the first cell starts
listening, the second starts, each warns, the first ends while the second still runs and
warns again. ``warnings.catch_warnings`` (what a cell used before) hands the first cell's
warning to the second's list and leaves the second deaf after the first ends.
"""

from __future__ import annotations

import threading
import warnings

from hyoka.errors import HyokaWarning
from hyoka.sweep.heard import heard_warnings


def test_two_cells_side_by_side_each_hear_their_own_warnings() -> None:
    step = threading.Barrier(2, timeout=30)
    heard: dict[str, list[str]] = {}

    def cell(name: str, first: bool) -> None:
        if not first:
            step.wait()  # 1: the first is listening
        with heard_warnings() as mine:
            if first:
                step.wait()  # 1
            step.wait()  # 2: both listening
            warnings.warn(f"{name}: once", HyokaWarning, stacklevel=1)
            step.wait()  # 3: both warned
            if not first:
                step.wait()  # 4: the first has stopped listening
                warnings.warn(f"{name}: again", HyokaWarning, stacklevel=1)
        heard[name] = [str(w.message) for w in mine]
        if first:
            step.wait()  # 4

    threads = [
        threading.Thread(target=cell, args=("a", True)),
        threading.Thread(target=cell, args=("b", False)),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert heard == {"a": ["a: once"], "b": ["b: once", "b: again"]}
    # nothing left behind: a warning now is said as without a sweep, not kept by a cell
    with warnings.catch_warnings(record=True) as after:
        warnings.simplefilter("always")
        warnings.warn("after", HyokaWarning, stacklevel=1)
    assert [str(w.message) for w in after] == ["after"]
