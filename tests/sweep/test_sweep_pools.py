"""``hyoka sweep`` with a pool of servers (a ``base_url`` list): what a pool trusts, whom
it takes out and back, and what its identities keep of a URL's credentials.

The servers are seeded OpenAI-compatible servers on 127.0.0.1 (``wire_servers``); the
suite is M-IFEval-Ja, decided by rules, so no judge is asked.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from _shared import SHARED_DATA
from hyoka.cli.main import app
from persistent_cache import session_cache_dir
from wire_servers import OpenAIServer

#: M-IFEval-Ja's first questions, one request each, asked one at a time
IFEVAL = '[[suites]]\nbench = "m-ifeval-ja"\nlimit = {limit}\nmax_tokens = 8\n'


@pytest.fixture
def pool_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A data folder with M-IFEval-Ja and Japanese MT-bench, and a fresh response cache."""
    data = tmp_path / "data"
    data.mkdir()
    for name in ("m-ifeval-ja", "jmt-bench"):
        (data / name).symlink_to(SHARED_DATA / name)
    cache = tmp_path / "cache"
    cache.mkdir()
    monkeypatch.setenv("HYOKA_DATA_DIR", str(data))
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(session_cache_dir(cache, SHARED_DATA)))
    return tmp_path


def _plan(folder: Path, *urls: str, limit: int = 4, extra: str = "") -> Path:
    listed = ", ".join(f'"{url}"' for url in urls)
    text = (
        f'out = "out"\nconcurrency = 1\n[models.seeded]\nmodel = "openai/seeded"\n'
        f"base_url = [{listed}]\n{extra}" + IFEVAL.format(limit=limit)
    )
    path = folder / "sweep.toml"
    path.write_text(text, encoding="utf-8")
    return path


def _sweep(*args: str | Path, code: int = 0) -> Result:
    result = CliRunner().invoke(app, ["sweep", *map(str, args)])
    assert result.exit_code == code, result.output
    return result


def _cell(out: Path) -> dict[str, Any]:
    (cell,) = json.loads((out / "sweep.json").read_text(encoding="utf-8"))["cells"]
    return dict(cell)


def _written(out: Path) -> str:
    return "".join(p.read_text("utf-8") for p in sorted(out.rglob("*")) if p.is_file())


def test_a_wrong_models_first_reply_is_never_kept_and_the_rerun_asks_again(
    pool_env: Path,
) -> None:
    """The first server of a pool served another model and listed none: its first reply had
    nothing to be compared with, so it was cached and written, and the rerun after the
    server was fixed used it as a result. Now a reply is kept only once a second server
    answered as the same model: the refused run keeps none, the rerun asks again."""
    with OpenAIServer() as wrong, OpenAIServer() as right:
        wrong.serves = lambda serial: "llama-3-8b"
        wrong.reply_to_all = "WRONG-MODEL-REPLY"
        plan = _plan(pool_env, wrong.base_url, right.base_url)
        result = _sweep(plan, code=1)
        assert "the pool's servers answer as different models" in result.stdout
        assert "WRONG-MODEL-REPLY" not in _written(pool_env / "out")
        wrong.reset()
        right.reset()
        _sweep(plan)
        assert wrong.served + right.served >= 4  # every question asked again
    assert "WRONG-MODEL-REPLY" not in _written(pool_env / "out")
    assert _cell(pool_env / "out")["error"] is None


