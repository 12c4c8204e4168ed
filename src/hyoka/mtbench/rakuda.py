"""Rakuda: single-turn Japanese questions judged in pairs, ranked by Bradley–Terry.

Rakuda (yuzu-ai/japanese-llm-ranking, ``jrank/``) differs from MT-bench-style pairwise
judging in three ways, each kept here as upstream has it:

- **Matches** (``gen_judgment.py --mode pairwise-n``): every *ordered* model pair × question
  is a candidate; until ``n`` are chosen, one of the models with the fewest matches so far is
  picked at random, then a random unplayed candidate involving it. Each match is judged
  **once, in that order** (the swapped game is commented out upstream); both orders of a
  pair may be drawn as separate matches. Upstream draws from Python's unseeded ``random``;
  hyoka's draw is seeded, and ``n`` and the seed are in the run's identity and signature.
- **Prompt** (``helper_judge.py`` ``run_judge_pair``): ``pair-ja`` from
  ``judge_prompts.jsonl``, the system prompt as a system message and the template filled
  with ``question``, ``answer_a`` (shown first), ``answer_b``, at temperature 0 with 2048
  tokens; for a Claude judge (an ``anthropic/`` judge here) the system prompt goes into the
  user message after ``[Instruction]\\n`` and the budget is 1024 tokens.
- **Verdict**: every digit in the reply (``\\d``), the *last* one kept; 1 (first shown wins),
  2 (second wins) or 3 (tie); anything else is ``"error"``. The line written is upstream's
  (``question_id``, ``model1_id``, ``model2_id``, ``winner``, ``judge``, ``prompt``,
  ``judgment``, ``turn``, ``tstamp``), so upstream's ``make_ranking.py`` reads hyoka's file.

The ranking is ``hyoka.stats.home_advantage``: Bradley–Terry with a fitted first-position
advantage, and bootstrap percentiles, as ``make_ranking.py --compute mle`` fits it.

Answers are made by ``mtbench generate`` (``RakudaBench`` is its ``AnswerSet``) as
jrank's ``gen_api_model_answer.py`` makes them: temperature 0.7 for every category (none
of Rakuda's is in its ``temperature_config``), 1024 new tokens, its Japanese system
message, and upstream's answer line (``question_id`` the question's text id).
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import permutations
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt

from hyoka.data import data_file, fetch_hint
from hyoka.errors import DataError, InputError
from hyoka.judge import (
    ONE_ORDER,
    FileFormat,
    JudgedBy,
    JudgePlan,
    JudgeReport,
    JudgeRun,
    JudgeSettings,
    JudgmentRecord,
    OmitsEmpty,
    PairOutcome,
    Protocol,
    Task,
    any_dry_run,
    inputs_hash,
    judged_by,
    judges_json,
    judges_shown,
    judges_token,
    planned_order,
)
from hyoka.mtbench.bench import JudgePrompt
from hyoka.mtbench.definitions.rakuda import DEFINITION
from hyoka.mtbench.dialogue import DialogueStyle
from hyoka.mtbench.judge import default_judge_name
from hyoka.mtbench.line_checks import JudgedOnce, OneJudge, check_models
from hyoka.mtbench.pairwise import refuse_trials
from hyoka.mtbench.records import AnswerChoice
from hyoka.mtbench.spec import BenchSpec, GenerationDefaults
from hyoka.mtbench.variant import Variant
from hyoka.printable import table_text
from hyoka.providers import (
    DEFAULT_THINKING,
    GenerationRequest,
    Message,
    ModelClient,
    ThinkingRule,
    parse_model_string,
    reply_of,
    signed_rule,
)
from hyoka.signature import Signature, SignatureType
from hyoka.stats import HomeMatch, HomeRanking, rank_home_advantage
from hyoka.store import path_under, read_bytes, read_records, unique_records

NAME, TITLE, FOLDER = DEFINITION.name, DEFINITION.title, DEFINITION.folder
PROMPT_NAME = "pair-ja"
#: upstream's judge budgets: OpenAI judges 2048 tokens, Claude judges 1024
MAX_TOKENS, CLAUDE_MAX_TOKENS = 2048, 1024
#: the verdict rule's name in signatures
VERDICT_RULE = "last-digit"
#: ``winner`` -> the first-shown model's score (``make_ranking.py``)
SCORES: Mapping[int, float] = {1: 1.0, 2: 0.0, 3: 0.5}
_DIGIT = re.compile(r"\d")

#: 1, 2, 3 or ``"error"``: a JSON integer, never ``true`` (Python's bool is an int)
Winner = StrictInt | Literal["error"]

#: What answering Rakuda's questions takes (``mtbench generate``): its definition; judging
#: and ranking are this module's own (``plan_rakuda``, ``read_matches``), the
#: ``DRAWN_MATCHES`` protocol's.
SPEC = DEFINITION


class RakudaQuestion(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    category: str
    question_id: str
    turns: tuple[str] = Field(min_length=1, max_length=1)

    @property
    def written_id(self) -> str:
        return self.question_id


class RakudaAnswer(BaseModel):
    """A model's answer to one question (FastChat's answer line, Rakuda's string ids)."""

    model_config = ConfigDict(frozen=True, extra="allow")

    question_id: str
    answer_id: str = ""
    model_id: str
    choices: tuple[AnswerChoice, ...] = Field(min_length=1)
    tstamp: float | None = None

    @property
    def text(self) -> str:
        return self.choices[0].turns[0]

    @property
    def written_id(self) -> str:
        return self.question_id


