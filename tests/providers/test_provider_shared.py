"""The rules every HTTP backend shares, each defined once: the server's wait hint, reading a
key, keeping key values out of text and errors; and ``connect``, the one way commands build
a client."""

from __future__ import annotations

import asyncio
import email.utils
import time
from pathlib import Path

import pytest

from hyoka.errors import InputError
from hyoka.providers import (
    EMBEDDED_MODEL,
    CacheError,
    ModelClient,
    ProviderError,
    ResponseCache,
    RetryPolicy,
    connect,
    load_provider,
    parse_model_string,
)
from hyoka.providers._http import MAX_RETRY_AFTER_S, read_api_key, retry_after
from hyoka.redact import REDACTED, KnownSecrets, environment_secrets

# --------------------------------------------------------------------------- Retry-After


def test_retry_after_reads_seconds_milliseconds_and_dates() -> None:
    assert retry_after({"retry-after": "3"}) == 3.0
    assert retry_after({"retry-after": " 0.25 "}) == 0.25
    assert retry_after({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5
    assert retry_after({"Retry-After": "4"}) == 4.0  # a plain dict keeps the server's case
    soon = email.utils.formatdate(time.time() + 60, usegmt=True)
    hint = retry_after({"retry-after": soon})
    assert hint is not None and 55 <= hint <= 61
    assert retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0  # past: now


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"retry-after": "soon"},
        {"retry-after": "-5"},
        {"retry-after": "nan"},
        {"retry-after": "inf"},
        {"retry-after": ""},
        {"retry-after": "Wed, 99 Foo 2015"},
        {"retry-after-ms": "-1"},
        {"retry-after-ms": "lots"},
    ],
)
def test_a_garbled_or_negative_hint_is_no_hint(headers: dict[str, str]) -> None:
    assert retry_after(headers) is None
    assert retry_after(None) is None


def test_a_bad_millisecond_hint_falls_back_to_retry_after() -> None:
    assert retry_after({"retry-after-ms": "x", "retry-after": "2"}) == 2.0


def test_a_long_hint_is_capped() -> None:
    assert retry_after({"retry-after": "86400"}) == MAX_RETRY_AFTER_S
    assert retry_after({"retry-after": "Wed, 21 Oct 2099 07:28:00 GMT"}) == MAX_RETRY_AFTER_S
    assert retry_after({"retry-after-ms": "1e12"}) == MAX_RETRY_AFTER_S
    assert retry_after({"retry-after": "50"}, cap=10.0) == 10.0


# --------------------------------------------------------------------------- keys


def test_read_api_key_takes_the_first_set_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HYOKA_T_A_API_KEY", raising=False)
    monkeypatch.setenv("HYOKA_T_B_API_KEY", "  key-0123456789\n")  # pasted with its line end
    assert read_api_key(["HYOKA_T_A_API_KEY", "HYOKA_T_B_API_KEY"]) == (
        "HYOKA_T_B_API_KEY",
        "key-0123456789",
    )
    monkeypatch.setenv("HYOKA_T_A_API_KEY", "   ")
    assert read_api_key(["HYOKA_T_A_API_KEY"]) is None


