"""``hyoka refset plan``: the generation settings file, a real calibration, the arithmetic.

The calibration runs the embedded SmolLM2 through llama.cpp for a handful of 1-shot answers
of at most 8 tokens, so it takes seconds; its token counts are checked against the prompts
tokenised here with the model's own vocabulary. The estimate and the papers' scale are
checked against values worked out by hand, and the papers' answer counts against the
papers' own text (seed 000 §3.2.1).
"""

from __future__ import annotations

import json
import math
from importlib import resources
from pathlib import Path

import pytest
from typer.testing import CliRunner

from _shared import SHARED_DATA, needs
from hyoka.cli.main import app
from hyoka.errors import InputError
from hyoka.pfgen import Mode, build_prompt
from hyoka.refset import benchmark_source, plan_refsets
from hyoka.refset.config import GenerateFile, load_generate_file
from hyoka.refset.planning import (
    PAPER_ANSWERS_PER_QUESTION,
    PAPER_MODELS,
    PAPER_QUESTIONS,
    PAPER_TOTAL_ANSWERS,
    Calibration,
    CalibrationShape,
    calibrate,
    calibration_shape,
    estimate,
    paper_assumptions,
    paper_scale,
    timing_from_progress,
)
from hyoka.signature import SIGNATURE_KEY, Signature

DATA = SHARED_DATA / "pfgen-bench" / "data"
SEEDS = SHARED_DATA.parent / "seeds"
EXAMPLE = Path(str(resources.files("hyoka") / "examples" / "refset" / "generate-example.toml"))
runner = CliRunner()


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def _settings(tmp_path: Path, extra: str = "", plan: str = "") -> GenerateFile:
    return load_generate_file(
        _write(
            tmp_path / "gen.toml",
            f'work = "w"\nbenchmark = "{DATA}"\nmodel = "llamacpp/smollm2"\nset_name = "s"\n'
            f"{extra}\n[plan]\n{plan}\n",
        )
    )


# --- the settings file ---------------------------------------------------------------------


def test_the_shipped_example_reads_with_paths_beside_it() -> None:
    settings = load_generate_file(EXAMPLE)
    assert settings.generation.model == "llamacpp/smollm2"
    assert settings.generation.mode is Mode.COMPLETION
    assert settings.generation.options == {"n_threads": 1}
    assert settings.work == EXAMPLE.parent / "refset-work"
    assert settings.benchmark is None and settings.snippets is None
    assert settings.questions == ("Q01", "Q02")
    assert settings.plan.calibration_answers == 4 and settings.plan.workers == 1


def test_relative_paths_are_the_files_and_defaults_fill_the_rest(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    settings = load_generate_file(
        _write(
            tmp_path / "sub" / "gen.toml",
            'work = "w"\nbenchmark = "../bench"\nsnippets = "/abs/s.jsonl"\n'
            'model = "openai/x"\nset_name = "P"\nanswers = 7\n',
        )
    )
    assert settings.work == tmp_path / "sub" / "w"
    assert settings.benchmark == tmp_path / "sub" / ".." / "bench"
    assert settings.snippets == Path("/abs/s.jsonl")
    assert settings.generation.answers == 7 and settings.generation.num_examples == 20
    assert (settings.plan.workers, settings.plan.calibration_answers) == (1, 20)
    assert settings.plan.executor.value == "local" and settings.questions == ()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('set_nmae = "x"', "set_nmae: unknown key"),
        ("[plan]\nworker = 2", "plan.worker: unknown key"),
        ("answers = 0", "answers: Input should be greater than or equal to 1"),
        ('snippets_sha1 = "ab"', "snippets_sha1: set by hyoka from the snippets file, not here"),
        ("temperature = -1", "temperature: Input should be greater than or equal to 0"),
        ("[plan]\nexecutor = 'slurm'", "plan.executor: Input should be 'local' or 'ray'"),
    ],
)
def test_a_bad_key_or_value_is_one_line_naming_the_file(
    tmp_path: Path, text: str, message: str
) -> None:
    path = _write(tmp_path / "gen.toml", f'work = "w"\nmodel = "m/x"\nset_name = "s"\n{text}\n')
    with pytest.raises(InputError) as caught:
        load_generate_file(path)
    assert str(caught.value) == f"{path}: {message}"


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ("temperature = 5.5", "temperature: Input should be less than or equal to 5"),
        ("temperature = 1e308", "temperature: Input should be less than or equal to 5"),
        ("temperature = nan", "temperature: Input should be a finite number"),
        ("top_p = inf", "top_p: Input should be a finite number"),
    ],
)
@pytest.mark.parametrize("command", ["generate", "plan"])
def test_a_sampling_setting_no_backend_takes_is_one_line_before_anything_starts(
    tmp_path: Path, setting: str, message: str, command: str
) -> None:
    """A settings file whose sampling settings are outside the bounds every request has
    (``providers.SamplingParams``'s: a temperature of at most 5, finite numbers) is one
    line naming the file and the key, before a model is asked anything. Before, the file
    was taken (its bound was only >= 0) and the first request stopped with pydantic's
    traceback."""
    script = _write(tmp_path / "model.jsonl", '{"reply": "答え"}\n')
    path = _write(
        tmp_path / "t.toml",
        f'work = "w"\nbenchmark = "{DATA}"\nmodel = "scripted/{script}"\nset_name = "s"\n'
        f'questions = ["Q01"]\nanswers = 1\n{setting}\n[plan]\ncalibration_answers = 1\n',
    )
    args = ["generate", "--config", str(path)] if command == "generate" else ["plan", str(path)]
    result = runner.invoke(app, ["refset", *args, "--data-dir", str(SHARED_DATA)])
    assert result.exit_code == 1, result.output
    assert result.output.strip().splitlines()[-1] == f"error: {path}: {message}"
    assert not (tmp_path / "w").exists()


