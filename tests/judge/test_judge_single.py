"""Single grading on real pfgen answers, its numbers exact through a scripted judge.

The scripted judge (``scripted/PATH``) rates one answer at once, one after a reply without
a rating (the retry at a higher temperature, under its own cache key), and never rates the
third (score -1, every raw reply kept, counted apart): each path is asserted exactly. The
real SmolLM2 judge (in-process llama.cpp) keeps one test of the wiring, whatever it says.
"""

from __future__ import annotations

import asyncio
import json
import lzma
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from _shared import PFGEN_RESULTS, embedded_judge
from hyoka.cli.main import app
from hyoka.errors import InputError
from hyoka.judge import JudgeReport, judge_single, plan_single, read_judgments, run_judging
from hyoka.judge.rating import parse_rating
from hyoka.judge.records import FAILED, JudgeSettings, JudgmentRecord
from hyoka.judge.single import SingleItem, render_item, summarise
from hyoka.judge.templates import JudgeTemplate, load_template
from hyoka.pfgen.benchmark import PfgenBenchmark
from hyoka.providers.base import Provider
from hyoka.providers.client import ModelClient, ResponseCache, cache_key
from hyoka.providers.embedded import EMBEDDED_MODEL
from hyoka.providers.registry import load_provider
from hyoka.providers.scripted_backend import script_pin
from hyoka.providers.types import GenerationRequest, SamplingParams

#: a published run with very short answers: short prompts keep the CPU judge quick
RUN = PFGEN_RESULTS / "llm-jp" / "llm-jp-13b-instruct-full-jaster-v1.0" / "c55d748"
MODEL = "llm-jp/llm-jp-13b-instruct-full-jaster-v1.0"
QUESTIONS = ("Q02", "Q21", "Q23")
ATTEMPTS = 2
#: the scripted judge's replies to each question, in turn: rated at once, rated on the
#: retry, never rated
REPLIES = {
    "Q02": ["簡潔で正確です。評価: [[7]]"],
    "Q21": ["まあまあです。", "評価: [[4]]"],
    "Q23": ["よく分かりません。"],
}


@pytest.fixture(scope="module")
def script(benchmark: PfgenBenchmark, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("judge") / "judge.jsonl"
    rules = [
        {"contains": benchmark.questions[qid].question, "reply": replies}
        for qid, replies in REPLIES.items()
    ]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rules), "utf-8")
    return path


@pytest.fixture(scope="module")
def provider(script: Path) -> Provider:
    return load_provider(f"scripted/{script}")


@pytest.fixture(scope="module")
def judge_settings(script: Path) -> JudgeSettings:
    spec = f"scripted/{script}"
    return JudgeSettings(judge=spec, script=script_pin(spec), temperature=0.0, max_tokens=16)


@pytest.fixture(scope="module")
def items(benchmark: PfgenBenchmark) -> list[SingleItem]:
    """The shortest non-empty answer to each of three questions, with the hand-written samples."""
    samples = {s.question: s.answer for s in benchmark.sample_answers()}
    raw = lzma.decompress((RUN / "trials.jsonl.xz").read_bytes())
    chosen: dict[str, str] = {}
    for line in raw.splitlines():
        record = json.loads(line)
        qid = benchmark.by_text[record["question"]].question_id
        answer = record["answer"].strip()
        if qid in QUESTIONS and answer and len(answer) < len(chosen.get(qid, answer + "-")):
            chosen[qid] = answer
    return [
        SingleItem(
            id=qid,
            question=benchmark.questions[qid].question,
            answer=chosen[qid],
            reference=samples[benchmark.questions[qid].question],
            model=MODEL,
        )
        for qid in QUESTIONS
    ]


@pytest.fixture(scope="module")
def template() -> JudgeTemplate:
    return load_template("pfgen-single")


def _judge(
    provider: Provider,
    items: list[SingleItem],
    template: JudgeTemplate,
    output: Path,
    cache: Path | None,
    settings: JudgeSettings,
    attempts: int = ATTEMPTS,
) -> tuple[JudgeReport, ModelClient]:
    # one at a time: a repeat then reuses the evaluated prompt of the call before
    client = ModelClient(provider, cache=ResponseCache(cache) if cache else None, concurrency=1)
    plan = plan_single(items, template, settings, output, max_attempts=attempts)
    # the provider is shared by the module: not closed here
    return asyncio.run(run_judging(client, plan)), client