class RakudaPairLine(OmitsEmpty):
    """One judged match, as upstream's ``play_a_match_pair`` writes it (and hyoka's
    ``served_models`` where the provider named a snapshot of the judge's alias, and
    ``thinking`` where a judge that thinks aloud thought before ``judgment``)."""

    model_config = ConfigDict(frozen=True, extra="allow")
    omitted_when_empty: ClassVar[tuple[str, ...]] = ("served_models", "thinking")

    question_id: str
    model1_id: str
    model2_id: str
    winner: Winner
    judge: tuple[str, str]
    prompt: str = ""
    judgment: str = ""
    turn: int = 1
    tstamp: float = 0.0
    served_models: tuple[str, ...] = ()
    #: hyoka's: what the judge thought before ``judgment`` (the reply the verdict was
    #: read from); written only when it had some
    thinking: str | None = None

    @property
    def letter(self) -> str | None:
        """The verdict as a letter for the one game judged (A: ``model1_id``, shown first,
        wins; B: ``model2_id`` wins; C: a tie), ``None`` for ``error``."""
        return _LETTERS.get(self.winner) if isinstance(self.winner, int) else None

    def outcome(self) -> PairOutcome:
        """The match as the one pairwise outcome every count and rating reads
        (``judge.PairOutcome``): judged once, in its drawn order, so its letter is the
        ``one-order`` verdict and there is no second order's letter."""
        letter = self.letter
        return PairOutcome(
            self.question_id, self.model1_id, self.model2_id, {ONE_ORDER: letter},
            (letter, None), judge=self.judge[0],
        )  # fmt: skip


#: ``winner`` -> the verdict letter of the game (A = the first shown wins)
_LETTERS: Mapping[int, str] = {1: "A", 2: "B", 3: "C"}

#: the fields jrank's ``play_a_match_pair`` writes on every line (hyoka writes them too)
RAKUDA_FIELDS = ("question_id", "model1_id", "model2_id", "winner", "judge", "prompt",
                 "judgment", "turn", "tstamp")  # fmt: skip


