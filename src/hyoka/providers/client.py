"""The reliability layer every backend shares: retries, a concurrency limit, a cache, accounting.

``ModelClient`` wraps one ``Provider``:

* ``RetryPolicy`` retries ``TransientError`` with exponential backoff and full jitter, never
  waiting less than the server's ``Retry-After`` hint, within a total deadline per request;
* ``AdaptiveLimiter`` caps the requests in flight: it starts at the user's ``concurrency``,
  halves on each rate limit and grows back by one after a run of successes (AIMD);
* ``ResponseCache`` keeps every answer in SQLite, so an interrupted run resumes for free and
  a re-run costs nothing; its key is a hash of the backend's identity, the request and a
  caller-chosen ``sample_key`` (say, the trial number), never of anything secret, and each
  stored reply carries a digest of itself and its key, so only what was stored under a key
  is ever replayed for it;
* the value of an API key is redacted from every response and error it returns, so no
  caller can write one to a file (a misconfigured proxy may echo the key in its reply).

Everything else (a bad request, a missing key, an unknown model) fails at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import hashlib
import json
import random
import sqlite3
import threading
import time
import warnings
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, Self, TypeVar

from pydantic import ValidationError

from hyoka.errors import HyokaError, HyokaWarning
from hyoka.providers.base import Provider
from hyoka.providers.batch_progress import BatchProgress
from hyoka.providers.defaults import CONCURRENCY
from hyoka.providers.errors import ProviderError, RateLimitError, TransientError
from hyoka.providers.types import GenerationRequest, GenerationResponse, Usage
from hyoka.redact import REDACTED, KnownSecrets
from hyoka.store import CacheFolder, default_cache_dir

_T = TypeVar("_T")

#: Bump when the key material or the stored layout changes: old entries are then misses.
CACHE_FORMAT = 1
CACHE_FILENAME = "responses.sqlite3"
#: The files SQLite keeps beside the database, by suffix: none may be a link either.
CACHE_COMPANIONS = ("-wal", "-shm", "-journal")
#: The column holding each row's ``_row_digest``: added to a database made before it.
DIGEST_COLUMN = "digest"


#: where ``served_models`` collects: the list of the block it is in, per asyncio task
_SERVED: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar(
    "hyoka_served_models", default=None
)


@contextlib.contextmanager
def served_models() -> Iterator[list[str]]:
    """The model name the provider reported (``GenerationResponse.model``) for each
    ``ModelClient.generate`` call made inside the block, in call order, by this asyncio
    task and the tasks it starts (a cached reply: the name stored with it). A judge named
    by a moving alias is thus kept with the snapshot that answered (``moving_alias``); a
    backend that reports no name gives the name it was asked for."""
    names: list[str] = []
    token = _SERVED.set(names)
    try:
        yield names
    finally:
        _SERVED.reset(token)


def _note_served(response: GenerationResponse) -> None:
    names = _SERVED.get()
    if names is not None and response.model:
        names.append(response.model)


class CacheError(HyokaError):
    """The response cache cannot be opened or used (corrupt file, unwritable folder)."""


class GaveUpError(ProviderError):
    """A request still failed with transient errors after every attempt the policy allows."""

    def __init__(self, message: str, last_error: TransientError, attempts: int) -> None:
        super().__init__(message)
        self.last_error = last_error
        self.attempts = attempts


# --------------------------------------------------------------------------- retries


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently to retry transient failures.

    The wait before retry ``k`` (1-based) is uniform in ``[0, min(max_delay, base_delay *
    2**(k-1))]`` ("full jitter"), raised to the server's ``retry_after`` when it gave one.
    ``deadline`` bounds the whole request, attempts and waits included, counted from the
    moment its first attempt gets a slot (time queued behind other requests is not its
    own): an attempt still running when it passes is abandoned (except on an in-process
    backend, where a long call is queued work, not a hang), and a retry that could not
    start before it is not made. ``attempt_timeout`` bounds each provider call (the HTTP
    backends bound theirs with their ``timeout`` option).
    """

    max_attempts: int = 6
    base_delay: float = 0.5
    max_delay: float = 30.0
    deadline: float | None = 600.0
    attempt_timeout: float | None = None

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        if self.base_delay < 0 or self.max_delay < 0:
            raise ValueError("retry delays must not be negative")
        if self.deadline is not None and self.deadline <= 0:
            raise ValueError("deadline must be positive")
        if self.attempt_timeout is not None and self.attempt_timeout <= 0:
            raise ValueError("attempt_timeout must be positive")

    def delay(
        self,
        retry: int,
        retry_after: float | None = None,
        rng: random.Random | None = None,
    ) -> float:
        """Seconds to wait before retry number ``retry`` (1 for the first retry)."""
        ceiling = min(self.max_delay, self.base_delay * 2.0 ** (retry - 1))
        wait = (rng or random).uniform(0.0, ceiling)
        if retry_after is not None and retry_after > wait:
            wait = retry_after
        return wait


