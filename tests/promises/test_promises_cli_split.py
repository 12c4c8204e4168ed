"""The library works, the command line parses (issue 18, items 4 and 5).

What a command used to compute for itself now lives in the library, with one home each:
pfgen-bench's protocol defaults (one record every default reads), the Ray workers' rates,
the pfgen run pipeline and the ``--json`` shapes. These tests hold each home to it.
"""

from __future__ import annotations

import inspect
import json
import tomllib
from enum import StrEnum
from importlib import resources
from pathlib import Path
from typing import Any, get_args

import pytest
from typer.testing import CliRunner

from _shared import SHARED_DATA
from hyoka.cli import pfgen_generate_cmd, refset_cmd
from hyoka.cli.main import app
from hyoka.judge import (
    AggregateChoice,
    CriteriaChoice,
    JudgedBy,
    JudgeReport,
    Method,
    MethodChoice,
    PairwiseRun,
    SingleRun,
    StyleControlChoice,
    load_template,
    read_judgments,
    summarise,
    summarise_pairwise,
)
from hyoka.judge.records import Aggregate
from hyoka.mtbench import (
    FormatChoice,
    HeadlineChoice,
    InjectionChoice,
    LangCheckChoice,
    LayoutChoice,
    TemplateChoice,
)
from hyoka.mtbench import dialogue as mtbench_dialogue
from hyoka.mtbench import generate as mtbench_generate
from hyoka.mtbench import headline as mtbench_headline
from hyoka.mtbench import langcheck as mtbench_langcheck
from hyoka.mtbench import report as mtbench_report
from hyoka.mtbench.spec import Layout
from hyoka.pfgen import (
    PROTOCOL,
    REFSET_PROTOCOL,
    GeneratedRun,
    GenerateSettings,
    Mode,
    PfgenBenchmark,
    PlannedRun,
    Protocol,
    RunSummary,
    RunWatcher,
    collect_leaderboard,
    plan_generation,
    public_neighbours,
    rank,
    read_result,
    run_pfgen,
)
from hyoka.providers import ClientStats, ThinkingChoice, ThinkingRule, Usage
from hyoka.refset import GenerateConfig, WorkerEvent, WorkerRates
from hyoka.signature import SIGNATURE_KEY as SIG
from hyoka.signature import Signature
from hyoka.stats import STYLE_CONTROLS, StyleCounts
from replay_judge_server import ReplayJudge

# --- one home for the protocol defaults -------------------------------------------------

PROTOCOL_FIELDS = ("num_examples", "temperature", "top_p", "top_k", "max_tokens")


def _flag_defaults(command: Any, names: tuple[str, ...]) -> dict[str, Any]:
    parameters = inspect.signature(command).parameters
    return {name: parameters[name].default for name in names}


def test_the_protocol_is_upstreams_as_the_spec_states_it() -> None:
    # pfgen-spec.md §1: 20 examples, temperature 1.0, top_p 0.98, max_tokens 300, no top_k;
    # §5.1: the reference sets sampled with top_k 1000 besides
    assert (
        Protocol(
            num_examples=20, temperature=1.0, top_p=0.98, top_k=None, max_tokens=300, trials=10
        )
        == PROTOCOL
    )
    assert (
        Protocol(
            num_examples=20, temperature=1.0, top_p=0.98, top_k=1000, max_tokens=300, trials=10
        )
        == REFSET_PROTOCOL
    )


def test_generate_and_run_flags_default_to_the_protocol() -> None:
    expected = {name: getattr(PROTOCOL, name) for name in (*PROTOCOL_FIELDS, "trials")}
    for command in (pfgen_generate_cmd.generate_command, pfgen_generate_cmd.run_command):
        assert _flag_defaults(command, (*PROTOCOL_FIELDS, "trials")) == expected