@pytest.mark.parametrize(
    ("flag", "message"),
    [
        (["--temperature", "5.5"], "--temperature 5.5: Input should be less than or equal to 5"),
        (["--temperature", "nan"], "--temperature nan: Input should be a finite number"),
    ],
)
def test_a_sampling_flag_no_backend_takes_is_one_line_before_anything_starts(
    tmp_path: Path, flag: list[str], message: str
) -> None:
    """The same bounds for ``refset generate``'s flags: one line naming the flag (typer
    bounds ``--top-p`` itself)."""
    script = _write(tmp_path / "model.jsonl", '{"reply": "答え"}\n')
    result = runner.invoke(app, [
        "refset", "generate", str(tmp_path / "w"), "--model", f"scripted/{script}",
        "--set-name", "s", "--question", "Q01", "--answers", "1", *flag,
        "--data-dir", str(SHARED_DATA),
    ])  # fmt: skip
    assert result.exit_code == 1, result.output
    assert result.output.strip().splitlines()[-1] == (
        f"error: invalid generation setting: {message}"
    )
    assert not (tmp_path / "w").exists()


def test_a_missing_model_and_broken_toml_name_the_file(tmp_path: Path) -> None:
    path = _write(tmp_path / "gen.toml", 'work = "w"\nset_name = "s"\n')
    with pytest.raises(InputError, match=r"gen\.toml: model: Field required$"):
        load_generate_file(path)
    _write(path, "work = \n")
    with pytest.raises(InputError, match=r"gen\.toml: invalid TOML"):
        load_generate_file(path)


# --- the calibration ---------------------------------------------------------------------


def test_calibration_shape_keeps_requests_in_flight_and_every_worker_busy() -> None:
    # 20 answers, 1 worker, batches of min(100, 8) = 8: 2 questions of 10 answers each
    assert calibration_shape(50, 1, 20, 100, 8) == CalibrationShape(2, 10, 1, 8)
    shape = calibration_shape(50, 4, 20, 100, 8)  # 80 answers: 10 questions x 8, 1 shard
    assert (shape.questions, shape.answers_per_question, shape.shards) == (10, 8, 1)
    shape = calibration_shape(2, 8, 20, 5, 8)  # 2 questions, 8 workers: 4 shards each
    assert (shape.questions, shape.answers_per_question, shape.shards, shape.batch_size) == (
        2, 80, 4, 5,
    )  # fmt: skip
    shape = calibration_shape(50, 1, 3, 100, 1)  # one request at a time: one answer a batch
    assert (shape.questions, shape.answers_per_question, shape.batch_size) == (3, 1, 1)


