"""Keeping API keys out of everything hyoka returns, stores or prints.

This sits at the bottom of the layers, beside ``errors`` and ``signature``: the providers
scrub what leaves them with it, and a signature shows a URL through it, so neither imports
the other for it. The providers' face re-exports the URL names users need.

The keys live in environment variables only. A misconfigured proxy may still echo one in a
reply, and an SDK may quote one in an error (``Illegal header value b'Bearer ...'``). So
whatever leaves the provider layer (responses, error messages) is checked against every
key-like value in the environment and has each one replaced by ``REDACTED``: nothing
downstream (trial files, result.json, judgments, the cache, a terminal) can then hold one.

A server's URL may carry credentials of its own (``http://user:pw@host/v1``,
``?api-key=...``). ``redact_url`` is the one function that turns such a URL into what may be
stored or shown: userinfo and every query value replaced, the query's keys kept (so a reader
can tell what was set), and a short, slow hash of what was replaced for the identities that
decide whether a file is continued.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

#: What a key's value is replaced by.
REDACTED = "[REDACTED]"
#: Variables the HTTP backends read their keys from.
KEY_VARIABLES = (
    "OPENAI_API_KEY",
    "AZURE_OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GOOGLE_API_KEY",
    "GEMINI_API_KEY",
)
#: Any other variable whose name ends so is treated as a secret too.
_SECRET_SUFFIXES = ("_API_KEY", "_TOKEN", "_SECRET", "_SECRET_KEY")
#: Shorter values are too likely to occur in ordinary text to be replaced everywhere.
MIN_SECRET_LENGTH = 8
_CONTROL = re.compile(r"[\x00-\x1f\x7f]+")


def environment_secrets(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """Every key-like value in the environment -> the name of its variable."""
    found: dict[str, str] = {}
    for name, value in (os.environ if environ is None else environ).items():
        if name in KEY_VARIABLES or name.upper().endswith(_SECRET_SUFFIXES):
            value = value.strip()
            if len(value) >= MIN_SECRET_LENGTH:
                found.setdefault(value, name)
    return found


def _forms(secret: str) -> Iterator[str]:
    """The secret as text may quote it: as is, escaped (repr of text or bytes, JSON), and
    each line of a key holding line breaks (an SDK may show just one of them)."""
    yield secret
    yield repr(secret)[1:-1]
    yield repr(secret.encode("utf-8", "backslashreplace"))[2:-1]
    yield json.dumps(secret)[1:-1]
    yield json.dumps(secret, ensure_ascii=False)[1:-1]
    for piece in _CONTROL.split(secret):
        if len(piece) >= MIN_SECRET_LENGTH:
            yield piece


class KnownSecrets:
    """Secret values, each with every form text may quote it in, ready to find or replace.

    Built once (the forms cost more than the search), then used on every response.
    """

    def __init__(self, secrets: Mapping[str, str]) -> None:
        """``secrets`` maps each value to the name of the variable that holds it."""
        forms = {(form, name) for value, name in secrets.items() for form in _forms(value)}
        #: longest first, so a whole key is replaced before any of its pieces
        self._forms = sorted(forms, key=lambda pair: (-len(pair[0]), pair))

    @classmethod
    def from_environment(cls, *extra: str) -> KnownSecrets:
        """The environment's secrets, plus ``extra`` values (a key the caller holds)."""
        secrets = environment_secrets()
        for value in extra:
            if len(value) >= MIN_SECRET_LENGTH:
                secrets.setdefault(value, "the API key")
        return cls(secrets)

    def __bool__(self) -> bool:
        return bool(self._forms)

    def found_in(self, text: str) -> list[str]:
        """The variables (sorted) whose values appear in ``text`` in any form."""
        return sorted({name for form, name in self._forms if form in text})

    def scrub(self, text: str) -> str:
        """``text`` with every form of every secret replaced by ``REDACTED``."""
        for form, _ in self._forms:
            if form in text:
                text = text.replace(form, REDACTED)
        return text

    def scrub_exception(self, exc: BaseException) -> None:
        """Scrub ``exc`` and the exceptions chained to it, in place.

        Text arguments are scrubbed; a chained exception that still shows a secret
        afterwards (one whose message is built from other attributes) is cut off the chain.
        """
        if not self._forms:
            return
        current: BaseException | None = exc
        previous: BaseException | None = None
        seen: set[int] = set()
        while current is not None and id(current) not in seen:
            seen.add(id(current))
            current.args = tuple(self.scrub(a) if isinstance(a, str) else a for a in current.args)
            if previous is not None and self.found_in(str(current)):
                previous.__cause__ = None
                previous.__context__ = None
                previous.__suppress_context__ = True
                return
            previous, current = current, current.__cause__ or current.__context__