@dataclass(frozen=True)
class RetryEvent:
    """What ``on_retry`` is told: attempt ``attempt`` failed with ``error``; next in ``delay``."""

    attempt: int
    max_attempts: int
    error: TransientError
    delay: float
    request: GenerationRequest


# --------------------------------------------------------------------------- limiter


class AdaptiveLimiter:
    """An async semaphore whose size adapts to rate limits (additive increase, halving).

    ``limit`` starts at ``ceiling``; ``on_rate_limit`` halves it (never below 1) and
    ``on_success`` raises it by one after ``recover_after`` successes in a row (never above
    ``ceiling``). Requests already in flight when the limit drops finish normally; new ones
    wait until fewer than ``limit`` are in flight. Waiters are served first come, first
    served. Meant for one event loop at a time; all methods run on it.
    """

    def __init__(self, ceiling: int, *, recover_after: int = 8) -> None:
        if ceiling < 1:
            raise ValueError("concurrency must be at least 1")
        if recover_after < 1:
            raise ValueError("recover_after must be at least 1")
        self.ceiling = ceiling
        self.limit = ceiling
        self.recover_after = recover_after
        self.in_flight = 0
        self.lowest = ceiling
        self._streak = 0
        self._waiters: deque[asyncio.Future[None]] = deque()

    async def acquire(self) -> None:
        if self.in_flight < self.limit and not self._waiters:
            self.in_flight += 1
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                # the slot was handed over just as we were cancelled: pass it on
                self.release()
            else:
                with contextlib.suppress(ValueError):
                    self._waiters.remove(waiter)
            raise

    def release(self) -> None:
        self.in_flight -= 1
        self._wake()

    def _wake(self) -> None:
        while self._waiters and self.in_flight < self.limit:
            waiter = self._waiters.popleft()
            if not waiter.done():
                self.in_flight += 1  # the slot is handed over, not raced for
                waiter.set_result(None)

    def on_rate_limit(self) -> None:
        self._streak = 0
        self.limit = max(1, self.limit // 2)
        self.lowest = min(self.lowest, self.limit)

    def on_success(self) -> None:
        if self.limit >= self.ceiling:
            return
        self._streak += 1
        if self._streak >= self.recover_after:
            self._streak = 0
            self.limit += 1
            self._wake()

    @contextlib.asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        await self.acquire()
        try:
            yield
        finally:
            self.release()


# --------------------------------------------------------------------------- cache


def cache_key(
    provider_identity: dict[str, Any], request: GenerationRequest, sample_key: str
) -> str:
    """SHA-256 (hex) of the canonical JSON of what decides a response."""
    material = {
        "format": CACHE_FORMAT,
        "identity": provider_identity,
        "request": request.model_dump(mode="json"),
        "sample_key": sample_key,
    }
    try:
        canonical = json.dumps(
            material, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
        )
    except (TypeError, ValueError) as exc:
        raise ProviderError(f"cannot build a cache key: {exc}") from None
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


_INSERT = (
    f"INSERT OR REPLACE INTO responses (key, response, created, {DIGEST_COLUMN})"
    " VALUES (?, ?, ?, ?)"
)


def _row_digest(key: str, value: str) -> str:
    """SHA-256 (hex) of a row's key and stored reply: what ties the reply to its key (a
    few microseconds for a reply of kilobytes)."""
    return hashlib.sha256(f"{key}\0{value}".encode()).hexdigest()


#: the first pause before a cache's set-up is tried again (seconds), doubled up to the last
_SET_UP_PAUSES_S = (0.001, 0.05)


def _set_up(conn: sqlite3.Connection, timeout: float) -> None:
    """Make the cache's database WAL and its table, tried again for at most ``timeout``
    seconds while another connection holds a lock it needs.

    Switching a new database to WAL takes its exclusive lock from the read lock the
    statement already holds; where another connection opening it at the same moment holds
    its write lock (several sweep cells, or processes, opening a new cache at once), SQLite
    says "database is locked" at once, not waiting out ``busy_timeout`` (two connections
    each waiting for the other's read lock to go would deadlock). Each statement here may
    run again, and once one opener has made the file WAL the switch needs no lock, so the
    rest open it on a next try. The other statements a cache runs begin from no lock (one
    write, or ``BEGIN IMMEDIATE``), where SQLite does wait out ``busy_timeout``."""
    deadline = time.monotonic() + timeout
    pause, longest = _SET_UP_PAUSES_S
    while True:
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute(
                "CREATE TABLE IF NOT EXISTS responses ("
                " key TEXT PRIMARY KEY,"
                " response TEXT NOT NULL,"
                " created REAL NOT NULL,"
                f" {DIGEST_COLUMN} TEXT)"
            )
            columns = {row[1] for row in conn.execute("PRAGMA table_info(responses)")}
            if DIGEST_COLUMN not in columns:
                with contextlib.suppress(sqlite3.OperationalError):  # added by another process
                    conn.execute(f"ALTER TABLE responses ADD COLUMN {DIGEST_COLUMN} TEXT")
            return
        except sqlite3.OperationalError as exc:
            code = getattr(exc, "sqlite_errorcode", None)  # none: the sqlite3 module's own
            busy = code is not None and code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
            if not busy or time.monotonic() + pause > deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, longest)