@pytest.mark.parametrize(
    ("key", "problem"),
    [
        ("abc\ndef-0123456789", "a newline"),
        ("abc\rdef-0123456789", "a newline"),
        ("abc\tdef-0123456789", "a control character"),
        ("abc\x7fdef-0123456789", "a control character"),
        ("abcdéf-0123456789", "a non-ASCII character"),
    ],
)
def test_an_unsendable_key_is_named_not_shown(
    key: str, problem: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HYOKA_T_API_KEY", key)
    with pytest.raises(ProviderError) as info:
        read_api_key(["HYOKA_T_API_KEY"])
    message = str(info.value)
    assert message.startswith(f"HYOKA_T_API_KEY contains {problem}; it cannot be sent")
    assert "abc" not in message and "0123456789" not in message


# --------------------------------------------------------------------------- secrets


def test_environment_secrets_are_the_key_like_variables() -> None:
    environ = {
        "OPENAI_API_KEY": " sk-0123456789 ",
        "GITHUB_TOKEN": "ghp_0123456789",
        "MY_SECRET": "hunter2-hunter2",
        "SHORT_API_KEY": "abc",  # too short to replace everywhere
        "HOME": "/home/someone-long-enough",
    }
    assert environment_secrets(environ) == {
        "sk-0123456789": "OPENAI_API_KEY",
        "ghp_0123456789": "GITHUB_TOKEN",
        "hunter2-hunter2": "MY_SECRET",
    }


def test_scrub_replaces_every_form_a_message_may_quote() -> None:
    key = "gsk_0123456789abcdef\nsecond-part-xyz"
    quoted = [
        f"Bearer {key}",
        f"Illegal header value {('Bearer ' + key).encode()!r}",
        f"header {key!r}",
        '{"key": "gsk_0123456789abcdef\\nsecond-part-xyz"}',
        "only the first line: gsk_0123456789abcdef",
    ]
    secrets = KnownSecrets({key: "K"})
    for text in quoted:
        cleaned = secrets.scrub(text)
        assert "0123456789abcdef" not in cleaned and "second-part" not in cleaned, cleaned
        assert REDACTED in cleaned
        assert secrets.found_in(text) == ["K"]
        assert secrets.found_in(cleaned) == []
    assert secrets.scrub("nothing here") == "nothing here"
    assert secrets.found_in("nothing here") == []
    assert not KnownSecrets({})


def test_scrub_exception_cleans_the_chain_and_cuts_what_it_cannot_clean() -> None:
    key = "sk-live-0123456789abcdef"

    class OpaqueError(Exception):  # a message built from an attribute, not from args
        def __init__(self, detail: str) -> None:
            super().__init__()
            self.detail = detail

        def __str__(self) -> str:
            return self.detail

    try:
        try:
            try:
                raise OpaqueError(f"header {key}")
            except OpaqueError as inner:
                raise OSError(f"sending {key} failed") from inner
        except OSError as middle:
            raise ProviderError(f"connection failed: {key}") from middle
    except ProviderError as caught:
        error = caught
    KnownSecrets({key: "K"}).scrub_exception(error)
    assert str(error) == f"connection failed: {REDACTED}"
    assert isinstance(error.__cause__, OSError)
    assert str(error.__cause__) == f"sending {REDACTED} failed"
    assert error.__cause__.__cause__ is None  # the opaque one is cut off
    assert error.__cause__.__suppress_context__


# --------------------------------------------------------------------------- connect


def test_connect_builds_a_cached_client_and_closes_the_cache_it_opened(tmp_path: Path) -> None:
    client = connect(EMBEDDED_MODEL, options={"n_ctx": 512}, cache_dir=tmp_path, concurrency=3)
    assert isinstance(client, ModelClient)
    assert client.limiter.ceiling == 3
    assert isinstance(client.cache, ResponseCache)
    assert client.cache.path == tmp_path / "responses.sqlite3"
    cache = client.cache
    asyncio.run(client.aclose())
    with pytest.raises(CacheError, match="closed"):
        len(cache)


def test_a_client_leaves_a_cache_it_was_given_open(tmp_path: Path) -> None:
    shared = ResponseCache(tmp_path)
    client = ModelClient(load_provider(EMBEDDED_MODEL, n_ctx=512), cache=shared)
    asyncio.run(client.aclose())
    assert len(shared) == 0  # still open
    shared.close()


def test_connect_without_cache_and_with_a_policy() -> None:
    policy = RetryPolicy(max_attempts=2)
    client = connect(EMBEDDED_MODEL, no_cache=True, retry=policy)
    assert client.cache is None
    assert client.retry is policy


def test_connect_passes_base_url_to_the_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    client = connect("openai/local-model", base_url="http://127.0.0.1:9/v1", no_cache=True)
    assert client.provider.base_url == "http://127.0.0.1:9/v1"
    asyncio.run(client.aclose())


@pytest.mark.parametrize("flag", ["--judge", "-j", "--model"])
def test_a_malformed_spec_names_the_flag_the_user_typed(flag: str) -> None:
    with pytest.raises(InputError, match=rf"^{flag} must look like PROVIDER/MODEL") as info:
        connect("openai", flag=flag, no_cache=True)
    assert "'openai'" in str(info.value)
    with pytest.raises(InputError, match=rf"^{flag}: unknown provider 'nope'"):
        parse_model_string("nope/model", flag=flag)
    assert parse_model_string("openai/org/model", flag=flag) == ("openai", "org/model")