@pytest.fixture(scope="module")
def first_run(
    provider: Provider,
    items: list[SingleItem],
    template: JudgeTemplate,
    judge_settings: JudgeSettings,
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Path, Path, JudgeReport, ModelClient]:
    folder = tmp_path_factory.mktemp("single")
    output, cache = folder / "judgments.jsonl", folder / "cache"
    report, client = _judge(provider, items, template, output, cache, judge_settings)
    return output, cache, report, client


def _check_record_fields(
    record: JudgmentRecord, item: SingleItem, template: JudgeTemplate, settings: JudgeSettings
) -> None:
    """What every single-grading record carries, whatever the judge said."""
    assert (record.kind, record.template, record.template_version) == (
        "single",
        "pfgen-single",
        "1",
    )
    assert record.judge == settings
    assert record.models == (MODEL,)
    assert record.prompt == render_item(template, item)
    assert item.answer in record.prompt[-1].content
    assert item.reference is not None and item.reference in record.prompt[-1].content
    assert record.usage.prompt_tokens > 0 and record.usage.completion_tokens > 0
    assert record.tstamp > 0
    assert record.judge.max_attempts is not None
    assert record.replies and len(record.replies) <= record.judge.max_attempts
    assert record.score == FAILED or 1 <= record.score <= 10


def test_records_are_complete(
    first_run: tuple[Path, Path, JudgeReport, ModelClient],
    items: list[SingleItem],
    template: JudgeTemplate,
    judge_settings: JudgeSettings,
) -> None:
    output, cache, report, client = first_run
    identity = client.provider.identity()
    records = {r.id: r for r in read_judgments(output)}
    assert set(records) == {item.id for item in items}
    # Q02 rated at once, Q21 on its retry, Q23 never: 1 + 2 + 2 calls
    assert (report.judged, report.done_before, report.unrated) == (3, 0, 1)
    assert client.stats.requests == report.judge_calls == 5
    for item in items:
        _check_record_fields(
            records[item.id],
            item,
            template,
            judge_settings.model_copy(update={"max_attempts": ATTEMPTS}),
        )
    rated, retried, failed = (records[qid] for qid in QUESTIONS)
    assert (rated.replies, rated.scores, rated.score, rated.failures) == (
        tuple(REPLIES["Q02"]), (7.0,), 7.0, 0,
    )  # fmt: skip
    assert (retried.replies, retried.scores, retried.score, retried.failures) == (
        tuple(REPLIES["Q21"]), (4.0,), 4.0, 0,
    )  # fmt: skip
    # every attempt was made and every raw reply kept
    assert (failed.replies, failed.scores, failed.score, failed.failures) == (
        (REPLIES["Q23"][0],) * ATTEMPTS, (FAILED,), FAILED, 1,
    )  # fmt: skip
    assert [parse_rating(reply) for reply in failed.replies] == [None] * ATTEMPTS
    # the retry was asked at temperature + 0.001, under its own cache key
    retry = GenerationRequest(
        messages=retried.prompt, params=SamplingParams(temperature=0.001, max_tokens=16)
    )
    with ResponseCache(cache) as stored:
        hit = stored.get(cache_key(identity, retry, "single#r0#try1"))
    assert hit is not None and hit.text == "評価: [[4]]"
    summary = summarise(records.values())
    assert (summary.n, summary.failures, summary.mean) == (2, 1, 5.5)


def test_real_smollm2_judge_wiring(
    items: list[SingleItem], template: JudgeTemplate, tmp_path: Path
) -> None:
    """The real judge in process, one grade: a complete record, whatever SmolLM2 wrote."""
    settings = JudgeSettings(judge=EMBEDDED_MODEL, temperature=0.0, max_tokens=16)
    output = tmp_path / "real.jsonl"
    report, client = _judge(embedded_judge(), items[:1], template, output, None, settings, 1)
    assert (report.judged, report.judge_calls, client.stats.requests) == (1, 1, 1)
    (record,) = read_judgments(output)
    _check_record_fields(
        record, items[0], template, settings.model_copy(update={"max_attempts": 1})
    )
    assert len(record.replies) == 1 and record.failures == int(record.score == FAILED)
    assert report.unrated == record.failures


def test_rerun_with_the_cache_makes_no_provider_calls(
    first_run: tuple[Path, Path, JudgeReport, ModelClient],
    provider: Provider,
    items: list[SingleItem],
    template: JudgeTemplate,
    judge_settings: JudgeSettings,
    tmp_path: Path,
) -> None:
    output, cache, report, _client = first_run
    again, client = _judge(
        provider, items, template, tmp_path / "again.jsonl", cache, judge_settings
    )
    assert client.stats.requests == 0
    assert client.stats.cache_hits == again.judge_calls == report.judge_calls
    before = {r.id: (r.replies, r.score) for r in read_judgments(output)}
    after = {r.id: (r.replies, r.score) for r in read_judgments(tmp_path / "again.jsonl")}
    assert after == before


