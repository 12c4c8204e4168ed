"""Promise: a model that thinks aloud is judged and scored on its answer, never its thinking.

Answers and judge replies are read by one rule (``hyoka.providers.thinking``): the thinking
(an inline ``<think>...</think>`` block, or a server's separate ``reasoning_content``) is
set aside where the text becomes the answer and kept beside it in every record; a block
never closed leaves an empty answer; the rule is named in the signature where it is not
the default. Real servers on 127.0.0.1 (``wire_servers.OpenAIServer``) answer as vLLM does
with and without its reasoning parser, and the scripted judge (``scripted/PATH``) replies
as a reasoning judge would.
"""

from __future__ import annotations

import asyncio
import json
import lzma
from pathlib import Path

import pytest
from typer.testing import CliRunner

from _shared import SHARED_DATA, data_with_sources
from hyoka.cli.main import app
from hyoka.judge import JudgeSettings, JudgmentRecord
from hyoka.judge.criteria import CriteriaQuestion, CriteriaStore, criteria_key, generate_criteria
from hyoka.judge.engine import Task
from hyoka.judge.pairwise import PairwiseJudging
from hyoka.judge.rating import FASTCHAT, PFMT_UPSTREAM, rate
from hyoka.judge.single import SingleGrading
from hyoka.judge.templates import load_template
from hyoka.mtbench import Bench, load_answers
from hyoka.mtbench.generate import GeneratePlan, GenerateReport, generate_answers
from hyoka.mtbench.records import pair_line, single_line
from hyoka.pfgen import PfgenBenchmark
from hyoka.pfgen.runs import score_run
from hyoka.providers import (
    Choice,
    Message,
    ModelClient,
    SamplingParams,
    ThinkingRule,
    load_provider,
    split_thinking,
)
from wire_servers import OpenAIServer, Reply

# --- the rule itself ---------------------------------------------------------------------


def test_the_answer_is_what_follows_a_closed_thinking_block() -> None:
    reply = split_thinking("\n<think>まず考える。[[2]]</think>\n\n答えです。")
    assert reply.answer == "答えです。"
    assert reply.thinking == "\n<think>まず考える。[[2]]</think>\n\n"
    assert reply.thinking + reply.answer == "\n<think>まず考える。[[2]]</think>\n\n答えです。"
    assert not reply.unclosed


def test_an_unclosed_thinking_block_is_an_empty_answer() -> None:
    reply = split_thinking("<think>考えているうちに max_tokens が尽きた")
    assert (reply.answer, reply.unclosed) == ("", True)
    assert reply.thinking == "<think>考えているうちに max_tokens が尽きた"


def test_text_without_an_opening_block_is_the_answer_as_written() -> None:
    """A stray ``</think>`` after an answer (as 42 answers of upstream's published Qwen3-8B
    pfgen run end) is no block: the answer stays as the model wrote it. So does an answer
    that only mentions the tag."""
    for text in ("答えです。\n</think>", "タグ <think> の説明です。", "普通の答え"):
        assert split_thinking(text) == split_thinking(text, "keep")
        assert (split_thinking(text).answer, split_thinking(text).thinking) == (text, None)


def test_keep_reads_the_whole_text_and_still_keeps_a_separate_field() -> None:
    text = "<think>[[2]]</think>[[8]]"
    assert split_thinking(text, "keep").answer == text
    kept = split_thinking("[[8]]", "keep", reasoning="[[2]] かな")
    assert (kept.answer, kept.thinking) == ("[[8]]", "[[2]] かな")


# --- answers of judged benchmarks ----------------------------------------------------------


def _generate(server: OpenAIServer, bench: Bench, plan: GeneratePlan) -> GenerateReport:
    client = ModelClient(load_provider("openai/thinker", base_url=server.base_url), cache=None)

    async def go() -> GenerateReport:
        async with client:
            return await generate_answers(plan, bench, client)

    return asyncio.run(go())


