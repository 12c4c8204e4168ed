"""One writer per shard: a second writer (another process here) waits, bounded, for the first.

The case this guards: a driver killed with kill -9 whose worker is still finishing its
frame when the restarted driver's worker takes the same shard. A real second process holds
the lock; the writer here must wait for it, then get it, and give up with one clear line
naming the shard when the holder keeps it past the bound.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hyoka.errors import HyokaError
from hyoka.refset.shards import append_frame, exclusive_shard, scan_shard

HOLDER = """
import sys, time
from pathlib import Path
from hyoka.store import writer_lock
with writer_lock(Path(sys.argv[1]), what="shard"):
    print("held", flush=True)
    time.sleep(float(sys.argv[2]))
"""


def _hold(path: Path, seconds: float) -> subprocess.Popen[str]:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path), str(seconds)], stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    return holder


def test_a_writer_waits_for_another_process_then_writes(tmp_path: Path) -> None:
    path = tmp_path / "shard-00000.hrs"
    holder = _hold(path, 1.5)

    async def write() -> float:
        started = time.monotonic()
        async with exclusive_shard(path, timeout=30):
            waited = time.monotonic() - started
            append_frame(path, {"batch": 0, "planned": 1}, [{"i": 0, "text": "答え"}])
        return waited

    try:
        waited = asyncio.run(write())
    finally:
        holder.wait(timeout=30)
    assert waited >= 1.0  # it did wait for the holder
    assert [f.records for f in scan_shard(path).frames] == [[{"i": 0, "text": "答え"}]]


def test_a_shard_held_past_the_bound_is_one_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "shard-00001.hrs"
    holder = _hold(path, 30)

    async def write() -> None:
        async with exclusive_shard(path, timeout=0.5):
            raise AssertionError("the lock was held elsewhere")

    try:
        with pytest.raises(HyokaError, match=rf"shard-00001\.hrs: process {holder.pid} on "):
            asyncio.run(write())
    finally:
        holder.kill()
        holder.wait(timeout=30)
    assert not path.exists()  # nothing written by the writer that gave up


def test_two_writers_in_one_process_take_turns(tmp_path: Path) -> None:
    path = tmp_path / "shard-00002.hrs"
    order: list[str] = []

    async def writer(name: str) -> None:
        async with exclusive_shard(path, timeout=30):
            order.append(f"{name} in")
            await asyncio.sleep(0.3)
            order.append(f"{name} out")

    async def both() -> None:
        await asyncio.gather(writer("a"), writer("b"))

    asyncio.run(both())
    assert order in (["a in", "a out", "b in", "b out"], ["b in", "b out", "a in", "a out"])
