"""FastChat's on-disk formats, and the adapters from the engine's judgment record to them.

An answer file holds one ``AnswerRecord`` per dialogue (``model_answer/<model>.jsonl``), its
``choices`` one answer per trial; a single-grading file one ``SingleJudgmentLine`` per
judged turn (``model_judgment/<judge>_single/<model>.jsonl``), or per judged turn of each
trial (its ``trial``: the choice judged), or, for swallow-evaluation's variant, one
``TrialsJudgmentLine`` per judged turn holding every trial's judgment in lists, as that
fork's ``play_a_match_single`` writes them; a pairwise file one
``PairJudgmentLine`` per turn of a model pair (``model_judgment/<judge>_pair.jsonl``).
Their fields are FastChat's, with FastChat's types (an integer score where the judge wrote
an integer; ``judge`` as ``[judge name, prompt name]``; ``g1_winner`` ...), so the published
files load here and FastChat's ``show_result.py`` reads ours.

The lines are written from the engine's ``JudgmentRecord`` (``single_line``,
``pair_line``): a benchmark run is the same judgment as any other, only stored as upstream
stores it. Pair lines carry hyoka's additions as extra fields a FastChat reader ignores:
the verdict of every method (seed 001's letters from the pair's point of view: A =
``model_1`` wins, B = ``model_2`` wins, C = tie, ``None`` = no valid verdict), the verdict
probabilities each game's reply held, the rule that decided, token counts and the judge
really asked (``judge`` holds only the name, which says nothing of the model behind it).
"""

from __future__ import annotations

import json
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    ModelWrapValidatorHandler,
    PrivateAttr,
    RootModel,
    StrictFloat,
    StrictInt,
    Tag,
    field_serializer,
    model_validator,
)

from hyoka.judge import (
    JudgeSettings,
    JudgmentRecord,
    OmitsEmpty,
    PairOutcome,
    combine,
    user_prompt_of,
)
from hyoka.providers import Usage
from hyoka.stats import StyleCounts

NO_ANSWER = "No answer"
#: upstream's judgment for a turn its language check zeroed
INCORRECT_LANGUAGE = "Incorrect language"
#: the judgments a rule writes when it scores a turn 0 without asking the judge
RULE_JUDGMENTS = frozenset({NO_ANSWER, INCORRECT_LANGUAGE})
#: what FastChat records for a turn whose judge reply held no rating
NO_RATING = -1
#: a score as a judgment file holds it: a JSON number, never ``true`` (Python's bool is an
#: int) nor ``"8"``
Score = StrictInt | StrictFloat


class KeepsIdType(BaseModel):
    """A FastChat record whose ``question_id`` is written back in the JSON type it came in.

    Upstream writes a question's id as its question file gives it (FastChat's
    ``gen_judgment.py`` and ``gen_model_answer.py`` copy ``question["question_id"]``):
    Stability's 2023 Japanese MT-bench question file has string ids (``"11"``), so its
    published judgments and answers do too, while its later files and code use integers.
    hyoka matches ids as integers (an answer ``"11"`` answers question ``11``, as before),
    and writes a record's id as the text it was given exactly when the record was made
    from text (a question, or a line read back), so FastChat's readers see upstream's types.
    An id no question file writes (``0.0``, ``true``, ``"011"``, all of which Python's
    ``int`` reads) is refused; a judgment's id must also be in its question file's type
    (``line_checks.check_question``).
    """

    question_id: int
    _id_text: str | None = PrivateAttr(default=None)

    @model_validator(mode="wrap")
    @classmethod
    def _note_id_text(cls, data: Any, handler: ModelWrapValidatorHandler[Any]) -> Any:
        given = data.get("question_id") if isinstance(data, dict) else None
        if isinstance(given, bool | float) or (isinstance(given, str) and not _decimal(given)):
            # upstream copies an id from its question file: an integer, or one as text
            raise ValueError(
                f"question_id {json.dumps(given)} is neither an integer nor one written as "
                "text, as a question file gives an id"
            )
        record = handler(data)
        if isinstance(given, str):
            record._id_text = given
        return record

    @field_serializer("question_id")
    def _id_as_given(self, question_id: int) -> int | str:
        return question_id if self._id_text is None else self._id_text

    @property
    def written_id(self) -> int | str:
        """The id as this record's file writes it (``"11"`` or ``11``), for the records
        made from this one."""
        return self.question_id if self._id_text is None else self._id_text

    def same_id_type(self, question: KeepsIdType) -> bool:
        """Whether this record writes its id in the JSON type ``question``'s file does (a
        judgment or answer of it, as upstream writes one, copies the id from there)."""
        return type(self.written_id) is type(question.written_id)