@dataclass(frozen=True)
class RakudaBench:
    questions: tuple[RakudaQuestion, ...]
    prompt: JudgePrompt
    folder: Path
    #: SHA-256 of the question and judge prompt files as read
    data_sha256: str
    prompts_sha256: str

    @classmethod
    def load(cls, data_dir: Path | str | None = None) -> RakudaBench:
        question_file, prompt_file = (
            data_file(Path(FOLDER) / name, NAME, f"{TITLE} data", data_dir)
            for name in ("questions.jsonl", "judge_prompts.jsonl")
        )
        folder = question_file.parent
        question_bytes, prompt_bytes = read_bytes(question_file), read_bytes(prompt_file)
        questions = tuple(
            unique_records(
                question_file,
                read_records(question_file, RakudaQuestion, question_bytes),
                key=lambda q: ("question_id", q.question_id),
            )
        )
        prompts = {p.name: p for _, p in read_records(prompt_file, JudgePrompt, prompt_bytes)}
        if PROMPT_NAME not in prompts:
            raise DataError(
                f"{prompt_file} lacks the judge prompt {PROMPT_NAME}: {fetch_hint(NAME, data_dir)}"
            )
        prompt = prompts[PROMPT_NAME]
        if prompt.output_format != "last":
            raise DataError(f"{prompt_file}: {PROMPT_NAME} asks for {prompt.output_format!r}")
        data = hashlib.sha256(question_bytes + prompt_bytes).hexdigest()
        return cls(questions, prompt, folder, data, hashlib.sha256(prompt_bytes).hexdigest())

    @property
    def by_id(self) -> dict[str, RakudaQuestion]:
        return {q.question_id: q for q in self.questions}

    @property
    def template(self) -> str:
        return f"{NAME}-judge-prompts@{self.prompts_sha256[:8]}"

    # what ``generate`` reads (``AnswerSet``)
    @property
    def spec(self) -> BenchSpec:
        return SPEC

    @property
    def wording(self) -> None:
        """Rakuda's questions are their file's text."""
        return None

    @property
    def variant(self) -> Variant | None:
        return None

    @property
    def dialogue(self) -> DialogueStyle:
        return SPEC.dialogue

    @property
    def generation(self) -> GenerationDefaults:
        return SPEC.generation

    def answer(self, fields: Mapping[str, object]) -> RakudaAnswer:
        return RakudaAnswer.model_validate(fields)

    @property
    def answer_type(self) -> type[RakudaAnswer]:
        return RakudaAnswer


def load_rakuda_answers(path: Path, bench: RakudaBench) -> tuple[str, dict[str, RakudaAnswer]]:
    """``(model, answers by question id)``, every question answered. The model is named by
    the file, as upstream's ``load_model_answers`` names it (``gpt-4-20230713.jsonl`` holds
    ``model_id`` ``gpt-4:20230713``; its rankings say ``gpt-4-20230713``)."""
    known = bench.by_id
    answers: dict[str, RakudaAnswer] = {}
    for number, record in read_records(path, RakudaAnswer):
        where = f"{path}:{number}"
        if record.question_id not in known:
            raise InputError(f"{where}: question_id {record.question_id} is not a {TITLE} question")
        if record.question_id in answers and answers[record.question_id] != record:
            raise InputError(f"{where}: question_id {record.question_id} answered twice")
        answers[record.question_id] = record
    refuse_trials(
        path, ((qid, len(a.choices)) for qid, a in answers.items()),
        f"{TITLE} has no single grading: answer it without `trials`",
    )  # fmt: skip
    if not answers:
        raise InputError(f"{path}: no answers")
    missing = [qid for qid in known if qid not in answers]
    if missing:
        raise InputError(
            f"{path}: answers {len(answers)} of the {len(known)} {TITLE} questions "
            f"(first missing: question_id {missing[0]})"
        )
    return path.stem, answers


def draw_matches(
    models: Sequence[str], question_ids: Sequence[str], n: int, seed: int
) -> list[tuple[str, str, str]]:
    """Upstream's ``pairwise-n`` draw, seeded: ``(first model, second model, question)``."""
    if n < 1:
        raise InputError(f"`matches` must be at least 1, got {n}")
    rng = random.Random(seed)
    candidates = [(a, b, q) for a, b in permutations(models, 2) for q in question_ids]
    rng.shuffle(candidates)
    counts = dict.fromkeys(models, 0)
    chosen: list[tuple[str, str, str]] = []
    while len(chosen) < n and candidates:
        fewest = min(counts.values())
        model = rng.choice(
            [m for m, c in sorted(counts.items(), key=lambda x: x[1]) if c == fewest]
        )
        match = rng.choice([c for c in candidates if model in c])
        chosen.append(match)
        candidates.remove(match)
        counts[match[0]] += 1
        counts[match[1]] += 1
    return chosen