def test_start_up_is_timed_apart_from_the_rate() -> None:
    # first answer at 3 s, then one every 2 s: 0.5/s; start-up 3 - 1/0.5 = 1 s
    startup, generation = timing_from_progress(0.0, 7.5, [(3.0, 1), (5.0, 1), (7.0, 1)])
    assert startup == pytest.approx(1.0) and generation == pytest.approx(6.0)
    assert timing_from_progress(0.0, 4.0, [(3.0, 5)]) == (None, 4.0)  # one report: unknown
    # a first answer faster than the later rate: no start-up, and never more than passed
    assert timing_from_progress(0.0, 4.7, [(0.5, 1), (4.5, 1)]) == (0.0, 4.7)


def test_a_real_calibration_with_the_embedded_model(tmp_path: Path) -> None:
    needs("llama_cpp")
    import llama_cpp

    from hyoka.providers.embedded import smollm2_path

    settings = _settings(
        tmp_path,
        'questions = ["Q01", "Q02"]\nmode = "completion"\nnum_examples = 1\nmax_tokens = 8\n'
        "concurrency = 1\n[options]\nn_threads = 1",
        "calibration_answers = 2",
    )
    source = benchmark_source(settings.benchmark)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    calibration = calibrate(settings, source, scratch=scratch)
    assert list(scratch.iterdir()) == []  # the temporary work folder is gone
    assert (calibration.answers, calibration.questions, calibration.loads) == (2, 2, 1)
    assert calibration.startup_s is not None and calibration.startup_s >= 0
    assert calibration.generation_s <= calibration.wall_s
    assert calibration.rate == pytest.approx(2 / calibration.generation_s)

    vocab = llama_cpp.Llama(model_path=str(smollm2_path()), vocab_only=True, verbose=False)
    by_id = source.by_id()
    lengths = [
        len(
            vocab.tokenize(
                build_prompt(
                    source.samples, by_id[qid].question, Mode.COMPLETION, 1, num_examples=1
                ).text.encode("utf-8"),
                add_bos=True,
                special=True,
            )
        )
        for qid in ("Q01", "Q02")  # answer 0 (trial 1) of each question
    ]
    expected = sum(lengths)  # plus one prompt again per empty answer sampled again
    assert calibration.prompt_tokens is not None
    assert (
        expected
        <= calibration.prompt_tokens
        <= expected + max(lengths) * (calibration.empty_retries)
    )
    assert calibration.completion_tokens is not None
    assert 0 < calibration.completion_tokens <= 8 * (2 + calibration.empty_retries)


# --- the estimate and the papers' scale ----------------------------------------------------


def _calibration(**changes: object) -> Calibration:
    fields: dict[str, object] = {
        "model": "m/x", "num_examples": 20, "executor": "local", "workers": 2, "loads": 2,
        "questions": 4, "answers": 40, "kept": 40, "empty_retries": 0, "wall_s": 25.0,
        "startup_s": 5.0, "generation_s": 20.0, "prompt_tokens": 4000,
        "completion_tokens": 800,
    }  # fmt: skip
    fields.update(changes)
    return Calibration(**fields)  # type: ignore[arg-type]


def test_the_estimate_scales_the_measured_rate_linearly_with_workers(tmp_path: Path) -> None:
    settings = _settings(tmp_path, "answers = 1000")
    # measured: 40 answers in 20 s on 2 workers = 1 answer/s per worker; 100 + 20 tokens each
    run = estimate(settings, 3, _calibration(), workers=6)
    assert (run.answers, run.workers) == (3000, 6)
    assert run.answers_per_s == pytest.approx(6.0)
    assert run.generation_s == pytest.approx(500.0)  # 3000 / 6
    assert run.wall_s == pytest.approx(505.0)  # the 5 s start-up, once, all workers at once
    assert run.prompt_tokens == pytest.approx(300_000) and run.completion_tokens == 60_000
    assert any("linearly" in line for line in run.assumptions)

    silent = estimate(settings, 3, _calibration(prompt_tokens=None, completion_tokens=None), 6)
    assert silent.prompt_tokens is None and silent.completion_tokens is None
    blind = estimate(settings, 3, None)
    assert (blind.answers, blind.wall_s, blind.prompt_tokens) == (3000, None, None)


