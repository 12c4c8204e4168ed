"""Every wait has a bound (issue 17, #8).

``hyoka data fetch`` from a server that trickles (its headers or its body, a byte now and
then, never silent long enough for a socket timeout) stops at ``timeout + size/min_rate``
with one ``error:`` line; ``--executor ray`` with a ``RAY_ADDRESS`` where no cluster answers
(a closed port, a port that accepts and never speaks) stops after ``HYOKA_RAY_CONNECT_TIMEOUT``
seconds with one line naming the address. The servers are real sockets on 127.0.0.1.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from _shared import missing_reason
from hyoka.cli.main import app
from hyoka.data import manifest
from hyoka.data.fetch import BASE_URL_ENV, DEFAULT_MIN_RATE, DEFAULT_TIMEOUT_S

FIRST = manifest("pfgen").files[0]  # Q01.json, 280,239 bytes


class TrickleServer:
    """Answers every request with a byte every ``gap`` seconds, forever: in the headers
    (``where="headers"``) or, after whole headers promising ``FIRST.size`` bytes, in the
    body. ``requests`` counts the connections that asked."""

    def __init__(self, where: str, gap: float = 0.05) -> None:
        self.where = where
        self.gap = gap
        self.requests = 0
        self.stop = threading.Event()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self) -> None:
        self.listener.settimeout(0.1)
        while not self.stop.is_set():
            try:
                conn, _ = self.listener.accept()
            except TimeoutError:
                continue
            self.requests += 1
            threading.Thread(target=self._trickle, args=(conn,), daemon=True).start()

    def _trickle(self, conn: socket.socket) -> None:
        with conn, contextlib.suppress(OSError):
            request = b""
            while b"\r\n\r\n" not in request:
                request += conn.recv(4096)
            if self.where == "headers":
                conn.sendall(b"HTTP/1.1 200 OK\r\nX-Slow: ")
            else:
                conn.sendall(f"HTTP/1.1 200 OK\r\nContent-Length: {FIRST.size}\r\n\r\n".encode())
            while not self.stop.is_set():
                conn.sendall(b"a")
                time.sleep(self.gap)

    def __enter__(self) -> TrickleServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join()
        self.listener.close()


@pytest.mark.parametrize("where", ["body", "headers"])
def test_a_trickling_server_is_cut_off_at_the_stated_bound(tmp_path: Path, where: str) -> None:
    """--timeout 1 and a minimum rate that gives Q01.json one more second: 2 s in all,
    though a byte arrives every 0.05 s (no socket timeout would ever fire)."""
    min_rate_kb = FIRST.size / 1000  # kB/s: the whole file in one second
    with TrickleServer(where) as server:
        started = time.monotonic()
        done = CliRunner().invoke(
            app,
            ["data", "fetch", "pfgen", "--data-dir", str(tmp_path), "--timeout", "1",
             "--min-rate", str(min_rate_kb)],
            env={BASE_URL_ENV: server.url},
        )  # fmt: skip
        took = time.monotonic() - started
    assert done.exit_code == 1
    assert "Traceback" not in done.output
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(f"error: could not download {FIRST.path} from {server.url}/")
    assert "the download took longer than its bound of 2 s" in line
    assert f"of {FIRST.size} bytes received" in line
    assert 1.9 < took < 6, took
    assert server.requests == 1  # a deadline passed is not tried again
    leftovers = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert leftovers == []


def test_the_cli_defaults_are_the_librarys() -> None:
    """``--help`` shows the bounds without importing the fetcher: the numbers are written
    twice, and held equal here."""
    shown = CliRunner().invoke(app, ["data", "fetch", "--help"], env={"COLUMNS": "200"})
    assert "[default: 30.0]" in shown.stdout and "[default: 10.0]" in shown.stdout
    assert (DEFAULT_TIMEOUT_S, DEFAULT_MIN_RATE) == (30.0, 10_000.0)


# --- Ray ------------------------------------------------------------------------------------

needs_ray = pytest.mark.skipif(
    importlib.util.find_spec("ray") is None, reason=missing_reason("ray")
)
_CONNECT = """
import sys
from hyoka.errors import HyokaError
from hyoka.refset.executor import connect_ray
try:
    connect_ray()
except HyokaError as exc:
    print("error:", exc)
    sys.exit(1)
print("connected")
"""


@contextlib.contextmanager
def _silent_port() -> Iterator[int]:
    """A port that accepts connections and never says a word. On every interface: Ray
    turns a loopback address into the host's own before it connects."""
    listener = socket.create_server(("0.0.0.0", 0))
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.1)
        while not stop.is_set():
            with contextlib.suppress(TimeoutError):
                held.append(listener.accept()[0])

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        stop.set()
        thread.join()
        for conn in held:
            conn.close()
        listener.close()


def _closed_port() -> int:
    with socket.create_server(("127.0.0.1", 0)) as probe:
        return int(probe.getsockname()[1])


@needs_ray
@pytest.mark.parametrize("server", ["closed", "silent"])
def test_a_ray_address_where_no_cluster_answers_is_one_line_within_the_bound(
    server: str,
) -> None:
    with contextlib.ExitStack() as stack:
        port = _closed_port() if server == "closed" else stack.enter_context(_silent_port())
        address = f"127.0.0.1:{port}"
        env = {**os.environ, "RAY_ADDRESS": address, "HYOKA_RAY_CONNECT_TIMEOUT": "1"}
        started = time.monotonic()
        done = subprocess.run(
            [sys.executable, "-c", _CONNECT], env=env, capture_output=True, text=True, timeout=60
        )
        took = time.monotonic() - started
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout.strip() == (
        f"error: no Ray cluster answered at RAY_ADDRESS={address} within 1 s "
        "(HYOKA_RAY_CONNECT_TIMEOUT): is it running? (`ray status`)"
    )
    assert "Traceback" not in done.stderr
    assert took < 20, took  # the bound, plus starting Python and importing Ray


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "soon"])
def test_a_connect_bound_that_is_not_a_positive_number_is_one_line(
    value: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hyoka.errors import HyokaError
    from hyoka.refset.executor import connect_timeout

    monkeypatch.setenv("HYOKA_RAY_CONNECT_TIMEOUT", value)
    with pytest.raises(HyokaError, match=r"^\$HYOKA_RAY_CONNECT_TIMEOUT=.*: expected a positive"):
        connect_timeout()
    monkeypatch.setenv("HYOKA_RAY_CONNECT_TIMEOUT", "2.5")
    assert connect_timeout() == 2.5
    monkeypatch.delenv("HYOKA_RAY_CONNECT_TIMEOUT")
    assert connect_timeout() == 30.0