def read_verdict(reply: str) -> Winner:
    """The last digit of the reply if it is 1, 2 or 3, else ``"error"`` (upstream's
    ``re.findall("\\d", judgment)[-1]`` through ``int``)."""
    digits = _DIGIT.findall(reply)
    if not digits:
        return "error"
    last = int(digits[-1])
    return last if last in SCORES else "error"


def is_claude(judge: str) -> bool:
    """Upstream's Claude judges (``"claude" in model``): here an ``anthropic/`` judge."""
    provider, _model = parse_model_string(judge, flag="`judge`")
    return provider == "anthropic"


def judge_messages(
    bench: RakudaBench, question: str, first: str, second: str, *, claude: bool
) -> tuple[Message, ...]:
    prompt = bench.prompt
    user = prompt.prompt_template.format(question=question, answer_a=first, answer_b=second)
    if claude:
        if prompt.system_prompt != "You are a helpful assistant.":
            user = "[Instruction]\n" + prompt.system_prompt + "\n\n" + user
        return (Message(role="user", content=user),)
    return (
        Message(role="system", content=prompt.system_prompt),
        Message(role="user", content=user),
    )


class OneOrderGame(Protocol):
    """One call per match, in the order drawn; the verdict is the last digit of the reply's
    answer (after any thinking: ``settings.thinking``)."""

    kind = "pairwise"

    async def ask(self, client: ModelClient, task: Task) -> JudgmentRecord:
        request = GenerationRequest(messages=task.prompts[0], params=self.settings.params())
        response = await client.generate(request, sample_key=task.sample_keys[0])
        reply = reply_of(response, self.settings.thinking_rule)
        winner = read_verdict(reply.answer)
        return self.record(
            task, replies=(reply.answer,), verdicts={VERDICT_RULE: str(winner)},
            failures=int(winner == "error"), usage=response.usage,
            thinking=None if reply.thinking is None else (reply.thinking,),
        )  # fmt: skip

    def decide(self, task: Task) -> JudgmentRecord:
        raise AssertionError(f"{TITLE} has no rule that decides a match without the judge")

    def count(self, report: JudgeReport, record: JudgmentRecord) -> None:
        report.judge_calls += 1
        report.no_verdict += record.failures


@dataclass(frozen=True)
class MatchInfo:
    question_id: str


def _format(
    judge_name: str, infos: Mapping[str, MatchInfo], drawn: Sequence[tuple[str, str, str]]
) -> FileFormat[RakudaPairLine]:
    """Upstream's line, left in the order the matches were drawn (``drawn``, a match again
    at its first place; a line of no drawn match after them, as it was): upstream plays its
    matches one by one in that order and appends each verdict, and its ranking refits
    rows drawn from the file by their place in it, so an order set by which judge reply
    came first (a cached one before an asked one) would move the numbers."""

    def write(record: JudgmentRecord, task: Task) -> RakudaPairLine:
        verdict = record.verdicts[VERDICT_RULE]
        winner: Winner = "error" if verdict in (None, "error") else int(verdict)
        return RakudaPairLine(
            question_id=infos[task.id].question_id, model1_id=task.models[0],
            model2_id=task.models[1], winner=winner, judge=(judge_name, PROMPT_NAME),
            prompt=task.prompts[0][-1].content, judgment=record.replies[0], turn=1,
            tstamp=record.tstamp, served_models=record.served_models,
            thinking=record.thinking[0] if record.thinking else None,
        )  # fmt: skip

    def differs(stored: RakudaPairLine, task: Task) -> str | None:
        if stored.prompt != task.prompts[0][-1].content:
            return "was judged on other answers or another question"
        return None

    order = planned_order(drawn, _line_key)
    return FileFormat(RakudaPairLine, key=_line_key, write=write, differs=differs, order=order)


def _line_key(line: RakudaPairLine) -> tuple[str, str, str]:
    return (line.model1_id, line.model2_id, line.question_id)