def _decimal(text: str) -> bool:
    """Whether ``text`` is an integer as ``str(int)`` writes it (``"11"``, never ``"011"``,
    ``" 11"`` or ``"1_1"``, which Python's ``int`` also reads)."""
    try:
        return str(int(text)) == text
    except ValueError:
        return False


class AnswerChoice(OmitsEmpty):
    """One sample of a dialogue: its ``turns`` (the answers, as judged) and, for a model
    that thinks aloud, what it thought before each (``thinking``: ``None`` where a turn had
    none; hyoka's addition, written only when a turn had any, so FastChat's readers and
    every answer file of a model that does not think are as they were)."""

    model_config = ConfigDict(frozen=True, extra="allow")
    omitted_when_empty: ClassVar[tuple[str, ...]] = ("thinking",)

    index: int = 0
    turns: tuple[str, ...]
    thinking: tuple[str | None, ...] | None = None


class AnswerRecord(KeepsIdType):
    """A model's answers to one dialogue (FastChat ``model_answer`` line)."""

    model_config = ConfigDict(frozen=True, extra="allow")

    answer_id: str = ""
    model_id: str
    choices: tuple[AnswerChoice, ...] = Field(min_length=1)
    tstamp: float = 0.0

    @property
    def turns(self) -> tuple[str, ...]:
        return self.choices[0].turns


#: the fields FastChat's ``play_a_match_single`` writes on every single-grading line
#: (swallow-evaluation's as lists over the trials); hyoka writes them all too
SINGLE_FIELDS = ("question_id", "model", "judge", "user_prompt", "judgment", "score", "turn",
                 "tstamp")  # fmt: skip
#: the fields FastChat's ``play_a_match_pair`` writes on every pairwise line
PAIR_FIELDS = ("question_id", "model_1", "model_2", "g1_winner", "g2_winner", "judge",
               "g1_user_prompt", "g1_judgment", "g2_user_prompt", "g2_judgment", "turn",
               "tstamp")  # fmt: skip
#: ja-vicuna-qa-benchmark's (``MatchPair.play``): no prompts, no turn, the judge in two
#: fields, the question and both answers (hyoka writes these beside FastChat's)
VICUNA_PAIR_FIELDS = ("model_1", "model_2", "question_id", "question", "answer_1", "answer_2",
                      "g1_judgment", "g2_judgment", "g1_winner", "g2_winner", "judge_model",
                      "judge_prompt", "tstamp")  # fmt: skip


def absent_fields(record: BaseModel, fields: tuple[str, ...]) -> list[str]:
    """Those of ``fields`` the line ``record`` was read from did not have (a field with a
    default is still absent from the line)."""
    present = record.model_fields_set | set(record.model_extra or ())
    return [name for name in fields if name not in present]


def _unset(value: object) -> bool:
    return value is None


class SingleJudgmentLine(KeepsIdType, OmitsEmpty):
    """A judge's grade of one turn (FastChat ``model_judgment/*_single`` line).

    ``score`` is the rating, 0 when a rule decided without the judge (``judgment`` then
    says which: ``No answer`` or ``Incorrect language``), and -1 when the judge's reply
    held no rating even after retries (left out of every mean). ``served_models`` (hyoka's,
    only where there is one) names the snapshot the provider said answered, where it named
    another model than the judge's (``JudgmentRecord.served_models``).
    """

    model_config = ConfigDict(frozen=True, extra="allow")
    omitted_when_empty: ClassVar[tuple[str, ...]] = ("served_models", "thinking")

    model: str
    judge: tuple[str, str]
    user_prompt: str = ""
    judgment: str
    score: Score
    turn: StrictInt = Field(ge=1, le=2)
    tstamp: float = 0.0
    served_models: tuple[str, ...] = ()
    #: hyoka's: the choice of the answer judged, where the answers hold several (trials);
    #: absent from one-answer lines, which stay FastChat's exactly
    trial: int | None = Field(default=None, ge=0, exclude_if=_unset)
    #: hyoka's addition: what a judge that thinks aloud thought before ``judgment`` (the
    #: reply the score was read from); written only when it had some
    thinking: str | None = None

    @property
    def zeroed_by_rule(self) -> bool:
        """Whether a rule scored this turn 0 without the judge (``RULE_JUDGMENTS``)."""
        return self.judgment in RULE_JUDGMENTS