def test_resume_skips_done_items_and_drops_a_torn_line(
    first_run: tuple[Path, Path, JudgeReport, ModelClient],
    provider: Provider,
    items: list[SingleItem],
    template: JudgeTemplate,
    judge_settings: JudgeSettings,
    tmp_path: Path,
) -> None:
    output, cache, _report, _client = first_run
    lines = output.read_text(encoding="utf-8").splitlines(keepends=True)
    torn = _copy(output, tmp_path / "torn.jsonl")
    torn.write_text("".join(lines[:2]) + lines[2][:40], encoding="utf-8")  # a crash mid-write
    resumed, client = _judge(provider, items, template, torn, cache, judge_settings)
    assert (resumed.done_before, resumed.judged) == (2, 1)
    assert client.stats.requests == 0  # the missing one comes from the cache
    records = read_judgments(torn)
    assert sorted(r.id for r in records) == sorted(item.id for item in items)
    # nothing left to do
    nothing, _ = _judge(provider, items, template, torn, cache, judge_settings)
    assert (nothing.done_before, nothing.judged, nothing.judge_calls) == (3, 0, 0)


def test_a_resumed_file_is_in_the_order_of_its_ids_whatever_came_back_first(
    first_run: tuple[Path, Path, JudgeReport, ModelClient],
    provider: Provider,
    items: list[SingleItem],
    template: JudgeTemplate,
    judge_settings: JudgeSettings,
    tmp_path: Path,
) -> None:
    """The first item's line lost (a run killed before it was written): the resumed run
    judges it last, from the cache, yet the file is in the items' order, as the first
    run's."""
    output, cache, _report, _client = first_run
    lines = output.read_text(encoding="utf-8").splitlines(keepends=True)
    resumed = _copy(output, tmp_path / "resumed.jsonl")
    resumed.write_text("".join(lines[1:]), encoding="utf-8")
    _judge(provider, items, template, resumed, cache, judge_settings)
    assert [r.id for r in read_judgments(resumed)] == [r.id for r in read_judgments(output)]
    assert [r.id for r in read_judgments(output)] == [item.id for item in items]


def _copy(output: Path, target: Path) -> Path:
    """A judgment file and its manifest, copied: the same run's file elsewhere."""
    target.write_bytes(output.read_bytes())
    manifest = output.with_name(output.name + ".manifest.json")
    target.with_name(target.name + ".manifest.json").write_bytes(manifest.read_bytes())
    return target


def test_resume_with_other_settings_is_refused_before_any_call(
    first_run: tuple[Path, Path, JudgeReport, ModelClient],
    provider: Provider,
    items: list[SingleItem],
    template: JudgeTemplate,
    judge_settings: JudgeSettings,
    tmp_path: Path,
) -> None:
    output, _cache, _report, _client = first_run
    copy = _copy(output, tmp_path / "copy.jsonl")
    changes = {
        "max_tokens": (32, r"judge\.max_tokens: 16 vs 32"),
        "repeats": (2, r"judge\.repeats: 1 vs 2"),
        # (another server is another judge: refused before the file is read,
        # tests/promises/test_promises_judge_settings.py)
        "temperature": (0.5, r"judge\.temperature: 0\.0 vs 0\.5"),
    }
    client = ModelClient(provider, cache=None)
    for name, (value, shown) in changes.items():
        settings = judge_settings.model_copy(update={name: value})
        with pytest.raises(
            InputError,
            match=rf"copy\.jsonl holds another run's records \({shown}, file vs this run\); "
            "choose another output",
        ):
            plan = plan_single(items, template, settings, copy, max_attempts=ATTEMPTS)
            asyncio.run(run_judging(client, plan))
    assert client.stats.requests == 0
    assert copy.read_bytes() == output.read_bytes()


