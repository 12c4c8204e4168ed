"""Re-judging the published pfmt-bench-fin-ja answers with a judge that replays gpt-4o-mini.

The replaying server answers each judge request with the judgment gpt-4o-mini gave upstream
for exactly that ``user_prompt`` (``model_judgment/gpt-4o-mini_single``). Whatever hyoka
then records differs from the published score only if hyoka built another prompt, decided
the turn by another rule, or read the rating by other rules. Every turn that both upstream
and hyoka sent to the judge must therefore get exactly the published score: that includes
the seven replies ending in ``評価: [[0]]``, which upstream records as 0 (under hyoka's own
rules 0 is no rating, and the turn would be asked again and dropped).

Turns decided without a call (no answer, wrong language) are compared with the published
zeros; hyoka's offline fastText model (``lid.176.ftz``, the quantised twin of upstream's
``lid.176.bin``) disagrees with upstream's on a few first lines, and those turns are
counted and shown, not judged: a turn upstream zeroed has no recorded reply to replay.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from _shared import SHARED_DATA
from hyoka.cli.main import app
from hyoka.judge.rating import HYOKA, PFMT_UPSTREAM, find_rating, parse_rating
from replay_judge_server import ReplayedRequest, ReplayJudge

FIN = SHARED_DATA / "pfmt-bench-fin-ja"
PUBLISHED = FIN / "model_judgment" / "gpt-4o-mini_single"
#: the judgments upstream writes for a turn decided without the judge
NO_ANSWER, INCORRECT_LANGUAGE = "No answer", "Incorrect language"
RULES = (NO_ANSWER, INCORRECT_LANGUAGE)
#: what the server says to a prompt upstream never sent (a reply without a rating)
UNRECORDED = "(no published judgment for this prompt)"


def _lines(path: Path) -> dict[tuple[int, int], dict[str, Any]]:
    """A judgment file in FastChat's format, by (question_id, turn), read as plain JSON as
    FastChat's own scripts read it."""
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    by_turn = {(r["question_id"], r["turn"]): r for r in records}
    assert len(by_turn) == len(records), f"{path}: a turn judged twice"
    return by_turn


def _published() -> dict[str, dict[tuple[int, int], dict[str, Any]]]:
    return {path.stem: _lines(path) for path in sorted(PUBLISHED.glob("*.jsonl"))}


def _recording(
    published: dict[str, dict[tuple[int, int], dict[str, Any]]],
) -> dict[str, list[str]]:
    """The published judgments by prompt. One prompt occurs twice (gpt-4 and gpt-35-turbo
    gave the same answer to question 109, turn 1): its two judgments differ in wording but
    both rate it 8, and the server, seeing only the prompt, replays them in turn."""
    recording: dict[str, list[str]] = {}
    for by_turn in published.values():
        for record in by_turn.values():
            if record["judgment"] not in RULES:
                recording.setdefault(record["user_prompt"], []).append(record["judgment"])
    return recording


@dataclass
class Replay:
    """How a re-judging went, turn by turn against the published judgments."""

    same: int = 0
    mismatches: list[str] = field(default_factory=list)
    outcomes: Counter[str] = field(default_factory=Counter)
    requests: list[ReplayedRequest] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def called(self) -> int:
        return self.same + len(self.mismatches)