def test_the_papers_scale_is_their_150_million_answers() -> None:
    paper_000 = next(SEEDS.glob("000_*.txt")).read_text(encoding="utf-8")
    assert "各問 100 万回答ずつ、合計 1.5 億回答" in paper_000  # seed 000 §3.2.1
    for model in ("stockmark-100b", "PLaMo-100b", "Swallow-MX-8x7b-NVE-v0.1"):
        assert model in paper_000
    assert [m.name for m in PAPER_MODELS] == ["stockmark-100b", "PLaMo-100b",
                                              "Swallow-MX-8x7b-NVE-v0.1"]  # fmt: skip
    assert PAPER_QUESTIONS == len(benchmark_source(DATA).questions) == 50
    assert PAPER_ANSWERS_PER_QUESTION == 100 * 10_000  # 100 万
    total = len(PAPER_MODELS) * PAPER_QUESTIONS * PAPER_ANSWERS_PER_QUESTION
    assert total == PAPER_TOTAL_ANSWERS == 150_000_000  # 1.5 億

    paper = paper_scale()
    assert paper.answers == PAPER_TOTAL_ANSWERS
    assert [row.answers for row in paper.rows] == [50_000_000] * 3
    # 100B dense: 2 x 100e9 x (2,500 + 100) tokens x 50e6 answers = 2.6e22 FLOPs, on an H100
    # at 989.4e12 x 0.4 = 3.9576e14 FLOP/s: 6.5696e7 s = 18,249.0 GPU-hours
    dense, _, moe = paper.rows
    assert dense.flops == pytest.approx(2.6e22)
    assert dense.gpu_hours == pytest.approx(18_249.0, abs=0.1)
    # Mixtral-8x7B: 12.9B active of 46.7B: 2 x 12.9e9 x 2,600 x 50e6 / 3.9576e14 / 3600
    assert moe.gpu_hours == pytest.approx(2_354.1, abs=0.1)
    assert paper.gpu_hours == pytest.approx(2 * 18_249.0 + 2_354.1, abs=0.3)


def test_every_paper_assumption_can_be_overridden_and_is_stated() -> None:
    twenty = _calibration(prompt_tokens=4000 * 43, completion_tokens=40 * 90)  # 4,300 + 90
    measured = paper_assumptions(twenty)
    assert (measured.prompt_tokens, measured.completion_tokens) == (4300, 90)
    assert "m/x's tokenizer" in measured.prompt_from
    one_shot = paper_assumptions(_calibration(num_examples=1))
    assert (one_shot.prompt_tokens, one_shot.completion_tokens) == (2500, 100)
    assert "1-shot prompts are not the papers' 20-shot" in one_shot.note

    chosen = paper_assumptions(
        twenty, gpu="A100", peak_tflops=312, utilisation=0.5, prompt_tokens=1000,
        completion_tokens=200,
    )  # fmt: skip
    lines = "\n".join(chosen.lines())
    assert "A100, peak 312 TFLOP/s dense BF16, utilisation 0.5" in lines
    assert "prompt tokens per answer: 1,000 (--prompt-tokens)" in lines
    # 2 x 100e9 x 1,200 x 50e6 / (312e12 x 0.5) / 3600 = 21,367.5 GPU-hours
    assert paper_scale(chosen).rows[0].gpu_hours == pytest.approx(21_367.5, abs=0.1)
    with pytest.raises(InputError, match=r"^`utilisation` must be in \(0, 1\], got 1\.5$"):
        paper_assumptions(utilisation=1.5)


# --- the command ---------------------------------------------------------------------------