def _fast_digest(urls: list[str], limit: int) -> str:
    """A cell's digest as a reader of sweep.json could compute it from a guessed URL."""
    identity = {
        "model": {"spec": "openai/seeded", "base_url": sorted(urls), "options": {}},
        "suite": {"bench": "m-ifeval-ja", "variant": None, "limit": limit, "max_tokens": 8,
                  "trials": None, "mode": None, "num_examples": None},
        "judge": None,
    }  # fmt: skip
    text = json.dumps(identity, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def test_a_password_in_a_base_url_cannot_be_found_from_the_cells_digest(
    pool_env: Path,
) -> None:
    """A cell's digest was a fast SHA-256 over the raw URLs: a short password in one could be
    found from sweep.json by trying every value. Now an identity keeps a URL's credentials
    only as their slow hash; a URL without any is kept as it was (old sweeps resume)."""
    with OpenAIServer() as one, OpenAIServer() as two:
        # short, and nothing a number or hex digest written beside it could hold by chance
        # ("7351" had been found inside a timestamp)
        secret = one.base_url.replace("http://", "http://user:Zq7x@")
        _sweep(_plan(pool_env, secret, two.base_url, limit=1))
        digest = _cell(pool_env / "out")["digest"]
        assert digest != _fast_digest([secret, two.base_url], 1)
        assert "Zq7x" not in _written(pool_env / "out")
        _sweep(_plan(pool_env, one.base_url, two.base_url, limit=1))
    assert _cell(pool_env / "out")["digest"] == _fast_digest([one.base_url, two.base_url], 1)


def test_a_server_failing_every_request_is_taken_out_after_three(pool_env: Path) -> None:
    """A server behind a proxy answering 503 to everything (or hung past its timeout)
    accepts connections, so it was never taken out: each request sent to it failed first.
    Now three failures in a row take it out, with one note, and the others answer."""
    from wire_servers import Reply, _openai_error

    with OpenAIServer() as live, OpenAIServer() as proxy:
        down = Reply(503, _openai_error("no healthy upstream", "server_error"))
        proxy.script(*[down] * 20)
        _sweep(_plan(pool_env, live.base_url, proxy.base_url, limit=6))
        assert proxy.served == 3
    cell = _cell(pool_env / "out")
    (note,) = [n for n in cell["notes"] if "taken out of the pool" in n]
    assert note == (
        f"openai/seeded: server {proxy.base_url} taken out of the pool, 1 of 2 go on (3 "
        "requests in a row failed, the last: openai/seeded: HTTP 503: no healthy upstream)"
    )
    assert cell["error"] is None


def test_a_server_taken_out_is_taken_back_once_it_answers_again(pool_env: Path) -> None:
    """A rolling restart: the first server dies and comes back on its port, then the second
    dies. The pool never took the first back and failed with "no server can be reached";
    now, before it gives up, it tries the servers it took out and takes back those up."""
    revived: list[OpenAIServer] = []
    with OpenAIServer() as first, OpenAIServer() as second:
        port = first.server_address[1]

        def restart_first(serial: int) -> str:
            if serial == 3 and not revived:  # the first is down by now: it comes back
                revived.append(OpenAIServer(port=port).__enter__())
            return "seeded"

        first.die_after(1)
        second.serves = restart_first
        second.die_after(5)
        try:
            _sweep(_plan(pool_env, first.base_url, second.base_url, limit=8))
            answered_again = revived[0].served
        finally:
            for server in revived:
                server.__exit__(None, None, None)
    cell = _cell(pool_env / "out")
    assert cell["error"] is None and answered_again >= 2
    assert f"openai/seeded: server {first.base_url} taken back into the pool" in " ".join(
        cell["notes"]
    )


@pytest.mark.parametrize("listed", ["long", "controls"])
def test_a_refused_pools_model_lists_are_shown_short_and_printable_once(
    pool_env: Path, listed: str
) -> None:
    """The refusal of servers listing other models named every id of a list (a 1 MB line
    for a server of many models), and a control character in one came out escaped twice
    (``\\\\x1b``). Now a list shows its first five ids and how many more, each made
    printable once."""
    with OpenAIServer() as one, OpenAIServer() as two:
        one.lists = ["seeded"]
        if listed == "long":
            two.lists = [f"org/model-{i:02d}" for i in range(30)]
            said = "'org/model-00', 'org/model-01', 'org/model-02', 'org/model-03', "
            said += "'org/model-04' and 25 more; give each model its own entry"
        else:
            two.lists = ["\x1b[31mred\nsecond"]
            said = "lists '\\x1b[31mred\\nsecond'; give each model its own entry"
        result = _sweep(_plan(pool_env, one.base_url, two.base_url), code=1)
    (line,) = [line for line in result.stdout.splitlines() if ": failed: " in line]
    assert line.endswith(f"{two.base_url} {'lists ' if listed == 'long' else ''}{said}"), line


def test_a_model_list_too_long_to_be_one_is_read_no_further(pool_env: Path) -> None:
    """``GET /models`` was read whole, whatever its size. Now past 256 KiB it is taken as no
    list: the servers' replies are compared instead, and here they agree."""
    with OpenAIServer() as one, OpenAIServer() as two:
        one.lists = ["seeded"]
        two.lists = [f"org/a-model-with-a-rather-long-name-{i:06d}" for i in range(8000)]
        _sweep(_plan(pool_env, one.base_url, two.base_url, limit=2))
    assert _cell(pool_env / "out")["error"] is None


def test_a_pooled_judges_signature_names_every_server(pool_env: Path) -> None:
    """A judge on a pool of servers signed its judgments with its first server only
    (``judge-url``); now with every server, sorted, each as it may be shown."""
    with OpenAIServer() as model, OpenAIServer() as one, OpenAIServer() as two:
        one.reply_to_all = two.reply_to_all = "評価: [[6]]"
        keyed = two.base_url.replace("http://", "http://u:hunter2@")
        (pool_env / "sweep.toml").write_text(
            f'out = "out"\n[models.m]\nmodel = "openai/seeded"\nbase_url = "{model.base_url}"\n'
            f'[judges.j]\njudge = "openai/judge"\nbase_url = ["{keyed}", "{one.base_url}"]\n'
            '[[suites]]\nbench = "jmt-bench"\nvariant = "llm-jp"\nlimit = 1\nmax_tokens = 8\n',
            encoding="utf-8",
        )
        _sweep(pool_env / "sweep.toml")
    shown = sorted([one.base_url, two.base_url.replace("http://", "http://REDACTED@")])
    written = _written(pool_env / "out")
    assert f"|judge-url:{' '.join(shown)}|" in written and "hunter2" not in written