class ResponseCache:
    """Responses by key in ``<cache_dir>/responses.sqlite3`` (SQLite, WAL mode).

    Several processes may read and write the same file at once: SQLite serialises the
    writers and ``busy_timeout`` makes them wait rather than fail. Within a process one
    connection is shared under a lock, so threads may share an instance too. A file that is
    not a readable SQLite database is reported as a ``CacheError`` naming it.

    The cache folder may be shared, so no link there is written through: SQLite opens its
    files by path and follows links, so a link at the database's name or at its write-ahead
    log's is removed and the database made as a file first (``store.CacheFolder.claim``).
    A database someone else could have written (another user's, or one writable by others)
    is not trusted: it is replaced by a new one, or, where it cannot be (or the folder
    itself is not trusted), the responses are cached in memory for this process, and one
    ``warning:`` line says so.

    Each row holds the digest of its key and reply (``_row_digest``): a reply moved to
    another row or edited there is a miss (asked again, and stored again rightly), and
    ``close`` counts them in one ``warning:`` line; a row without a digest (written before
    it, or by an older hyoka) is a miss too.

    The many tasks of one event loop store with ``put_soon``: the replies that finish in
    one turn of the loop are written in one transaction as it next turns (a commit each
    made the loop wait for the disk once per call); until then ``get`` finds them here.
    """

    def __init__(self, cache_dir: Path | str | None = None, *, busy_timeout: float = 30.0) -> None:
        root = Path(cache_dir) if cache_dir is not None else default_cache_dir()
        self.path = root / CACHE_FILENAME
        self._lock = threading.Lock()
        #: the rows read whose reply was not the one stored under their key
        self.mismatched = 0
        #: key -> (reply, time, digest) stored by ``put_soon``, not yet written
        self._pending: dict[str, tuple[str, float, str]] = {}
        #: why writing them failed, raised by the next use (``_check``)
        self._failed: CacheError | None = None
        try:
            claimed = CacheFolder(root).claim(CACHE_FILENAME, CACHE_COMPANIONS)
        except OSError as exc:
            raise CacheError(f"cannot create the response cache folder {root}: {exc}") from None
        except HyokaError as exc:
            raise CacheError(str(exc)) from None
        self._conn: sqlite3.Connection | None = None
        #: the keys this process holds, read once (not per stored response)
        self._secrets = KnownSecrets.from_environment()
        try:
            conn = sqlite3.connect(
                claimed or ":memory:",
                timeout=busy_timeout,
                isolation_level=None,
                check_same_thread=False,
            )
        except sqlite3.Error as exc:
            raise CacheError(f"cannot open the response cache {self.path}: {exc}") from None
        try:
            _set_up(conn, busy_timeout)
        except sqlite3.Error as exc:
            conn.close()
            raise self._broken(exc) from None
        self._conn = conn

    def _broken(self, exc: sqlite3.Error) -> CacheError:
        if isinstance(exc, sqlite3.DatabaseError) and not isinstance(exc, sqlite3.OperationalError):
            return CacheError(
                f"the response cache {self.path} is corrupt ({exc}); "
                "delete it (and its -wal/-shm files) to start afresh"
            )
        return CacheError(f"the response cache {self.path} cannot be used: {exc}")

    @contextlib.contextmanager
    def _connection(self) -> Iterator[sqlite3.Connection]:
        if self._conn is None:
            raise CacheError(f"the response cache {self.path} is closed")
        with self._lock:
            try:
                yield self._conn
            except sqlite3.Error as exc:
                raise self._broken(exc) from None

    def _check(self) -> None:
        """Raise the ``CacheError`` of a ``put_soon`` batch that could not be written."""
        if self._failed is not None:
            failed, self._failed = self._failed, None
            raise failed

    def get(self, key: str) -> GenerationResponse | None:
        self._check()
        with self._connection() as conn:
            held = self._pending.get(key)
            row = (
                (held[0], held[2])
                if held is not None
                else conn.execute(
                    f"SELECT response, {DIGEST_COLUMN} FROM responses WHERE key = ?", (key,)
                ).fetchone()
            )
        if row is None:
            return None
        value, digest = row
        if not isinstance(value, str) or digest != _row_digest(key, value):
            if digest is not None:  # not one written before the digest: moved or edited
                with self._lock:
                    self.mismatched += 1
            return None
        try:
            return GenerationResponse.model_validate_json(value)
        except ValidationError:
            return None  # written by an incompatible version: a miss, overwritten on success

    def put(self, key: str, response: GenerationResponse) -> bool:
        """Store ``response``; ``False`` (and a warning) if it would have stored a secret.

        ``ModelClient`` redacts keys before it stores anything; this is the last guard for
        other callers.
        """
        value = self._stored(response)
        if value is None:
            return False
        self._check()
        with self._connection() as conn:
            conn.execute(_INSERT, (key, value, time.time(), _row_digest(key, value)))
        return True

    def put_soon(self, key: str, response: GenerationResponse) -> bool:
        """``put`` from a task of a running event loop: kept here (``get`` finds it) and
        written with every reply stored meanwhile in one transaction when the loop next
        turns, before any task that waits on a timer, a socket or the disk runs again
        (``commit``; ``close`` and ``ModelClient.aclose`` write what is left)."""
        value = self._stored(response)
        if value is None:
            return False
        self._check()
        with self._lock:
            first = not self._pending
            self._pending[key] = (value, time.time(), _row_digest(key, value))
        if first:
            asyncio.get_running_loop().call_soon(self._commit_soon)
        return True

    def _commit_soon(self) -> None:
        try:
            self.commit()
        except CacheError as exc:  # no caller here: the next use raises it
            self._failed = exc

    def commit(self) -> None:
        """Write the replies ``put_soon`` kept, in one transaction (all or none)."""
        if not self._pending:
            return
        with self._connection() as conn:
            rows, self._pending = self._pending, {}
            conn.execute("BEGIN IMMEDIATE")
            try:
                conn.executemany(_INSERT, [(key, *row) for key, row in rows.items()])
                conn.execute("COMMIT")
            except BaseException:
                with contextlib.suppress(sqlite3.Error):  # rolled back already, or not
                    conn.execute("ROLLBACK")
                raise

    def _stored(self, response: GenerationResponse) -> str | None:
        """What is stored for ``response``, or ``None`` (and a warning) where it holds the
        value of an API key."""
        value = response.model_copy(update={"cached": False}).model_dump_json()
        names = self._secrets.found_in(value)
        if names:
            warnings.warn(
                f"a response holds the value of {', '.join(names)}; it was not cached",
                HyokaWarning,
                stacklevel=3,
            )
            return None
        return value

    def __len__(self) -> int:
        self.commit()
        with self._connection() as conn:
            (count,) = conn.execute("SELECT COUNT(*) FROM responses").fetchone()
        return int(count)

    def close(self) -> None:
        """Close the database, saying in one line how many stored replies were not the
        ones stored under their key (``mismatched``), after writing what ``put_soon`` kept
        (a batch that could not be written is a ``CacheError``, the database closed)."""
        try:
            if self._conn is not None:
                self.commit()
        finally:
            with self._lock:
                if self._conn is not None:
                    self._conn.close()
                    self._conn = None
                mismatched, self.mismatched = self.mismatched, 0
        self._check()
        if mismatched:
            replies = "reply was" if mismatched == 1 else "replies were"
            warnings.warn(
                f"{self.path}: {mismatched} stored {replies} not the one"
                f"{'' if mismatched == 1 else 's'} stored under their key (moved or edited "
                f"since); {'it was' if mismatched == 1 else 'they were'} asked again",
                HyokaWarning,
                stacklevel=2,
            )

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