def test_plan_without_calibration_writes_a_signed_json(tmp_path: Path) -> None:
    out = tmp_path / "plan.json"
    result = runner.invoke(
        app,
        ["refset", "plan", str(EXAMPLE), "--no-calibration", "--workers", "3",
         "--utilisation", "0.5", "--json", str(out), "--data-dir", str(SHARED_DATA)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "18,249" not in result.output and "14,599" in result.output  # 18,249.0 x 0.4/0.5
    record = json.loads(out.read_text(encoding="utf-8"))
    assert record["calibration"] is None
    assert record["estimate"]["answers"] == 2 * 40 and record["estimate"]["workers"] == 3
    assert record["paper_scale"]["answers"] == PAPER_TOTAL_ANSWERS
    signature = Signature.from_json(record[SIGNATURE_KEY])
    assert signature is not None and signature.get("kind") == "refset-plan"
    assert signature.get("utilisation") == "0.5" and signature.get("calibration") == "0"
    # the library call is the command: the same record, written where asked
    again = tmp_path / "again.json"
    plan = plan_refsets(EXAMPLE, no_calibration=True, workers=3, utilisation=0.5,
                        record_file=again, data_dir=SHARED_DATA)  # fmt: skip
    assert plan.to_json() == record == json.loads(again.read_text(encoding="utf-8"))
    assert plan.calibration is None and plan.estimate.workers == 3


def test_plan_end_to_end_on_the_shipped_example(tmp_path: Path) -> None:
    needs("llama_cpp")
    out = tmp_path / "plan.json"
    result = runner.invoke(
        app,
        ["refset", "plan", str(EXAMPLE), "--calibration-answers", "2", "--json", str(out),
         "--data-dir", str(SHARED_DATA)],
        env={"COLUMNS": "80"},
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    # the signature and the path written are one line each, to paste (their length is theirs)
    lines = [
        line
        for line in result.output.splitlines()
        if not line.startswith(("signature:", f"wrote {out}"))
    ]
    assert max(len(line) for line in lines) <= 80, [x for x in lines if len(x) > 80]
    record = json.loads(out.read_text(encoding="utf-8"))
    calibration = record["calibration"]
    assert (calibration["answers"], calibration["loads"], calibration["workers"]) == (2, 1, 1)
    assert calibration["prompt_tokens_per_answer"] > 0
    run = record["estimate"]
    assert run["answers"] == 80
    assert run["answers_per_s"] == pytest.approx(calibration["answers_per_s"])
    assert run["generation_s"] == pytest.approx(80 / calibration["answers_per_s"])
    assert math.isclose(run["prompt_tokens"], 80 * calibration["prompt_tokens_per_answer"])
    assert "model loads" in result.output and "GPU-hours" in result.output
    assert not (EXAMPLE.parent / "refset-work").exists()  # the plan never writes the work


def test_a_bad_flag_fails_before_the_calibration_runs(tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["refset", "plan", str(EXAMPLE), "--utilisation", "2", "--data-dir", str(SHARED_DATA)]
    )
    assert result.exit_code == 1
    assert "--utilisation must be in (0, 1], got 2" in result.output
    assert "calibrating" not in result.output
    missing = tmp_path / "nowhere" / "plan.json"
    result = runner.invoke(
        app,
        ["refset", "plan", str(EXAMPLE), "--json", str(missing), "--data-dir", str(SHARED_DATA)],
    )
    assert result.exit_code == 1 and "does not exist" in result.output
    assert f"--json {missing}: the folder" in result.output
    assert "calibrating" not in result.output


def test_plan_calibrates_the_files_model_at_the_base_url_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--base-url`` names the server the file's model is called at, as ``refset
    generate``'s does: the calibration's requests reach it, and the plan's JSON keeps the
    URL with its password redacted."""
    from hyoka.providers import URL_REDACTED
    from wire_servers import OpenAIServer

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    config = _write(
        tmp_path / "gen.toml",
        f'work = "w"\nbenchmark = "{DATA}"\nmodel = "openai/my-model"\nset_name = "s"\n'
        'questions = ["Q01"]\nnum_examples = 1\nmax_tokens = 8\nanswers = 10\nbatch_size = 2\n'
        "concurrency = 2\n[plan]\ncalibration_answers = 4\n",
    )
    out = tmp_path / "plan.json"
    with OpenAIServer() as server:
        server.reply_to_all = "答え。"
        host = server.base_url.removeprefix("http://")
        result = runner.invoke(
            app,
            ["refset", "plan", str(config), "--base-url", f"http://me:hunter2@{host}",
             "--json", str(out), "--data-dir", str(SHARED_DATA)],
        )  # fmt: skip
        asked = server.served
    assert result.exit_code == 0, result.output
    assert asked == 4  # the calibration's answers, each one request
    text = out.read_text(encoding="utf-8")
    assert "hunter2" not in text and "hunter2" not in result.output
    options = json.loads(text)["settings"]["generation"]["options"]
    assert options["base_url"] == f"http://{URL_REDACTED}@{host}"
    assert json.loads(text)["calibration"]["answers"] == 4