def test_generate_and_run_take_one_list_of_flags() -> None:
    """Declared once (``generation_flags``): the two commands' flags are the same, in order."""
    generate, run = (
        list(inspect.signature(command).parameters.values())
        for command in (pfgen_generate_cmd.generate_command, pfgen_generate_cmd.run_command)
    )
    assert generate == run
    assert [p.name for p in generate][:2] == ["model", "mode"]


def test_grading_and_concurrency_flags_default_to_the_librarys() -> None:
    """``judge.GRADING`` and ``providers.CONCURRENCY`` are the one home of these defaults:
    the library's functions and every command's flags read them."""
    from hyoka.cli import judge_pairwise_cmd, judge_single_cmd, mtbench_cmd, pfgen_judge_cmd
    from hyoka.judge import GRADING, Connection, judge_single
    from hyoka.pfgen import GenerateSettings, judge_pfgen_run
    from hyoka.providers import CONCURRENCY, ModelClient, connect
    from hyoka.refset import GenerateConfig

    grading = {"repeats", "aggregate", "temperature", "max_tokens", "max_attempts"}
    function: Any
    for function in (judge_single, judge_pfgen_run,
                     judge_single_cmd.single_command, pfgen_judge_cmd.judge_command):  # fmt: skip
        defaults = _flag_defaults(function, tuple(sorted(grading)))
        assert defaults == {name: getattr(GRADING, name) for name in grading}, function
    for function in (judge_single_cmd.single_command, pfgen_judge_cmd.judge_command,
                     judge_pairwise_cmd.pairwise_command, mtbench_cmd.generate_command,
                     mtbench_cmd.judge_command, pfgen_generate_cmd.generate_command,
                     pfgen_generate_cmd.run_command, refset_cmd.generate_command,
                     ModelClient, connect):  # fmt: skip
        assert _flag_defaults(function, ("concurrency",)) == {"concurrency": CONCURRENCY}
    assert Connection().concurrency == CONCURRENCY
    assert GenerateSettings(model="openai/m").concurrency == CONCURRENCY
    assert GenerateConfig(model="openai/m", set_name="P").concurrency == CONCURRENCY


def test_generate_settings_default_to_the_protocol() -> None:
    settings = GenerateSettings(model="openai/m")
    for name in (*PROTOCOL_FIELDS, "trials"):
        assert getattr(settings, name) == getattr(PROTOCOL, name), name


def test_refset_generation_defaults_to_the_refset_protocol() -> None:
    config = GenerateConfig(model="openai/m", set_name="P")
    flags = _flag_defaults(refset_cmd.generate_command, PROTOCOL_FIELDS)
    for name in PROTOCOL_FIELDS:
        assert getattr(config, name) == getattr(REFSET_PROTOCOL, name), name
        assert flags[name] == getattr(REFSET_PROTOCOL, name), name


def test_the_example_generation_file_samples_as_the_refset_protocol() -> None:
    # the bundled example shows the sampling keys at their defaults (its other sizes are
    # deliberately tiny, and say so)
    example = resources.files("hyoka") / "examples" / "refset" / "generate-example.toml"
    settings = tomllib.loads(example.read_text(encoding="utf-8"))
    for name in ("temperature", "top_p", "top_k"):
        assert settings[name] == getattr(REFSET_PROTOCOL, name), name


def test_a_default_runs_config_records_the_protocol(tmp_path: Path) -> None:
    settings = GenerateSettings(model="openai/m", mode=Mode.CHAT, results_dir=tmp_path)
    config = plan_generation(settings, PfgenBenchmark.load(SHARED_DATA)).plan.config
    assert (config["num_examples"], config["temperature"], config["top_p"]) == (20, 1.0, 0.98)
    assert config["max_tokens"] == 300 and "top_k" not in config


# --- the Ray workers' rates, added up in the library ------------------------------------


