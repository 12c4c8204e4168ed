"""Re-judging the published Japanese Vicuna QA answers with a judge that replays GPT-4.

ja-vicuna-qa-benchmark publishes 480 GPT-4 pairwise judgments (6 models against
openai--text-davinci-003, 80 questions, both orders: 960 replies) but not the prompts they
answered. The replaying server therefore finds, in each prompt hyoka sends, the question
and the two answers in the order shown, and answers with the reply published for exactly
that game (``find``), cut out by the lines that frame them. Separately, every prompt hyoka
sent must equal, byte for byte, the one upstream's ``Judge.judge`` builds for a published
game (the published line's prompt template, formatted as upstream formats it). hyoka's
verdicts then differ from the published ``g1_winner``/``g2_winner`` only if it built
another pair (``model_1`` is the alphabetically smaller name upstream), showed the answers
in another order, or read the verdict by another rule.

Eight replies cannot be decided by any replay: two models gave the same answer to one
question, so one prompt got two different published replies, and a server seeing only the
prompt cannot tell which game it is. They are counted, not compared.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from _shared import SHARED_DATA
from hyoka.cli.main import app
from hyoka.mtbench import definition
from hyoka.mtbench.verify import judgment_spec, verify_judgments
from replay_judge_server import ReplayJudge

VICUNA = SHARED_DATA / "ja-vicuna-qa"
PUBLISHED = VICUNA / "model_judgment" / "pairwise" / "gpt-4"
BASELINE = "openai--text-davinci-003"
#: what the server says to a prompt it finds no published game for (no verdict in it)
UNRECORDED = "(no published judgment for this prompt)"

#: (question, answer shown as A, answer shown as B) -> the published replies to that game
Game = tuple[str, str, str]


def _published() -> list[dict[str, Any]]:
    """Every published pair line, read as plain JSON as upstream's show_result.py reads it."""
    lines = []
    for path in sorted(PUBLISHED.glob("pairwise:*.jsonl")):
        lines += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return lines


def _games(published: list[dict[str, Any]]) -> dict[Game, list[str]]:
    """Game 1 shows answer_1 as A, game 2 shows answer_2 as A (upstream's MatchPair.play)."""
    games: dict[Game, list[str]] = {}
    for line in published:
        q, one, two = line["question"], line["answer_1"], line["answer_2"]
        games.setdefault((q, one, two), []).append(line["g1_judgment"])
        games.setdefault((q, two, one), []).append(line["g2_judgment"])
    return games


#: the lines that open and close each part of a published pair prompt
QUESTION = "[ユーザーの質問]\n"
REFERENCE = "\n\n[参考解答の始まり]\n"
ANSWER = "[アシスタント{}の答えの始まり]\n", "\n[アシスタント{}の答えの終わり]"


def _between(text: str, start: str, end: str) -> str | None:
    first = text.find(start)
    if first < 0:
        return None
    last = text.find(end, first + len(start))
    return None if last < 0 else text[first + len(start) : last]


def find_game(games: dict[Game, list[str]]) -> Callable[[str], list[str] | None]:
    """The server's lookup: the question and the answers shown as A and B, cut out of the
    prompt by the lines that frame them, and the replies published for that game."""

    def find(prompt: str) -> list[str] | None:
        question = _between(prompt, QUESTION, "\n\n[")
        a = _between(prompt, ANSWER[0].format("A"), ANSWER[1].format("A"))
        b = _between(prompt, ANSWER[0].format("B"), ANSWER[1].format("B"))
        if question is None or a is None or b is None:
            return None
        return games.get((question, a, b))

    return find


def _upstream_prompts(published: list[dict[str, Any]]) -> Counter[tuple[str, str]]:
    """(system, user) of every game as ja-vicuna-qa-benchmark's ``Judge.judge`` sends it:
    the published line's prompt (``judge_prompt``), its ``prompt_template`` formatted
    with the question, the answers in the game's order and, for pair-math, the reference."""
    prompts = {}
    for raw in (VICUNA / "judge_prompts.jsonl").read_text(encoding="utf-8").splitlines():
        prompt = json.loads(raw)
        prompts[prompt["name"]] = prompt
    references = {}
    reference_file = VICUNA / "reference_answer" / "gpt-4" / "results.jsonl"
    for raw in reference_file.read_text(encoding="utf-8").splitlines():
        answer = json.loads(raw)
        references[answer["question_id"]] = answer["choices"][0]["turns"][0]
    sent: Counter[tuple[str, str]] = Counter()
    for line in published:
        prompt = prompts[line["judge_prompt"]]
        fields = {"question": line["question"]}
        if line["judge_prompt"] == "pair-math":
            fields["ref_answer_1"] = references[line["question_id"]]
        for a, b in ((line["answer_1"], line["answer_2"]), (line["answer_2"], line["answer_1"])):
            user = prompt["prompt_template"].format(**fields, answer_a=a, answer_b=b)
            sent[(prompt["system_prompt"], user)] += 1
    return sent


@dataclass
class Replay:
    """How a re-judging went against the published verdicts."""

    same: int = 0
    undecidable: int = 0
    mismatches: list[str] = field(default_factory=list)
    agree_ours: int = 0
    agree_published: int = 0
    pairs: int = 0
    requests: int = 0
    unrecorded: int = 0
    seconds: float = 0.0
    output: Path | None = None
    prompts: Counter[str] = field(default_factory=Counter)


