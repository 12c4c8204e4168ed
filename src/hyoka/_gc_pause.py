"""Pausing Python's cyclic garbage collector while scoring builds its many small objects.

Scoring a run makes hundreds of thousands of dicts, lists and tuples (a record per trial
line, a score per answer) that are freed by reference counting as soon as they are done
with: none of them form cycles. The cyclic collector still runs every 700 new containers
and, now and then, walks every live object; profiled over the 49 shared pfgen runs (perf,
one worker) it took 10.6% of all CPU time. Paused, it costs nothing; what it would have
found (nothing, here) waits until it runs again after the pause.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    """Run the body with the cyclic collector off; its earlier state comes back after,
    whatever the body raised. Nested pauses leave it off until the outermost ends."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