def test_worker_rates_add_up_the_events() -> None:
    rates = WorkerRates()
    for event in (
        WorkerEvent("ready", "w0", loads=1),
        WorkerEvent("ready", "w1", loads=1),
        WorkerEvent("batch", "w0", answers=6, seconds=2.0),
        WorkerEvent("batch", "w0", answers=6, seconds=3.0),
        WorkerEvent("batch", "w1", answers=3, seconds=1.5),
        WorkerEvent("lost", "w1", redone=3),
    ):
        rates.add(event)
    assert rates.line() == "w0 2.4/s w1 2.0/s"
    assert rates.summary() == (
        "2 worker(s), 2 model load(s); 1 lost with 3 answer(s) in flight made again; "
        "w0 2.4/s w1 2.0/s"
    )
    assert WorkerRates().summary().endswith("; no batches")


# --- choice flags are enums that spell the library's values -----------------------------


@pytest.mark.parametrize(
    ("choice", "values"),
    [
        # majority: JFBench's pass/fail votes, set by its benchmark, not a flag
        (AggregateChoice, tuple(a for a in get_args(Aggregate) if a != "majority")),
        (MethodChoice, (*get_args(Method), "all")),
        (CriteriaChoice, ("auto", "none")),
        (StyleControlChoice, STYLE_CONTROLS),
        (LayoutChoice, get_args(Layout)),
        (TemplateChoice, get_args(mtbench_generate.Template)),
        (InjectionChoice, get_args(mtbench_dialogue.Injection)),
        (LangCheckChoice, get_args(mtbench_langcheck.Check)),
        (FormatChoice, get_args(mtbench_report.Format)),
        (HeadlineChoice, tuple(mtbench_headline.RULES)),
        (ThinkingChoice, get_args(ThinkingRule)),
    ],
    ids=lambda v: v.__name__ if isinstance(v, type) else "",
)
def test_each_choice_enum_spells_exactly_the_library_values(
    choice: type[StrEnum], values: tuple[str, ...]
) -> None:
    assert [member.value for member in choice] == list(values)


@pytest.mark.parametrize(
    "args",
    [
        ["mtbench", "judge", "-j", "openai/m", "-a", "x.jsonl", "--mode", "pair"],
        ["mtbench", "judge", "-j", "openai/m", "-a", "x.jsonl", "--lang-check", "cld3"],
        ["mtbench", "judge", "-j", "openai/m", "-a", "x.jsonl", "--layout", "fastchat"],
        ["mtbench", "judge", "-j", "openai/m", "-a", "x.jsonl", "--method", "bs3"],
        ["mtbench", "generate", "-m", "openai/m", "--injection", "loose"],
        ["mtbench", "generate", "-m", "openai/m", "--template", "instruct"],
        ["mtbench", "leaderboard", "--format", "html"],
        ["judge", "single", "a.jsonl", "-j", "openai/m", "--aggregate", "mode"],
        ["judge", "pairwise", "a.jsonl", "b.jsonl", "-j", "openai/m", "--method", "best"],
        ["judge", "pairwise", "a.jsonl", "b.jsonl", "-j", "openai/m", "--criteria", "yes"],
        ["pfgen", "judge", "run", "-j", "openai/m", "--aggregate", "max"],
        ["pfgen", "generate", "-m", "openai/m", "--thinking", "hide"],
        ["mtbench", "judge", "-j", "openai/m", "-a", "x.jsonl", "--thinking", "drop"],
    ],
    ids=lambda args: f"{args[1]}{args[-2]}",
)
def test_a_value_outside_a_choice_is_typers_usage_error_naming_the_choices(
    args: list[str],
) -> None:
    result = CliRunner().invoke(app, args, env={"COLUMNS": "200"})
    assert result.exit_code == 2, result.output
    flag, bad = args[-2], args[-1]
    assert f"Invalid value for '{flag}'" in result.output
    assert f"'{bad}' is not one of" in result.output
    assert "Traceback" not in result.output