def _rejudge(models: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Replay:
    """``hyoka mtbench judge --bench ja-vicuna-qa --mode pairwise`` on the published answers
    of ``models`` against the baseline, the judge replayed."""
    monkeypatch.setenv("HYOKA_DATA_DIR", str(SHARED_DATA))
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(tmp_path / "cache"))
    published = [p for p in _published() if {p["model_1"], p["model_2"]} & set(models)]
    games = _games(published)
    ambiguous = {game for game, replies in games.items() if len(set(replies)) > 1}
    output = tmp_path / "judgments"
    replay = Replay()
    started = time.perf_counter()
    with ReplayJudge({}, missing_reply=UNRECORDED, find=find_game(games)) as judge:
        args = ["mtbench", "judge", "--bench", "ja-vicuna-qa", "--mode", "pairwise"]
        args += ["-j", "openai/gpt-4", "--base-url", judge.base_url, "--baseline", BASELINE]
        args += ["--no-cache", "--concurrency", "16", "--output-dir", str(output)]
        for model in [*models, BASELINE]:
            args += ["-a", str(VICUNA / "model_answer" / model / "results.jsonl")]
        result = CliRunner().invoke(app, args)
    replay.seconds = time.perf_counter() - started
    replay.output = output / "gpt-4_pair.jsonl"
    assert result.exit_code == 0, result.output
    replay.requests = len(judge.received)
    replay.unrecorded = sum(not r.recorded for r in judge.received)
    assert {(r.temperature, r.max_tokens) for r in judge.received} == {(0.0, 2048)}
    # every prompt byte for byte as upstream sends it, each as often
    sent = Counter((r.system_prompt or "", r.user_prompt) for r in judge.received)
    assert sent == _upstream_prompts(published)

    ours = {}
    for raw in (output / "gpt-4_pair.jsonl").read_text(encoding="utf-8").splitlines():
        line = json.loads(raw)
        ours[(line["question_id"], line["model_1"], line["model_2"])] = line
    assert len(ours) == len(published)
    for theirs in published:
        key = (theirs["question_id"], theirs["model_1"], theirs["model_2"])
        mine = ours[key]  # the same model_1: the smaller name, as upstream sorts
        for field_name in ("question", "answer_1", "answer_2", "judge_model", "judge_prompt"):
            assert mine[field_name] == theirs[field_name], (key, field_name)
        replay.pairs += 1
        replay.prompts[mine["judge_prompt"]] += 1
        replay.agree_ours += mine["g1_winner"] == mine["g2_winner"]
        replay.agree_published += theirs["g1_winner"] == theirs["g2_winner"]
        q, one, two = theirs["question"], theirs["answer_1"], theirs["answer_2"]
        for game, shown in (("g1", (q, one, two)), ("g2", (q, two, one))):
            if shown in ambiguous:
                replay.undecidable += 1
                continue
            if mine[f"{game}_winner"] == theirs[f"{game}_winner"]:
                assert mine[f"{game}_judgment"] == theirs[f"{game}_judgment"]
                replay.same += 1
            else:
                replay.mismatches.append(
                    f"{key} {game}: ours {mine[f'{game}_winner']}, "
                    f"published {theirs[f'{game}_winner']}"
                )
    print(
        f"\nreplayed GPT-4 on {len(models)} model(s) vs {BASELINE}: the published winner on "
        f"{replay.same} of {replay.same + len(replay.mismatches)} decidable verdicts "
        f"({replay.undecidable} undecidable); orders agree on {replay.agree_ours} of "
        f"{replay.pairs} pairs (published {replay.agree_published}); {replay.requests} "
        f"requests, {replay.seconds:.1f} s"
    )
    return replay


def test_one_model_against_the_baseline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """rinna ppo vs text-davinci-003: the baseline is ``model_1`` here (the smaller name),
    so the test fails if hyoka put the answering model first as FastChat does."""
    replay = _rejudge(["rinna--japanese-gpt-neox-3.6b-instruction-ppo"], tmp_path, monkeypatch)
    assert not replay.mismatches, replay.mismatches[:5]
    assert (replay.same, replay.undecidable, replay.pairs) == (160, 0, 80)
    assert replay.agree_ours == replay.agree_published
    assert replay.requests == 160 and replay.unrecorded == 0
    assert replay.prompts == {"pair": 70, "pair-math": 10}
    # hyoka's own pair file verifies by the same rules, its manifest naming the benchmark
    assert replay.output is not None
    check = verify_judgments(replay.output, judgment_spec(replay.output, None))
    assert check.spec is definition("ja-vicuna-qa") and check.reproduced and check.lines == 80


@pytest.mark.slow
def test_published_verdicts_on_every_decidable_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """All six models: 952 of the 952 decidable verdicts, 432 of 480 pairs consistent."""
    named = {p["model_1"] for p in _published()} | {p["model_2"] for p in _published()}
    models = sorted(named - {BASELINE})
    assert len(models) == 6
    replay = _rejudge(models, tmp_path, monkeypatch)
    assert not replay.mismatches, replay.mismatches[:10]
    assert (replay.same, replay.undecidable, replay.pairs) == (952, 8, 480)
    assert replay.agree_published == replay.agree_ours == 432
    assert replay.requests == 960 and replay.unrecorded == 0