@pytest.mark.parametrize("apart", [False, "reasoning_content", "reasoning"])
def test_answers_keep_the_thinking_beside_the_turn_and_out_of_the_history(
    tmp_path: Path, apart: str | bool
) -> None:
    """Inline or in a separate field, the thinking never reaches the turn, the second
    request's history (which carries the answer, as Qwen3's and DeepSeek-R1's chat templates
    do) or the judge; the answer file keeps it beside each turn."""
    bench = Bench.load("mt-bench", data_with_sources())
    plan = GeneratePlan(answer_file=tmp_path / "m.jsonl", model_id="m", template="chat", limit=1)
    with OpenAIServer() as bare:
        bare_report = _generate(
            bare, bench, GeneratePlan(tmp_path / "b.jsonl", "m", "chat", limit=1)
        )
    with OpenAIServer() as server:
        server.thinking, server.thinking_apart = "ユーザーは何を求めている？", apart  # type: ignore[assignment]
        report = _generate(server, bench, plan)
        second = server.received[-1].body
    assert (report.generated, report.empty, report.unclosed_thinking) == (1, 0, 0)
    (record,) = load_answers(plan.answer_file, bench).values()
    (plain,) = load_answers(tmp_path / "b.jsonl", bench).values()
    assert record.turns == plain.turns  # the same seeded answers, without the thinking
    inline = "<think>ユーザーは何を求めている？</think>\n\n"
    expected = inline if apart is False else "ユーザーは何を求めている？"
    assert record.choices[0].thinking == (expected, expected)
    assert plain.choices[0].thinking is None
    assert "thinking" not in json.loads((tmp_path / "b.jsonl").read_text("utf-8"))["choices"][0]
    assert [m["content"] for m in second["messages"]][2] == record.turns[0]
    assert bare_report.signature is not None and report.signature is not None
    assert bare_report.signature.get("thinking") is None
    assert report.signature == bare_report.signature


def test_an_answer_whose_thinking_never_closed_is_empty_and_counted(tmp_path: Path) -> None:
    bench = Bench.load("mt-bench", data_with_sources())
    question = bench.questions[0]
    plan = GeneratePlan(answer_file=tmp_path / "m.jsonl", model_id="m", template="chat", limit=1)
    with OpenAIServer() as server:
        server.replies[question.turns[0]] = "<think>考え続けて max_tokens に達した"
        report = _generate(server, bench, plan)
    assert (report.empty, report.unclosed_thinking) == (1, 1)
    (record,) = load_answers(plan.answer_file, bench).values()
    assert record.turns[0] == ""
    assert record.choices[0].thinking == ("<think>考え続けて max_tokens に達した", None)


def test_the_answers_signature_names_the_rule_when_it_is_not_the_default(tmp_path: Path) -> None:
    bench = Bench.load("mt-bench", data_with_sources())
    plan = GeneratePlan(tmp_path / "m.jsonl", "m", "chat", limit=1, thinking="keep")
    with OpenAIServer() as server:
        server.thinking = "考え"
        report = _generate(server, bench, plan)
    assert report.signature is not None and report.signature.get("thinking") == "keep"
    assert "|thinking:keep" in report.signature.line
    (record,) = load_answers(plan.answer_file, bench, thinking="keep").values()
    assert record.turns[0].startswith("<think>考え</think>")
    manifest = json.loads((tmp_path / "m.jsonl.manifest.json").read_text("utf-8"))
    assert manifest["identity"]["thinking"] == "keep"


# --- judges that think aloud ---------------------------------------------------------------


def _scripted(tmp_path: Path, *replies: str) -> ModelClient:
    script = tmp_path / "judge.jsonl"
    script.write_text(json.dumps({"reply": list(replies)}, ensure_ascii=False) + "\n", "utf-8")
    return ModelClient(load_provider(f"scripted/{script}"), cache=None)


REASONING_JUDGE = "<think>最初の印象は [[2]] だが、よく読むと…</think>\n\n良い回答です。評価: [[8]]"