def plan_rakuda(
    bench: RakudaBench,
    answers: Sequence[tuple[str, Mapping[str, RakudaAnswer]]],
    settings: JudgeSettings,
    output: Path,
    judge_name: str,
    *,
    matches: int,
    seed: int,
) -> JudgePlan[RakudaPairLine]:
    """The run that judges ``matches`` matches drawn as upstream draws them into ``output``."""
    by_model = dict(answers)
    if len(by_model) != len(answers):
        raise InputError("two answer files of one model")
    if len(by_model) < 2:
        raise InputError(f"{TITLE} ranks models against each other: give two answer files or more")
    claude = is_claude(settings.judge)
    questions = bench.by_id
    infos: dict[str, MatchInfo] = {}
    drawn: list[tuple[str, str, str]] = []
    tasks: list[Task] = []
    for first, second, qid in draw_matches(list(by_model), list(questions), matches, seed):
        messages = judge_messages(
            bench, questions[qid].turns[0], by_model[first][qid].text,
            by_model[second][qid].text, claude=claude,
        )  # fmt: skip
        task = Task(
            id=f"{qid}/{first} vs {second}", key=(first, second, qid),
            label=f"question {qid}: {first} vs {second}", models=(first, second),
            prompts=(messages,), sample_keys=(f"rakuda:{qid}:{first}:{second}",),
            input_hash=inputs_hash(messages[-1].content),
        )  # fmt: skip
        tasks.append(task)
        infos[task.id] = MatchInfo(qid)
        drawn.append((first, second, qid))
    run = JudgeRun(
        kind="rakuda-pair", benchmark=NAME, data=bench.data_sha256[:8], settings=settings,
        template=bench.template, judge_name=judge_name, rating=f"verdict:{VERDICT_RULE}",
        draw=f"pairwise-n:{matches}:seed={seed}",
    )  # fmt: skip
    protocol = OneOrderGame(settings, PROMPT_NAME, bench.prompts_sha256[:8])
    return JudgePlan(output, run, protocol, _format(judge_name, infos, drawn), tuple(tasks))


def plan_rakuda_judging(
    judge: str,
    answers: Sequence[Path],
    *,
    matches: int,
    seed: int,
    results_dir: Path,
    output_dir: Path | None = None,
    judge_name: str | None = None,
    base_url: str | None = None,
    max_tokens: int | None = None,
    thinking: ThinkingRule = DEFAULT_THINKING,
    data_dir: Path | str | None = None,
) -> JudgePlan[RakudaPairLine]:
    """What ``mtbench judge --bench rakuda`` does before its first call: the questions and
    prompt read, every answer file checked (each question answered), ``matches`` matches
    drawn with ``seed``, every prompt built, into ``<judge name>_pair.jsonl``."""
    bench = RakudaBench.load(data_dir)
    given = [load_rakuda_answers(path, bench) for path in answers]
    name = judge_name or default_judge_name(judge)
    output = rakuda_output(results_dir, name, output_dir)
    settings = rakuda_settings(judge, base_url, max_tokens, thinking)
    return plan_rakuda(bench, given, settings, output, name, matches=matches, seed=seed)


def rakuda_settings(
    judge: str,
    base_url: str | None,
    max_tokens: int | None,
    thinking: ThinkingRule = DEFAULT_THINKING,
) -> JudgeSettings:
    """Temperature 0 and upstream's budget for the judge's family unless one is given."""
    budget = max_tokens or (CLAUDE_MAX_TOKENS if is_claude(judge) else MAX_TOKENS)
    return JudgeSettings.for_judge(
        judge, base_url=base_url, temperature=0.0,
        max_tokens=budget, thinking=signed_rule(thinking),
    )  # fmt: skip


def rakuda_output(root: Path, judge_name: str, folder: Path | None = None) -> Path:
    """``<root>/rakuda/model_judgment/<judge>_pair.jsonl`` (upstream's name), or in ``folder``."""
    if folder is None:
        folder = path_under(root, FOLDER, "model_judgment", what="`bench`")
    return path_under(folder, judge_name, what="`judge_name`", suffix="_pair.jsonl")


@dataclass(frozen=True)
class RakudaMatches:
    """The judged matches of Rakuda pair files as (first, second, score), how many have no
    verdict (``"error"``: left out; upstream's score would be missing, NaN), and the judge
    of each file (``judge.judged_by``: what its manifest records, else its lines' name)."""

    matches: list[HomeMatch]
    errors: int
    judges: tuple[JudgedBy, ...]