# --------------------------------------------------------------------------- client


@dataclass
class ClientStats:
    """Running totals of one ``ModelClient``.

    ``requests`` counts provider calls (retries included), ``retries`` the calls that were
    repeats, ``rate_limited`` the rate-limit answers among the failures, ``failures`` the
    requests that failed for good, ``seconds`` the time spent inside provider calls (summed
    over concurrent calls, so it can exceed the wall-clock time), ``redacted`` the responses
    in which the value of an API key was replaced; ``batch`` what a batching client's
    rounds did (``None`` for an online one).
    """

    requests: int = 0
    retries: int = 0
    rate_limited: int = 0
    cache_hits: int = 0
    failures: int = 0
    usage: Usage = field(default_factory=Usage)
    seconds: float = 0.0
    redacted: int = 0
    #: what its batch rounds did, for a client that batches (``providers.batch``)
    batch: BatchProgress | None = None


class _DeadlineError(TransientError):
    """The request's deadline passed during an attempt, or before the next could start."""


@dataclass
class _Deadline:
    """The time left to one request, counted from when its first attempt got a slot."""

    seconds: float | None
    started: float | None = None

    def start(self) -> None:
        if self.started is None:
            self.started = time.monotonic()

    def left(self) -> float | None:
        if self.seconds is None:
            return None
        if self.started is None:
            return self.seconds
        return self.seconds - (time.monotonic() - self.started)


