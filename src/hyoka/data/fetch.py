"""Download a benchmark's pinned files into the data directory, and check what is there.

Scores are only comparable if everyone scores against the same bytes, so every file is
checked against the size and SHA-256 in its manifest, both before (a file already present
is kept only if it verifies) and after download (a download is moved under its final name
only once it verifies). Downloads go to a temporary file beside the target and are renamed
into place, so an interrupted or bad download never leaves a plausible-looking file behind.

Only the standard library is used for HTTP: the files are small static blobs on a CDN, and
the retry rules we need (connection errors and 5xx only) are a few lines.

Every wait has a bound. ``timeout`` bounds connecting and each silence of the server (no
byte for that long: the attempt fails and is retried); a whole attempt at one file,
headers and body, is bounded by ``timeout + size / min_rate`` (a server that trickles a
byte now and then is cut off there, by a watchdog that closes the socket, and not asked
again: one clear line says how long it took and how much arrived).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import http.client
import os
import socket
import stat
import threading
import time
from collections.abc import Callable, Collection, Generator
from dataclasses import dataclass
from http.client import HTTPException
from pathlib import Path
from typing import Any, Literal
from urllib.error import HTTPError, URLError
from urllib.parse import quote
from urllib.request import HTTPHandler, HTTPSHandler, Request, build_opener

from hyoka import __version__
from hyoka.data.manifest import CORE, Group, Manifest, ManifestFile
from hyoka.data.paths import resolve_data_dir
from hyoka.errors import DataError, HyokaError, InputError
from hyoka.store import clean_stale_temp_files, new_file_mode, sha256_file, temp_path_for

DEFAULT_BASE_URL = "https://raw.githubusercontent.com"
#: Points downloads at a mirror (or, in tests, a local server) laid out like the default.
BASE_URL_ENV = "HYOKA_DATA_BASE_URL"

_CHUNK = 1 << 20
_USER_AGENT = f"hyoka/{__version__}"
#: Statuses worth asking again for: the server or a proxy is having a moment.
_RETRY_STATUSES = frozenset({408, 425, 429})
#: Seconds without a byte (or to connect) before an attempt fails and is retried.
DEFAULT_TIMEOUT_S = 30.0
#: The slowest average a download may keep, in bytes per second: a file of ``size`` bytes
#: gets ``timeout + size / min_rate`` seconds in all (a 1 MB question file: 130 s).
DEFAULT_MIN_RATE = 10_000.0


@dataclass(frozen=True)
class FileProblem:
    """Why a file in the data directory cannot be used as it is: a pinned ``file`` missing
    or corrupt, or (``file`` None) an ``extra`` one at ``extra_path`` that the benchmark's
    reader would read (``Manifest.reads``) though the manifest does not pin it."""

    file: ManifestFile | None
    kind: Literal["missing", "corrupt", "extra"]
    detail: str
    extra_path: str = ""

    @property
    def path(self) -> str:
        """The file's path in the data directory."""
        return self.file.path if self.file is not None else self.extra_path

    @property
    def group(self) -> Group:
        """The pinned file's group; an extra file is read when scoring: ``core``."""
        return self.file.group if self.file is not None else "core"

    @property
    def derived(self) -> str | None:
        return self.file.derived if self.file is not None else None

    def to_json(self) -> dict[str, Any]:
        """The file's path in the data directory, its group, and what is wrong with it."""
        return {"path": self.path, "group": self.group, "kind": self.kind,
                "detail": self.detail}  # fmt: skip


@dataclass(frozen=True)
class VerifyReport:
    """The result of checking one benchmark's files without touching the network."""

    manifest: Manifest
    data_dir: Path
    checked: int
    problems: tuple[FileProblem, ...]

    @property
    def ok(self) -> bool:
        return not self.problems


