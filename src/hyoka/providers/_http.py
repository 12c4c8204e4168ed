"""What every backend that talks HTTP shares: reading its key, the server's wait hint, and
one bound on a whole request.

Each rule lives here once, so the OpenAI, Anthropic and Gemini backends cannot drift apart:

* ``read_api_key``: a key that cannot be sent in a header (a newline, another control
  character, a non-ASCII character) is a configuration error found before any request,
  named by its variable and never shown;
* ``retry_after``: ``retry-after-ms`` or ``Retry-After`` (seconds or an HTTP date) to
  seconds; a negative, non-finite or unreadable hint is no hint, a long one is capped;
* ``bounded``: the SDKs' timeouts bound each read, so a server that trickles a byte now
  and then keeps a request alive forever; this bounds connect, headers and body together;
* ``split_query``: the SDKs append an endpoint's path to the base URL as text, so a query
  left in ``--base-url`` would swallow the path; it is sent as query parameters instead;
* ``server_text``: what a server said (an error body) as an error repeats it: one line,
  secrets scrubbed, printable and bounded.
"""

from __future__ import annotations

import asyncio
import math
import os
import time
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from contextlib import asynccontextmanager
from email.utils import parsedate_to_datetime
from urllib.parse import parse_qs, urlsplit, urlunsplit

from hyoka.printable import MESSAGE_LIMIT, printable
from hyoka.providers.errors import ProviderError, TransientError

#: The longest wait a server's hint can impose on one retry, in seconds.
MAX_RETRY_AFTER_S = 300.0


def split_query(url: str) -> tuple[str, dict[str, str | list[str]]]:
    """``url`` without its query (and fragment), and the query as parameters for every
    request (a key given twice keeps both values). ``http://h/v1?key=k`` must become
    ``http://h/v1/chat/completions?key=k``, not ``http://h/v1?key=k/chat/completions``."""
    parts = urlsplit(url)
    if not parts.query and not parts.fragment:
        return url, {}
    params = parse_qs(parts.query, keep_blank_values=True)
    query = {key: values[0] if len(values) == 1 else values for key, values in params.items()}
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "", "")), query


def server_text(text: str, scrub: Callable[[str], str]) -> str:
    """What a server said (an error's body or message), fit to stand in one error line:
    its runs of white space made one space, its secrets scrubbed (before the cut, so no
    part of one survives it), then at most ``MESSAGE_LIMIT`` characters, every one a
    terminal shows rather than obeys (``hyoka.printable``): a server's text may hold
    escape sequences, a forged line or a megabyte."""
    return printable(scrub(" ".join(text.split())), limit=MESSAGE_LIMIT)


def read_api_key(names: Iterable[str]) -> tuple[str, str] | None:
    """``(variable, key)`` from the first of ``names`` that is set and not blank.

    Surrounding white space is dropped (a key pasted with its line end works). A key that
    no HTTP header can carry raises ``ProviderError`` naming the variable and the kind of
    character, never the value.
    """
    for name in names:
        key = os.environ.get(name, "").strip()
        if key:
            problem = _unsendable(key)
            if problem:
                raise ProviderError(
                    f"{name} contains {problem}; it cannot be sent in an HTTP header "
                    "(check how the variable was set)"
                )
            return name, key
    return None


def _unsendable(key: str) -> str | None:
    for char in key:
        if char in "\r\n":
            return "a newline"
        if not char.isascii():
            return "a non-ASCII character"
        if not char.isprintable():
            return "a control character"
    return None


def _header(headers: Mapping[str, str], name: str) -> str | None:
    value = headers.get(name)
    if value is None:  # a plain dict, not a case-insensitive header map
        value = next((v for k, v in headers.items() if k.lower() == name), None)
    return value


def retry_after(
    headers: Mapping[str, str] | None, *, cap: float = MAX_RETRY_AFTER_S
) -> float | None:
    """The server's wait hint in seconds, at most ``cap``; ``None`` when there is none.

    ``retry-after-ms`` (OpenAI, Anthropic) wins over ``Retry-After``, which is seconds or an
    HTTP date (RFC 9110); a date already past means "now" (0). A negative, infinite or
    unreadable value is ignored rather than trusted.
    """
    if not headers:
        return None
    millis = _header(headers, "retry-after-ms")
    seconds = _number(millis)
    if seconds is not None:
        return min(seconds / 1000.0, cap)
    raw = _header(headers, "retry-after")
    if raw is None:
        return None
    seconds = _number(raw)
    if seconds is None:
        try:
            when = parsedate_to_datetime(raw.strip())
        except (TypeError, ValueError, IndexError, OverflowError):
            return None
        seconds = max(0.0, when.timestamp() - time.time())
    return min(seconds, cap)


def _number(text: str | None) -> float | None:
    if text is None:
        return None
    try:
        value = float(text.strip())
    except ValueError:
        return None
    return value if math.isfinite(value) and value >= 0 else None


@asynccontextmanager
async def bounded(seconds: float, where: str) -> AsyncIterator[None]:
    """Fail the enclosed request with ``TransientError`` once ``seconds`` have passed.

    Only this bound's own expiry is turned into the error: a cancellation from outside
    (the client's deadline, the user's Ctrl-C) passes through as it is.
    """
    try:
        async with asyncio.timeout(seconds):
            yield
    except TimeoutError:
        raise TransientError(f"{where}: no answer within {seconds:g} s (timeout)") from None