def test_resume_with_another_answer_under_the_same_id_is_refused(
    first_run: tuple[Path, Path, JudgeReport, ModelClient],
    provider: Provider,
    items: list[SingleItem],
    template: JudgeTemplate,
    judge_settings: JudgeSettings,
    tmp_path: Path,
) -> None:
    output, _cache, _report, _client = first_run
    copy = _copy(output, tmp_path / "copy.jsonl")
    edited = [items[0].model_copy(update={"answer": items[0].answer + "。"}), *items[1:]]
    client = ModelClient(provider, cache=None)
    with pytest.raises(InputError, match=r"copy\.jsonl:\d+: item '[^']+' was graded on another"):
        plan = plan_single(edited, template, judge_settings, copy, max_attempts=ATTEMPTS)
        asyncio.run(run_judging(client, plan))
    assert client.stats.requests == 0
    assert copy.read_bytes() == output.read_bytes()


def test_repeats_are_sampled_apart_and_aggregated(
    items: list[SingleItem], template: JudgeTemplate, tmp_path: Path
) -> None:
    """A scripted judge rates the two repeats 7 and 9: the median is 8, exactly."""
    script = tmp_path / "judge.jsonl"
    script.write_text('{"reply": ["評価: [[7]]", "評価: [[9]]"]}\n', encoding="utf-8")
    spec = f"scripted/{script}"
    provider = load_provider(spec)
    settings = JudgeSettings(
        judge=spec, script=script_pin(spec), max_tokens=16, repeats=2, temperature=1.0,
        aggregate="median",
    )  # fmt: skip
    output = tmp_path / "k2.jsonl"
    report, client = _judge(provider, items[:1], template, output, tmp_path / "cache", settings, 1)
    assert client.stats.requests == report.judge_calls == 2
    (record,) = read_judgments(output)
    assert record.judge.repeats == 2 and record.replies == ("評価: [[7]]", "評価: [[9]]")
    assert (record.scores, record.failures, record.score) == ((7.0, 9.0), 0, 8.0)
    with ResponseCache(tmp_path / "cache") as cache:
        assert len(cache) == 2  # the same prompt twice, under two keys
    # a second run of the same repeats is free: each repeat has its own cache entry
    again, client = _judge(
        provider, items[:1], template, tmp_path / "k2b.jsonl", tmp_path / "cache", settings, 1
    )
    assert client.stats.requests == 0 and client.stats.cache_hits == again.judge_calls


def test_bad_input_fails_before_any_call(
    provider: Provider,
    items: list[SingleItem],
    template: JudgeTemplate,
    judge_settings: JudgeSettings,
    tmp_path: Path,
) -> None:
    output = tmp_path / "bad.jsonl"
    client = ModelClient(provider, cache=None)

    def judge(chosen: list[SingleItem], with_template: JudgeTemplate = template) -> None:
        plan = plan_single(chosen, with_template, judge_settings, output)
        asyncio.run(run_judging(client, plan))

    no_reference = [items[0].model_copy(update={"reference": None})]
    with pytest.raises(InputError, match="has no reference answer"):
        judge(no_reference)
    with pytest.raises(InputError, match="appears more than once"):
        judge([items[0], items[0]])
    pairwise = JudgeTemplate(
        name="p", version="1", kind="pairwise", output="verdict",
        user="{question} {answer_a} {answer_b}", source="test",
    )  # fmt: skip
    with pytest.raises(InputError, match="single grading needs a single template"):
        judge(items, pairwise)
    # a file that is not hyoka's (no manifest beside it) is neither repaired nor appended to
    other = JudgmentRecord(
        id="x", kind="single", judge=JudgeSettings(judge="openai/gpt-4o"), template="pfgen-single",
        template_version="1",
    )  # fmt: skip
    output.write_text(other.model_dump_json() + "\n", encoding="utf-8")
    before = output.read_bytes()
    with pytest.raises(InputError, match=r"bad\.jsonl exists and was not written by hyoka.*choose"):
        judge(items)
    assert client.stats.requests == 0 and output.read_bytes() == before


def _cli(*args: str) -> Result:
    return CliRunner().invoke(app, ["judge", "single", *args])