@dataclass(frozen=True)
class FetchReport:
    """What a fetch did; ``problems`` are the corrupt files found (and replaced) on the way."""

    manifest: Manifest
    data_dir: Path
    present: int
    downloaded: int
    refetched: int
    bytes_downloaded: int
    problems: tuple[FileProblem, ...] = ()
    #: derived files (``ManifestFile.derived``) not present: nothing to download them from
    not_made: tuple[ManifestFile, ...] = ()

    @property
    def total(self) -> int:
        return self.present + self.downloaded + self.refetched

    def to_json(self) -> dict[str, Any]:
        """The benchmark, the data directory, how many files were present, downloaded and
        re-fetched (bytes downloaded), the corrupt files replaced and the derived files not
        made (nothing to download them from)."""
        return {
            "benchmark": self.manifest.name, "data_dir": str(self.data_dir),
            "files": self.total, "present": self.present, "downloaded": self.downloaded,
            "refetched": self.refetched, "bytes_downloaded": self.bytes_downloaded,
            "problems": [problem.to_json() for problem in self.problems],
            "not_made": [file.path for file in self.not_made],
        }  # fmt: skip


@dataclass(frozen=True)
class FetchEvent:
    """One step of a fetch, for progress display.

    ``present`` and ``bytes`` carry in ``nbytes`` how far the work moved on; ``retry``
    carries the bytes of the failed attempt, which a progress bar should take back.
    """

    kind: Literal["present", "corrupt", "start", "bytes", "retry", "done"]
    file: ManifestFile
    nbytes: int = 0
    detail: str = ""


ProgressCallback = Callable[[FetchEvent], None]


class _TransientError(Exception):
    """A failure that may go away if we ask again (connection trouble, 5xx, short body)."""


class _FatalError(Exception):
    """A failure that asking again will not fix (404, wrong bytes)."""


def resolve_base_url(base_url: str | None = None) -> str:
    """``base_url``, else ``$HYOKA_DATA_BASE_URL``, else GitHub's raw-file host."""
    url = base_url or os.environ.get(BASE_URL_ENV) or DEFAULT_BASE_URL
    if not url.startswith(("http://", "https://")):
        source = "base URL" if base_url else f"${BASE_URL_ENV}"
        raise HyokaError(f"{source} must start with http:// or https://, got {url!r}")
    return url.rstrip("/")


def file_url(manifest: Manifest, file: ManifestFile, base_url: str | None = None) -> str:
    """Where ``file`` is downloaded from: ``{base}/{repository}/{commit}/{upstream}``, the
    file's own repository and commit where it names them (``Manifest.source``)."""
    base = resolve_base_url(base_url)
    repository, commit = manifest.source(file)
    return f"{base}/{repository}/{commit}/{quote(file.upstream, safe='/')}"


def check_file(file: ManifestFile, path: Path) -> FileProblem | None:
    """``None`` if ``path`` holds exactly the bytes the manifest pins, else what is wrong."""
    try:
        info = path.stat()
    except FileNotFoundError:
        return FileProblem(file, "missing", "missing")
    except OSError as exc:
        return FileProblem(file, "corrupt", f"cannot read: {exc.strerror or exc}")
    if stat.S_ISREG(info.st_mode) and info.st_size != file.size:
        # Cheap and the usual sign of an interrupted copy: no need to hash.
        return FileProblem(file, "corrupt", f"{info.st_size} bytes, expected {file.size}")
    try:  # read as the store reads every input: a FIFO is not waited on, a device not read
        digest = sha256_file(path, limit=file.size, what="the pinned file")
    except InputError as exc:
        return FileProblem(file, "corrupt", str(exc).removeprefix(f"{path}: "))
    if digest != file.sha256:
        return FileProblem(file, "corrupt", "SHA-256 does not match the manifest")
    return None


def verify(
    manifest: Manifest, data_dir: Path | str | None = None, groups: Collection[Group] = CORE
) -> VerifyReport:
    """Check the files of ``groups`` in the data directory; never downloads."""
    root = resolve_data_dir(data_dir)
    selected = manifest.select(groups)
    problems = tuple(
        FileProblem(p.file, p.kind, f"{p.detail}; derived: {f.derived}") if f.derived else p
        for f in selected
        if (p := check_file(f, root / f.path)) is not None
    )
    return VerifyReport(manifest, root, len(selected), problems + extra_files(manifest, root))


def extra_files(manifest: Manifest, root: Path) -> tuple[FileProblem, ...]:
    """The files under ``root`` that ``manifest``'s reader would read (``Manifest.reads``)
    but it does not pin: each would be scored as if it were the benchmark's data."""
    pinned = {file.path for file in manifest.files}
    found: list[FileProblem] = []
    for glob in manifest.reads:
        for path in sorted(root.glob(glob)):
            relative = path.relative_to(root).as_posix()
            if relative not in pinned:
                detail = f"not in the pinned release, yet read as data: every {glob} is"
                found.append(FileProblem(None, "extra", detail, relative))
    return tuple(found)