@pytest.mark.parametrize("rules", [FASTCHAT, PFMT_UPSTREAM], ids=lambda r: r.name)
def test_a_rating_written_while_thinking_is_not_the_verdict(tmp_path: Path, rules: object) -> None:
    """Upstream's rules read the *first* ``[[n]]``: inside the thinking that would be a 2."""
    messages = (Message(role="user", content="採点してください"),)
    params = SamplingParams(temperature=0.0)

    async def go(thinking: str) -> tuple[float | None, tuple[str, ...], tuple[str | None, ...]]:
        async with _scripted(tmp_path, REASONING_JUDGE) as client:
            got = await rate(client, messages, params, rules=rules, thinking=thinking)  # type: ignore[arg-type]
        return got.score, got.replies, got.thinking

    score, replies, thinking = asyncio.run(go("strip-think"))
    assert score == 8
    assert replies == ("良い回答です。評価: [[8]]",)
    assert thinking == ("<think>最初の印象は [[2]] だが、よく読むと…</think>\n\n",)
    assert asyncio.run(go("keep"))[0] == 2  # the whole reply, as upstream reads it


def _task(prompts: int) -> Task:
    messages = (Message(role="user", content="採点してください"),)
    return Task(
        id="q1", key="q1", label="q1", models=("m",) * prompts, prompts=(messages,) * prompts,
        sample_keys=tuple(f"q1:{i}" for i in range(prompts)), input_hash="h",
    )  # fmt: skip


def test_the_judgment_record_keeps_the_judges_thinking(tmp_path: Path) -> None:
    settings = JudgeSettings(judge="scripted/x", temperature=0.0)
    protocol = SingleGrading(settings, "t", "1", rules=FASTCHAT)

    async def go() -> JudgmentRecord:
        async with _scripted(tmp_path, REASONING_JUDGE) as client:
            return await protocol.ask(client, _task(1))

    record = asyncio.run(go())
    assert (record.score, record.replies) == (8, ("良い回答です。評価: [[8]]",))
    assert record.thinking == ("<think>最初の印象は [[2]] だが、よく読むと…</think>\n\n",)
    line = json.loads(record.model_dump_json())
    assert line["thinking"] == list(record.thinking)
    assert JudgmentRecord.model_validate_json(record.model_dump_json()) == record
    plain = record.model_copy(update={"thinking": None})
    assert "thinking" not in json.loads(plain.model_dump_json())  # the line it always was


def test_a_pairwise_verdict_is_read_after_the_thinking() -> None:
    protocol = PairwiseJudging(JudgeSettings(judge="scripted/x"), "t", "1", methods=("bs1",))
    xy = Choice(text="<think>[[A]] かも</think>\nB の方が良い。[[B]]")
    yx = Choice(text="A の方が良い。[[A]]", reasoning="[[B]] かも")
    record = protocol.judgment(_task(2), [xy, yx])
    assert (record.letter("xy"), record.letter("yx")) == ("B", "A")
    assert record.replies == ("B の方が良い。[[B]]", "A の方が良い。[[A]]")
    assert record.thinking == ("<think>[[A]] かも</think>\n", "[[B]] かも")
    assert record.orders["yx"]["thinking"] == "[[B]] かも"


def test_the_judges_signature_names_the_rule_only_when_it_is_not_the_default() -> None:
    default = JudgeSettings(judge="openai/j")
    keep = JudgeSettings(judge="openai/j", thinking="keep")
    assert "thinking" not in default.signature_fields()
    assert "thinking" not in json.loads(default.model_dump_json())
    assert keep.signature_fields()["thinking"] == "keep"
    assert keep.identity()["thinking"] == "keep"
    # a file written before the rule existed has no such key: the same identity
    assert default.identity().get("thinking") is None


# --- pfgen-bench ---------------------------------------------------------------------------


def _pfgen(results: Path, cache: Path, url: str, *flags: str) -> Path:
    args = ["pfgen", "generate", "-m", "openai/thinker", "--base-url", url, "--num-examples", "2"]
    args += ["--max-tokens", "24", "--limit", "2", "--trials", "1", "--results-dir", str(results)]
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HYOKA_DATA_DIR", str(SHARED_DATA))
        patch.setenv("HYOKA_CACHE_DIR", str(cache))
        done = CliRunner().invoke(app, [*args, *flags])
    assert done.exit_code == 0, done.output
    (config,) = results.rglob("config.json")
    return config.parent


