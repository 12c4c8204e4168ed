"""A gate a test holds on one file, to prove that a command streams without timing luck.

Whoever opens the gated file through ``os.open`` (as the store opens every file it reads)
first says so on a pipe (``held``) and then waits until the test lets it through
(``release``). A test holds one run's file, waits until that run is at the gate, and
then must see another run's verdict: had the verdicts been kept until every run was done,
none could come while the gated run waits, and the test would fail (a limit ends the wait
with an error instead of a hang). Pipes, not sleeps: the order is forced, never timed.

In-process (``install``): the patched ``os.open`` is inherited by forked workers, whose
pipe ends are inherited too. In a child process: ``python tests/_gate.py PATH HELD_FD
RELEASE_FD hyoka-args...`` runs ``hyoka`` with the gate installed on ``PATH``
(``command``, ``child_fds``).
"""

from __future__ import annotations

import os
import select
import sys
from pathlib import Path
from typing import Any

#: How long either side waits for the other before failing (a hang would otherwise be it).
LIMIT_S = 120.0


class FileGate:
    """Opening ``path`` waits until the test releases it; ``held`` waits for an opener."""

    def __init__(self, path: Path | str, fds: tuple[int, int] | None = None) -> None:
        self.path = os.fspath(path)
        if fds is None:  # the test's side: both pipes, both ends
            self._held_r, self._held_w = os.pipe()
            self._release_r, self._release_w = os.pipe()
        else:  # a child's side: the ends ``child_fds`` passed
            self._held_r = self._release_w = -1
            self._held_w, self._release_r = fds
        self.opened = 0

    def child_fds(self) -> tuple[int, int]:
        """The ends a child process needs: where it says it is held, where it waits."""
        os.set_inheritable(self._held_w, True)
        os.set_inheritable(self._release_r, True)
        return self._held_w, self._release_r

    def command(self, *args: str) -> list[str]:
        """``hyoka *args`` run with this gate on ``path``."""
        held_w, release_r = self.child_fds()
        script = str(Path(__file__).resolve())
        return [sys.executable, script, self.path, str(held_w), str(release_r), *args]

    def install(self, monkeypatch: Any) -> None:
        """``os.open`` gated on ``path`` in this process and the workers it forks."""
        real = os.open

        def gated(path: Any, flags: int, mode: int = 0o777, *, dir_fd: int | None = None) -> int:
            if isinstance(path, (str, os.PathLike)) and os.fspath(path) == self.path:
                self._wait()
            return real(path, flags, mode, dir_fd=dir_fd)

        monkeypatch.setattr(os, "open", gated)

    def _wait(self) -> None:
        self.opened += 1
        os.write(self._held_w, b"h")
        ready, _, _ = select.select([self._release_r], [], [], LIMIT_S)
        if not ready:
            raise TimeoutError(f"{self.path}: held, and never released")
        os.read(self._release_r, 1)

    def held(self) -> bool:
        """Whether someone came to the gate (waiting for them, within ``LIMIT_S``)."""
        ready, _, _ = select.select([self._held_r], [], [], LIMIT_S)
        if ready:
            os.read(self._held_r, 1)
        return bool(ready)

    def release(self) -> None:
        """Every opener through, now and later (one byte per opening, to spare)."""
        os.write(self._release_w, b"r" * 1024)


def _gated_hyoka() -> None:
    path, held_w, release_r, *args = sys.argv[1:]

    class _Patch:  # the one setattr ``install`` needs, without pytest here
        @staticmethod
        def setattr(target: Any, name: str, value: Any) -> None:
            setattr(target, name, value)

    FileGate(path, (int(held_w), int(release_r))).install(_Patch())
    from hyoka.cli.main import run

    sys.argv = ["hyoka", *args]
    run()


if __name__ == "__main__":
    _gated_hyoka()
