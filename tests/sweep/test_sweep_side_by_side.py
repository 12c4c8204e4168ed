"""Cells run side by side in one process (``RayExecutor`` runs ``cells`` of them at once):
each keeps the warnings it raised itself, its notes in the manifest as if it ran alone.

Two threads step through a fixed order (barriers, no sleeps): the first cell starts
listening, the second starts, each warns, the first ends while the second still runs and
warns again. ``warnings.catch_warnings`` (what a cell used before) hands the first cell's
warning to the second's list and leaves the second deaf after the first ends.
"""

from __future__ import annotations

import json
import threading
import time
import warnings
from pathlib import Path

import pytest
from typer.testing import CliRunner

from _shared import SHARED_DATA, hearing_ctrl_c
from hyoka.cli.main import app
from hyoka.errors import HyokaWarning
from hyoka.sweep.heard import heard_warnings
from wire_servers import OpenAIServer


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


def _two_at_once(
    tmp_path: Path, url: str, models: dict[str, str], judges: dict[str, str]
) -> list[str]:
    """The sweep command of a plan whose ``models`` (name: model) and ``judges`` (name:
    judge-LETTER) are all served at ``url``, on one question of jmt-bench (llm-jp) in 8
    tokens, its cells run two at once on threads (``--executor ray --workers 2``: server
    models only, so no Ray)."""
    plan = tmp_path / "plan.toml"
    plan.write_text(
        'out = "out"\n'
        + "".join(f'[models.{name}]\nmodel = "openai/{model}"\nbase_url = "{url}"\n'
                  for name, model in models.items())
        + "".join(f'[judges.{name}]\njudge = "openai/judge-{letter}"\nbase_url = "{url}"\n'
                  for name, letter in judges.items())
        + '[[suites]]\nbench = "jmt-bench"\nvariant = "llm-jp"\nlimit = 1\nmax_tokens = 8\n',
        encoding="utf-8",
    )  # fmt: skip
    return ["sweep", str(plan), "--executor", "ray", "--workers", "2"]


def test_two_judges_cells_side_by_side_take_turns_on_the_models_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--executor ray --workers 2`` (server models only: two cells on threads, no Ray):
    two judges' cells of one judged suite make the same model's answers into one file. The
    first holds the file while the server holds its request; the second waits its turn
    (an in-process lock on the answer folder) and finds the answers made, where it failed
    on the file's own lock after its wait ("process N is writing this log"). The file's
    wait is cut short here, so the old race fails at once rather than after 3 s."""
    from hyoka.store.log import JsonlLog

    monkeypatch.setitem(JsonlLog.open.__func__.__kwdefaults__, "lock_wait", 0.02)  # type: ignore[attr-defined]
    monkeypatch.setenv("HYOKA_DATA_DIR", str(SHARED_DATA))
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(tmp_path / "cache"))
    with OpenAIServer() as server:
        url = server.base_url
        command = _two_at_once(tmp_path, url, {"mine": "seeded"}, {"ja": "a", "jb": "b"})
        server.hold_after(0)
        releaser = threading.Thread(target=_release_when_held, args=(server,))
        releaser.start()
        swept = CliRunner().invoke(app, command)
        releaser.join()
    assert swept.exit_code == 0, swept.output
    cells = json.loads((tmp_path / "out" / "sweep.json").read_text("utf-8"))["cells"]
    assert [(c["judge"], c["status"], c["error"]) for c in cells] == [
        ("ja", "done", None), ("jb", "done", None)
    ]  # fmt: skip
    # the answers made once: two turns asked by one cell, none by the other
    assert sorted(c["calls"] - 2 for c in cells) == [0, 2]


def _release_when_held(server: OpenAIServer) -> None:
    """Let the held request go a while after it came: long past the file's shortened wait
    (where the other cell, racing, failed), while the other cell waits its turn."""
    deadline = time.monotonic() + 30
    while server.held == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.3)
    server.release()


def test_ctrl_c_stops_cells_running_side_by_side_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C while two cells wait on their model's replies (``--executor ray --workers
    2``, server models: cells on threads): both are cancelled at once, as on the local
    executor, and the sweep exits 130 with its ``interrupted:`` line. Before, the sweep
    waited for both to run to their end (the answers, then the judge: asked and paid
    for), then threw their results away. The server lets the held requests go only after
    a while, as a stand-in for the old wait: a cell still running then asks again."""
    import signal

    monkeypatch.setenv("HYOKA_DATA_DIR", str(SHARED_DATA))
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(tmp_path / "cache"))
    with OpenAIServer() as server:
        url = server.base_url
        command = _two_at_once(tmp_path, url, {"m1": "seeded", "m2": "other"}, {"ja": "a"})
        server.hold_after(0)
        main = threading.main_thread().ident
        assert main is not None

        def interrupt() -> None:
            deadline = time.monotonic() + 30
            while server.held < 2 and time.monotonic() < deadline:
                time.sleep(0.01)
            signal.pthread_kill(main, signal.SIGINT)  # Ctrl-C, to the sweep's thread
            time.sleep(3)  # only a sweep that goes on reaches the server again
            server.release()

        stopper = threading.Thread(target=interrupt, daemon=True)
        stopper.start()
        with hearing_ctrl_c():  # as from a terminal, however the suite was started
            swept = CliRunner().invoke(app, command)
        asked = len(server.received)
        server.release()
    assert swept.exit_code == 130, swept.output
    assert "interrupted:" in swept.output and "Traceback" not in swept.output
    assert asked == 2  # the two held first turns; no second turn, no judge
