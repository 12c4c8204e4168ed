"""Pairwise judging in both orders on real answers of two published pfgen-bench runs.

The protocol's numbers are asserted exactly through a scripted judge (``scripted/PATH``)
whose replies and letter log probabilities the test states: the ``prob`` verdict of (X, Y)
is the mirror of that of (Y, X); ``bs1``/``bs2`` equal ``prob`` when the two orders agree
and split when they do not; a rerun is served from the cache; bad input fails before any
judge call. The real SmolLM2 judge, in-process and behind the real ``llama_cpp.server``,
checks the wiring only: records, fields, counts, what the wire carries, never its words.
"""

from __future__ import annotations

import asyncio
import json
import lzma
import math
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from _shared import PFGEN_RESULTS, SHARED_DATA, embedded_judge, needs
from hyoka.cli.main import app
from hyoka.errors import InputError
from hyoka.judge import (
    ExportedVerdicts,
    JudgeReport,
    JudgeTemplate,
    judge_pairwise,
    plan_pairs,
    read_judgments,
    run_judging,
)
from hyoka.judge.criteria import (
    CriteriaQuestion,
    CriteriaStore,
    criteria_key,
    generate_criteria,
)
from hyoka.judge.pair_answers import load_pairs
from hyoka.judge.pairwise import (
    METHODS,
    Method,
    PairItem,
    combine,
    prob_verdict,
    xy_probabilities,
)
from hyoka.judge.pairwise_summary import export_verdicts, summarise
from hyoka.judge.records import JudgeSettings, JudgmentRecord
from hyoka.judge.templates import load_template
from hyoka.judge.winrate import win_counts
from hyoka.providers.client import ModelClient, ResponseCache
from hyoka.providers.embedded import EMBEDDED_MODEL
from hyoka.providers.registry import load_provider
from hyoka.providers.types import GenerationResponse, Message
from hyoka.stats import MIRROR, StyleCounts
from hyoka.stats.label_files import read_verdicts

RUN_X = PFGEN_RESULTS / "Qwen" / "Qwen2.5-32B-Instruct"
RUN_Y = PFGEN_RESULTS / "Qwen" / "Qwen2-1.5B-Instruct"
QUESTIONS = ("Q01", "Q19")  # the shortest answers: SmolLM2 reads a Japanese byte per token
RESULT_TOKENS = 2
REASONS_TOKENS = 32
#: what the scripted judge writes when asked for criteria
CRITERIA = "- 正確さ\n- 簡潔さ"

# A user's own templates, in English: asked in Japanese (the packaged seed 001 prompts),
# SmolLM2-135M starts its reply with Japanese bytes and puts no mass on A, B or C at all,
# which would leave every prob verdict empty. Asked like this, it answers with a letter.
# They leave out the (optional) reference: SmolLM2 reads Japanese about a byte per token,
# and every Japanese text left out makes each of the judge calls below faster.
RESULT_TEMPLATE = """name = "pairwise-en-result"
version = "1"
kind = "pairwise"
output = "verdict"
system = "You compare two answers to a question and reply with one letter only."
user = \"\"\"Question: {question}

Answer A: {answer_a}

Answer B: {answer_b}

Which answer is better? Reply A if answer A is better, B if answer B \
is better, C for a tie. Reply with the letter only.\"\"\"
"""
REASONS_TEMPLATE = """name = "pairwise-en-reasons"
version = "1"
kind = "pairwise"
output = "verdict-after-reasons"
user = \"\"\"Question: {question}

Answer A: {answer_a}

Answer B: {answer_b}

Which answer is better? Write one short sentence of reasons, then \
the verdict in double brackets: [[A]], [[B]] or [[C]] (tie).\"\"\"
"""


# --------------------------------------------------------------------------- real inputs


def _first_answers(run: Path) -> dict[str, str]:
    (trials,) = run.glob("*/trials.jsonl.xz")
    answers: dict[str, str] = {}
    for line in lzma.decompress(trials.read_bytes()).decode("utf-8").splitlines():
        row = json.loads(line)
        answers.setdefault(row["question"], row["answer"])
    return answers