def test_command_line(
    items: list[SingleItem], script: Path, tmp_path: Path, hyoka_env: None
) -> None:
    answers = tmp_path / "answers.jsonl"
    lines = [{"id": i, "question": it.question, "answer": it.answer} for i, it in enumerate(items)]
    answers.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), "utf-8")
    references = tmp_path / "refs.jsonl"
    references.write_text(
        "".join(
            json.dumps({"id": i, "reference": it.reference}, ensure_ascii=False) + "\n"
            for i, it in enumerate(items)
        ),
        "utf-8",
    )
    judge = ["-j", f"scripted/{script}"]
    # bad input: one line, exit 1, before any judge call
    missing = _cli(str(answers), *judge, "-t", "pfgen-single")
    assert missing.exit_code == 1 and "item '0' has no reference answer" in missing.output
    stray = tmp_path / "stray.jsonl"
    stray.write_text('{"id": 7, "reference": "x"}\n', "utf-8")
    bad = _cli(str(answers), *judge, "--references", str(stray))
    assert bad.exit_code == 1 and "stray.jsonl:1: id 7 is not in" in bad.output
    twice = tmp_path / "twice.jsonl"
    first_line = answers.read_text("utf-8").splitlines()[0]
    twice.write_text(f"{first_line}\n{first_line}\n", "utf-8")
    dup = _cli(str(twice), *judge)
    assert dup.exit_code == 1 and "twice.jsonl:2: id '0' also on line 1" in dup.output
    unknown = _cli(str(answers), *judge, "-t", "no-such-template")
    assert unknown.exit_code == 1 and "no judge template named 'no-such-template'" in unknown.output
    # one grade (Q02: [[7]]), then the same again from the file (nothing to do)
    args = [str(answers), *judge, "--references", str(references), "--limit", "1"]
    args += ["--max-tokens", "16", "--max-attempts", "1", "--json"]
    first = _cli(*args)
    assert first.exit_code == 0, first.output
    out = json.loads(first.stdout)
    assert (out["judged_now"], out["provider_calls"], out["n"], out["failures"]) == (1, 1, 1, 0)
    assert out["mean"] == 7.0
    assert out["prompt_tokens"] > 0 and out["output"].endswith("answers.judged.jsonl")
    (record,) = read_judgments(Path(out["output"]))
    assert (record.id, record.template, record.score) == ("0", "single-ref", 7.0)
    again = _cli(*args[:-1])  # the table this time
    assert again.exit_code == 0 and "Judge summary" in again.stdout
    assert "0 / 1" in again.stdout  # judged now / done before
    # a judge that writes no rating (Q23): a run with no grade at all is not a success
    last_only, its_reference = tmp_path / "q23.jsonl", tmp_path / "q23-refs.jsonl"
    last_only.write_text(answers.read_text("utf-8").splitlines(keepends=True)[2], "utf-8")
    its_reference.write_text(references.read_text("utf-8").splitlines(keepends=True)[2], "utf-8")
    args[0], args[args.index(str(references))] = str(last_only), str(its_reference)
    failed = _cli(*args)
    out = json.loads(failed.stdout)
    assert (out["judged_now"], out["provider_calls"], out["n"], out["failures"]) == (1, 1, 0, 1)
    assert failed.exit_code == 1
    no_grade = f"no grade: scripted/{script} wrote no rating in any reply (graded 0, failures 1)"
    (last,) = failed.stderr.strip().splitlines()[-1:]
    assert last.startswith(f"error: {no_grade}") and "q23.judged.jsonl" in last
    again = _cli(*args[:-1])  # still no grade, still exit 1
    assert again.exit_code == 1 and no_grade in again.stderr


def test_the_library_call_is_what_the_command_runs(
    items: list[SingleItem], script: Path, tmp_path: Path, hyoka_env: None
) -> None:
    """``hyoka.judge.judge_single`` is the whole of ``hyoka judge single``: a Python caller
    gets the run (``SingleRun``, its ``to_json`` what ``--json`` prints); the command given
    the same file then finds the item graded and says the same numbers (issue 30)."""
    answers = tmp_path / "answers.jsonl"
    first = items[0]  # Q02: rated 7 at once
    line = {"id": "0", "question": first.question, "answer": first.answer,
            "reference": first.reference}  # fmt: skip
    answers.write_text(json.dumps(line, ensure_ascii=False) + "\n", "utf-8")
    done = judge_single(answers, f"scripted/{script}", max_tokens=16, max_attempts=1,
                        price_in=1.0)  # fmt: skip
    assert (done.summary.mean, done.summary.n, done.report.judged) == (7.0, 1, 1)
    assert done.output == tmp_path / "answers.judged.jsonl" and done.cost_usd is not None
    mine = done.to_json()
    shown = _cli(str(answers), "-j", f"scripted/{script}", "--max-tokens", "16",
                 "--max-attempts", "1", "--json")  # fmt: skip
    assert shown.exit_code == 0, shown.output
    theirs = json.loads(shown.stdout)
    assert (theirs["judged_now"], theirs["done_before"]) == (0, 1)
    for key in ("mean", "n", "failures", "output", "signature", "judged_by"):
        assert theirs[key] == mine[key], key