class MatchChecks:
    """Each line of one Rakuda judgment file checked as it is read, by every reader (the
    ranking, ``mtbench verify``; ``line_checks``): two different models, a Rakuda question
    whose text the judged prompt holds (where ``bench``, its questions, is at hand),
    upstream's ``pair-ja`` prompt, one judge, and each match once: upstream draws a match
    without replacement and hyoka judges it once, so a line equal to an earlier one is a
    copy and another judgment of the same match a second verdict, neither another match.

    ``across``, shared by the checks of the files read together, holds each match's first
    file's checks: a match (its first model, second model and question: upstream's candidates are
    ordered pairs, so the other order is another match) already in an earlier file is
    judged twice, as a file read twice or joined with a part of itself would be; with
    ``by_judge`` (``mtbench verify``) a match is one judge's, so two judges' files of the
    same matches are each sound."""

    def __init__(
        self,
        path: Path,
        bench: RakudaBench | None,
        across: dict[tuple[str, ...], MatchChecks] | None = None,
        *,
        by_judge: bool = False,
    ) -> None:
        self.path = path
        self.questions = None if bench is None else bench.by_id
        self.judges = OneJudge(path)
        self.once = JudgedOnce(path, "a match is judged once")
        self.across = across
        self.by_judge = by_judge

    def check(self, number: int, line: RakudaPairLine) -> None:
        """An ``InputError`` naming ``path:number`` unless ``line`` is sound."""
        where = f"{self.path}:{number}"
        check_models(where, line.model1_id, line.model2_id, ("model1_id", "model2_id"))
        if self.questions is not None:
            question = self.questions.get(line.question_id)
            if question is None:
                written = json.dumps(line.question_id, ensure_ascii=False)
                raise InputError(
                    f"{where}: question_id {written} is not a {TITLE} question (a judgment "
                    "file of another benchmark?)"
                )
            if line.prompt and question.turns[0] not in line.prompt:
                raise InputError(
                    f"{where}: the judged prompt is not {TITLE} question {line.question_id} "
                    "(it lacks the question's text)"
                )
        if line.judge[1] != PROMPT_NAME:
            raise InputError(
                f"{where}: judged with prompt {line.judge[1]!r}, but {TITLE} judges with "
                f"{PROMPT_NAME!r}"
            )
        self.judges.see(number, line.judge[0])
        label = f"{line.model1_id} against {line.model2_id} question_id {line.question_id}"
        self.once.see(number, _line_key(line), line, label)
        if self.across is not None:
            key = (line.judge[0], *_line_key(line)) if self.by_judge else _line_key(line)
            other = self.across.setdefault(key, self)
            if other is not self:
                twice = _given_twice(other, self)
                raise InputError(
                    f"{where}: {line.model1_id} against {line.model2_id} question_id "
                    f"{line.question_id} judged twice (also in {other.path}{twice}): a match "
                    "is judged once"
                )


def _given_twice(first: MatchChecks, second: MatchChecks) -> str:
    return ", given twice" if first.path == second.path else ""


def read_matches(paths: Sequence[Path], data_dir: Path | str | None = None) -> RakudaMatches:
    """Every judged match of the files (see ``RakudaMatches``), each line checked
    (``MatchChecks``) against Rakuda's questions in ``data_dir``, and each match in one
    file only (a file given twice, or with a part of itself, counts no match twice)."""
    bench = RakudaBench.load(data_dir)
    matches: list[HomeMatch] = []
    errors = 0
    judges: list[JudgedBy] = []
    across: dict[tuple[str, ...], MatchChecks] = {}
    for path in paths:
        names: set[str] = set()
        checks = MatchChecks(path, bench, across)
        for number, line in read_records(path, RakudaPairLine):
            checks.check(number, line)
            names.add(line.judge[0])
            if line.winner == "error":
                errors += 1
                continue
            if line.winner not in SCORES:
                raise InputError(f"{path}:{number}: winner {line.winner!r} is not 1, 2, 3 or error")
            matches.append(HomeMatch(line.model1_id, line.model2_id, SCORES[line.winner]))
        judges.append(judged_by(path, names))
    return RakudaMatches(matches, errors, tuple(judges))