def _write_answers(path: Path, model: str, run: Path) -> None:
    data = SHARED_DATA / "pfgen-bench" / "data"
    samples = {}
    for line in (data / "questions.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        samples[row["question"]] = row["answer"]
    answers = _first_answers(run)
    rows = []
    for qid in QUESTIONS:
        info = json.loads((data / f"{qid}.json").read_text(encoding="utf-8"))
        question = info["question"]
        rows.append(
            {
                "id": qid,
                "question": question,
                "answer": answers[question],
                "reference": samples[question],
                "model": model,
                "category": info["category"],
            }
        )
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")


@pytest.fixture(scope="module")
def answer_files(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("answers")
    x, y = folder / "x.jsonl", folder / "y.jsonl"
    _write_answers(x, "Qwen2.5-32B-Instruct", RUN_X)
    _write_answers(y, "Qwen2-1.5B-Instruct", RUN_Y)
    return x, y


@pytest.fixture(scope="module")
def templates(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("templates")
    paths = {"result": folder / "en-result.toml", "reasons": folder / "en-reasons.toml"}
    paths["result"].write_text(RESULT_TEMPLATE, encoding="utf-8")
    paths["reasons"].write_text(REASONS_TEMPLATE, encoding="utf-8")
    return paths


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("cache")


#: per question and order, the scripted judge's letter and its probabilities of A, B and C.
#: Q01: both orders prefer X (they agree); Q19: both say A, whoever is A (position bias).
SCRIPTED: dict[str, dict[str, tuple[str, dict[str, float]]]] = {
    "Q01": {
        "xy": ("A", {"A": 0.7, "B": 0.2, "C": 0.1}),
        "yx": ("B", {"A": 0.1, "B": 0.8, "C": 0.05}),
    },
    "Q19": {
        "xy": ("A", {"A": 0.6, "B": 0.3, "C": 0.1}),
        "yx": ("A", {"A": 0.5, "B": 0.4, "C": 0.1}),
    },
}


def _order_key(answer_a: str, answer_b: str) -> str:
    """What tells one order of one pair apart in a prompt of the result template."""
    return f"Answer A: {answer_a}\n\nAnswer B: {answer_b}\n\nWhich answer is better? Reply A"


def _letter_rule(key: str, letter: str, probs: Mapping[str, float]) -> dict[str, object]:
    alternatives = {k: math.log(v) for k, v in probs.items()}
    return {"contains": key, "reply": letter, "alternatives": alternatives}


def _write_script(path: Path, rules: Sequence[Mapping[str, object]]) -> str:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rules), "utf-8")
    return f"scripted/{path}"


@pytest.fixture(scope="module")
def judge_spec(answer_files: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> str:
    """``scripted/PATH``: the letters of ``SCRIPTED`` for the result template's two orders of
    each pair, and ``CRITERIA`` for anything else (criteria-generate's prompts)."""
    rules = []
    for item in load_pairs(*answer_files):
        for order, (a, b) in (("xy", (item.answer_x, item.answer_y)),
                              ("yx", (item.answer_y, item.answer_x))):  # fmt: skip
            rules.append(_letter_rule(_order_key(a, b), *SCRIPTED[item.id][order]))
    rules.append({"reply": CRITERIA})
    return _write_script(tmp_path_factory.mktemp("judge") / "judge.jsonl", rules)


@pytest.fixture(scope="module")
def judge_client(judge_spec: str, cache_dir: Path) -> ModelClient:
    return ModelClient(load_provider(judge_spec), cache=ResponseCache(cache_dir), concurrency=2)


def _spec(client: ModelClient) -> str:
    return f"{client.provider.name}/{client.provider.model}"


@dataclass(frozen=True)
class PairwisePlan:
    """What these tests vary between runs; ``judge_pairs`` makes the engine's plan of it."""

    output: Path
    settings: JudgeSettings
    template: JudgeTemplate
    methods: tuple[Method, ...] = METHODS


async def judge_pairs(
    client: ModelClient, plan: PairwisePlan, items: Sequence[PairItem]
) -> JudgeReport:
    made = plan_pairs(items, plan.template, plan.settings, plan.output, methods=plan.methods)
    return await run_judging(client, made)


def _plan(
    client: ModelClient, output: Path, template: Path | str, tokens: int = RESULT_TOKENS
) -> PairwisePlan:
    return PairwisePlan(
        output=output,
        settings=JudgeSettings(
            judge=_spec(client),
            script=client.provider.replies_pin,
            max_tokens=tokens,
            top_logprobs=20,
        ),
        template=load_template(str(template)),
    )


def _with_swapped(items: list[PairItem]) -> list[PairItem]:
    swapped = [
        replace(
            item,
            id=f"{item.id}-swapped",
            answer_x=item.answer_y,
            answer_y=item.answer_x,
            model_x=item.model_y,
            model_y=item.model_x,
        )
        for item in items
    ]
    return [*items, *swapped]


@pytest.fixture(scope="module")
def judged(
    answer_files: tuple[Path, Path],
    judge_client: ModelClient,
    templates: dict[str, Path],
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[list[PairItem], dict[str, JudgmentRecord], Path]:
    items = _with_swapped(load_pairs(*answer_files))
    output = tmp_path_factory.mktemp("judged") / "pairwise.jsonl"
    before = judge_client.stats.requests + judge_client.stats.cache_hits  # earlier tests'
    plan = _plan(judge_client, output, templates["result"])
    report = asyncio.run(judge_pairs(judge_client, plan, items))
    assert report.judged == len(items) == 4
    # two orders per pair; a swapped pair's orders are its pair's, served from the cache
    assert judge_client.stats.requests + judge_client.stats.cache_hits - before == 8
    return items, {r.id: r for r in read_judgments(output)}, output


@pytest.fixture(scope="module")
def real_judged(
    answer_files: tuple[Path, Path],
    templates: dict[str, Path],
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[PairItem, JudgmentRecord]]:
    """Q01 judged in both orders by the real SmolLM2, in process."""
    provider = embedded_judge()
    client = ModelClient(provider, cache=None, concurrency=1)
    (item,) = load_pairs(*answer_files)[:1]
    output = tmp_path_factory.mktemp("real") / "pairwise.jsonl"
    report = asyncio.run(judge_pairs(client, _plan(client, output, templates["result"]), [item]))
    assert (report.judged, report.judge_calls, client.stats.requests) == (1, 2, 2)
    (record,) = read_judgments(output)
    yield item, record
    asyncio.run(provider.aclose())


# --------------------------------------------------------------------------- the protocol


#: (prob, bs1, bs2) of each pair, as seed 001's rules give them for ``SCRIPTED``
EXPECTED_VERDICTS = {
    "Q01": ("A", "A", "A"),  # the orders agree: every method says X
    "Q19": ("A", None, "C"),  # both orders say A: bs1 has no verdict, bs2 calls it a tie
    "Q01-swapped": ("B", "B", "B"),
    "Q19-swapped": ("B", None, "C"),
}


def _check_record_fields(record: JudgmentRecord, item: PairItem, judge: str) -> None:
    """What every pairwise record carries, whatever the judge said."""
    assert record.kind == "pairwise"
    assert record.template == "pairwise-en-result"
    assert record.judge.judge == judge and record.judge.top_logprobs == 20
    assert set(record.verdicts) == {"prob", "bs1", "bs2"}
    assert all(v in (None, "A", "B", "C") for v in record.verdicts.values())
    assert record.usage.prompt_tokens > 100 and record.usage.completion_tokens > 0
    assert len(record.replies) == 2
    assert record.prompt == tuple(Message.model_validate(m) for m in record.orders["xy"]["prompt"])
    assert record.probabilities is not None
    for order in ("xy", "yx"):
        details = record.orders[order]
        assert details["prob_status"] in ("ok", "first-token")
        assert details["reply"] == record.replies[0 if order == "xy" else 1]
        probs = details["probs"]
        assert set(probs) == {"A", "B", "C"}
        assert all(0.0 <= p <= 1.0 for p in probs.values())
        assert record.probabilities[order] == probs
    mean = record.probabilities["mean"]
    xy, yx = record.probabilities["xy"], record.probabilities["yx"]
    assert mean["A"] == pytest.approx((xy["A"] + yx["B"]) / 2)
    assert mean["C"] == pytest.approx((xy["C"] + yx["C"]) / 2)
    # X's answer is assistant A in order xy, Y's in order yx
    xy_prompt = record.orders["xy"]["prompt"][-1]["content"]
    yx_prompt = record.orders["yx"]["prompt"][-1]["content"]
    assert f"Answer A: {item.answer_x}\n\nAnswer B: {item.answer_y}\n" in xy_prompt
    assert f"Answer A: {item.answer_y}\n\nAnswer B: {item.answer_x}\n" in yx_prompt


def test_records_are_complete_and_exact(
    judged: tuple[list[PairItem], dict[str, JudgmentRecord], Path], judge_spec: str
) -> None:
    items, records, _ = judged
    assert set(records) == {item.id for item in items}
    for item in items:
        record = records[item.id]
        _check_record_fields(record, item, judge_spec)
        question, swapped = item.id.removesuffix("-swapped"), item.id.endswith("-swapped")
        script = SCRIPTED[question]
        # a swapped pair's order xy is its pair's order yx
        orders = {"xy": script["yx"], "yx": script["xy"]} if swapped else script
        assert record.replies == (orders["xy"][0], orders["yx"][0])
        assert record.probabilities is not None
        for order, (letter, probs) in orders.items():
            assert record.orders[order]["letter"] == letter
            assert record.orders[order]["prob_status"] == "ok"
            assert record.probabilities[order] == pytest.approx(probs)
        xy, yx = orders["xy"][1], orders["yx"][1]
        assert record.probabilities["mean"] == pytest.approx(
            {
                "A": (xy["A"] + yx["B"]) / 2,
                "B": (xy["B"] + yx["A"]) / 2,
                "C": (xy["C"] + yx["C"]) / 2,
            }
        )
        verdicts = record.verdicts
        assert (verdicts["prob"], verdicts["bs1"], verdicts["bs2"]) == EXPECTED_VERDICTS[item.id]


def test_real_smollm2_judge_wiring(
    real_judged: tuple[PairItem, JudgmentRecord],
) -> None:
    """The real judge in process: a complete record in both orders, whatever it said."""
    item, record = real_judged
    assert record.id == item.id == "Q01"
    _check_record_fields(record, item, EMBEDDED_MODEL)


def test_prob_verdict_of_the_swapped_pair_is_the_mirror(
    judged: tuple[list[PairItem], dict[str, JudgmentRecord], Path],
) -> None:
    _, records, _ = judged
    for qid in QUESTIONS:
        pair, swapped = records[qid], records[f"{qid}-swapped"]
        assert pair.probabilities is not None and swapped.probabilities is not None
        assert pair.probabilities["xy"] == swapped.probabilities["yx"]
        mean, other = pair.probabilities["mean"], swapped.probabilities["mean"]
        assert mean["A"] == other["B"] and mean["B"] == other["A"] and mean["C"] == other["C"]
        for method in ("prob", "bs1", "bs2"):
            verdict, mirrored = pair.verdicts[method], swapped.verdicts[method]
            assert verdict == (None if mirrored is None else MIRROR[mirrored]), method
    # what the mirror maps is real: one pair with a verdict for each side, one tie, one split
    assert [records[q].verdicts["prob"] for q in ("Q01", "Q01-swapped")] == ["A", "B"]
    assert [records[q].verdicts["bs2"] for q in ("Q19", "Q19-swapped")] == ["C", "C"]


def test_baselines_equal_prob_whenever_the_orders_agree(
    judged: tuple[list[PairItem], dict[str, JudgmentRecord], Path],
) -> None:
    _, records, _ = judged
    agreeing = {
        i
        for i, r in records.items()
        if r.orders["xy"]["letter"] == MIRROR[r.orders["yx"]["letter"]]
    }
    assert agreeing == {"Q01", "Q01-swapped"}  # the other two say A in both orders
    for qid in agreeing:
        xy = records[qid].orders["xy"]["letter"]
        assert records[qid].verdicts["bs1"] == records[qid].verdicts["bs2"] == xy
        assert records[qid].verdicts["prob"] == xy
    for qid in set(records) - agreeing:
        assert records[qid].verdicts["bs1"] is None and records[qid].verdicts["bs2"] == "C"
    summary = summarise(list(records.values()), ("prob", "bs1", "bs2"))
    assert summary.agree == len(agreeing) == 2
    assert summary.pairs == 4


def test_rerun_is_resumed_and_cached(
    judged: tuple[list[PairItem], dict[str, JudgmentRecord], Path],
    judge_client: ModelClient,
    templates: dict[str, Path],
    tmp_path: Path,
) -> None:
    items, records, output = judged
    before = judge_client.stats.requests
    again = asyncio.run(
        judge_pairs(judge_client, _plan(judge_client, output, templates["result"]), items)
    )
    assert (again.judged, again.done_before) == (0, 4)
    fresh = tmp_path / "again.jsonl"
    hits = judge_client.stats.cache_hits
    report = asyncio.run(
        judge_pairs(judge_client, _plan(judge_client, fresh, templates["result"]), items)
    )
    assert report.judged == 4
    assert judge_client.stats.requests == before  # no provider call at all
    assert judge_client.stats.cache_hits - hits == 8
    assert {r.id: r.verdicts for r in read_judgments(fresh)} == {
        i: r.verdicts for i, r in records.items()
    }


def test_a_torn_last_line_is_dropped_and_rejudged_from_the_cache(
    judged: tuple[list[PairItem], dict[str, JudgmentRecord], Path],
    judge_client: ModelClient,
    templates: dict[str, Path],
    tmp_path: Path,
) -> None:
    items, _, output = judged
    torn = tmp_path / "torn.jsonl"
    manifest = output.with_name(output.name + ".manifest.json")
    torn.with_name("torn.jsonl.manifest.json").write_bytes(manifest.read_bytes())
    lines = output.read_text(encoding="utf-8").splitlines(keepends=True)
    torn.write_text("".join(lines[:3]) + lines[3][:40], encoding="utf-8")
    report = asyncio.run(
        judge_pairs(judge_client, _plan(judge_client, torn, templates["result"]), items)
    )
    assert (report.judged, report.done_before) == (1, 3)
    assert len(read_judgments(torn)) == 4
    # another judge or template in the same file: refused, not mixed
    other = replace(_plan(judge_client, torn, "pairwise-result"), methods=("bs1",))
    with pytest.raises(InputError, match="choose another output"):
        asyncio.run(judge_pairs(judge_client, other, items))


def test_swapped_pair_under_another_id_reuses_the_cache(
    judged: tuple[list[PairItem], dict[str, JudgmentRecord], Path],
    judge_client: ModelClient,
    templates: dict[str, Path],
    tmp_path: Path,
) -> None:
    items, records, _ = judged
    # (Y, X) judged after (X, Y), under ids of its own: the same two prompts, no new call
    swapped = [
        replace(item, id=f"again:{item.id}", answer_x=item.answer_y, answer_y=item.answer_x)
        for item in items
        if item.id in QUESTIONS
    ]
    before, hits = judge_client.stats.requests, judge_client.stats.cache_hits
    plan = _plan(judge_client, tmp_path / "swapped.jsonl", templates["result"])
    report = asyncio.run(judge_pairs(judge_client, plan, swapped))
    assert report.judged == 2
    assert judge_client.stats.requests == before
    assert judge_client.stats.cache_hits - hits == 4
    for record in read_judgments(plan.output):
        original = records[record.id.removeprefix("again:")]
        assert record.orders["xy"]["reply"] == original.orders["yx"]["reply"]
        prob = original.verdicts["prob"]
        assert record.verdicts["prob"] == (None if prob is None else MIRROR[prob])


def test_a_file_of_other_pairs_settings_or_methods_is_refused_before_any_call(
    answer_files: tuple[Path, Path],
    judged: tuple[list[PairItem], dict[str, JudgmentRecord], Path],
    judge_client: ModelClient,
    templates: dict[str, Path],
    tmp_path: Path,
) -> None:
    all_items, records, output = judged
    items = [item for item in all_items if item.id in QUESTIONS]
    plan = _plan(judge_client, output, templates["result"])
    before = judge_client.stats.requests

    def refused(chosen: list[PairItem], match: str, with_plan: PairwisePlan = plan) -> None:
        with pytest.raises(InputError, match=match):
            asyncio.run(judge_pairs(judge_client, with_plan, chosen))

    where = r"pairwise\.jsonl:\d+: pair 'Q(01|19)'"
    # X against another model Z, into the file of X against Y
    other_model = [replace(item, model_y="Z") for item in items]
    refused(other_model, rf"{where} compares .* vs Qwen2-1\.5B-Instruct, not .* vs Z; choose")
    # the same model names, other answers
    other_answer = [replace(item, answer_y=item.answer_y + "。") for item in items]
    refused(other_answer, rf"{where} was judged on another question, answers, reference")
    # another reply budget
    longer = replace(plan, settings=plan.settings.model_copy(update={"max_tokens": 3}))
    refused(items, r"pairwise\.jsonl holds another run's records \(judge\.max_tokens: 2 vs 3",
            longer)  # fmt: skip
    # a file judged with bs1/bs2 only, resumed asking for prob too
    bs_only = tmp_path / "bs.jsonl"
    manifest = output.with_name(output.name + ".manifest.json")
    bs_only.with_name("bs.jsonl.manifest.json").write_bytes(manifest.read_bytes())
    bs_only.write_text(
        "".join(
            r.model_copy(
                update={"verdicts": {k: v for k, v in r.verdicts.items() if k != "prob"}}
            ).model_dump_json()
            + "\n"
            for r in records.values()
        ),
        encoding="utf-8",
    )
    refused(items, r"bs\.jsonl:\d: pair .* has no prob verdict \(it was judged for bs1, bs2\)",
            replace(plan, output=bs_only))  # fmt: skip
    # asking for fewer methods than the file holds is fine
    fewer = replace(plan, methods=("bs1",))
    report = asyncio.run(judge_pairs(judge_client, fewer, items))
    assert (report.judged, report.done_before) == (0, 2)
    assert judge_client.stats.requests == before
    # the command line: a-vs-c into the file of a-vs-b stops before the judge is even loaded
    x, y = answer_files
    z = tmp_path / "z.jsonl"
    rows = [json.loads(line) for line in y.read_text(encoding="utf-8").splitlines()]
    z.write_text("".join(json.dumps({**r, "model": "Z"}) + "\n" for r in rows), "utf-8")
    code, text = _cli(
        str(x), str(z), "-j", _spec(judge_client), "--max-tokens", str(RESULT_TOKENS),
        "--template", str(templates["result"]), "--output", str(output),
    )  # fmt: skip
    assert code == 1 and "not Qwen2.5-32B-Instruct vs Z; choose another output" in text
    assert len(read_judgments(output)) == 4


def test_two_runs_of_one_model_are_named_by_their_files(tmp_path: Path) -> None:
    rows = [{"id": "1", "question": "q", "answer": "a", "model": "m"}]
    paths = [tmp_path / "a.jsonl", tmp_path / "b.jsonl", tmp_path / "sub" / "a.jsonl"]
    paths[2].parent.mkdir()
    for path in paths:
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    (pair,) = load_pairs(paths[0], paths[1])
    assert (pair.model_x, pair.model_y) == ("m (a)", "m (b)")
    (pair,) = load_pairs(paths[0], paths[2])
    assert (pair.model_x, pair.model_y) == ("m (X)", "m (Y)")


def test_reasons_variant_reads_the_final_verdict(
    answer_files: tuple[Path, Path], templates: dict[str, Path], tmp_path: Path
) -> None:
    """Order xy ends its reasons with [[A]], order yx writes no bracketed verdict at all."""
    (item,) = load_pairs(*answer_files)[:1]
    xy = f"Answer A: {item.answer_x}\n\nAnswer B: {item.answer_y}\n\nWhich answer is better? Write"
    rules: list[dict[str, object]] = [
        {"contains": xy, "reply": "x is right, y is not. [[A]]",
         "alternatives": {"A": math.log(0.9), "B": math.log(0.08)}},
        {"reply": "Both are fine."},
    ]  # fmt: skip
    client = ModelClient(load_provider(_write_script(tmp_path / "reasons.jsonl", rules)))
    plan = _plan(client, tmp_path / "reasons.jsonl.out", templates["reasons"], REASONS_TOKENS)
    asyncio.run(judge_pairs(client, plan, [item]))
    (record,) = read_judgments(plan.output)
    found, missing = record.orders["xy"], record.orders["yx"]
    assert (found["letter"], found["prob_status"], found["token"]) == ("A", "ok", "A")
    assert found["probs"] == pytest.approx({"A": 0.9, "B": 0.08, "C": 0.0})
    assert found["usage"]["completion_tokens"] == len("x is right, y is not. [[A]]")
    assert (missing["letter"], missing["prob_status"], missing["probs"]) == (
        None,
        "no-verdict",
        None,
    )
    # one order without a verdict: no prob verdict, and no mean of the two orders
    assert record.verdicts == {"prob": None, "bs1": None, "bs2": None}
    assert record.probabilities is not None and "mean" not in record.probabilities


def test_criteria_generated_once_and_kept(
    answer_files: tuple[Path, Path], judge_client: ModelClient, tmp_path: Path
) -> None:
    items = load_pairs(*answer_files)[:1]
    questions = [CriteriaQuestion(i.id, i.question, i.reference) for i in items]
    template = load_template("criteria-generate")
    store = CriteriaStore(tmp_path / "criteria.json")
    before = judge_client.stats.requests
    judge = _spec(judge_client)
    found = asyncio.run(
        generate_criteria(judge_client, template, questions, judge=judge, store=store, max_tokens=8)
    )
    assert found == {"Q01": CRITERIA}
    saved = json.loads((tmp_path / "criteria.json").read_text(encoding="utf-8"))
    assert [entry["question_id"] for entry in saved.values()] == ["Q01"]
    assert all(entry["template_version"] == "1" for entry in saved.values())
    calls = judge_client.stats.requests
    again = asyncio.run(
        generate_criteria(
            judge_client, template, questions, judge=judge,
            store=CriteriaStore(tmp_path / "criteria.json"), max_tokens=8,
        )
    )  # fmt: skip
    assert again == found
    assert judge_client.stats.requests == calls  # from the file: no call, not even a cache read
    with_criteria = [replace(item, criteria=found[item.id]) for item in items]
    rendered = load_template("pairwise-criteria-result").render(
        question=items[0].question, reference=items[0].reference or "",
        criteria=found["Q01"], answer_a="x", answer_b="y",
    )  # fmt: skip
    assert found["Q01"] in rendered[-1].content
    assert calls - before == 1
    assert with_criteria[0].criteria == found["Q01"]


def _criteria_calls(client: ModelClient) -> int:
    """Criteria calls made, whether the provider or the response cache answered them."""
    return client.stats.requests + client.stats.cache_hits


def test_criteria_per_question_text_not_per_id(
    answer_files: tuple[Path, Path], judge_client: ModelClient, tmp_path: Path
) -> None:
    (item,) = load_pairs(*answer_files)[:1]
    assert item.reference
    template = load_template("criteria-generate")
    path = tmp_path / "criteria.json"
    # a pfgen run folder's ids: one question, one id per answer
    same = [CriteriaQuestion(f"Q01#{n}", item.question, item.reference) for n in range(2)]
    judge = _spec(judge_client)
    done: list[None] = []
    before = _criteria_calls(judge_client)
    found = asyncio.run(
        generate_criteria(
            judge_client, template, same, judge=judge, store=CriteriaStore(path),
            max_tokens=8, on_done=lambda: done.append(None),
        )
    )  # fmt: skip
    assert _criteria_calls(judge_client) - before == 1
    assert len(done) == 2  # the progress bar counts both ids
    assert found == {"Q01#0": CRITERIA, "Q01#1": CRITERIA}
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert [entry["question_id"] for entry in saved.values()] == ["Q01#0"]
    # another id (another dataset) with the same question: read from the file, no call
    before = _criteria_calls(judge_client)
    other = asyncio.run(
        generate_criteria(
            judge_client, template, [CriteriaQuestion("x-7", item.question, item.reference)],
            judge=judge, store=CriteriaStore(path), max_tokens=8,
        )
    )  # fmt: skip
    assert other == {"x-7": found["Q01#0"]} and _criteria_calls(judge_client) == before
    # a changed reference is another question: a new provider call, not the stored text
    changed = CriteriaQuestion("Q01#0", item.question, item.reference + "（改訂）")
    before = judge_client.stats.requests
    asyncio.run(
        generate_criteria(
            judge_client, template, [changed], judge=judge, store=CriteriaStore(path),
            max_tokens=8,
        )
    )  # fmt: skip
    assert judge_client.stats.requests - before == 1
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert len(saved) == 2 and len({entry["content_hash"] for entry in saved.values()}) == 2
    # a changed reply budget or template version is another key: regenerated, not read back
    key = criteria_key(same[0], judge, template, 8)
    assert key in saved and criteria_key(same[1], judge, template, 8) == key
    newer = template.model_copy(update={"version": "2"})
    assert key not in {
        criteria_key(same[0], judge, template, 4),
        criteria_key(same[0], judge, newer, 8),
    }


def test_criteria_ids_must_name_one_question_and_old_files_are_skipped(
    judge_client: ModelClient, tmp_path: Path
) -> None:
    template = load_template("criteria-generate")
    path = tmp_path / "criteria.json"
    old = {"question_id": "Q01", "judge": "j", "template": "criteria-generate",
           "template_version": "1", "criteria": "- old", "tstamp": 0.0}  # fmt: skip
    path.write_text(json.dumps({"Q01\tj\tcriteria-generate@1": old}), encoding="utf-8")
    store = CriteriaStore(path)
    assert store.entries == {} and store.skipped_old == 1
    clash = [CriteriaQuestion("Q01", "質問", "答え"), CriteriaQuestion("Q01", "質問", "別")]
    before = judge_client.stats.requests
    with pytest.raises(InputError, match="'Q01' is given with two different questions"):
        asyncio.run(generate_criteria(judge_client, template, clash, judge="j", store=store))
    assert judge_client.stats.requests == before


# --------------------------------------------------------------------------- server and CLI


def test_behind_the_real_llama_server_with_top20_logprobs(
    answer_files: tuple[Path, Path],
    real_judged: tuple[PairItem, JudgmentRecord],
    templates: dict[str, Path],
    llama_base_url: str,
    tmp_path: Path,
) -> None:
    needs("openai")
    items = load_pairs(*answer_files)[:1]
    cache = ResponseCache(tmp_path / "cache")
    provider = load_provider("openai/smollm2", base_url=llama_base_url)
    client = ModelClient(provider, cache=cache, concurrency=1)
    plan = replace(
        _plan(client, tmp_path / "server.jsonl", templates["result"]),
        settings=JudgeSettings(
            judge="openai/smollm2", base_url=llama_base_url, max_tokens=RESULT_TOKENS,
            top_logprobs=20,
        ),
    )  # fmt: skip

    async def go() -> None:
        async with client:
            await judge_pairs(client, plan, items)

    asyncio.run(go())
    assert client.stats.requests == 2
    # the wire format as the server sent it: the top-20 alternatives at every token
    with sqlite3.connect(cache.path) as conn:
        rows = conn.execute("SELECT response FROM responses").fetchall()
    assert len(rows) == 2
    for (raw,) in rows:
        logprobs = GenerationResponse.model_validate_json(raw).choices[0].logprobs
        assert logprobs, raw
        # llama_cpp.server keys alternatives by their text decoded ignoring partial UTF-8,
        # so several byte tokens merge into one "": 20 asked, 20 or a few fewer come back
        sizes = [len(step.top) for step in logprobs]
        assert all(15 <= size <= 20 for size in sizes), sizes
    (record,) = read_judgments(plan.output)
    _, local = real_judged
    assert record.probabilities is not None and local.probabilities is not None
    # the same model and prompts in another process (batched differently): close, not equal
    for order in ("xy", "yx"):
        assert record.orders[order]["prob_status"] == local.orders[order]["prob_status"]
        assert record.orders[order]["token"] == local.orders[order]["token"]
        for letter in "ABC":
            assert record.probabilities[order][letter] == pytest.approx(
                local.probabilities[order][letter], abs=0.02
            )
    assert record.verdicts["bs1"] == local.verdicts["bs1"]


def _cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["judge", "pairwise", *args])
    return result.exit_code, result.output


def test_cli_end_to_end_from_the_cache_and_verdicts_for_agreement(
    answer_files: tuple[Path, Path],
    judged: tuple[list[PairItem], dict[str, JudgmentRecord], Path],
    judge_spec: str,
    templates: dict[str, Path],
    cache_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(cache_dir))
    x, y = answer_files
    out, verdicts = tmp_path / "out.jsonl", tmp_path / "prob.jsonl"
    result = CliRunner().invoke(
        app,
        ["judge", "pairwise", str(x), str(y), "-j", judge_spec,
         "--max-tokens", str(RESULT_TOKENS), "--template", str(templates["result"]),
         "--output", str(out), "--export-verdicts", str(verdicts), "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)
    assert (shown["judged"], shown["done_before"]) == (2, 0)
    assert (shown["judge_calls"], shown["cache_hits"]) == (0, 4)  # all from the cache
    assert (shown["model_x"], shown["model_y"]) == ("Qwen2.5-32B-Instruct", "Qwen2-1.5B-Instruct")
    assert shown["pairs"] == 2 and shown["no_logprobs"] == []
    first = [r for i, r in judged[1].items() if not i.endswith("-swapped")]
    lengths = {item.id: (len(item.answer_x), len(item.answer_y)) for item in load_pairs(x, y)}
    styles = {
        item.id: (StyleCounts.of(item.answer_x), StyleCounts.of(item.answer_y))
        for item in load_pairs(x, y)
    }
    expected = summarise(first, ("prob", "bs1", "bs2"), lengths, styles)
    assert shown["methods"] == {m: c.to_json() for m, c in expected.methods.items()}
    assert shown["robustness"] == expected.robustness
    # beside the raw rates, X's length-controlled rate against Y, with its signature
    # two pairs are too few to tell the length term from X's own: no controlled rate
    controlled = shown["methods"]["prob"]["x_length_controlled_win_rate"]
    assert controlled["estimate"] is None and controlled["resamples"] == 2000
    line = shown["length_control_signature"]["line"]
    assert "kind:length-controlled-winrate|baseline:Qwen2-1.5B-Instruct|" in line
    assert "length:characters" in line
    # Q01: every method says X; Q19 (A in both orders): prob X, bs1 none, bs2 a tie
    counted = {
        method: tuple(shown["methods"][method][k] for k in
                      ("x_wins", "y_wins", "ties", "invalid", "x_adjusted_win_rate",
                       "y_adjusted_win_rate"))
        for method in ("prob", "bs1", "bs2")
    }  # fmt: skip
    assert counted == {
        "prob": (2, 0, 0, 0, 1.0, 0.0),
        "bs1": (1, 0, 0, 1, 1.0, 0.0),
        "bs2": (1, 0, 1, 0, 0.75, 0.25),
    }
    _, records, _ = judged
    exported = read_verdicts(verdicts)
    assert [v.item for v in exported] == list(QUESTIONS)
    assert [(v.verdict, v.order_xy) for v in exported] == [("A", "A"), ("A", "A")]
    for verdict in exported:
        assert verdict.verdict == records[verdict.item].verdicts["prob"]
        assert verdict.order_xy == records[verdict.item].orders["xy"]["letter"]
        assert verdict.category is not None
    code, text = _cli(
        str(x), str(y), "-j", judge_spec, "--max-tokens", str(RESULT_TOKENS),
        "--template", str(templates["result"]), "--output", str(out),
    )  # fmt: skip
    assert code == 0 and "0 pair(s) judged, 2 already done" in text


def test_the_library_call_is_what_the_command_runs(
    answer_files: tuple[Path, Path],
    judge_spec: str,
    templates: dict[str, Path],
    cache_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``hyoka.judge.judge_pairwise`` is the whole of ``hyoka judge pairwise``: a Python
    caller gets the run and the exported verdicts; the command given the same file then
    finds every pair done and prints the same summary (issue 30). Its errors name the
    parameter, which the command shows as the flag."""
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(cache_dir))
    x, y = answer_files
    out, verdicts = tmp_path / "out.jsonl", tmp_path / "prob.jsonl"
    done = judge_pairwise(
        x, y, judge_spec, template=str(templates["result"]), output=out,
        max_tokens=RESULT_TOKENS, export_verdicts_to=verdicts,
    )  # fmt: skip
    assert (done.run.report.judged, done.run.stats.cache_hits) == (2, 4)
    assert done.exported == ExportedVerdicts("prob", 2, verdicts)
    assert [v.verdict for v in read_verdicts(verdicts)] == ["A", "A"]
    mine = done.to_json()
    assert mine == done.run.to_json() and mine["output"] == str(out)
    shown = CliRunner().invoke(
        app,
        ["judge", "pairwise", str(x), str(y), "-j", judge_spec, "--max-tokens",
         str(RESULT_TOKENS), "--template", str(templates["result"]), "--output", str(out),
         "--json"],
    )  # fmt: skip
    assert shown.exit_code == 0, shown.output
    theirs = json.loads(shown.stdout)
    assert (theirs["judged"], theirs["done_before"]) == (0, 2)
    for key in ("pairs", "methods", "robustness", "signature", "judged_by", "model_x"):
        assert theirs[key] == mine[key], key
    with pytest.raises(InputError, match=r"^`export_method` must be one of the judged methods"):
        judge_pairwise(x, y, judge_spec, method="bs1", export_method="prob",
                       export_verdicts_to=verdicts)  # fmt: skip
    refused = CliRunner().invoke(
        app,
        ["judge", "pairwise", str(x), str(y), "-j", judge_spec, "--method", "bs1",
         "--export-method", "prob", "--export-verdicts", str(verdicts)],
    )  # fmt: skip
    assert refused.exit_code == 1
    assert "error: --export-method must be one of the judged methods (bs1)" in refused.stderr


def test_misaligned_ids_fail_before_any_call(
    answer_files: tuple[Path, Path], tmp_path: Path
) -> None:
    x, y = answer_files
    short = tmp_path / "short.jsonl"
    short.write_text("".join(y.read_text(encoding="utf-8").splitlines(keepends=True)[:1]), "utf-8")
    with pytest.raises(InputError, match=r"short\.jsonl: no answer for id\(s\) 'Q19' of "):
        load_pairs(x, short)
    # an unreachable judge: any call would be a connection error, not this message
    code, text = _cli(
        str(x), str(short), "-j", "openai/none", "--base-url", "http://127.0.0.1:9/v1",
        "--output", str(tmp_path / "o.jsonl"),
    )  # fmt: skip
    assert code == 1
    assert "no answer for id(s) 'Q19'" in text
    assert not (tmp_path / "o.jsonl").exists()


def test_prob_with_a_judge_without_logprobs_fails_before_any_call(
    answer_files: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    needs("anthropic")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key-that-is-never-sent")
    x, y = answer_files
    code, text = _cli(
        str(x), str(y), "-j", "anthropic/claude-3-5-haiku-latest", "--method", "prob",
        "--base-url", "http://127.0.0.1:9", "--output", str(tmp_path / "o.jsonl"),
    )  # fmt: skip
    assert code == 1
    assert "--method prob needs a judge that returns log probabilities" in text
    assert not (tmp_path / "o.jsonl").exists()


def test_template_needs_are_checked_before_any_call(
    answer_files: tuple[Path, Path], tmp_path: Path
) -> None:
    x, _ = answer_files
    bare = tmp_path / "bare.jsonl"
    rows = [json.loads(line) for line in x.read_text(encoding="utf-8").splitlines()]
    bare.write_text(
        "".join(json.dumps({k: v for k, v in r.items() if k != "reference"}) + "\n" for r in rows),
        "utf-8",
    )
    twin = tmp_path / "twin.jsonl"
    twin.write_bytes(bare.read_bytes())
    code, text = _cli(
        str(bare), str(twin), "-j", "openai/none", "--base-url", "http://127.0.0.1:9/v1"
    )
    assert code == 1 and "needs a reference for every pair; none for Q01, Q19" in text
    code, text = _cli(str(x), str(twin), "-j", "openai/none", "--criteria", "none",
                      "--template", "pairwise-criteria-result")  # fmt: skip
    assert code == 1 and "give --criteria auto" in text
    code, text = _cli(str(x), str(x), "-j", "openai/none", "--method", "best")
    assert code == 2 and "'best' is not one of" in text


def test_one_answer_file_against_itself_is_refused_before_any_call(
    answer_files: tuple[Path, Path], tmp_path: Path
) -> None:
    """Issue 29: X and Y one file (or a link to it) printed win rates of a model against
    itself; now one error line, as ``mtbench judge`` refuses a model against itself."""
    x, _ = answer_files
    link = tmp_path / "link.jsonl"
    link.symlink_to(x)
    unreachable = ["-j", "openai/none", "--base-url", "http://127.0.0.1:9/v1"]
    for other in (x, link):
        code, text = _cli(str(x), str(other), *unreachable, "--output", str(tmp_path / "o.jsonl"))
        assert code == 1, text
        assert text == (
            f"error: {other}: the same answers as {x}, a model against itself: give two "
            "different answer files\n"
        )
    assert not (tmp_path / "o.jsonl").exists()


def _one_tie(folder: Path) -> tuple[Result, Path]:
    """``judge pairwise`` of x's and y's one answer, five characters each, by a script
    answering A in both orders (a tie), with ``--json``; the judgment file."""
    files = []
    for model, answer in (("x", "東京です。"), ("y", "大阪です。")):
        path = folder / f"{model}.jsonl"
        row = {"id": "q1", "question": "日本の首都は?", "answer": answer, "model": model,
               "reference": "東京です。"}  # fmt: skip
        path.write_text(json.dumps(row, ensure_ascii=False) + "\n", "utf-8")
        files.append(str(path))
    judge = _write_script(folder / "s.jsonl", [{"reply": "[[A]]"}])
    output = folder / "p.jsonl"
    result = CliRunner().invoke(
        app, ["judge", "pairwise", *files, "-j", judge, "--method", "bs2", "--output",
              str(output), "--json"],
        env={"HYOKA_CACHE_DIR": str(folder / "cache")},
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return result, output


def test_a_length_controlled_rate_needs_ten_verdicts_even_with_equal_lengths(
    tmp_path: Path,
) -> None:
    """Issue 29: answers of one length skipped the README's rule (fewer than 10 verdicts:
    n/a) and one tie showed "length-controlled 0.500 [0.500, 0.500]"."""
    result, _ = _one_tie(tmp_path)
    shown = json.loads(result.stdout)["methods"]["bs2"]
    assert (shown["ties"], shown["x_adjusted_win_rate"]) == (1, 0.5)
    rate = shown["x_length_controlled_win_rate"]
    assert (rate["estimate"], rate["low"], rate["high"]) == (None, None, None)


def test_the_report_reads_each_pair_of_a_judgment_file_once(tmp_path: Path) -> None:
    """Issue 29: the report counted a second, different record of one pair as another item
    (2 items of a file of 1); now it reads the file as ``judge pairwise`` does: a copy is
    dropped with a warning, a second verdict is the file skipped with its line."""
    _, output = _one_tie(tmp_path)
    (record,) = [json.loads(line) for line in output.read_text(encoding="utf-8").splitlines()]
    for name, again in (("copy", record), ("flipped", record | {"verdicts": {"bs2": "A"}})):
        doubled = tmp_path / f"{name}.jsonl"
        lines = [json.dumps(r, ensure_ascii=False) + "\n" for r in (record, again)]
        doubled.write_text("".join(lines), "utf-8")
        site = tmp_path / f"site-{name}"
        report = CliRunner().invoke(
            app, ["report", str(doubled), str(output), "-o", str(site), "--no-public",
                  "--rounds", "1"],
        )  # fmt: skip
        assert report.exit_code == 0, report.output
        index = (site / "pairwise" / "index.html").read_text(encoding="utf-8")
        if name == "copy":
            assert f"warning: {doubled}: 1 identical duplicate line(s) dropped" in report.stderr
            assert index.count("(1 items)") == 2
        else:
            said = f"note: {doubled}:2: a second, different record for q1 (first at line 1)"
            assert said in report.stderr and index.count("(1 items)") == 1


# --------------------------------------------------------------------------- arithmetic


def test_prob_rule_ties_and_mirrors() -> None:
    assert prob_verdict({"A": 0.5, "B": 0.3, "C": 0.1}) == "A"
    assert prob_verdict({"A": 0.4, "B": 0.4, "C": 0.1}) == "C"  # X and Y alike: a tie
    assert prob_verdict({"A": 0.4, "B": 0.1, "C": 0.4}) == "C"
    assert prob_verdict({"A": 0.0, "B": 0.0, "C": 0.0}) is None
    # seed 001's figure 1: order 1 A 70% B 10% C 6%, order 2 (swapped) A 40% B 60% C 10%
    mean = xy_probabilities({"A": 0.7, "B": 0.1, "C": 0.06}, {"A": 0.4, "B": 0.6, "C": 0.1})
    assert mean == pytest.approx({"A": 0.65, "B": 0.25, "C": 0.08})
    assert prob_verdict(mean) == "A"
    assert combine("A", "B") == {"bs1": "A", "bs2": "A"}
    assert combine("A", "A") == {"bs1": None, "bs2": "C"}
    assert combine("C", "C") == {"bs1": "C", "bs2": "C"}
    assert combine(None, "B") == {"bs1": None, "bs2": None}


def test_fastchat_win_rates() -> None:
    verdicts = [("m1", "m2", "A"), ("m1", "m2", "A"), ("m1", "m2", "C"), ("m2", "m1", "A"),
                ("m1", "m2", None)]  # fmt: skip
    counts = win_counts(verdicts)
    m1, m2 = counts["m1"], counts["m2"]
    assert (m1.wins, m1.losses, m1.ties, m1.invalid) == (2, 1, 1, 1)
    assert m1.win_rate == pytest.approx(2 / 4)
    assert m1.adjusted_win_rate == pytest.approx(2.5 / 4)
    assert m2.win_rate == pytest.approx(1 / 4)
    assert m2.adjusted_win_rate == pytest.approx(1.5 / 4)
    assert math.isclose((m1.adjusted_win_rate or 0) + (m2.adjusted_win_rate or 0), 1.0)


def test_export_needs_the_method(
    judged: tuple[list[PairItem], dict[str, JudgmentRecord], Path], tmp_path: Path
) -> None:
    _, records, _ = judged
    bare = [r.model_copy(update={"verdicts": {"bs1": None}}) for r in records.values()]
    with pytest.raises(InputError, match="no prob verdict"):
        export_verdicts(bare, "prob", tmp_path / "v.jsonl")


def test_answer_files_that_disagree_are_named(tmp_path: Path) -> None:
    def write(name: str, *rows: dict[str, object]) -> Path:
        path = tmp_path / name
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
        return path

    x = write(
        "x.jsonl",
        {"id": 1, "question": "q1", "answer": "a"},
        {"id": 2, "question": "q2", "answer": "b"},
    )
    other = write(
        "y.jsonl",
        {"id": 1, "question": "q1", "answer": "c"},
        {"id": 2, "question": "Q2", "answer": "d"},
    )
    with pytest.raises(
        InputError, match=r"id '2': the question differs between .*x\.jsonl and .*y\.jsonl"
    ):
        load_pairs(x, other)
    extra = write(
        "z.jsonl",
        {"id": 1, "question": "q1", "answer": "c"},
        {"id": 2, "question": "q2", "answer": "d"},
        {"id": 3, "question": "q3", "answer": "e"},
    )
    with pytest.raises(InputError, match=r"x\.jsonl: no answer for id\(s\) '3' of .*z\.jsonl"):
        load_pairs(x, extra)
    twice = write(
        "t.jsonl",
        {"id": "1", "question": "q1", "answer": "a"},
        {"id": "1", "question": "q1", "answer": "b"},
    )
    with pytest.raises(InputError, match=r"t\.jsonl:2: a second, different record for id 1 "):
        load_pairs(twice, x)
    bad = write("b.jsonl", {"id": "1", "question": "q1"})
    with pytest.raises(InputError, match=r"b\.jsonl:1: no 'answer'"):
        load_pairs(bad, x)
    pairs = load_pairs(
        x,
        write(
            "w.jsonl",
            {"id": "1", "question": "q1", "answer": "c"},
            {"id": "2", "question": "q2", "answer": "d"},
        ),
    )
    assert [(p.id, p.answer_x, p.answer_y, p.model_x, p.model_y) for p in pairs] == [
        ("1", "a", "c", "x", "w"),
        ("2", "b", "d", "x", "w"),
    ]


def test_packaged_seed001_templates() -> None:
    expected = {
        "pairwise-result": ("verdict", False),
        "pairwise-reasons": ("verdict-after-reasons", False),
        "pairwise-criteria-result": ("verdict", True),
        "pairwise-criteria-reasons": ("verdict-after-reasons", True),
    }
    for name, (output, criteria) in expected.items():
        template = load_template(name)
        assert (template.kind, template.output) == ("pairwise", output)
        assert ("criteria" in template.placeholders) is criteria
        assert {"question", "reference", "answer_a", "answer_b"} <= template.placeholders
        text = template.render(
            question="Q", reference="R", answer_a="AAA", answer_b="BBB", criteria="- 正確さ"
        )[-1].content
        assert text.index("AAA") < text.index("BBB")
        assert "立場の偏りを避け" in text
        if output == "verdict":
            assert "評価結果のみを出力してください" in text
        else:
            assert "評価理由を提供した後" in text and "[[C]]" in text
        assert ("［評価観点開始］\n- 正確さ\n［評価観点終わり］" in text) is criteria
    criteria_template = load_template("criteria-generate")
    assert (criteria_template.kind, criteria_template.output) == ("criteria", "text")
    assert criteria_template.placeholders == {"question", "reference"}


def test_two_pfgen_runs_compare_directly(
    answer_files: tuple[Path, Path],
    templates: dict[str, Path],
    judge_spec: str,
    cache_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Run folders pair up by question and position, the sample answer as reference."""
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(cache_dir))
    monkeypatch.setenv("HYOKA_DATA_DIR", str(SHARED_DATA))
    out = tmp_path / "runs.jsonl"
    code, text = _cli(
        str(RUN_X), str(RUN_Y), "-j", judge_spec, "--max-tokens", str(RESULT_TOKENS),
        "--template", str(templates["result"]), "--output", str(out),
        "--per-question", "1", "--limit", "1",
    )  # fmt: skip
    assert code == 0, text
    (record,) = read_judgments(out)
    assert record.id == "Q01#0"
    assert record.models == ("Qwen/Qwen2.5-32B-Instruct", "Qwen/Qwen2-1.5B-Instruct")
    # the same answers the JSONL files hold for Q01, so the same prompts
    by_file = {item.id: item for item in load_pairs(*answer_files)}
    prompt = record.prompt[-1].content
    assert by_file["Q01"].answer_x in prompt and by_file["Q01"].answer_y in prompt
    code, text = _cli(str(RUN_X), str(answer_files[1]), "-j", judge_spec)
    assert code != 0 and "no answer for id(s) 'Q01#0'" in text
