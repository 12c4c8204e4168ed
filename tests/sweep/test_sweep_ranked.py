"""``hyoka sweep PLAN`` on the suites judged otherwise than turn by turn: JFBench (rules and
a judge's votes on each constraint), Rakuda's drawn matches and a FastChat suite compared
in pairs (``mode = "pairwise"``), the last two ranking every model of the plan together.

Each cell's number is the one the single commands give on the sweep's own files (and on
files the single commands make themselves), ``--plan`` counts exactly the calls the local
servers and the scripted judge then answer, a sweep run again asks nothing, and a model
that cannot answer fails its own cells only. The models are seeded OpenAI-compatible
servers on 127.0.0.1; the judges are scripts.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from _shared import SHARED_DATA, jfbench_data
from hyoka.cli.main import app
from persistent_cache import session_cache_dir
from wire_servers import OpenAIServer

#: Rakuda's judge: the first answer shown wins where a seeded reply's word is in the
#: prompt, else a tie (verdicts mixed, so that the fit has a finite maximum)
RAKUDA_JUDGE = [{"contains": "西暦", "reply": "よって1"}, {"reply": "引き分け3"}]
#: JFBench's judge: every vote passes the constraint
JFBENCH_JUDGE = [{"reply": "True"}]
#: the pairwise judge: the first answer shown always wins
PAIRS_JUDGE = [{"reply": "[[A]]"}]


@pytest.fixture
def ranked_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """JFBench (with its stand-in source), Rakuda and ja-vicuna-qa in a data folder, a
    fresh response cache, and each judge's script."""
    data = jfbench_data(tmp_path / "data")
    for name in ("rakuda", "ja-vicuna-qa"):
        (data / name).symlink_to(SHARED_DATA / name)
    cache = tmp_path / "cache"
    cache.mkdir()
    monkeypatch.setenv("HYOKA_DATA_DIR", str(data))
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(session_cache_dir(cache, SHARED_DATA)))
    for name, rules in (("rakuda", RAKUDA_JUDGE), ("jfbench", JFBENCH_JUDGE),
                        ("pairs", PAIRS_JUDGE)):  # fmt: skip
        lines = [json.dumps(rule, ensure_ascii=False) for rule in rules]
        (tmp_path / f"{name}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return tmp_path


def _hyoka(*args: str | Path, code: int = 0) -> Result:
    result = CliRunner().invoke(app, list(map(str, args)))
    assert result.exit_code == code, result.output
    return result


def _plan(folder: Path, models: dict[str, str], judge: str, suites: str) -> Path:
    text = 'out = "out"\nconcurrency = 1\n'
    for name, table in models.items():
        text += f"[models.{name}]\n{table}\n"
    text += f'[judges.scripted]\njudge = "scripted/{judge}.jsonl"\n{suites}'
    path = folder / "sweep.toml"
    path.write_text(text, encoding="utf-8")
    return path


def _seeded(name: str, server: OpenAIServer) -> str:
    return f'model = "openai/{name}"\nbase_url = "{server.base_url}"'


def _cells(out: Path) -> dict[str, dict[str, Any]]:
    manifest = json.loads((out / "sweep.json").read_text(encoding="utf-8"))
    return {cell["key"]: cell for cell in manifest["cells"]}


def _planned(plan: Path) -> dict[str, tuple[int, int]]:
    shown = json.loads(_hyoka("sweep", plan, "--plan", "--json").stdout)
    return {c["cell"]: (c["model_calls"], c["judge_calls"]) for c in shown["cells"]}


def _kept_after_a_kill(plan: Path) -> list[tuple[str, int, int]]:
    """Each cell's state and calls in ``--plan`` once the manifest is gone (a sweep killed
    after its files were written, before it recorded its cells)."""
    (plan.parent / "out" / "sweep.json").unlink()
    shown = json.loads(_hyoka("sweep", plan, "--plan", "--json").stdout)
    return [(c["status"], c["model_calls"], c["judge_calls"]) for c in shown["cells"]]


RAKUDA = '[[suites]]\nbench = "rakuda"\nmatches = 12\nrounds = 5\nmax_tokens = 8\n'


def test_rakuda_ranks_every_model_of_the_plan_as_the_single_commands_do(
    ranked_env: Path,
) -> None:
    with OpenAIServer() as one, OpenAIServer() as two:
        models = {"a": _seeded("a", one), "b": _seeded("b", two)}
        plan = _plan(ranked_env, models, "rakuda", RAKUDA)
        planned = _planned(plan)
        # the first cell makes both models' answers (40 questions each) and judges the 12
        # drawn matches; the second finds them all in the files
        assert planned == {"a × rakuda × scripted": (80, 12), "b × rakuda × scripted": (0, 0)}
        shown = json.loads(_hyoka("sweep", plan, "--json").stdout)
        assert (one.served, two.served) == (40, 40)
    assert (shown["ran"], shown["failed"]) == (2, 0)
    cells = _cells(ranked_env / "out")
    first, second = cells["a × rakuda × scripted"], cells["b × rakuda × scripted"]
    assert (first["calls"], second["calls"]) == (80 + 12, 0)
    # the single commands on the sweep's answer files: the same draw, verdicts and ranking
    answers = [Path(path) for path in first["files"][:2]]
    judged = ranked_env / "single"
    _hyoka("mtbench", "judge", "--bench", "rakuda", "--mode", "pairwise", "--matches", "12",
           "-j", f"scripted/{ranked_env / 'rakuda.jsonl'}", "--judge-name", "scripted",
           "--output-dir", judged, "-a", answers[0], "-a", answers[1])  # fmt: skip
    board = _hyoka("mtbench", "leaderboard", "--bench", "rakuda", "--judgments", judged,
                   "--format", "json", "--rounds", "5")  # fmt: skip
    ranking = {row["model_id"]: row for row in json.loads(board.stdout)["ranking"]}
    for model, cell in (("a", first), ("b", second)):
        row = ranking[model]
        assert (cell["score"], cell["low"], cell["high"]) == (
            row["median"], row["lower"], row["upper"]
        )  # fmt: skip
        assert cell["score"] is not None and cell["low"] <= cell["score"] <= cell["high"]
        assert cell["judged_by"][0]["dry_run"] is True
        assert cell["metric"] == (
            "Bradley-Terry rating (bootstrap median; 16th-84th percentiles, ±1σ)"
        )
    table = (ranked_env / "out" / "results.md").read_text(encoding="utf-8")
    assert table.splitlines()[0] == "| model | rakuda (scripted) |"
    assert f"| a | {first['score']:.2f} [{first['low']:.2f}, {first['high']:.2f}] (dry run) |" in (
        table
    )
    # run again: every cell from the manifest, nothing asked
    with OpenAIServer() as idle:
        again = json.loads(_hyoka("sweep", plan, "--json").stdout)
        assert (again["ran"], again["reused"], idle.served) == (0, 2, 0)
    # the report's index shows the column
    site = ranked_env / "site"
    _hyoka("report", ranked_env / "out", "-o", site, "--no-public")
    index = (site / "index.html").read_text(encoding="utf-8")
    matrix = index[index.index("<h2>Results matrix</h2>") :]
    assert "rakuda (scripted)" in matrix and "Bradley-Terry rating" in matrix
    # what the files hold is resumed, never asked again
    assert _kept_after_a_kill(plan) == [
        ("partial: 80 answer(s), 12 judgment(s) kept", 0, 0), ("to run", 0, 0)
    ]  # fmt: skip


def test_models_swapping_names_are_ranked_on_verdicts_between_the_new_names_alone(
    ranked_env: Path,
) -> None:
    """Two names swapped over the same endpoints (each name's answers now another's): the
    ranking is another, its verdicts judged afresh into a folder of their own: the very
    verdicts the single command gives on the cells' answer files, none of the old names'
    fitted with them. Other bootstrap rounds are fitted on the same verdicts."""
    with OpenAIServer() as one, OpenAIServer() as two:
        models = {"a": _seeded("a", one), "b": _seeded("b", two)}
        _hyoka("sweep", _plan(ranked_env, models, "rakuda", RAKUDA))
        swapped = {"b": _seeded("a", one), "a": _seeded("b", two)}
        plan = _plan(ranked_env, swapped, "rakuda", RAKUDA)
        assert _planned(plan)["b × rakuda × scripted"][1] == 12  # none of the old kept
        _hyoka("sweep", plan)
    cells = _cells(ranked_env / "out")
    first = cells["b × rakuda × scripted"]
    answers = [Path(path) for path in first["files"][:2]]
    judged = ranked_env / "single"
    _hyoka("mtbench", "judge", "--bench", "rakuda", "--mode", "pairwise", "--matches", "12",
           "-j", f"scripted/{ranked_env / 'rakuda.jsonl'}", "--judge-name", "scripted",
           "--output-dir", judged, "-a", answers[0], "-a", answers[1])  # fmt: skip

    def verdicts(path: Path) -> list[tuple[str, str, str, int]]:
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        return [(r["question_id"], r["model1_id"], r["model2_id"], r["winner"]) for r in rows]

    # the very verdicts the single command gives, in the order drawn (the cell found some
    # replies in the response cache, from before the swap: they came back first), and so
    # the very ratings
    (single,) = judged.rglob("*.jsonl")
    assert verdicts(Path(first["files"][-1])) == verdicts(single)
    board = _hyoka("mtbench", "leaderboard", "--bench", "rakuda", "--judgments", judged,
                   "--format", "json", "--rounds", "5")  # fmt: skip
    ranking = {row["model_id"]: row for row in json.loads(board.stdout)["ranking"]}
    for model in ("a", "b"):
        cell, row = cells[f"{model} × rakuda × scripted"], ranking[model]
        assert (cell["score"], cell["low"], cell["high"]) == (
            row["median"], row["lower"], row["upper"]
        )  # fmt: skip
    # other bootstrap rounds refit the same verdicts: the cells run again, asking nothing
    plan = _plan(ranked_env, swapped, "rakuda", RAKUDA.replace("rounds = 5", "rounds = 7"))
    assert set(_planned(plan).values()) == {(0, 0)}
    shown = json.loads(_hyoka("sweep", plan, "--json").stdout)  # its servers are gone
    assert (shown["ran"], shown["failed"]) == (2, 0)
    # a verdict on a model not of the plan, in the file: never fitted with the plan's
    verdict_file = Path(first["files"][-1])
    row = json.loads(verdict_file.read_text(encoding="utf-8").splitlines()[0])
    with verdict_file.open("a", encoding="utf-8") as out:
        out.write(json.dumps({**row, "model2_id": "ghost"}) + "\n")
    (ranked_env / "out" / "sweep.json").unlink()
    _hyoka("sweep", plan, code=1)
    assert _cells(ranked_env / "out")["a × rakuda × scripted"]["error"] == (
        f"{verdict_file}: holds verdicts on ghost, not among the plan's models: not fitted "
        "with them (remove the file to judge again)"
    )


JFBENCH = '[[suites]]\nbench = "jfbench"\nlimit = 8\nmax_tokens = 8\n'


def test_jfbench_cells_give_the_single_commands_numbers_and_a_broken_model_fails_alone(
    ranked_env: Path,
) -> None:
    """A model that cannot answer fails its own JFBench cell, and every cell of a suite that
    ranks it with the others (its error naming it), while the other model's JFBench cell
    finishes."""
    with OpenAIServer() as server:
        models = {"broken": 'model = "llamacpp/missing.gguf"', "m": _seeded("m", server)}
        plan = _plan(ranked_env, models, "jfbench", JFBENCH + RAKUDA)
        planned = _planned(plan)
        swept = _hyoka("sweep", plan, code=1)
        asked = server.served
    cells = _cells(ranked_env / "out")
    assert "4 cell(s) run, 0 done before, 3 failed" in swept.stdout
    assert cells["broken × jfbench × scripted"]["status"] == "failed"
    for model in ("broken", "m"):
        error = cells[f"{model} × rakuda × scripted"]["error"]
        assert error.startswith(f"broken's answers (ranked with {model}): llamacpp: model file")
    cell = cells["m × jfbench × scripted"]
    model_calls, judge_calls = planned["m × jfbench × scripted"]
    assert (asked, cell["calls"]) == (model_calls, model_calls + judge_calls) and judge_calls > 0
    answers, _log, results = map(Path, cell["files"])
    single = ranked_env / "single"
    _hyoka("mtbench", "judge", "--bench", "jfbench", "-j",
           f"scripted/{ranked_env / 'jfbench.jsonl'}", "--judge-name", "scripted", "-a", answers,
           "--limit", "8", "--output-dir", single)  # fmt: skip
    for judged in (results, single / "benchmark_results"):
        board = _hyoka("mtbench", "leaderboard", "--bench", "jfbench", "--judgments", judged,
                       "--format", "json")  # fmt: skip
        (row,) = json.loads(board.stdout)["groups"]
        assert (cell["score"], cell["low"], cell["high"]) == (
            row["success_rate"], row["low"], row["high"]
        )  # fmt: skip
        assert cell["score"] is not None
    assert cell["metric"] == "success rate" and cell["complete"] is False
    table = (ranked_env / "out" / "results.md").read_text(encoding="utf-8")
    assert "| broken | failed |" in table and f"| m | {cell['score']:.2f}" in table
    kept = f"partial: {model_calls} answer(s), {judge_calls} judgment(s) kept"
    assert _kept_after_a_kill(plan)[2] == (kept, 0, 0)


PAIRS = '[[suites]]\nbench = "ja-vicuna-qa"\nmode = "pairwise"\nlimit = 2\nmax_tokens = 8\n'


def test_a_fastchat_suite_in_pairs_rates_the_models_as_the_single_command_does(
    ranked_env: Path,
) -> None:
    with OpenAIServer() as one, OpenAIServer() as two:
        models = {"a": _seeded("a", one), "b": _seeded("b", two)}
        plan = _plan(ranked_env, models, "pairs", PAIRS)
        planned = _planned(plan)
        # two answers each; one pair on two questions' one turn, both orders
        key = "ja-vicuna-qa × scripted"
        assert planned == {f"a × {key}": (4, 4), f"b × {key}": (0, 0)}
        _hyoka("sweep", plan)
        assert (one.served, two.served) == (2, 2)
    cells = _cells(ranked_env / "out")
    first, second = cells[f"a × {key}"], cells[f"b × {key}"]
    assert (first["calls"], second["calls"]) == (4 + 4, 0)
    answers = first["files"][:2]
    single = _hyoka("mtbench", "judge", "--bench", "ja-vicuna-qa", "--mode", "pairwise",
                    "-j", f"scripted/{ranked_env / 'pairs.jsonl'}", "--judge-name", "scripted",
                    "--limit", "2", "--output-dir", ranked_env / "single", "-a", answers[0],
                    "-a", answers[1], "--json")  # fmt: skip
    shown = json.loads(single.stdout)
    (method,) = shown["style_controlled"]
    rated = {row["model"]: row for row in shown["style_controlled"][method]["raw"]}
    for model, cell in (("a", first), ("b", second)):
        row = rated[model]
        assert (cell["score"], cell["low"], cell["high"]) == (
            row["rating"], row["low"], row["high"]
        )  # fmt: skip
        assert cell["score"] is not None and cell["low"] <= cell["score"] <= cell["high"]
        assert cell["metric"] == f"Bradley-Terry rating ({method}, raw)"
    assert _kept_after_a_kill(plan) == [
        ("partial: 4 answer(s), 4 judgment(s) kept", 0, 0), ("to run", 0, 0)
    ]  # fmt: skip


def test_the_cells_of_a_ranked_suite_run_side_by_side_ask_everything_once(
    ranked_env: Path,
) -> None:
    """An executor that runs every cell at once on threads of this process: the cells of a
    suite ranked together take turns on its shared files, the later one asking nothing."""
    import threading

    from hyoka.sweep import Cell, CellResult, read_plan, run_sweep

    class Threads:
        def run(self, cells: Any, work: Any, done: Any) -> None:
            results: list[CellResult] = []

            def one(cell: Cell) -> None:
                results.append(work(cell))

            threads = [threading.Thread(target=one, args=(cell,)) for cell in cells]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            for result in results:
                done(result)

    with OpenAIServer() as one, OpenAIServer() as two:
        models = {"a": _seeded("a", one), "b": _seeded("b", two)}
        plan = _plan(ranked_env, models, "pairs", PAIRS)
        swept = run_sweep(read_plan(plan), executor=Threads())
        assert (one.served, two.served) == (2, 2)
    assert sorted(cell.calls for cell in swept.matrix.cells) == [0, 4 + 4]
    assert [cell.error for cell in swept.matrix.cells] == [None, None]


def test_plan_prices_each_peers_answers_at_its_own_list_price(ranked_env: Path) -> None:
    """The first cell of a ranked suite makes every model's answers: each is priced at its
    own model's list price, not at the cell's model's."""
    from hyoka.sweep import AS_OF

    models = {"mini": 'model = "openai/gpt-4o-mini"', "big": 'model = "openai/gpt-4o"'}
    plan = _plan(ranked_env, models, "pairs", PAIRS.replace("limit = 2", "limit = 1"))
    plan.write_text(
        plan.read_text("utf-8").replace('"scripted/pairs.jsonl"', '"openai/gpt-4o"'), "utf-8"
    )
    first, second = json.loads(_hyoka("sweep", plan, "--plan", "--json").stdout)["cells"]
    assert first["prices"] == [f"model list@{AS_OF}", f"model big list@{AS_OF}",
                               f"judge list@{AS_OF}"]  # fmt: skip
    # both models answer the same question at the same budget: half the tokens each
    prompt, completion = first["model_prompt_tokens"] / 2, first["model_completion_tokens"] / 2
    usd = prompt * (0.15 + 2.5) + completion * (0.60 + 10.0)
    usd += first["judge_prompt_tokens"] * 2.5 + first["judge_completion_tokens"] * 10.0
    assert first["usd"] == round(usd / 1e6, 6) and first["model_calls"] == 2
    assert (second["model_calls"], second["judge_calls"], second["usd"]) == (0, 0, 0.0)
