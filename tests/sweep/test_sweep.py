"""``hyoka sweep PLAN``: many models on many suites with a judge, from one plan file, ending
in one results matrix; resumable, a failing cell reported while the others finish, and
``--plan`` figures counted from the data (issue 33, items 1 and 5).

The models are the embedded SmolLM2 (in process, as a user types ``llamacpp/smollm2``) and
a seeded OpenAI-compatible server on 127.0.0.1 that counts every request it receives; the
judge is a script, so every judged number is known in advance (``[[6]]`` for Japanese
MT-bench, ``4`` for ELYZA-tasks-100).
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from _shared import SHARED_DATA, elyza_data, needs_embedded_model
from hyoka.cli.main import app
from hyoka.signature import Signature
from persistent_cache import session_cache_dir
from wire_servers import OpenAIServer, closed_port_url

#: the scripted judge (as the shipped example's): Japanese MT-bench's prompts ask for
#: "[[rating]]", ELYZA's for a bare number
JUDGE_SCRIPT = [
    {"contains": "[[rating]]", "reply": "評価: [[6]]"},  # turn 1 (the instruction in the user turn)
    {"contains": "Conversation with User|>", "reply": "評価: [[6]]"},  # turn 2
    {"reply": "4"},
]


@pytest.fixture
def sweep_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A data folder with the four suites (ELYZA's stand-in judge prompt, as the judged
    end-to-end tests use), a fresh response cache, and the judge's script."""
    data = elyza_data(tmp_path / "data")
    for name in ("jmt-bench", "m-ifeval-ja", "pfgen-bench"):
        (data / name).symlink_to(SHARED_DATA / name)
    cache = tmp_path / "cache"
    cache.mkdir()
    monkeypatch.setenv("HYOKA_DATA_DIR", str(data))
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(session_cache_dir(cache, SHARED_DATA)))
    lines = [json.dumps(rule, ensure_ascii=False) for rule in JUDGE_SCRIPT]
    (tmp_path / "judge.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return tmp_path


def _plan(folder: Path, models: dict[str, str], suites: str, *, concurrency: int = 1) -> Path:
    text = f'out = "out"\nconcurrency = {concurrency}\n'
    for name, table in models.items():
        text += f"[models.{name}]\n{table}\n"
    text += '[judges.scripted]\njudge = "scripted/judge.jsonl"\n' + suites
    path = folder / "sweep.toml"
    path.write_text(text, encoding="utf-8")
    return path


def _seeded(server: OpenAIServer) -> str:
    return f'model = "openai/seeded"\nbase_url = "{server.base_url}"'


SMOLLM2 = 'model = "llamacpp/smollm2"\noptions = { n_ctx = 2048, n_threads = 1 }'

ALL_FOUR = """
[[suites]]
bench = "pfgen-bench"
limit = 1
trials = 1
num_examples = 0
max_tokens = 8
[[suites]]
bench = "jmt-bench"
variant = "llm-jp"
limit = 1
max_tokens = 8
[[suites]]
bench = "elyza-tasks-100"
limit = 1
max_tokens = 8
[[suites]]
bench = "m-ifeval-ja"
limit = 1
max_tokens = 8
"""

TWO = """
[[suites]]
bench = "jmt-bench"
variant = "llm-jp"
limit = 2
max_tokens = 8
[[suites]]
bench = "m-ifeval-ja"
limit = 2
max_tokens = 8
"""


def _sweep(*args: str | Path, code: int = 0) -> Result:
    result = CliRunner().invoke(app, ["sweep", *map(str, args)])
    assert result.exit_code == code, result.output
    return result


def _cells(out: Path) -> dict[str, dict[str, Any]]:
    manifest = json.loads((out / "sweep.json").read_text(encoding="utf-8"))
    return {cell["key"]: cell for cell in manifest["cells"]}


def test_two_models_four_suites_one_table_and_the_report_opens_with_it(
    sweep_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    needs_embedded_model()
    import llama_cpp

    loads: list[str] = []

    class Counted(llama_cpp.Llama):  # the real model, its loads counted
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            loads.append(str(kwargs.get("model_path")))
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(llama_cpp, "Llama", Counted)
    with OpenAIServer() as server:
        plan = _plan(sweep_env, {"smollm2": SMOLLM2, "seeded": _seeded(server)}, ALL_FOUR)
        shown = json.loads(_sweep(plan, "--json").stdout)
        asked = server.served
    assert len(loads) == 1  # the embedded model loaded once for its four cells, not per cell
    out = sweep_env / "out"
    assert (shown["ran"], shown["reused"], shown["failed"]) == (8, 0, 0)
    cells = _cells(out)
    assert list(cells) == [
        f"{model} × {suite}"
        for model in ("smollm2", "seeded")
        for suite in ("pfgen-bench", "jmt-bench.llm-jp × scripted",
                      "elyza-tasks-100 × scripted", "m-ifeval-ja")
    ]  # fmt: skip
    # the seeded server answered exactly the seeded model's requests: pfgen 1, MT-bench's
    # two turns, ELYZA 1, M-IFEval 1
    assert asked == 5 and cells["seeded × pfgen-bench"]["calls"] == 1
    for model in ("smollm2", "seeded"):
        jmt = cells[f"{model} × jmt-bench.llm-jp × scripted"]
        elyza = cells[f"{model} × elyza-tasks-100 × scripted"]
        assert (jmt["score"], jmt["calls"], jmt["variant"]) == (6, 2 + 2, "llm-jp")
        assert not [note for note in jmt["notes"] if "no rating" in note]  # both turns rated
        assert (elyza["score"], elyza["calls"]) == (4, 1 + 1)
        for judged in (jmt, elyza):  # every judged number names its judge, a dry run
            (judge,) = judged["judged_by"]
            assert judge["judge"] == f"scripted/{sweep_env / 'judge.jsonl'}"
            assert judge["dry_run"] is True
        pfgen = cells[f"{model} × pfgen-bench"]
        result = json.loads(Path(pfgen["files"][0], "result.json").read_text("utf-8"))
        assert pfgen["score"] == result["score"] and pfgen["complete"] is False
        ifeval = cells[f"{model} × m-ifeval-ja"]
        assert ifeval["score"] in (0.0, 100.0) and ifeval["metric"] == "strict prompt accuracy"
        for cell in (jmt, elyza, pfgen, ifeval):  # every cell signed
            signature = Signature.from_json(cell["signature"])
            assert signature is not None and signature.get("kind")
    # the matrix in every leaderboard format, the same numbers
    table = (out / "results.md").read_text(encoding="utf-8")
    assert table.splitlines()[0] == (
        "| model | pfgen-bench | jmt-bench.llm-jp (scripted) | elyza-tasks-100 (scripted) "
        "| m-ifeval-ja |"
    )
    assert "6.00 [6.00, 6.00] (partial) (dry run)" in table
    assert json.loads((out / "results.json").read_text("utf-8")) == shown["matrix"]
    csv_rows = (out / "results.csv").read_text("utf-8").splitlines()
    assert csv_rows[2].split(",")[5:7] == ["6.0", "6.0"] and csv_rows[2].startswith("seeded,")
    # the report's index opens with the matrix, each judged column naming its judge
    site = sweep_env / "site"
    report = CliRunner().invoke(app, ["report", str(out), "-o", str(site), "--no-public"])
    assert report.exit_code == 0, report.output
    index = (site / "index.html").read_text(encoding="utf-8")
    first = index[index.index("<h2>") :]  # the index's first section: the matrix
    assert first.startswith("<h2>Results matrix</h2>") and first.index("pfgen-bench")
    matrix = first[: first.index("</ul>")]
    assert "jmt-bench.llm-jp (scripted)" in matrix and "6.00 [6.00, 6.00]" in matrix
    assert f"judged by scripted/{sweep_env / 'judge.jsonl'}, script" in matrix


def test_a_killed_sweep_resumes_and_asks_nothing_twice(sweep_env: Path) -> None:
    """SIGKILL while the fourth request waits at the server, then run again: the answered
    requests are never sent again, every cell finishes."""
    with OpenAIServer() as server:
        plan = _plan(sweep_env, {"seeded": _seeded(server)}, TWO)
        server.hold_after(3)
        first = subprocess.Popen(
            [sys.executable, "-m", "hyoka", "sweep", str(plan)], env=dict(os.environ),
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )  # fmt: skip
        try:
            deadline = time.monotonic() + 60
            while server.held == 0:
                assert first.poll() is None, first.stderr.read() if first.stderr else ""
                assert time.monotonic() < deadline, "the sweep never reached its fourth request"
                time.sleep(0.02)
            first.send_signal(signal.SIGKILL)
            first.wait(timeout=30)
        finally:
            if first.poll() is None:
                first.kill()
            if first.stderr:
                first.stderr.close()
        server.release()
        # --plan says what the killed run kept: the first dialogue's two answers
        planned = json.loads(_sweep(plan, "--plan", "--json").stdout)["cells"]
        assert [(c["status"], c["model_calls"]) for c in planned] == [
            ("partial: 2 answer(s), 0 judgment(s) kept", 2),
            ("to run", 2),
        ]
        answered = [request.raw for request in server.received[:3]]
        before = server.served
        again = json.loads(_sweep(plan, "--json").stdout)
        resent = [request.raw for request in server.received[before:]]
    assert (again["ran"], again["failed"]) == (2, 0)
    # MT-bench's last turn (in flight when killed) and M-IFEval's two prompts; nothing answered
    assert len(resent) == 3 and not set(resent) & set(answered)
    cells = _cells(sweep_env / "out")
    assert cells["seeded × jmt-bench.llm-jp × scripted"]["score"] == 6
    # a third run takes every cell from the manifest and asks nothing
    with OpenAIServer() as idle:
        done = json.loads(_sweep(plan, "--json").stdout)
        assert (done["ran"], done["reused"], idle.served) == (0, 2, 0)


def test_a_failing_cell_is_reported_and_the_others_finish(sweep_env: Path) -> None:
    with OpenAIServer() as server:
        models = {"broken": 'model = "llamacpp/missing.gguf"', "seeded": _seeded(server)}
        plan = _plan(sweep_env, models, TWO)
        result = _sweep(plan, code=1)
        again = json.loads(_sweep(plan, "--json", code=1).stdout)
    assert (
        "[1/4] broken × jmt-bench.llm-jp × scripted: failed: llamacpp: model file" in result.stdout
    )
    assert "4 cell(s) run, 0 done before, 2 failed" in result.stdout
    table = (sweep_env / "out" / "results.md").read_text(encoding="utf-8")
    assert "| broken | failed | failed |" in table and "| seeded | 6.00" in table
    assert "failed broken × m-ifeval-ja: llamacpp: model file 'missing.gguf'" in table
    # run again: the failed cells are tried again, the done ones taken as they were
    assert (again["ran"], again["reused"], again["failed"]) == (2, 2, 2)


def test_plan_counts_calls_tokens_price_and_time_from_the_data(sweep_env: Path) -> None:
    """``--plan`` for one hosted model on two suites, a hosted judge: the figures follow from
    the questions as they are in the data and the list prices of its date."""
    from hyoka.mtbench import Bench
    from hyoka.sweep import AS_OF

    suites = """
[[suites]]
bench = "jmt-bench"
variant = "llm-jp"
limit = 1
max_tokens = 100
[[suites]]
bench = "m-ifeval-ja"
limit = 2
max_tokens = 50
"""
    model = 'model = "openai/gpt-4o-mini"\nseconds_per_call = 3'
    plan = _plan(sweep_env, {"mini": model}, suites, concurrency=2)
    text = plan.read_text("utf-8").replace(
        'judge = "scripted/judge.jsonl"', 'judge = "openai/gpt-4o"\nseconds_per_call = 10'
    )
    plan.write_text(text, encoding="utf-8")
    shown = json.loads(_sweep(plan, "--plan", "--json").stdout)
    data = Path(os.environ["HYOKA_DATA_DIR"])
    jmt_file = data / "jmt-bench" / "variants/llm-jp-judge/question/question_full-v3.jsonl"
    first = json.loads(jmt_file.read_text("utf-8").splitlines()[0])
    one, two = (len(turn) for turn in first["turns"])
    ifeval_file = data / "m-ifeval-ja" / "data" / "ja_input_data.jsonl"
    prompts = [json.loads(line)["prompt"] for line in ifeval_file.read_text("utf-8").splitlines()]
    jmt_prompt = one + (one + two + 100)  # turn 2 carries turn 1 and its answer
    bench = Bench.load("jmt-bench", data, "llm-jp")
    template = max(len(p.system_prompt) + len(p.prompt_template) for p in bench.prompts.values())
    reference = sum(len(text) for text in bench.questions[0].reference or ())
    judged = (template + one + 100 + reference) + (template + one + two + 200 + reference)
    jmt, ifeval = shown["cells"]
    assert jmt == {
        "cell": "mini × jmt-bench.llm-jp × scripted", "status": "to run",
        "model_calls": 2, "model_prompt_tokens": jmt_prompt, "model_completion_tokens": 200,
        "judge_calls": 2, "judge_prompt_tokens": judged, "judge_completion_tokens": 2 * 2048,
        "usd": round((jmt_prompt * 0.15 + 200 * 0.60 + judged * 2.5 + 4096 * 10.0) / 1e6, 6),
        "seconds": 1 * 3 + 1 * 10.0,
        "prices": [f"model list@{AS_OF}", f"judge list@{AS_OF}"],
    }  # fmt: skip
    ifeval_prompt = sum(len(p) for p in prompts[:2])
    assert (ifeval["model_calls"], ifeval["model_prompt_tokens"]) == (2, ifeval_prompt)
    assert (ifeval["judge_calls"], ifeval["seconds"]) == (0, 3.0)
    assert ifeval["usd"] == round((ifeval_prompt * 0.15 + 2 * 50 * 0.60) / 1e6, 6)
    assert math.isclose(shown["usd"], jmt["usd"] + ifeval["usd"], abs_tol=2e-6)
    assert (shown["done"], shown["to_run"], shown["seconds"]) == (0, 2, 16.0)
    terminal = _sweep(plan, "--plan").stdout
    assert "to run: 2 of 2 cells" in terminal and "at concurrency 2" in terminal


@pytest.mark.parametrize(
    ("line", "key", "error"),
    [
        ("modle = 'x'", "models.seeded", "unknown key 'modle'"),
        ("limit = 0", "suites", "limit must be a whole number of at least 1"),
        ("variant = 'nope'", "suites", "has no variant 'nope'"),
        ("bench = 'rakuda'", "bench", "rakuda draws its matches: give matches = N"),
        ("matches = 3", "suites", "matches is for a suite of drawn matches (rakuda)"),
        ("mode = 'pairs'", "suites", "mode is for pfgen-bench; a FastChat suite takes mode"),
        ("bench = 'nope'", "bench", "unknown bench 'nope' (known: pfgen-bench, "),
        ("base_url = ['http://a/v1', 'http://a/v1']", "models.seeded", "lists a server twice"),
        # the same server however written: a trailing slash, the scheme's or host's case
        ("base_url = ['http://a/v1', 'HTTP://A:80/v1/']", "models.seeded", "a server twice"),
        ("base_url = ['http://[::1/v1', 'http://a/v1']", "models.seeded", "is not a URL ("),
        ("base_url = ['http://a:0/v1']", "models.seeded", "port that is not a number from 1"),
        ("base_url = ['http://a/v1#x']", "models.seeded", "'http://a/v1#REDACTED' has a #frag"),
        # a value that may hold a key or a password is named by its kind, never shown
        ("base_url = ['http://u:hunter2@a/v1', 5]", "models.seeded", "URLs, got 5 in the list"),
        ("options = 'sk-hunter2hunter2'", "models.seeded", "options must be a table, got a st"),
        # an option's value, checked by its backend as it is built
        (
            "options = { timeout = 'hunter2' }",
            "models.seeded",
            "models.seeded: the openai provider's timeout is seconds above 0, got a string",
        ),
        ("options = { timeout = 0 }", "models.seeded", "timeout is seconds above 0, got 0"),
        ("base_url = []", "models.seeded", "base_url must be a URL or a list of URLs"),
        # a server URL no request could reach: the plan's line, not the cell's run
        (
            "base_url = ['http://a/v1', 'ftp://b/v1']",
            "models.seeded",
            "base_url 'ftp://b/v1' is not an http:// or https:// URL",
        ),
        ("base_url = ['http://a/v1', 'http:///v1']", "models.seeded", "'http:///v1' names no host"),
        ("base_url = ['http://a b/v1']", "models.seeded", "holds white space or a control"),
        ("base_url = 'localhost:8000/v1'", "models.seeded", "is not an http:// or https://"),
        ("base_url = ['http://a:80800/v1']", "models.seeded", "port that is not a number"),
        (
            "base_url = ['http://u:hunter2@a b/v1']",
            "models.seeded",
            "base_url 'http://REDACTED@a b/v1' holds",
        ),
        # issue 33 S5, S9: found when the plan is read, not when the cell runs
        (
            "options = { temperature = 'hot', bogus_option = [1, 2] }",
            "models.seeded",
            "models.seeded: option bogus_option, option temperature: openai/x takes no such "
            "backend option",
        ),
        ("judges = []", "suites", "suite 1: judges = [] names no judge"),
    ],
)
def test_a_bad_plan_is_one_line_naming_its_file_and_line(
    sweep_env: Path, line: str, key: str, error: str
) -> None:
    text = '[models.seeded]\nmodel = "openai/x"\n'
    text += '[judges.j]\njudge = "scripted/judge.jsonl"\n[[suites]]\nbench = "jmt-bench"\n'
    if key == "models.seeded":
        text = text.replace('model = "openai/x"\n', f'model = "openai/x"\n{line}\n')
    elif key == "bench":
        text = text.replace('bench = "jmt-bench"', line)
    else:
        text += f"{line}\n"
    plan = sweep_env / "bad.toml"
    plan.write_text(text, encoding="utf-8")
    number = text.splitlines().index(line) + 1
    result = _sweep(plan, code=1)
    (shown,) = result.stderr.splitlines()
    assert shown.startswith(f"error: {plan}:{number}: ") and error in shown, shown
    assert "hunter2" not in result.output and "Traceback" not in result.output


def test_the_shipped_example_plan_is_valid_and_its_plan_counts(sweep_env: Path) -> None:
    """The plan the README copies (``hyoka/examples/sweep``): the embedded model on the four
    suites with the scripted judge; ``--plan`` counts its calls and asks nothing."""
    import shutil

    import hyoka

    example = sweep_env / "example"
    shutil.copytree(Path(hyoka.__file__).parent / "examples" / "sweep", example)
    shown = json.loads(_sweep(example / "sweep.toml", "--plan", "--json").stdout)
    calls = {c["cell"]: (c["model_calls"], c["judge_calls"], c["usd"]) for c in shown["cells"]}
    assert calls == {
        "smollm2 × pfgen-bench": (2, 0, 0.0),
        "smollm2 × jmt-bench.llm-jp × scripted": (4, 4, 0.0),
        "smollm2 × elyza-tasks-100 × scripted": (2, 2, 0.0),
        "smollm2 × m-ifeval-ja": (3, 0, 0.0),
    }
    assert (shown["to_run"], shown["done"]) == (4, 0)
    assert not (example / "sweep-results").exists()  # --plan writes nothing


def test_each_judged_suite_once_per_judge_unless_it_names_its_judges(sweep_env: Path) -> None:
    plan = sweep_env / "judges.toml"
    plan.write_text(  # jp-stable sends claude-2 no system message: no source file needed
        '[models.m]\nmodel = "openai/claude-2"\nbase_url = "http://127.0.0.1:9"\n'
        '[judges.a]\njudge = "scripted/judge.jsonl"\n[judges.b]\njudge = "scripted/judge.jsonl"\n'
        '[[suites]]\nbench = "jmt-bench"\nlimit = 1\n'
        '[[suites]]\nbench = "elyza-tasks-100"\nlimit = 1\njudges = ["b"]\n',
        encoding="utf-8",
    )
    shown = json.loads(_sweep(plan, "--plan", "--json").stdout)
    cells = [(c["cell"], c["model_calls"], c["judge_calls"]) for c in shown["cells"]]
    # the answers are made once and counted in the first judge's cell
    assert cells == [
        ("m × jmt-bench × a", 2, 1),  # Stability's default variant judges turn 1 only
        ("m × jmt-bench × b", 0, 1),
        ("m × elyza-tasks-100 × b", 1, 1),
    ]


def test_another_executor_runs_the_cells_and_the_matrix_keeps_the_plans_order(
    sweep_env: Path,
) -> None:
    """The executor is the seam for running cells elsewhere: one that runs them last first
    gives the same matrix, in the plan's order."""
    from collections.abc import Callable, Sequence

    from hyoka.sweep import Cell, CellResult, read_plan, run_sweep

    ran: list[str] = []

    class LastFirst:
        def run(
            self,
            cells: Sequence[Cell],
            work: Callable[[Cell], CellResult],
            done: Callable[[CellResult], None],
        ) -> None:
            for cell in reversed(cells):
                ran.append(cell.key)
                done(work(cell))

    with OpenAIServer() as server:
        plan = _plan(sweep_env, {"seeded": _seeded(server)}, TWO)
        swept = run_sweep(read_plan(plan), executor=LastFirst())
    assert ran == ["seeded × m-ifeval-ja", "seeded × jmt-bench.llm-jp × scripted"]
    assert [cell.key for cell in swept.matrix.cells] == ran[::-1]
    assert swept.matrix.cells[0].score == 6.0 and swept.failed == 0


def test_a_model_on_several_servers_uses_them_together(sweep_env: Path) -> None:
    """``base_url`` may list the servers of one model: the requests are shared among them
    (the least busy first); the same servers in another order are the same cells, done
    before."""
    with OpenAIServer() as one, OpenAIServer() as two:
        urls = f'["{one.base_url}", "{two.base_url}"]'
        both = {"seeded": f'model = "openai/seeded"\nbase_url = {urls}'}
        plan = _plan(sweep_env, both, TWO, concurrency=2)
        shown = json.loads(_sweep(plan, "--json").stdout)
        served = (one.served, two.served)
        # MT-bench 2 x 2 turns, M-IFEval 2, and each cell's first reply asked of both
        # servers (no reply is kept before two servers answered as one model)
        assert min(served) >= 1 and sum(served) == 8
        text = plan.read_text("utf-8").replace(urls, f'["{two.base_url}", "{one.base_url}"]')
        plan.write_text(text, encoding="utf-8")
        again = json.loads(_sweep(plan, "--json").stdout)
        assert (one.served, two.served) == served and again["reused"] == 2
    assert shown["failed"] == 0 and shown["matrix"]["cells"][0]["score"] == 6.0


def _scripted_plan(folder: Path, name: str, out: str, suites: str) -> Path:
    """A plan of the scripted model (its replies the judge's script) into ``out``."""
    path = folder / name
    path.write_text(
        f'out = "{out}"\n[models.sm]\nmodel = "scripted/judge.jsonl"\n'
        f'[judges.scripted]\njudge = "scripted/judge.jsonl"\n{suites}',
        encoding="utf-8",
    )
    return path


IFEVAL_ONE = '[[suites]]\nbench = "m-ifeval-ja"\nlimit = 1\nmax_tokens = 8\n'


def test_one_sweep_writes_an_output_folder_and_another_plans_is_refused(sweep_env: Path) -> None:
    """Issue 33 S3: two plans into one ``out`` both exited 0 and the folder held plan B's
    cells only; now the folder is the first plan's, and a second writer stops at once."""
    from hyoka.store import writer_lock

    first = _scripted_plan(sweep_env, "a.toml", "shared", IFEVAL_ONE)
    second = _scripted_plan(sweep_env, "b.toml", "shared", IFEVAL_ONE.replace("1\n", "2\n", 1))
    _sweep(first)
    for args in ((second,), (second, "--plan")):
        (shown,) = _sweep(*args, code=1).stderr.splitlines()
        assert shown == (
            f"error: {sweep_env / 'shared' / 'sweep.json'}: this folder holds the sweep of "
            f"another plan ({first}); give {second} another out, or remove the folder"
        )
    assert list(_cells(sweep_env / "shared")) == ["sm × m-ifeval-ja"]
    with writer_lock(sweep_env / "shared" / "sweep.json"):  # a sweep of plan A still running
        (shown,) = _sweep(first, code=1).stderr.splitlines()
    assert "is writing this sweep's output folder" in shown


ELYZA_ONE = '[[suites]]\nbench = "elyza-tasks-100"\nlimit = 1\nmax_tokens = 8\n'


def test_a_cell_whose_settings_changed_runs_again_into_fresh_files(sweep_env: Path) -> None:
    """Issue 33 S1, S2, S7: a finished cell's settings edited (a suite's max_tokens, the
    judge's or the model's string under the same name, the judge's script) failed on every
    later run (its answer or judgment file held another run's records) or was taken as done;
    now it runs again into files of its own, the earlier ones kept, and ``--plan`` says so."""
    for copy in ("judge2.jsonl", "model2.jsonl"):
        (sweep_env / copy).write_bytes((sweep_env / "judge.jsonl").read_bytes())
    plan = _scripted_plan(sweep_env, "s.toml", "out", IFEVAL_ONE + ELYZA_ONE)
    first = json.loads(_sweep(plan, "--json").stdout)
    assert first["failed"] == 0
    old = _cells(sweep_env / "out")

    def edit(before: str, after: str) -> None:
        text = plan.read_text("utf-8")
        assert before in text
        plan.write_text(text.replace(before, after, 1), encoding="utf-8")

    # S2: the suite's max_tokens and the judge's string under the same judge name
    edit("max_tokens = 8", "max_tokens = 16")
    edit('judge = "scripted/judge.jsonl"', 'judge = "scripted/judge2.jsonl"')
    planned = json.loads(_sweep(plan, "--plan", "--json").stdout)["cells"]
    assert [c["status"] for c in planned] == [
        "changed: will run again",
        "changed: will run again; 1 answer(s), 0 judgment(s) kept",  # the judge changed only
    ]
    again = json.loads(_sweep(plan, "--json").stdout)
    assert (again["ran"], again["reused"], again["failed"]) == (2, 0, 0)
    cells = _cells(sweep_env / "out")
    for key, cell in cells.items():
        assert cell["notes"][0].startswith("settings changed since the last run: run again")
        assert cell["files"][-1] != old[key]["files"][-1]  # answers (M-IFEval), grades (ELYZA)
        assert all(Path(name).is_file() for name in old[key]["files"])  # the earlier kept
    # S1: the model's string under the same model name
    edit('model = "scripted/judge.jsonl"', 'model = "scripted/model2.jsonl"')
    assert json.loads(_sweep(plan, "--json").stdout)["ran"] == 2
    # S7: the judge's script edited in place: its replies are another judge's
    script = (sweep_env / "judge2.jsonl").read_text("utf-8").replace('"4"', '"3"')
    (sweep_env / "judge2.jsonl").write_text(script, encoding="utf-8")
    last = json.loads(_sweep(plan, "--json").stdout)
    assert (last["ran"], last["reused"]) == (1, 1)
    assert _cells(sweep_env / "out")["sm × elyza-tasks-100 × scripted"]["score"] == 3.0


@pytest.mark.parametrize(
    ("plan", "line", "error"),
    [
        (  # S4: two suites of one benchmark were one column and one answer file
            IFEVAL_ONE + IFEVAL_ONE.replace("limit = 1", "limit = 4"),
            8,
            "suite 2: m-ifeval-ja is suite 1 already",
        ),
        (  # a suite ranking the plan's models against each other, of one model
            '[judges.j]\njudge = "scripted/judge.jsonl"\n[[suites]]\nbench = "rakuda"\n'
            "matches = 2\n",
            6,
            "suite 1: rakuda ranks the plan's models against each other: name two",
        ),
        (  # S5: the scripted model on pfgen-bench: --plan refused it, the run failed the cell
            '[[suites]]\nbench = "pfgen-bench"\n',
            2,
            "models.sm: pfgen-bench runs are generated by anthropic, google, hf, llamacpp, "
            "openai, vllm models (an engine upstream's config.json can name), not 'scripted' "
            "(for pfgen-bench)",
        ),
        (IFEVAL_ONE.replace("[[", '[models.x]\nmodel = "scripted/nothere.jsonl"\n[['), 4,
         "models.x: no script file nothere.jsonl"),
        # S9: the line of a table whose name is quoted, or not a table
        (IFEVAL_ONE.replace("[[", '[models."a b"]\nmodel = "openai/x"\n[['), 3,
         "models name 'a b': letters, digits"),
        (IFEVAL_ONE.replace("[[", '[judges]\nj = "openai/x"\n[['), 4,
         "judges.j must be a table ([judges.j])"),
    ],
)  # fmt: skip
def test_what_would_fail_a_cell_is_a_plan_error_naming_its_line(
    sweep_env: Path, plan: str, line: int, error: str
) -> None:
    path = sweep_env / "p.toml"
    path.write_text(f'[models.sm]\nmodel = "scripted/judge.jsonl"\n{plan}', encoding="utf-8")
    for args in ((path, "--plan"), (path,)):
        (shown,) = _sweep(*args, code=1).stderr.splitlines()
        assert shown.startswith(f"error: {path}:{line}: ") and error in shown, shown
    assert not (sweep_env / "sweep-results").exists()


def test_a_plan_needing_an_upstream_source_not_fetched_is_refused_up_front(
    sweep_env: Path,
) -> None:
    """jp-stable picks ``one_shot`` for a name it does not know, whose message is read from
    upstream's ``conversation.py``, not fetched here: ``--plan`` says so in one line naming
    the model, the suite and the command that fetches it, as each such cell would fail."""
    data = sweep_env / "data"
    plan = _plan(sweep_env, {"m": 'model = "openai/x"'}, '[[suites]]\nbench = "jmt-bench"\n')
    (shown,) = _sweep(plan, "--plan", code=1).stderr.splitlines()
    assert shown.startswith("error: models.m: jmt-bench: ") and shown.endswith(
        f"run `hyoka data fetch jmt-bench --with-sources --data-dir {data}` to download it"
    )


def test_a_damaged_manifest_is_one_line_naming_it(sweep_env: Path) -> None:
    """Issue 33 S6: a cell of sweep.json without its model, or calls that are no number,
    was a KeyError or ValueError traceback in ``hyoka sweep``, ``--plan`` and ``report``."""
    plan = _scripted_plan(sweep_env, "s.toml", "out", IFEVAL_ONE)
    _sweep(plan)
    manifest = sweep_env / "out" / "sweep.json"
    data = json.loads(manifest.read_text("utf-8"))
    damaged = [
        ({**data, "cells": [{"key": "sm × m-ifeval-ja"}]}, "its model is None, not a string"),
        ({**data, "cells": [{**data["cells"][0], "calls": "many"}]},
         "its calls is 'many', not a whole number or absent"),
    ]  # fmt: skip
    for content, said in damaged:
        manifest.write_text(json.dumps(content), encoding="utf-8")
        report = ("report", sweep_env / "out", "-o", sweep_env / "site", "--no-public")
        for args in (("sweep", plan), ("sweep", plan, "--plan"), report):
            result = CliRunner().invoke(app, list(map(str, args)))
            assert result.exit_code == 1, result.output
            *progress, shown = result.stderr.splitlines()  # report: "results matrix…" first
            assert len(progress) <= 1 and "Traceback" not in result.output
            assert shown == f"error: {manifest}: cell 1 ('sm × m-ifeval-ja'): {said}"


def test_the_csv_matrix_says_failed_partial_and_dry_run_in_a_note_column(sweep_env: Path) -> None:
    """Issue 33 S8: results.csv put ``failed`` in a number column and lost (partial) and
    (dry run) to its comments, and a scripted model's numbers were never marked a dry run."""
    plan = _scripted_plan(sweep_env, "s.toml", "out", IFEVAL_ONE)
    text = plan.read_text("utf-8").replace(
        "[judges.", '[models.broken]\nmodel = "llamacpp/missing.gguf"\n[judges.'
    )
    plan.write_text(text, encoding="utf-8")
    _sweep(plan, code=1)
    cell = _cells(sweep_env / "out")["sm × m-ifeval-ja"]
    assert cell["dry_run"] is True and cell["complete"] is False
    rows = (sweep_env / "out" / "results.csv").read_text("utf-8").splitlines()
    assert rows[:3] == [
        "model,m-ifeval-ja,m-ifeval-ja low,m-ifeval-ja high,m-ifeval-ja note",
        f"sm,{cell['score']!r},{cell['low']!r},{cell['high']!r},partial; dry run",
        "broken,,,,failed",
    ]
    table = (sweep_env / "out" / "results.md").read_text("utf-8")
    assert f"| sm | {cell['score']:.2f} [" in table and "] (partial) (dry run) |" in table


#: M-IFEval-Ja's first four prompts, one request each, asked one at a time
IFEVAL_FOUR = '[[suites]]\nbench = "m-ifeval-ja"\nlimit = 4\nmax_tokens = 8\n'


def _pooled(sweep_env: Path, *urls: str) -> Path:
    listed = ", ".join(f'"{url}"' for url in urls)
    models = {"seeded": f'model = "openai/seeded"\nbase_url = [{listed}]'}
    return _plan(sweep_env, models, IFEVAL_FOUR)


def test_a_dead_server_is_taken_out_of_its_pool_and_the_cell_goes_on(sweep_env: Path) -> None:
    """A server of a ``base_url`` list that refuses connections failed the whole cell; now
    it is taken out (said once, naming it) and the others answer. All dead: one line."""
    dead = closed_port_url() + "/v1"
    with OpenAIServer() as live:
        keyed = f"{dead}?api-key=hunter2"  # its key never shown
        done = json.loads(_sweep(_pooled(sweep_env, keyed, live.base_url), "--json").stdout)
        assert (done["failed"], live.served) == (0, 4)
    (cell,) = _cells(sweep_env / "out").values()
    (note,) = [n for n in cell["notes"] if "taken out of the pool" in n]
    shown = f"{dead}?api-key=REDACTED"
    assert note.startswith(f"openai/seeded: server {shown} taken out of the pool, 1 of 2 go on")
    assert "hunter2" not in json.dumps(done) + (sweep_env / "out" / "sweep.json").read_text()
    other = closed_port_url() + "/v1"
    result = _sweep(_pooled(sweep_env, dead, other), code=1)
    assert f"failed: openai/seeded: no server of the pool can be reached ({dead}, {other})" in (
        result.stdout
    )


def test_a_server_that_dies_mid_run_leaves_its_requests_to_the_others(sweep_env: Path) -> None:
    """The first server answers one request, then dies with the next in flight: that request
    is asked again (the client's retry) of the server still up, which answers the rest."""
    with OpenAIServer() as dying, OpenAIServer() as live:
        dying.die_after(1)
        done = json.loads(
            _sweep(_pooled(sweep_env, dying.base_url, live.base_url), "--json").stdout
        )
        # one answered (and asked of the live one too), one dropped; 3 more here
        assert (dying.served, live.served) == (2, 4)
    assert done["failed"] == 0
    (cell,) = _cells(sweep_env / "out").values()
    (note,) = [n for n in cell["notes"] if "taken out of the pool" in n]
    assert f"server {dying.base_url} taken out of the pool" in note


@pytest.mark.parametrize("how", ["listed", "answered"])
def test_servers_of_one_pool_serving_other_models_are_refused(sweep_env: Path, how: str) -> None:
    """Two servers of one ``base_url`` list serving different models were mixed silently;
    now the pool refuses in one line naming both: up front where ``GET /models`` lists
    them, else at the first reply that names another model than the others'."""
    with OpenAIServer() as one, OpenAIServer() as two:
        if how == "listed":
            one.lists, two.lists = ["seeded"], ["llama-3-8b"]
        else:
            two.serves = lambda serial: "llama-3-8b"
        result = _sweep(_pooled(sweep_env, one.base_url, two.base_url), code=1)
        asked = (one.served, two.served)
    if how == "listed":
        said = (f"the pool's servers serve different models: {one.base_url} lists 'seeded', "
                f"{two.base_url} lists 'llama-3-8b'; give each model its own entry")  # fmt: skip
        assert asked == (0, 0)  # refused before any question
    else:
        said = (f"the pool's servers answer as different models: {one.base_url} as 'seeded', "
                f"{two.base_url} as 'llama-3-8b'; give each model its own entry")  # fmt: skip
    assert f"[1/1] seeded × m-ifeval-ja: failed: openai/seeded: {said}" in result.stdout


@pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason="needs ray")
def test_a_ray_address_where_no_cluster_answers_stops_the_sweep_before_its_cells(
    sweep_env: Path,
) -> None:
    """``--executor ray`` with a ``RAY_ADDRESS`` where nothing answers waited out the
    connect bound in every cell of a local model, each failing alike; now it is tried once,
    before any cell, and the sweep stops in one line. (A process of its own: a Ray this
    test process joined would be used as it is.)"""
    models = {"a": 'model = "llamacpp/a.gguf"', "b": 'model = "llamacpp/b.gguf"'}
    plan = _plan(sweep_env, models, IFEVAL_ONE)
    address = closed_port_url().removeprefix("http://")
    env = {**os.environ, "RAY_ADDRESS": address, "HYOKA_RAY_CONNECT_TIMEOUT": "0.5"}
    hyoka = Path(sys.executable).with_name("hyoka")
    done = subprocess.run(
        [str(hyoka), "sweep", str(plan), "--executor", "ray"],
        env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stderr.splitlines() == [
        f"error: no Ray cluster answered at RAY_ADDRESS={address} within 0.5 s "
        "(HYOKA_RAY_CONNECT_TIMEOUT): is it running? (`ray status`)"
    ]
    assert "[1/2]" not in done.stdout and not (sweep_env / "out" / "sweep.json").exists()
