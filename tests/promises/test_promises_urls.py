"""Promise: credentials in ``--base-url`` are never stored or shown, and the request still
goes to the URL given, its query kept.

``http://user:pw@host/v1?api-key=...`` is a legal way to reach a server that wants its key
in the URL. Judgment files, manifests, signatures, leaderboards and report sites are what
people share, so each keeps the URL only with its userinfo and query values replaced
(``redact_url``), and the identity that decides whether a file is continued keeps a short
hash of what was replaced. Each test runs the real command against a real judge on
127.0.0.1 and searches every file written and everything printed for each secret.
"""

from __future__ import annotations

import asyncio
import html
import json
from collections.abc import Iterable
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from _shared import SHARED_DATA
from hyoka.cli.main import app
from hyoka.errors import HyokaError
from hyoka.judge import JudgeSettings
from hyoka.providers import URL_REDACTED, GenerationRequest, Message, load_provider, redact_url
from hyoka.signature import Signature
from replay_judge_server import ReplayJudge
from wire_servers import AnthropicServer, closed_port_url

PASSWORD = "pw-9f3a1c77e2"
KEY = "key-7b2e5d9a41"
TOKEN = "tok-4c8e1a6f03"
SECRETS = (PASSWORD, KEY, TOKEN)
ANSWERS = SHARED_DATA / "pfmt-bench-fin-ja" / "model_answer" / "claude-2.1.jsonl"


def _credentialed(base_url: str, password: str = PASSWORD) -> str:
    """``base_url`` (``http://127.0.0.1:PORT/v1``) with a user, a password and two keys."""
    host = base_url.removeprefix("http://")
    return f"http://judge-user:{password}@{host}?api-key={KEY}&token={TOKEN}"


def _shown(base_url: str) -> str:
    host = base_url.removeprefix("http://")
    return f"http://{URL_REDACTED}@{host}?api-key={URL_REDACTED}&token={URL_REDACTED}"


def _leaks(texts: Iterable[str], folder: Path | None = None) -> list[str]:
    """Where any secret appears: in ``texts`` (what was printed) or any file under ``folder``."""
    found = [f"printed: {s}" for text in texts for s in SECRETS if s in text]
    for path in sorted(folder.rglob("*")) if folder is not None else ():
        if path.is_file():
            data = path.read_bytes()
            found += [f"{path}: {s}" for s in SECRETS if s.encode() in data]
    return found