@dataclass(frozen=True)
class RakudaRanking:
    """A Rakuda ranking of judgment files: the fit, the matches without a verdict left
    out, and its signature; ``to_json`` is upstream's saved MLE fields, ``render`` the
    table the command prints."""

    ranking: HomeRanking
    errors: int
    signature: Signature
    #: the judges whose verdicts it ranks (``judge.judged_by``), named under the table and
    #: in its JSON; a script's verdicts are a dry run
    judges: tuple[JudgedBy, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return ranking_json(self.ranking, self.errors) | {
            "signature": self.signature.to_json(),
            "judged_by": judges_json(self.judges),
            "dry_run": any_dry_run(self.judges),
        }

    def _notes(self) -> list[str]:
        """Under the table: why a number is n/a, then the judge that answered (a script's
        verdicts said to be a dry run)."""
        judged = [f"judged by: {judges_shown(self.judges)}"] if self.judges else []
        return [*self.ranking.separation_lines(), *judged]

    def render(self, fmt: Literal["md", "csv", "plain"] = "plain") -> str:
        """Rank, model, bootstrap median, ±1σ and the point fit (one decimal; ``n/a:
        <why>`` where a fit has no finite maximum), then why, the home advantage with its
        percentiles, the matches and the signature, each a line of its own (CSV: a ``#``
        comment) and one line (a reason names models)."""
        header = ["Rank", "Model", "Median", "-1σ", "+1σ", "MLE"]
        unranked = self.ranking.unranked  # no order to rank: by name
        rows = [
            ["n/a" if unranked else str(number), m.model, *self.ranking.row_cells(m)]
            for number, m in enumerate(self.ranking.models, start=1)
        ]
        notes = [
            *self._notes(),
            f"home advantage {self.ranking.advantage_text()}; {self.ranking.matches} "
            f"matches; signature: {self.signature.line}",
        ]
        return table_text(header, rows, notes, fmt)


def rank_rakuda(
    paths: Sequence[Path], *, rounds: int, seed: int, data_dir: Path | str | None = None
) -> RakudaRanking:
    """Rakuda's ranking of the pair judgments in ``paths`` as ``make_ranking.py --compute
    mle`` fits it, ``rounds`` bootstrap refits seeded with ``seed``, signed with the judge
    that answered (``judge.judged_by``); every line checked against the questions in
    ``data_dir`` (``read_matches``)."""
    read = read_matches(paths, data_dir)
    ranking = rank_home_advantage(read.matches, rounds=rounds, seed=seed)
    signature = ranking_signature(rounds, seed, judges_token(read.judges))
    return RakudaRanking(ranking, read.errors, signature, read.judges)


def ranking_json(ranking: HomeRanking, errors: int) -> dict[str, Any]:
    """Upstream's saved MLE ranking fields per model, best first, and the fit's settings."""
    return {
        "judge_errors_left_out": errors,
        "matches": ranking.matches,
        **ranking.advantage_json(),
        "bootstrap_rounds": ranking.rounds,
        "seed": ranking.seed,
        "separation": ranking.separation_lines(),
        "ranking": ranking.rows_json(),
    }


@dataclass(frozen=True, kw_only=True)
class RankingSignature(SignatureType):
    """How a Rakuda ranking was made: of whose verdicts (``judge``: what answered, as
    ``judge.JudgedBy.token`` writes it: a scripted judge with its script's digest, a model
    with the snapshots that served it, or only the name a file's lines give), by
    Bradley-Terry with a fitted home advantage (``bt-home-mle``, upstream's
    ``make_ranking.py``), its bootstrap rounds and seed. scipy's optimiser finds the
    maximum: its version can move the last digits."""

    kind: ClassVar[str] = "rakuda-ranking"
    packages: ClassVar[tuple[str, ...]] = ("scipy",)
    bench: str
    judge: str
    fit: str
    rounds: int
    seed: int


def ranking_signature(rounds: int, seed: int, judge: str) -> Signature:
    """The signature of a ranking of ``judge``'s verdicts fitted as ``rank_home_advantage``
    fits it."""
    return RankingSignature(
        bench=NAME, judge=judge, fit="bt-home-mle", rounds=rounds, seed=seed
    ).signature()