def _rejudge(models: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Replay:
    """``hyoka mtbench judge`` on the published answers of ``models``, the judge replayed."""
    monkeypatch.setenv("HYOKA_DATA_DIR", str(SHARED_DATA))
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(tmp_path / "cache"))
    published = _published()
    recording = _recording(published)
    output = tmp_path / "judgments"
    replay = Replay()
    started = time.perf_counter()
    with ReplayJudge(recording, missing_reply=UNRECORDED) as judge:
        args = ["mtbench", "judge", "--bench", "pfmt-fin", "-j", "openai/gpt-4o-mini"]
        args += ["--base-url", judge.base_url, "--no-cache", "--concurrency", "16"]
        args += ["--output-dir", str(output), "--lang-check", "upstream"]
        for model in models:
            args += ["-a", str(FIN / "model_answer" / f"{model}.jsonl")]
        result = CliRunner().invoke(app, args)
    replay.seconds = time.perf_counter() - started
    replay.requests = list(judge.received)
    assert result.exit_code == 0, result.output

    for model in models:
        by_turn = published[model]
        ours = _lines(output / f"{model}.jsonl")
        assert set(ours) == set(by_turn), model
        for key, theirs in by_turn.items():
            mine = ours[key]
            assert mine["model"] == theirs["model"] == model
            assert mine["user_prompt"] == theirs["user_prompt"]
            assert mine["judge"] == theirs["judge"]  # ["gpt-4o-mini", "single-v1"] ...
            upstream_called = theirs["judgment"] not in RULES
            hyoka_called = mine["judgment"] not in RULES
            if upstream_called and hyoka_called:
                assert mine["judgment"] in recording[theirs["user_prompt"]]
                # the same number, written as FastChat writes it (an integer)
                score, published_score = mine["score"], theirs["score"]
                if score == published_score and type(score) is type(published_score):
                    replay.same += 1
                else:
                    replay.mismatches.append(
                        f"{model} {key}: ours {score!r}, published {published_score!r}"
                    )
            elif not upstream_called and not hyoka_called:
                # the same rule decided: the same zero, said the same way
                assert (mine["judgment"], mine["score"]) == (theirs["judgment"], 0)
                assert theirs["score"] == 0
                replay.outcomes[f"both ruled {theirs['judgment']}"] += 1
            elif hyoka_called:
                # upstream's fastText said "not Japanese", hyoka's says Japanese: the judge
                # was asked a prompt upstream never sent, and gave no rating back
                assert theirs["judgment"] == INCORRECT_LANGUAGE
                assert (mine["judgment"], mine["score"]) == (UNRECORDED, -1)
                replay.outcomes["upstream ruled wrong language, hyoka called"] += 1
            else:
                assert (mine["judgment"], mine["score"]) == (INCORRECT_LANGUAGE, 0)
                replay.outcomes["hyoka ruled wrong language, upstream called"] += 1
    print(
        f"\nreplayed gpt-4o-mini on {len(models)} model(s): the published score on "
        f"{replay.same} of {replay.called} judge-called turns, {replay.seconds:.1f} s, "
        f"{len(replay.requests)} judge requests; {dict(replay.outcomes)}"
    )
    return replay


def _assert_sent_as_upstream(replay: Replay) -> None:
    """Every request as upstream's: temperature 0.001*i from 0, 2048 tokens, and one call
    per turn that upstream judged (every recorded reply holds a rating)."""
    recorded = [r for r in replay.requests if r.recorded]
    assert len(recorded) == replay.called
    assert {(r.temperature, r.max_tokens) for r in recorded} == {(0.0, 2048)}
    retried = [r.temperature or 0.0 for r in replay.requests if not r.recorded]
    unrecorded = replay.outcomes["upstream ruled wrong language, hyoka called"]
    assert sorted(retried) == sorted([0.0, 0.001, 0.002, 0.003, 0.004] * unrecorded)


def test_one_model_with_four_zero_ratings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """plamo-1.0-prime-beta: four of the seven published ``評価: [[0]]`` replies."""
    replay = _rejudge(["plamo-1.0-prime-beta"], tmp_path, monkeypatch)
    assert not replay.mismatches, replay.mismatches
    assert replay.same == replay.called > 600
    _assert_sent_as_upstream(replay)


@pytest.mark.slow
def test_published_scores_on_every_judge_called_turn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """All nine published models: 6,143 of 6,143 (about a minute on two busy cores)."""
    models = sorted(path.stem for path in PUBLISHED.glob("*.jsonl"))
    assert len(models) == 9
    replay = _rejudge(models, tmp_path, monkeypatch)
    assert not replay.mismatches, replay.mismatches[:10]
    assert replay.same == replay.called == 6143
    assert replay.outcomes["both ruled No answer"] == 1
    _assert_sent_as_upstream(replay)


def test_the_replayed_zeros_are_ratings_upstream() -> None:
    """The seven published ``評価: [[0]]`` replies: upstream recorded 0, as hyoka now does."""
    zeros = [
        record["judgment"]
        for by_turn in _published().values()
        for record in by_turn.values()
        if record["judgment"] not in RULES and record["score"] == 0
    ]
    assert len(zeros) == 7
    assert all(z.rstrip().endswith("評価: [[0]]") for z in zeros)
    for zero in zeros:
        match = find_rating(zero, PFMT_UPSTREAM)
        assert match is not None and (match.value, match.written) == (0.0, 0)
        assert parse_rating(zero, HYOKA) is None  # why hyoka's own rules dropped them
    lines = [json.loads(line) for line in (PUBLISHED / "gpt-4.jsonl").read_text().splitlines()]
    assert all(type(line["score"]) is int for line in lines)  # FastChat writes integers