#: What a credential in a URL (its userinfo, a query value, the fragment) is shown as: a
#: plain word, so the shown URL still parses as one (``[...]`` would read as an IPv6 host).
URL_REDACTED = "REDACTED"
#: PBKDF2 rounds of the hash of a URL's secret parts: slow enough that a short secret
#: (a PIN-like token) cannot be found from the hash by trying every value.
_URL_HASH_ROUNDS = 100_000
_URL_HASH_SALT = b"hyoka: the secret parts of a URL"


@dataclass(frozen=True)
class RedactedUrl:
    """A URL as it may be stored or shown, and ``secret``: a short hash of the parts that
    were replaced (``None`` when nothing was), which an identity may keep, never a value."""

    shown: str
    secret: str | None


@dataclass(frozen=True)
class _Split:
    """One reading of a URL: how it is shown, the parts replaced (what the hash covers) and
    the values they hold (what text that quotes the URL must not show)."""

    shown: str
    parts: tuple[str, ...]
    values: tuple[str, ...]


@functools.lru_cache(maxsize=64)
def _split(url: str) -> _Split:
    try:
        parts = urlsplit(url)
    except ValueError:
        return _Split(URL_REDACTED, (url,), (url,))
    if not parts.netloc and "@" in url:  # no scheme (user:pw@host/v1): no part can be trusted
        return _Split(URL_REDACTED, (url,), (url, *url.split("@")[0].split(":")))
    replaced: list[str] = []
    values: list[str] = []
    userinfo, at, host = parts.netloc.rpartition("@")
    netloc = parts.netloc
    if at and userinfo != URL_REDACTED:
        replaced.append(userinfo)
        values += [userinfo, *userinfo.split(":")]
        netloc = f"{URL_REDACTED}@{host}"
    pieces = []
    for piece in parts.query.split("&") if parts.query else ():
        key, equals, value = piece.partition("=")
        if not equals:  # a bare piece (``?TOKEN``) may be a secret in itself
            key, value = "", key
        if value and value != URL_REDACTED:
            replaced.append(piece)
            values.append(value)
            value = URL_REDACTED
        pieces.append(f"{key}={value}" if equals else value)
    fragment = parts.fragment
    if fragment and fragment != URL_REDACTED:
        replaced.append(f"#{fragment}")
        values.append(fragment)
        fragment = URL_REDACTED
    if not replaced:
        return _Split(url, (), ())
    shown = urlunsplit((parts.scheme, netloc, parts.path, "&".join(pieces), fragment))
    kept = tuple(v for v in dict.fromkeys(values) if v and v != URL_REDACTED)
    return _Split(shown, tuple(replaced), kept)


def shown_url(url: str) -> str:
    """``url`` as it may be shown: ``redact_url(url).shown``, without hashing anything."""
    return _split(url).shown


def redact_url(url: str) -> RedactedUrl:
    """``url`` with its userinfo, every query value and its fragment replaced by
    ``URL_REDACTED`` (query keys kept: ``?api-key=REDACTED``); scheme, host, port and path
    are kept as they are. A part already shown as ``URL_REDACTED`` is no secret, so redacting
    twice changes nothing. A URL that does not parse, or has credentials but no scheme, is
    shown as ``URL_REDACTED`` whole."""
    split = _split(url)
    return RedactedUrl(split.shown, _hash_secrets(split.parts) if split.parts else None)


@functools.lru_cache(maxsize=64)
def _hash_secrets(parts: tuple[str, ...]) -> str:
    material = json.dumps(parts, ensure_ascii=False).encode("utf-8", "surrogatepass")
    digest = hashlib.pbkdf2_hmac("sha256", material, _URL_HASH_SALT, _URL_HASH_ROUNDS)
    return digest.hex()[:16]


def shown_value(value: Any) -> str:
    """A value given in a setting, as an error may show it: a number or a truth value as it
    is, any other only by its kind (text, a list or a table may hold a key given in the
    wrong place, or a URL with a password)."""
    if isinstance(value, (bool, int, float)):
        return repr(value)
    if isinstance(value, str):
        return "a string" if value else "an empty string"
    kinds = {list: "a list", dict: "a table"}
    return next((said for kind, said in kinds.items() if isinstance(value, kind)), "a value")


def url_identity(url: str) -> str:
    """``url`` as an identity keeps it (a digest, a cache key, a folder's name): as it is
    when it holds no credentials (so such identities stay what they were), else as shown
    with the slow hash of its secret parts (``redact_url``) after it, so a fast digest of
    the identity cannot be searched for a short password. Every identity holding a server's
    URL takes it from here."""
    redacted = redact_url(url)
    return url if redacted.secret is None else f"{redacted.shown} (secret {redacted.secret})"


def url_secret_values(url: str | None) -> tuple[str, ...]:
    """The values ``redact_url`` hides in ``url`` (userinfo, its password, query values,
    fragment), for scrubbing them from text that may quote the URL (an SDK's error)."""
    return () if url is None else _split(url).values