class TrialsJudgmentLine(KeepsIdType, OmitsEmpty):
    """A judge's grades of one turn of every trial (swallow-evaluation's ``_single`` line:
    ``run_judge_single`` judges each of ``choices`` and ``play_a_match_single`` writes
    ``user_prompt``, ``judgment`` and ``score`` as lists in choice order, which its
    ``show_result.py`` reads as one row of a questions x trials array).

    While a run is under way, each trial judged is its own line of one-element lists with
    ``trials`` (hyoka's) naming the choice, so a killed run resumes per trial; a finished
    turn's lines are merged into upstream's line, ``trials`` left out. hyoka's additions of
    ``SingleJudgmentLine`` (``served_models``, ``thinking``) are lists in the same order,
    written only where some trial has one, so every other line is upstream's shape."""

    model_config = ConfigDict(frozen=True, extra="allow")
    omitted_when_empty: ClassVar[tuple[str, ...]] = ("served_models", "thinking")

    model: str
    judge: tuple[str, str]
    user_prompt: tuple[str, ...]
    judgment: tuple[str, ...]
    score: tuple[Score, ...] = Field(min_length=1)
    turn: StrictInt = Field(ge=1, le=2)
    tstamp: float = 0.0
    served_models: tuple[tuple[str, ...], ...] | None = None
    trials: tuple[int, ...] | None = Field(default=None, exclude_if=_unset)
    thinking: tuple[str | None, ...] | None = None

    @classmethod
    def of(
        cls, singles: list[SingleJudgmentLine], trials: tuple[int, ...] | None
    ) -> TrialsJudgmentLine:
        """One line of ``singles`` (one turn's trials, in order; the latest time), its
        ``trials`` as given (``None``: upstream's merged line)."""
        first = singles[0]
        served = tuple(s.served_models for s in singles)
        thinking = tuple(s.thinking for s in singles)
        return cls.model_validate(
            {"question_id": first.written_id, "model": first.model, "judge": first.judge,
             "user_prompt": tuple(s.user_prompt for s in singles),
             "judgment": tuple(s.judgment for s in singles),
             "score": tuple(s.score for s in singles), "turn": first.turn,
             "tstamp": max(s.tstamp for s in singles),
             "served_models": served if any(served) else None, "trials": trials,
             "thinking": thinking if any(thinking) else None}
        )  # fmt: skip

    @property
    def choices(self) -> tuple[int, ...]:
        """The choice each position holds: ``trials``, else 0, 1, ... (upstream's order)."""
        return self.trials if self.trials is not None else tuple(range(len(self.score)))

    def per_trial(self) -> list[SingleJudgmentLine]:
        """One FastChat line per trial, ``trial`` naming its choice."""
        count = len(self.choices)
        served = self.served_models or ((),) * count
        thinking = self.thinking or (None,) * count
        if not (
            len(self.user_prompt) == len(self.judgment) == len(self.score) == count
            and len(served) == len(thinking) == count
        ):
            raise ValueError(
                "user_prompt, judgment, score (and trials, served_models, thinking) differ "
                "in length"
            )
        lines = zip(
            self.user_prompt,
            self.judgment,
            self.score,
            self.choices,
            served,
            thinking,
            strict=True,
        )
        return [
            SingleJudgmentLine.model_validate(
                {
                    "question_id": self.written_id,
                    "model": self.model,
                    "judge": self.judge,
                    "user_prompt": prompt,
                    "judgment": judgment,
                    "score": score,
                    "turn": self.turn,
                    "tstamp": self.tstamp,
                    "served_models": served_models,
                    "trial": trial,
                    "thinking": thought,
                }
            )
            for prompt, judgment, score, trial, served_models, thought in lines
        ]


def merge_trials(lines: list[TrialsJudgmentLine], trials: int) -> list[TrialsJudgmentLine]:
    """Each turn whose lines hold every one of ``trials`` choices once, as upstream's one
    line (lists in choice order, the latest time); other lines as they are."""
    by_turn: dict[tuple[str, int, int], list[TrialsJudgmentLine]] = {}
    for line in lines:
        by_turn.setdefault((line.model, line.question_id, line.turn), []).append(line)
    merged: list[TrialsJudgmentLine] = []
    for group in by_turn.values():
        singles = sorted((s for line in group for s in line.per_trial()), key=_trial_of)
        if [s.trial for s in singles] != list(range(trials)):
            merged += group
            continue
        merged.append(TrialsJudgmentLine.of(singles, None))
    return merged


def _trial_of(line: SingleJudgmentLine) -> int:
    return line.trial or 0


def _shape(value: object) -> str:
    """Which line a parsed JSON object is: lists of scores are swallow-evaluation's."""
    score = value.get("score") if isinstance(value, dict) else getattr(value, "score", None)
    return "TrialsJudgmentLine" if isinstance(score, list | tuple) else "SingleJudgmentLine"