def _lines(folder: Path) -> list[dict[str, str]]:
    raw = lzma.decompress((folder / "trials.jsonl.xz").read_bytes())
    return [json.loads(line) for line in raw.split(b"\n") if line.strip()]


def test_pfgen_scores_the_answer_after_the_thinking_and_keeps_the_thinking(
    tmp_path: Path, benchmark: PfgenBenchmark
) -> None:
    """The same seeded answers, once after thinking aloud (inline, as vLLM without its
    reasoning parser sends them): the trial lines hold the same answers with the thinking
    beside them, and the scores are the bare answers' scores exactly."""
    with OpenAIServer() as server:
        bare = _pfgen(tmp_path / "bare", tmp_path / "c1", server.base_url)
        server.thinking = "問題をよく考える。Q: A:"
        thought = _pfgen(tmp_path / "thought", tmp_path / "c2", server.base_url)
    assert bare.name == thought.name  # the default rule: upstream's config, upstream's folder
    plain, kept = _lines(bare), _lines(thought)
    assert [(r["question"], r["answer"]) for r in plain] == [
        (r["question"], r["answer"]) for r in kept
    ]
    assert all("thinking" not in r for r in plain)
    assert {r["thinking"] for r in kept} == {"<think>問題をよく考える。Q: A:</think>\n\n"}
    scored_bare = score_run(bare, benchmark, write=False, workers=1).result
    scored_thought = score_run(thought, benchmark, write=False, workers=1).result
    assert scored_thought["scores"] == scored_bare["scores"]
    assert scored_thought["score"] == scored_bare["score"]


def test_pfgen_keep_is_another_run_named_in_its_config_and_signature(
    tmp_path: Path, benchmark: PfgenBenchmark
) -> None:
    with OpenAIServer() as server:
        server.thinking = "考える"
        folder = _pfgen(tmp_path / "keep", tmp_path / "c", server.base_url, "--thinking", "keep")
    config = json.loads((folder / "config.json").read_text("utf-8"))
    assert config["thinking"] == "keep"
    assert all(r["answer"].startswith("<think>考える</think>") for r in _lines(folder))
    signature = score_run(folder, benchmark, write=False, workers=1).signature
    assert signature is not None and signature.get("thinking") == "keep"


def _thinking_cut_off(text: str) -> Reply:
    """A chat completion whose content is a thinking block ``max_tokens`` cut short."""
    message = {"role": "assistant", "content": text}
    return Reply(
        200,
        {"id": "cmpl-cut", "object": "chat.completion", "created": 1700000000, "model": "thinker",
         "choices": [{"index": 0, "message": message, "finish_reason": "length"}],
         "usage": {"prompt_tokens": 100, "completion_tokens": 24, "total_tokens": 124}},
    )  # fmt: skip