class ModelClient:
    """A provider with retries, an adaptive concurrency limit, a response cache and totals.

    API keys are the environment's key-like variables (``*_API_KEY``, ``*_TOKEN`` ...) as
    they were when the client was made, which is when the backend read its own.
    """

    def __init__(
        self,
        provider: Provider,
        *,
        cache: ResponseCache | None = None,
        concurrency: int = CONCURRENCY,
        retry: RetryPolicy | None = None,
        on_retry: Callable[[RetryEvent], None] | None = None,
        recover_after: int = 8,
        rng: random.Random | None = None,
        owns_cache: bool = False,
    ) -> None:
        self.provider = provider
        self.cache = cache
        self._owns_cache = owns_cache
        self.retry = retry or RetryPolicy()
        self.on_retry = on_retry
        self.limiter = AdaptiveLimiter(concurrency, recover_after=recover_after)
        self.stats = ClientStats()
        self._rng = rng or random.Random()
        self._preflight: asyncio.Task[None] | None = None
        self._identity = provider.identity()
        self._secrets = KnownSecrets.from_environment()
        self._warned: set[str] = set()
        shown = json.dumps(self._identity, default=str)
        if self._secrets.found_in(shown):
            raise ProviderError(
                f"{self._secrets.scrub(self._spec)}: the backend's identity holds the value "
                "of an API key from the environment; refusing to use it as a cache key"
            )

    async def generate(
        self, request: GenerationRequest, *, sample_key: str = ""
    ) -> GenerationResponse:
        """One request: from the cache if there, else from the provider (retrying)."""
        self.provider.check_request(request)
        key = None
        if self.cache is not None:
            key = cache_key(self._identity, request, sample_key)
            hit = self.cache.get(key)
            if hit is not None:
                self.stats.cache_hits += 1
                _note_served(hit)
                return hit.model_copy(update={"cached": True})
        try:
            response = self._redacted(await self._call_with_retries(request))
        except Exception as exc:  # an SDK may quote the key in an error: never show it
            self._secrets.scrub_exception(exc)
            raise
        if self.cache is not None and key is not None:
            self.cache.put_soon(key, response)
        _note_served(response)
        return response

    @property
    def _spec(self) -> str:
        return f"{self.provider.name}/{self.provider.model}"

    def _redacted(self, response: GenerationResponse) -> GenerationResponse:
        """``response`` with every API key's value replaced by ``REDACTED`` (text, logprob
        tokens, model name): what the client returns is then safe to write anywhere."""
        if not self._secrets:
            return response
        names = self._secrets.found_in(_shown_text(response))
        if not names:
            return response
        self.stats.redacted += 1
        fresh = [name for name in names if name not in self._warned]
        if fresh:
            self._warned.update(fresh)
            warnings.warn(
                f"{self._secrets.scrub(self._spec)}: a reply contained the value of "
                f"{', '.join(fresh)}; it was "
                f"redacted (replaced by {REDACTED}) in everything hyoka returns and stores; "
                "is a proxy echoing the request headers?",
                HyokaWarning,
                stacklevel=3,
            )
        return GenerationResponse.model_validate(
            _scrub_strings(response.model_dump(), self._secrets)
        )

    async def check_reachable(self) -> None:
        """The backend's preflight, run once however many requests wait on it.

        It runs by itself before the first call to the backend; call it to check earlier.
        """
        if self._preflight is None:
            self._preflight = asyncio.ensure_future(self.provider.preflight())
        try:
            await asyncio.shield(self._preflight)
        except ProviderError:
            self.stats.failures += 1
            raise

    async def _call_with_retries(self, request: GenerationRequest) -> GenerationResponse:
        await self.check_reachable()
        return await self._retried(lambda deadline: self._attempt(request, deadline), request)

    async def _retried(
        self,
        once: Callable[[_Deadline], Awaitable[_T]],
        request: GenerationRequest | None = None,
    ) -> _T:
        """``once(deadline)`` until it succeeds, retried on a transient error under this
        client's ``RetryPolicy`` (attempts, backoff, deadline); ``once`` starts the
        deadline when it starts its work. ``on_retry`` is told of a ``request``'s
        retries (a batch API's reads, ``providers.batch``, have none)."""
        policy = self.retry
        deadline = _Deadline(policy.deadline)
        attempt = 0
        while True:
            attempt += 1
            try:
                return await once(deadline)
            except _DeadlineError as exc:
                self.stats.failures += 1
                raise GaveUpError(
                    f"{self._spec}: no answer within the {policy.deadline:g} s deadline "
                    f"(gave up during attempt {attempt})",
                    exc,
                    attempt,
                ) from None
            except TransientError as exc:
                error = exc
            except ProviderError:
                self.stats.failures += 1
                raise
            if isinstance(error, RateLimitError):
                self.stats.rate_limited += 1
                self.limiter.on_rate_limit()
            spec = self._spec
            told = str(error) if str(error).startswith(spec) else f"{spec}: {error}"
            if attempt >= policy.max_attempts:
                self.stats.failures += 1
                tries = f"{attempt} attempt{'s' if attempt > 1 else ''}"
                raise GaveUpError(f"{told} (gave up after {tries})", error, attempt) from error
            delay = policy.delay(attempt, error.retry_after, self._rng)
            left = deadline.left()
            if left is not None and delay >= left:
                self.stats.failures += 1
                raise GaveUpError(
                    f"{told} (gave up after {attempt} attempts: "
                    f"the {policy.deadline:g} s deadline would pass before the next)",
                    error,
                    attempt,
                ) from error
            if self.on_retry is not None and request is not None:
                self.on_retry(RetryEvent(attempt, policy.max_attempts, error, delay, request))
            self.stats.retries += 1
            await asyncio.sleep(delay)

    async def _attempt(self, request: GenerationRequest, deadline: _Deadline) -> GenerationResponse:
        """One provider call in a slot, bounded by ``attempt_timeout`` and by the time left
        to the request's deadline, whichever is sooner."""
        async with self.limiter.slot():
            deadline.start()
            left = None if self.provider.in_process else deadline.left()
            if left is not None and left <= 0:
                raise _DeadlineError("the deadline passed while waiting for a slot")
            timeout = self.retry.attempt_timeout
            bound = timeout if left is None else left if timeout is None else min(timeout, left)
            self.stats.requests += 1
            started = time.perf_counter()
            try:
                if bound is None:
                    response = await self.provider.generate(request)
                else:
                    limit = asyncio.timeout(bound)
                    try:
                        async with limit:
                            response = await self.provider.generate(request)
                    except TimeoutError:
                        if not limit.expired():  # the backend's own timeout
                            raise TransientError(f"{self._spec}: timed out") from None
                        if timeout is None or bound < timeout:
                            raise _DeadlineError(f"no answer within {bound:g} s") from None
                        raise TransientError(f"no answer within {timeout:g} s") from None
            finally:
                self.stats.seconds += time.perf_counter() - started
            self.limiter.on_success()
        self.stats.usage = self.stats.usage + response.usage
        return response

    async def aclose(self) -> None:
        """Close the provider, and the cache if it was opened for this client only
        (``owns_cache``); a cache the caller passed in may be shared, so it stays open."""
        try:
            await self.provider.aclose()
        finally:
            if self._owns_cache and self.cache is not None:
                self.cache.close()
            elif self.cache is not None:  # shared: open still, every reply written
                self.cache.commit()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()


def _shown_text(response: GenerationResponse) -> str:
    """Every string of ``response`` joined: what a secret could hide in."""
    if any(choice.logprobs for choice in response.choices):
        return response.model_dump_json()  # tokens too: rare, and then a dump is cheap
    parts = [response.model]
    for choice in response.choices:
        parts.append(choice.text)
        parts.append(choice.reasoning or "")
        parts.append(choice.finish_reason or "")
    return "\n".join(parts)


def _scrub_strings(value: Any, secrets: KnownSecrets) -> Any:
    """``value`` (plain JSON-like data) with every string in it scrubbed."""
    if isinstance(value, str):
        return secrets.scrub(value)
    if isinstance(value, dict):
        return {key: _scrub_strings(item, secrets) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_scrub_strings(item, secrets) for item in value]
    return value