class SingleGradingLine(
    RootModel[
        Annotated[
            Annotated[SingleJudgmentLine, Tag("SingleJudgmentLine")]
            | Annotated[TrialsJudgmentLine, Tag("TrialsJudgmentLine")],
            Discriminator(_shape),
        ]
    ]
):
    """A single-grading line of either shape, as a reader of judgment files takes it (a
    list of scores makes it a ``TrialsJudgmentLine``, and its errors that line's)."""

    def per_trial(self) -> list[SingleJudgmentLine]:
        """The line as FastChat lines: itself, or one per trial of a Swallow line."""
        line = self.root
        return [line] if isinstance(line, SingleJudgmentLine) else line.per_trial()


Winner = Literal["model_1", "model_2", "tie", "error"]

#: the letter the judge wrote in each game, as the winner FastChat records
G1_WINNER: dict[str | None, Winner] = {"A": "model_1", "B": "model_2", "C": "tie", None: "error"}
G2_WINNER: dict[str | None, Winner] = {"A": "model_2", "B": "model_1", "C": "tie", None: "error"}
#: and back: the letter each recorded winner stands for in its game (``error``: none)
G1_LETTER: dict[str, str] = {w: letter for letter, w in G1_WINNER.items() if letter is not None}
G2_LETTER: dict[str, str] = {w: letter for letter, w in G2_WINNER.items() if letter is not None}


class PairJudgmentLine(KeepsIdType, OmitsEmpty):
    """One turn of one dialogue, two models' answers compared in both orders (FastChat
    ``model_judgment/*_pair`` line, plus hyoka's optional additions)."""

    model_config = ConfigDict(frozen=True, extra="allow")
    omitted_when_empty: ClassVar[tuple[str, ...]] = ("served_models", "thinking")

    model_1: str
    model_2: str
    g1_winner: Winner
    g2_winner: Winner
    judge: tuple[str, str]  # (judge name, judge prompt name)
    g1_user_prompt: str = ""
    g1_judgment: str = ""
    g2_user_prompt: str = ""
    g2_judgment: str = ""
    turn: int = Field(ge=1, le=2)
    tstamp: float = 0.0
    # hyoka's additions (absent from FastChat's own files, hence the defaults)
    verdicts: dict[str, str | None] = Field(default_factory=dict)
    #: per game the A/B/C probabilities as read (letters as shown in that game), and
    #: ``mean``: both games averaged with A = model_1 wins, B = model_2 wins, C = tie
    probabilities: dict[str, dict[str, float]] | None = None
    #: per game why it has (or lacks) probabilities: ok, no-logprobs, no-verdict
    prob_status: dict[str, str] | None = None
    #: ``model_1``/``model_2`` -> the rule that ruled its answer out; the games were then
    #: decided without a judge call
    rule: dict[str, str] | None = None
    usage: Usage = Usage()
    #: the judge really asked; ``None`` in FastChat's files
    judge_settings: JudgeSettings | None = None
    #: the snapshots the provider said answered, where it named another model than the
    #: judge's (``JudgmentRecord.served_models``); left out of the line when none
    served_models: tuple[str, ...] = ()
    #: per game (``g1``, ``g2``) what a judge that thinks aloud thought before its
    #: judgment; written only when it had some
    thinking: dict[str, str] | None = None

    @model_validator(mode="before")
    @classmethod
    def _vicuna_ja(cls, data: Any) -> Any:
        """ja-vicuna-qa-benchmark's published lines name the judge in ``judge_model`` and
        ``judge_prompt`` instead of FastChat's ``judge`` pair, and carry no ``turn`` (its
        questions have one)."""
        if isinstance(data, dict) and "judge" not in data and "judge_model" in data:
            judge = (data["judge_model"], data.get("judge_prompt", ""))
            return {"turn": 1, **data, "judge": judge}
        return data

    @property
    def models(self) -> frozenset[str]:
        return frozenset((self.model_1, self.model_2))

    def letters(self) -> tuple[str | None, str | None]:
        """The letters the judge wrote in game 1 (``model_1`` shown first) and in game 2."""
        return G1_LETTER.get(self.g1_winner), G2_LETTER.get(self.g2_winner)

    def method_verdicts(self) -> dict[str, str | None]:
        """Each method's verdict (A = ``model_1`` wins): the stored ones, and where none is
        stored (FastChat's own files) ``bs1``/``bs2`` from the two games' winners."""
        return {**combine(*self.letters()), **self.verdicts}

    def outcome(self) -> PairOutcome:
        """The line as the one pairwise outcome every count and rating reads
        (``judge.PairOutcome``): X is ``model_1``, the item ``question/turn``; the
        answers' style is added by whoever knows it (``inline_styles``, answer files)."""
        return PairOutcome(
            f"{self.question_id}/{self.turn}", self.model_1, self.model_2,
            self.method_verdicts(), self.letters(), (self.probabilities or {}).get("mean"),
            turn=(self.question_id, self.turn), judge=self.judge[0],
        )  # fmt: skip

    def shown_answers(self) -> tuple[str | None, str | None]:
        """``model_1``'s and ``model_2``'s answers as the line carries them itself
        (ja-vicuna-qa-benchmark's ``answer_1``/``answer_2``, which hyoka's runs of it write
        too); ``None`` where it carries none (FastChat's lines)."""
        extra = self.model_extra or {}
        one, two = extra.get("answer_1"), extra.get("answer_2")
        return (one if isinstance(one, str) else None), (two if isinstance(two, str) else None)

    def inline_styles(self) -> tuple[StyleCounts, StyleCounts] | None:
        """The style of the answers the line carries itself (``shown_answers``: turn 1's
        answers, so for turn 1 only)."""
        one, two = self.shown_answers()
        if self.turn != 1 or one is None or two is None:
            return None
        return StyleCounts.of(one), StyleCounts.of(two)