def test_choice_flags_list_their_values_in_help() -> None:
    result = CliRunner().invoke(app, ["mtbench", "judge", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    for shown in ("<single|pairwise>", "<upstream|script>", "<hyoka|upstream>"):
        assert shown in result.output


# --- the pfgen run pipeline is the library's ---------------------------------------------


class _Heard(RunWatcher):
    """Every event of a run, in order; whether result.json existed when generation ended."""

    def __init__(self) -> None:
        self.events: list[str] = []
        self.scored_before_generated: bool | None = None

    def planned(self, planned: PlannedRun) -> None:
        self.events.append(f"planned {len(planned.questions)}x{planned.plan.num_trials}")

    def advanced(self, kind: str, trial: int) -> None:
        self.events.append(f"{kind} {trial}")

    def generated(self, generated: GeneratedRun) -> None:
        self.events.append(f"generated {generated.report.trials_generated}")
        self.scored_before_generated = (generated.folder / "result.json").exists()


@pytest.mark.usefixtures("hyoka_env")
def test_run_pfgen_makes_the_run_that_pfgen_run_makes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, benchmark: PfgenBenchmark
) -> None:
    """The library call and the command: one run folder name, the same answers, the same
    score; the watcher hears the plan, each answer and trial, and the end of generation
    before the run is scored."""
    monkeypatch.setenv("OPENAI_API_KEY", "test-key-that-is-never-checked")
    with ReplayJudge({}, missing_reply="時計の長針と短針は1日に22回重なります。") as server:
        settings = GenerateSettings(
            model="openai/tiny", base_url=server.base_url, results_dir=tmp_path / "lib",
            trials=1, limit=2, num_examples=2, no_cache=True,
        )  # fmt: skip
        heard = _Heard()
        done = run_pfgen(settings, benchmark, heard)
        args = ["pfgen", "run", "-m", "openai/tiny", "--base-url", server.base_url]
        args += ["--trials", "1", "--limit", "2", "--num-examples", "2", "--no-cache"]
        args += ["--results-dir", str(tmp_path / "cli"), "--data-dir", str(SHARED_DATA)]
        shown = CliRunner().invoke(app, args, env={"COLUMNS": "200"})
    assert shown.exit_code == 0, shown.output
    assert heard.events == ["planned 2x1", "answer 1", "answer 1", "trial 1", "generated 1"]
    assert heard.scored_before_generated is False
    folder = done.generated.folder
    assert folder.parent == tmp_path / "lib" / "tiny"
    ours = tmp_path / "cli" / folder.relative_to(tmp_path / "lib")
    written = read_result(ours)
    assert written is not None
    by_cli = RunSummary.from_result(ours, written)
    assert (by_cli.score, by_cli.num_trials) == (done.summary.score, done.summary.num_trials)
    assert done.summary.num_trials == 1 and done.summary.score > 0
    assert by_cli.signature == done.summary.signature
    assert "1 trial(s) generated, 0 already done; 2 request(s)" in shown.output
    assert f"{done.summary.score:.4f}" in shown.output
    assert done.generated.stats.requests == 2


def test_public_neighbours_rank_a_run_among_the_published_ones(tmp_path: Path) -> None:
    public = collect_leaderboard(SHARED_DATA / "pfgen-bench" / "results")
    ours = public[len(public) // 2]
    beside = public_neighbours(ours, SHARED_DATA, neighbours=2)
    assert beside is not None
    assert beside.public == SHARED_DATA / "pfgen-bench" / "results"
    ranked = rank([*public, ours])
    at = ranked.index(ours)
    assert beside.rows == ranked[at - 2 : at + 3]
    assert beside.first_rank == at - 1
    assert public_neighbours(ours, tmp_path) is None  # no results in that data directory


# --- the --json shapes are the library's result objects ---------------------------------


def _answer_files(tmp_path: Path) -> list[str]:
    files = []
    for model, answer in (("x", "東京です。"), ("y", "大阪です。")):
        path = tmp_path / f"{model}.jsonl"
        line = {"id": "q1", "question": "日本の首都は?", "answer": answer, "model": model}
        line["reference"] = "東京です。"
        path.write_text(json.dumps(line, ensure_ascii=False) + "\n", "utf-8")
        files.append(str(path))
    return files


def _script(tmp_path: Path, reply: str | list[str]) -> str:
    script = tmp_path / "script.jsonl"
    script.write_text(json.dumps({"reply": reply}) + "\n", "utf-8")
    return f"scripted/{script}"


def test_judge_single_json_is_the_single_runs_to_json(tmp_path: Path) -> None:
    """Two repeats rated [[7]] and [[9]], aggregated by median: 8; the printed JSON is
    ``SingleRun.to_json`` of the run, priced."""
    x, _y = _answer_files(tmp_path)
    judge = _script(tmp_path, ["評価: [[7]]", "評価: [[9]]"])
    args = ["judge", "single", x, "-j", judge, "--repeats", "2", "--aggregate", "median"]
    args += ["--no-cache", "--price-in", "1", "--price-out", "2", "--json"]
    shown = CliRunner().invoke(app, args)
    assert shown.exit_code == 0, shown.output
    printed = json.loads(shown.stdout)
    output = tmp_path / "x.judged.jsonl"
    (record,) = read_judgments(output)
    assert record.score == 8.0
    stats = _stats(2, printed["prompt_tokens"], printed["completion_tokens"])
    run = SingleRun(
        output, summarise([record], ["q1"]), JudgeReport(judged=1, judge_calls=2), stats,
        _signature(printed), _scripted(judge, printed), price_in=1.0, price_out=2.0,
    )  # fmt: skip
    assert printed == run.to_json()
    assert (printed["mean"], printed["n"], printed["failures"]) == (8.0, 1, 0)
    assert (printed["judged_now"], printed["judge_calls"], printed["provider_calls"]) == (1, 2, 2)
    usage = printed["prompt_tokens"], printed["completion_tokens"]
    assert printed["cost_usd"] == round((usage[0] * 1 + usage[1] * 2) / 1e6, 6) > 0
    assert printed["output"] == str(output)


def _stats(requests: int, prompt_tokens: int, completion_tokens: int) -> ClientStats:
    stats = ClientStats(requests=requests)
    stats.usage = Usage(prompt_tokens=prompt_tokens, completion_tokens=completion_tokens)
    return stats


def _scripted(judge: str, printed: dict[str, Any]) -> JudgedBy:
    """The scripted judge that answered, its script's digest as the signature names it."""
    return JudgedBy(judge, _signature(printed).get("judge-script"))


def _signature(printed: dict[str, Any]) -> Signature:
    signature = Signature.from_json(printed[SIG])
    assert signature is not None
    return signature


def test_judge_pairwise_json_is_the_pairwise_runs_to_json(tmp_path: Path) -> None:
    x, y = _answer_files(tmp_path)
    output = tmp_path / "pairs.jsonl"
    args = ["judge", "pairwise", x, y, "-j", _script(tmp_path, "[[A]]"), "--method", "bs2"]
    args += ["--no-cache", "--output", str(output), "--json"]
    shown = CliRunner().invoke(app, args)
    assert shown.exit_code == 0, shown.output
    printed = json.loads(shown.stdout)
    records = read_judgments(output)
    template = load_template(printed["template"])
    usage = printed["run_usage"]
    stats = _stats(2, usage["prompt_tokens"], usage["completion_tokens"])
    lengths = {"q1": (len("東京です。"), len("大阪です。"))}  # the answers, in characters
    styles = {"q1": (StyleCounts.of("東京です。"), StyleCounts.of("大阪です。"))}
    run = PairwiseRun(
        output, template, _scripted(printed["judge"], printed), "x", "y",
        summarise_pairwise(records, ("bs2",), lengths, styles), JudgeReport(judged=1), stats,
        _signature(printed),
    )  # fmt: skip
    assert printed == run.to_json()
    # A in both orders: X first and X wins, Y first and Y wins; bs2 calls it a tie
    assert printed["methods"]["bs2"]["ties"] == 1 and printed["pairs"] == 1