@pytest.mark.parametrize(("flags", "asked"), [((), 10), (("--temperature", "0"), 1)])
def test_pfgen_records_the_empty_answer_of_thinking_that_never_closed_and_says_why(
    tmp_path: Path, benchmark: PfgenBenchmark, flags: tuple[str, ...], asked: int
) -> None:
    """Every try ran out of ``max_tokens`` inside ``<think>``: the rule's empty answer is
    the trial's line, the thinking beside it, and a warning says why, instead of the
    trial failing as an answer that is empty for no reason does. Sampled, the question
    is asked ten times first, as upstream asks again for any empty answer; greedy, once."""
    with OpenAIServer() as server:
        server.script(*(_thinking_cut_off(f"<think>考え続けて{n}") for n in range(asked)))
        args = ["pfgen", "generate", "-m", "openai/thinker", "--base-url", server.base_url]
        args += ["--num-examples", "2", "--max-tokens", "24", "--limit", "1", "--trials", "1"]
        args += ["--results-dir", str(tmp_path / "results"), *flags]
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("HYOKA_DATA_DIR", str(SHARED_DATA))
            patch.setenv("HYOKA_CACHE_DIR", str(tmp_path / "cache"))
            done = CliRunner().invoke(app, args)
        requests = len(server.received)
    assert done.exit_code == 0, done.output
    assert requests == asked
    (config,) = (tmp_path / "results").rglob("config.json")
    ((question, answer, thinking),) = [
        (r["question"], r["answer"], r["thinking"]) for r in _lines(config.parent)
    ]
    assert question == benchmark.sample_answers()[0].question
    assert (answer, thinking) == ("", f"<think>考え続けて{asked - 1}")
    assert (
        "warning: 1 answer recorded empty: the model's thinking never closed within "
        f"--max-tokens 24 ({asked} tr{'y' if asked == 1 else 'ies'}); "
        "a larger --max-tokens lets it finish"
    ) in done.output
    scored = score_run(config.parent, benchmark, write=False, workers=1).result
    assert (scored["num_trials"], scored["length"]) == (1, 0.0)  # scored as the empty answer


def test_no_published_answer_opens_a_thinking_block() -> None:
    """The rule cannot move a published number: no answer of the shared pfgen-bench runs
    opens with ``<think>``, so each reads as written under either rule."""
    runs = sorted((SHARED_DATA / "pfgen-bench" / "results").rglob("trials.jsonl.xz"))
    assert runs
    for path in runs:
        for line in lzma.decompress(path.read_bytes()).split(b"\n"):
            if not line.strip():
                continue
            answer = json.loads(line)["answer"]
            assert split_thinking(answer).answer == answer, (path, answer[:40])


def test_fastchat_lines_keep_the_judges_thinking_beside_the_judgment(tmp_path: Path) -> None:
    """MT-bench-style files (FastChat's lines) keep the judgment the score was read from
    and, as hyoka's addition, the thinking before it; a line without thinking is as it was."""
    settings = JudgeSettings(judge="scripted/x", temperature=0.0)

    async def go() -> JudgmentRecord:
        async with _scripted(tmp_path, REASONING_JUDGE) as client:
            return await SingleGrading(settings, "t", "1", rules=FASTCHAT).ask(client, _task(1))

    record = asyncio.run(go())
    line = single_line(record, question_id=1, turn=1, model="m", judge=("j", "single-v1"))
    assert (line.score, line.judgment) == (8, "良い回答です。評価: [[8]]")
    assert line.thinking == "<think>最初の印象は [[2]] だが、よく読むと…</think>\n\n"
    plain = single_line(
        record.model_copy(update={"thinking": None}), question_id=1, turn=1, model="m",
        judge=("j", "single-v1"),
    )  # fmt: skip
    assert "thinking" not in json.loads(plain.model_dump_json())
    pairwise = PairwiseJudging(settings, "t", "1", methods=("bs1",))
    xy = Choice(text="<think>[[A]] かも</think>\n[[B]]")
    pair = pair_line(
        pairwise.judgment(_task(2), [xy, Choice(text="[[A]]")]), question_id=1, turn=1,
        judge=("j", "pair-v2"), user_prompts=("p", "p"),
    )  # fmt: skip
    assert (pair.g1_winner, pair.g2_winner) == ("model_2", "model_2")
    assert pair.thinking == {"g1": "<think>[[A]] かも</think>\n"}


def test_an_answer_file_made_elsewhere_is_judged_on_its_answers(tmp_path: Path) -> None:
    """A FastChat answer file whose turns keep a reasoning model's ``<think>`` block (a
    server without a reasoning parser) loads with each turn the answer after the block,
    the block set aside; ``keep`` loads it as written."""
    bench = Bench.load("mt-bench", SHARED_DATA)
    question = bench.questions[0]
    line = {
        "question_id": question.question_id, "model_id": "m",
        "choices": [{"index": 0, "turns": ["<think>考える</think>\n\n答え一", "答え二"]}],
    }  # fmt: skip
    path = tmp_path / "m.jsonl"
    path.write_text(json.dumps(line, ensure_ascii=False) + "\n", "utf-8")
    (record,) = load_answers(path, bench).values()
    assert record.turns == ("答え一", "答え二")
    assert record.choices[0].thinking == ("<think>考える</think>\n\n", None)
    (kept,) = load_answers(path, bench, thinking="keep").values()
    assert kept.turns[0] == "<think>考える</think>\n\n答え一"