def fetch(
    manifest: Manifest,
    data_dir: Path | str | None = None,
    *,
    base_url: str | None = None,
    groups: Collection[Group] = CORE,
    progress: ProgressCallback | None = None,
    timeout: float = DEFAULT_TIMEOUT_S,
    retries: int = 3,
    backoff: float = 1.0,
    min_rate: float = DEFAULT_MIN_RATE,
) -> FetchReport:
    """Make the data directory hold every file of ``groups``, downloading what is missing.

    Files that already verify are left alone, so running this again is cheap and safe.
    Corrupt ones are reported through ``progress`` and downloaded again. Each download is
    tried ``retries`` more times after connection errors, ``timeout`` seconds of silence
    or 5xx answers, waiting ``backoff`` seconds and doubling; an attempt that takes longer
    than ``timeout + size / min_rate`` seconds is not tried again; the first file that
    still fails raises ``DataError``.
    """
    if not (timeout > 0 and min_rate > 0):
        raise HyokaError("the download timeout and minimum rate must be positive")
    root = resolve_data_dir(data_dir)
    base = resolve_base_url(base_url)
    notify: ProgressCallback = progress or _ignore
    present = downloaded = nbytes = 0
    problems: list[FileProblem] = []
    not_made: list[ManifestFile] = []
    for file in manifest.select(groups):
        dest = root / file.path
        problem = check_file(file, dest)
        if problem is None:
            present += 1
            notify(FetchEvent("present", file, file.size))
            continue
        if file.derived is not None:
            not_made.append(file)
            continue
        if problem.kind == "corrupt":
            problems.append(problem)
            notify(FetchEvent("corrupt", file, detail=problem.detail))
        else:
            downloaded += 1
        notify(FetchEvent("start", file))
        url = file_url(manifest, file, base)
        _download(
            file, url, dest, notify,
            timeout=timeout, retries=retries, backoff=backoff, min_rate=min_rate,
        )  # fmt: skip
        nbytes += file.size
        notify(FetchEvent("done", file))
    extras = extra_files(manifest, root)
    if extras:  # what a fetch cannot mend: one line, after what it could
        more = f" (and {len(extras) - 1} more)" if len(extras) > 1 else ""
        raise DataError(
            f"{root / extras[0].path}{more}: {extras[0].detail}; move it out of the data directory"
        )
    return FetchReport(
        manifest, root, present, downloaded, len(problems), nbytes, tuple(problems),
        tuple(not_made),
    )  # fmt: skip


def _download(
    file: ManifestFile,
    url: str,
    dest: Path,
    notify: ProgressCallback,
    *,
    timeout: float,
    retries: int,
    backoff: float,
    min_rate: float,
) -> None:
    received = 0

    def on_chunk(size: int) -> None:
        nonlocal received
        received += size
        notify(FetchEvent("bytes", file, size))

    attempts = retries + 1
    for attempt in range(attempts):
        received = 0
        try:
            _download_once(file, url, dest, on_chunk, timeout, timeout + file.size / min_rate)
            return
        except _FatalError as exc:
            raise DataError(f"could not download {file.path} from {url}: {exc}") from None
        except _TransientError as exc:
            if attempt + 1 == attempts:
                raise DataError(
                    f"could not download {file.path} from {url} after {attempts} attempts: {exc}"
                ) from None
            notify(FetchEvent("retry", file, received, detail=str(exc)))
            time.sleep(backoff * 2**attempt)
        except OSError as exc:
            # Not the network (that is _TransientError): the data directory itself is unusable.
            raise DataError(f"cannot write {dest}: {exc.strerror or exc}") from None