def single_line(
    record: JudgmentRecord,
    *,
    question_id: int | str,
    turn: int,
    model: str,
    judge: tuple[str, str],
    trial: int | None = None,
) -> SingleJudgmentLine:
    """The FastChat line of a single grading: the judge's last reply (or the rule that
    decided) and the score as written, -1 without a rating; ``trial``: the choice judged,
    where the answers hold several."""
    if record.rule:
        judgment = "; ".join(record.rule.values())
    else:
        judgment = record.replies[-1] if record.replies else ""
    score: int | float = NO_RATING if record.failed else record.score
    thinking = record.thinking[-1] if record.thinking and not record.rule else None
    return SingleJudgmentLine.model_validate(
        {"question_id": question_id, "model": model, "judge": judge,
         "user_prompt": user_prompt_of(record.prompt), "judgment": judgment, "score": score,
         "turn": turn, "tstamp": record.tstamp, "served_models": record.served_models,
         "trial": trial, "thinking": thinking}
    )  # fmt: skip


def _games(values: dict[str, dict[str, float]] | None) -> dict[str, dict[str, float]] | None:
    """Orders (xy, yx) as FastChat's games (g1, g2)."""
    if values is None:
        return None
    names = {"xy": "g1", "yx": "g2"}
    return {names.get(key, key): value for key, value in values.items()}


def pair_line(
    record: JudgmentRecord,
    *,
    question_id: int | str,
    turn: int,
    judge: tuple[str, str],
    user_prompts: tuple[str, str],
) -> PairJudgmentLine:
    """The FastChat line of a pairwise judgment: game 1 is order xy (``model_1`` as A)."""
    model_1, model_2 = record.models
    common: dict[str, object] = {
        "question_id": question_id, "model_1": model_1, "model_2": model_2, "judge": judge,
        "g1_user_prompt": user_prompts[0], "g2_user_prompt": user_prompts[1], "turn": turn,
        "tstamp": record.tstamp, "verdicts": record.verdicts, "usage": record.usage,
        "judge_settings": record.judge, "served_models": record.served_models,
    }  # fmt: skip
    if record.rule:
        winner = G1_WINNER[next(iter(record.verdicts.values()), None)]
        reason = "; ".join(f"{side}: {why}" for side, why in record.rule.items())
        return PairJudgmentLine.model_validate(
            {**common, "g1_winner": winner, "g2_winner": winner, "g1_judgment": reason,
             "g2_judgment": reason, "rule": record.rule}
        )  # fmt: skip
    status = None
    if "prob" in record.verdicts:
        status = {
            game: record.prob_status(order) or "no-logprobs"
            for order, game in (("xy", "g1"), ("yx", "g2"))
        }
    thought = dict(zip(("g1", "g2"), record.thinking or (), strict=False))
    thinking = {game: text for game, text in thought.items() if text is not None} or None
    return PairJudgmentLine.model_validate(
        {**common, "g1_winner": G1_WINNER[record.letter("xy")],
         "g2_winner": G2_WINNER[record.letter("yx")], "g1_judgment": record.replies[0],
         "g2_judgment": record.replies[1], "probabilities": _games(record.probabilities),
         "prob_status": status, "thinking": thinking}
    )  # fmt: skip