def _invoke(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


def _answers(folder: Path) -> Path:
    path = folder / "answers.jsonl"
    rows = [
        {"id": "q1", "question": "日本の首都は？", "answer": "東京です。", "reference": "東京"},
        {"id": "q2", "question": "富士山の高さは？", "answer": "3776 m", "reference": "3776 m"},
    ]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return path


def test_redact_url_keeps_the_query_keys_and_hashes_only_the_secret_parts() -> None:
    url = f"https://u:{PASSWORD}@example.com:8443/v1?api-key={KEY}&mode=&{TOKEN}#{TOKEN}"
    redacted = redact_url(url)
    assert redacted.shown == (
        f"https://{URL_REDACTED}@example.com:8443/v1?api-key={URL_REDACTED}&mode=&"
        f"{URL_REDACTED}#{URL_REDACTED}"
    )
    assert redacted.secret is not None and len(redacted.secret) == 16
    assert not any(s in redacted.secret for s in SECRETS)
    assert redact_url(redacted.shown).shown == redacted.shown  # redacting twice: no change
    assert redact_url(url.replace(PASSWORD, "other-password")).secret != redacted.secret
    plain = "http://127.0.0.1:8000/v1"
    assert redact_url(plain) == type(redacted)(plain, None)
    # without a scheme urlsplit reads "u" as the scheme and finds no host: nothing is shown
    bare = redact_url(f"u:{PASSWORD}@127.0.0.1:9/v1")
    assert bare.shown == URL_REDACTED and bare.secret is not None


def test_judge_settings_keep_only_the_shown_url_and_a_hash() -> None:
    url = f"http://u:{PASSWORD}@h/v1?key={KEY}"
    settings = JudgeSettings(judge="openai/j", base_url=url)
    assert settings.base_url == f"http://{URL_REDACTED}@h/v1?key={URL_REDACTED}"
    assert settings.base_url_secret == redact_url(url).secret
    # what a file holds reads back as it was: the hash is kept, not made again
    again = JudgeSettings.model_validate_json(settings.model_dump_json())
    assert again == settings and again.identity() == settings.identity()
    assert not _leaks([settings.model_dump_json(), json.dumps(settings.identity())])


def test_a_signature_read_from_an_older_file_shows_no_credential() -> None:
    """A manifest written before this promise may hold the URL whole: shown, it is not."""
    url = f"http://u:{PASSWORD}@h/v1?key={KEY}"
    stored = {"line": f"hyoka:0.1.0|kind:judge-single|judge-url:{url}"}
    read = Signature.from_json(stored)
    assert read is not None
    noted = Signature.parse("hyoka:0.1.0|kind:judge-single").with_field("judge-url", url)
    for signature in (read, noted):
        assert signature is not None
        assert signature.get("judge-url") == f"http://{URL_REDACTED}@h/v1?key={URL_REDACTED}"
        assert _leaks([signature.line, json.dumps(signature.to_json())]) == []


def test_judge_single_stores_and_prints_no_credential(tmp_path: Path) -> None:
    answers, out = _answers(tmp_path), tmp_path / "out" / "j.jsonl"
    with ReplayJudge({}, missing_reply="評価: [[7]]") as judge:
        url = _credentialed(judge.base_url)
        args = ("judge", "single", str(answers), "-j", "openai/judge", "--base-url", url,
                "--no-cache", "--output", str(out))  # fmt: skip
        result = _invoke(*args)
        as_json = _invoke(*args, "--json")  # resumed: the same run, nothing left to ask
        # the request went to the endpoint under the URL's path, with the query kept
        assert {r.path for r in judge.received} == {
            f"/v1/chat/completions?api-key={KEY}&token={TOKEN}"
        }
    assert result.exit_code == 0, result.output
    assert as_json.exit_code == 0 and json.loads(as_json.stdout)["done_before"] == 2
    assert f"judge-url:{_shown(judge.base_url)}" in result.stdout
    assert _leaks([result.stdout, result.stderr, as_json.stdout, as_json.stderr], tmp_path) == []


def test_a_changed_credential_does_not_continue_the_file(tmp_path: Path) -> None:
    answers, out = _answers(tmp_path), tmp_path / "j.jsonl"
    with ReplayJudge({}, missing_reply="評価: [[7]]") as judge:
        url = _credentialed(judge.base_url)
        first = _invoke("judge", "single", str(answers), "-j", "openai/judge", "--base-url", url,
                        "--no-cache", "--output", str(out))  # fmt: skip
        before = out.read_bytes()
        other = _credentialed(judge.base_url, password="pw-changed-1234")
        second = _invoke("judge", "single", str(answers), "-j", "openai/judge", "--base-url",
                         other, "--no-cache", "--output", str(out))  # fmt: skip
    assert first.exit_code == 0, first.output
    assert second.exit_code == 1 and "judge.base_url_secret" in second.stderr, second.output
    assert out.read_bytes() == before
    assert _leaks([second.stdout, second.stderr], tmp_path) == []
    assert "pw-changed-1234" not in second.output


def test_judge_pairwise_stores_and_prints_no_credential(tmp_path: Path) -> None:
    x, y = tmp_path / "x.jsonl", tmp_path / "y.jsonl"
    for path, model, answer in ((x, "mx", "東京です。"), (y, "my", "大阪です。")):
        row = {"id": "q1", "question": "日本の首都は？", "answer": answer, "model": model,
               "reference": "東京"}  # fmt: skip
        path.write_text(json.dumps(row, ensure_ascii=False) + "\n", encoding="utf-8")
    out = tmp_path / "pairs.jsonl"
    with ReplayJudge({}, missing_reply="[[A]]") as judge:
        result = _invoke("judge", "pairwise", str(x), str(y), "-j", "openai/judge", "--base-url",
                         _credentialed(judge.base_url), "--no-cache", "--method", "bs2",
                         "--output", str(out))  # fmt: skip
        assert len(judge.received) == 2
    assert result.exit_code == 0, result.output
    assert f"judge-url:{_shown(judge.base_url)}" in result.stdout
    assert _leaks([result.stdout, result.stderr], tmp_path) == []


def test_mtbench_judge_leaderboard_and_report_show_no_credential(
    tmp_path: Path, hyoka_env: None
) -> None:
    judged = tmp_path / "judged"
    with ReplayJudge({}, missing_reply="Rating: [[7]]") as judge:
        url = _credentialed(judge.base_url)
        result = _invoke("mtbench", "judge", "-j", "openai/gpt-4o-mini", "-a", str(ANSWERS),
                         "--limit", "1", "--base-url", url, "--no-cache", "--lang-check",
                         "script", "--output-dir", str(judged))  # fmt: skip
    assert result.exit_code == 0, result.output
    printed = [result.stdout, result.stderr]
    for fmt in ("md", "csv", "json"):
        board = _invoke("mtbench", "leaderboard", "--judgments", str(judged), "--format", fmt)
        assert board.exit_code == 0, board.output
        assert _shown(judge.base_url) in board.stdout  # the signature, redacted
        printed += [board.stdout, board.stderr]
    site = tmp_path / "site"
    report = _invoke("report", str(judged), "-o", str(site), "--no-public", "--rounds", "10")
    assert report.exit_code == 0, report.output
    shown = html.escape(_shown(judge.base_url))  # the signature on the MT-bench page
    assert any(shown in p.read_text("utf-8") for p in site.rglob("*.html"))
    assert _leaks([*printed, report.stdout, report.stderr], tmp_path) == []


def test_a_base_url_given_as_an_option_is_refused(tmp_path: Path) -> None:
    """``-o base_url=...`` would reach the server unredacted and outside the identity."""
    option = f"base_url=http://u:{PASSWORD}@127.0.0.1:9/v1"
    result = _invoke("judge", "single", str(_answers(tmp_path)), "-j", "openai/judge",
                     "-o", option, "--no-cache")  # fmt: skip
    assert result.exit_code == 1
    assert "error: --option base_url=...: give the server's URL with --base-url" in result.stderr
    assert _leaks([result.stdout, result.stderr], tmp_path) == []


def test_cannot_connect_names_the_url_without_its_credentials(tmp_path: Path) -> None:
    base = closed_port_url() + "/v1"
    result = _invoke("judge", "single", str(_answers(tmp_path)), "-j", "openai/judge",
                     "--base-url", _credentialed(base), "--no-cache",
                     "--output", str(tmp_path / "j.jsonl"))  # fmt: skip
    assert result.exit_code != 0
    (line,) = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert f"cannot connect to {_shown(base)} (" in line
    assert _leaks([result.stdout, result.stderr], tmp_path) == []


def test_an_anthropic_base_url_keeps_its_path_and_query(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Anthropic SDK joins paths as OpenAI's does: the query goes after ``/v1/messages``."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-0123456789")
    for name in ("ANTHROPIC_CUSTOM_HEADERS", "ANTHROPIC_BASE_URL", "ANTHROPIC_AUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    request = GenerationRequest(messages=(Message(role="user", content="こんにちは"),))
    with AnthropicServer(api_key="sk-ant-test-0123456789") as server:
        provider = load_provider(
            "anthropic/claude-test", base_url=f"{server.base_url}?key={KEY}", timeout=5
        )
        assert KEY not in repr(provider)

        async def ask() -> None:
            await provider.generate(request)
            await provider.aclose()

        asyncio.run(ask())
    (received,) = server.received
    assert (received.path, received.query) == ("/v1/messages", {"key": [KEY]})


def test_a_refset_generation_file_keeps_no_credential_of_its_base_url(tmp_path: Path) -> None:
    """``refset generate`` takes its server from the generation file's ``[options]
    base_url``: ``generation.json`` (the set's identity) keeps it redacted, with a hash of
    what was hidden, so a changed password is another set, never a continued one."""
    from hyoka.refset.generate import SETTINGS_FILE, GenerateConfig, prepare

    def config(password: str) -> GenerateConfig:
        url = f"http://user:{password}@127.0.0.1:9/v1?api-key=k-{password}"
        return GenerateConfig(model="openai/m", set_name="s", options={"base_url": url})

    folder = tmp_path / "set"
    prepare(folder, config("hunter2"))
    stored = (folder / SETTINGS_FILE).read_text(encoding="utf-8")
    assert "hunter2" not in stored
    options = json.loads(stored)["options"]
    assert options["base_url"] == f"http://{URL_REDACTED}@127.0.0.1:9/v1?api-key={URL_REDACTED}"
    assert options["base_url_secret"] == redact_url(config("hunter2").options["base_url"]).secret
    prepare(folder, config("hunter2"))  # the same settings continue
    with pytest.raises(HyokaError, match="different generation settings"):
        prepare(folder, config("other"))