def _download_once(
    file: ManifestFile,
    url: str,
    dest: Path,
    on_chunk: Callable[[int], None],
    timeout: float,
    deadline: float,
) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    clean_stale_temp_files(dest)  # a download killed earlier left its part behind
    tmp = temp_path_for(dest)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    watchdog = _Watchdog(deadline)
    received = 0
    try:
        digest = hashlib.sha256()
        with (
            watchdog,
            os.fdopen(fd, "wb") as handle,
            contextlib.closing(_chunks(url, timeout, watchdog)) as chunks,
        ):
            for chunk in chunks:
                received += len(chunk)
                if received > file.size:
                    raise _FatalError(f"the server sent more than the expected {file.size} bytes")
                digest.update(chunk)
                handle.write(chunk)
                on_chunk(len(chunk))
            if received < file.size:
                if watchdog.expired:
                    raise _FatalError(watchdog.reason(received, file.size))
                raise _TransientError(f"the server sent {received} of {file.size} bytes")
            if digest.hexdigest() != file.sha256:
                raise _FatalError(
                    f"the server sent different bytes (SHA-256 {digest.hexdigest()}, "
                    f"expected {file.sha256})"
                )
            handle.flush()
            os.fchmod(handle.fileno(), new_file_mode())  # like any file, not mkstemp's 0600
            os.fsync(handle.fileno())
        tmp.replace(dest)
    except _TransientError as exc:
        tmp.unlink(missing_ok=True)
        if watchdog.expired:  # the watchdog's closing, seen as a broken connection
            raise _FatalError(watchdog.reason(received, file.size)) from exc
        raise
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


class _Watchdog:
    """Ends an attempt at its deadline whatever the server does, headers or body: a timer
    shuts down the attempt's socket, so a read blocked on a trickling server returns."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.expired = False
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True

    def __enter__(self) -> _Watchdog:
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()

    def watch(self, sock: socket.socket) -> None:
        """Shut ``sock`` down at the deadline (at once if it has passed)."""
        with self._lock:
            self._sockets.append(sock)
            if self.expired:
                _shut(sock)

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            for sock in self._sockets:
                _shut(sock)

    def reason(self, received: int, size: int) -> str:
        return (
            f"the download took longer than its bound of {self.seconds:.0f} s ({received} of "
            f"{size} bytes received; a slow server or link: try again later, or raise "
            "`timeout`/`min_rate`)"
        )


def _shut(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)


class _WatchedHTTPConnection(http.client.HTTPConnection):
    """A connection whose socket (TLS-wrapped, for HTTPS) the watchdog may shut."""

    def __init__(self, *args: Any, watchdog: _Watchdog, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._watchdog = watchdog

    def connect(self) -> None:
        super().connect()
        self._watchdog.watch(self.sock)


class _WatchedHTTPSConnection(_WatchedHTTPConnection, http.client.HTTPSConnection):
    """``connect`` runs HTTPS's (connect and wrap), then hands the wrapped socket over."""


class _WatchedHTTPHandler(HTTPHandler):
    def __init__(self, watchdog: _Watchdog) -> None:
        super().__init__()
        self._watchdog = watchdog

    def http_open(self, req: Request) -> http.client.HTTPResponse:
        connection = functools.partial(_WatchedHTTPConnection, watchdog=self._watchdog)
        return self.do_open(connection, req)


class _WatchedHTTPSHandler(HTTPSHandler):
    def __init__(self, watchdog: _Watchdog) -> None:
        super().__init__()
        self._watchdog = watchdog

    def https_open(self, req: Request) -> http.client.HTTPResponse:
        connection = functools.partial(_WatchedHTTPSConnection, watchdog=self._watchdog)
        return self.do_open(connection, req, context=self._context)  # type: ignore[attr-defined]


def _chunks(url: str, timeout: float, watchdog: _Watchdog) -> Generator[bytes, None, None]:
    """The body of ``url``, with network failures sorted into worth-retrying or not."""
    request = Request(url, headers={"User-Agent": _USER_AGENT})
    opener = build_opener(_WatchedHTTPHandler(watchdog), _WatchedHTTPSHandler(watchdog))
    try:
        with opener.open(request, timeout=timeout) as response:
            while chunk := response.read(_CHUNK):
                yield chunk
    except HTTPError as exc:
        reason = f"HTTP {exc.code} {exc.reason}"
        if exc.code >= 500 or exc.code in _RETRY_STATUSES:
            raise _TransientError(reason) from exc
        raise _FatalError(reason) from exc
    except URLError as exc:
        raise _TransientError(str(exc.reason)) from exc
    except (OSError, HTTPException) as exc:  # reset, timeout, or a mangled response mid-body
        raise _TransientError(str(exc) or type(exc).__name__) from exc


def _ignore(event: FetchEvent) -> None:
    del event