def _rakuda_lines(tmp_path: Path, reply: str) -> list[dict[str, object]]:
    """Two of Rakuda's published answer files judged in two matches by a scripted judge
    that always replies ``reply``; the lines written."""
    tmp_path.mkdir()
    script = tmp_path / "judge.jsonl"
    script.write_text(json.dumps({"reply": reply}, ensure_ascii=False) + "\n", "utf-8")
    out = tmp_path / "judgments"
    args = ["mtbench", "judge", "--bench", "rakuda", "--mode", "pairwise", "--matches", "2"]
    args += ["-j", f"scripted/{script}", "--judge-name", "j", "--output-dir", str(out)]
    for model in ("claude-2", "rinna-3.6b-ppo"):
        args += ["-a", str(SHARED_DATA / "rakuda" / "answers" / f"{model}.jsonl")]
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HYOKA_DATA_DIR", str(SHARED_DATA))
        patch.setenv("HYOKA_CACHE_DIR", str(tmp_path / "cache"))
        done = CliRunner().invoke(app, args)
    assert done.exit_code == 0, done.output
    text = (out / "j_pair.jsonl").read_text("utf-8")
    return [json.loads(line) for line in text.splitlines()]


def test_rakuda_lines_keep_the_judges_thinking_beside_the_judgment(tmp_path: Path) -> None:
    """The verdict is the last digit after the thinking (a 2 inside it does not count) and
    the thinking is kept in the line; a judge that does not think writes upstream's line."""
    thought = _rakuda_lines(tmp_path / "thought", "<think>2 かな</think>\nよって1")
    assert [(r["winner"], r["judgment"]) for r in thought] == [(1, "よって1")] * 2
    assert [r["thinking"] for r in thought] == ["<think>2 かな</think>\n"] * 2
    plain = _rakuda_lines(tmp_path / "plain", "よって1")
    upstream = {"question_id", "model1_id", "model2_id", "winner", "judge", "prompt"}
    assert all(set(r) == upstream | {"judgment", "turn", "tstamp"} for r in plain)


def test_criteria_are_the_reply_after_the_thinking_and_keyed_by_the_rule(tmp_path: Path) -> None:
    """A reasoning judge's thinking is never taken for the criteria; a ``keep`` run reads
    the whole reply under a key of its own, so neither rule reuses the other's entry."""
    template = load_template("criteria-generate")
    questions = [CriteriaQuestion("Q1", "質問", "参考解答")]
    path = tmp_path / "criteria.json"

    async def generate(rule: ThinkingRule) -> tuple[str, int]:
        """The criteria read by ``rule`` and the judge calls made (0: from the file)."""
        async with _scripted(tmp_path, "<think>x</think>criteria text") as client:
            found = await generate_criteria(
                client, template, questions, judge="j", store=CriteriaStore(path),
                max_tokens=8, thinking=rule,
            )  # fmt: skip
            return found["Q1"], client.stats.requests

    assert asyncio.run(generate("strip-think")) == ("criteria text", 1)
    assert asyncio.run(generate("strip-think")) == ("criteria text", 0)
    assert asyncio.run(generate("keep")) == ("<think>x</think>criteria text", 1)
    assert asyncio.run(generate("keep")) == ("<think>x</think>criteria text", 0)
    saved = json.loads(path.read_text("utf-8"))
    default_key = criteria_key(questions[0], "j", template, 8)
    assert saved[default_key]["criteria"] == "criteria text"
    keep_key = criteria_key(questions[0], "j", template, 8, "keep")
    assert saved[keep_key]["criteria"] == "<think>x</think>criteria text"
    assert "thinking" not in default_key  # keys written before the rule still match
