"""The pairwise judgment record: FastChat's ``model_judgment/<judge>_pair.jsonl`` line, plus ours.

FastChat's fields come first and mean what they mean there, so its readers (which pick
columns by name) take our files as they are: game 1 (``g1_*``) shows ``model_1`` as
assistant A and ``model_2`` as B, game 2 (``g2_*``) the other way round, and each
``g*_winner`` is ``model_1``, ``model_2``, ``tie`` or ``error`` (the reply held no
``[[A]]``/``[[B]]``/``[[C]]``). Our additions are extra fields a FastChat reader ignores:
the verdict of every method (seed 001's letters from the pair's point of view: A =
``model_1`` wins, B = ``model_2`` wins, C = tie, ``None`` = no valid verdict), the verdict
probabilities each game's reply held, which answers a rule decided on, token counts, and
the judge that was really asked and how (``judge`` holds only the name given with
``--judge-name``, which says nothing of the model behind it), so a resumed run cannot mix
two judges' verdicts in one file. All additions are optional: FastChat's own files read.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from hyoka.providers.types import Usage

Winner = Literal["model_1", "model_2", "tie", "error"]

#: the letter the judge wrote in each game, as the winner FastChat records
G1_WINNER: dict[str | None, Winner] = {"A": "model_1", "B": "model_2", "C": "tie", None: "error"}
G2_WINNER: dict[str | None, Winner] = {"A": "model_2", "B": "model_1", "C": "tie", None: "error"}


class PairJudgeSettings(BaseModel):
    """The judge behind a record and the settings its calls were made with."""

    model_config = ConfigDict(frozen=True, extra="allow")

    judge: str  # PROVIDER/MODEL, as given with -j
    base_url: str | None = None
    temperature: float = 0.0
    max_tokens: int | None = None
    top_logprobs: int | None = None

    def differences(self, other: PairJudgeSettings) -> list[str]:
        """``field: mine vs other's`` for every setting that differs, extras included."""
        mine, theirs = self.model_dump(), other.model_dump()
        return [
            f"{key} {mine.get(key)!r} vs {theirs.get(key)!r}"
            for key in dict.fromkeys([*mine, *theirs])
            if mine.get(key) != theirs.get(key)
        ]


class PairJudgmentRecord(BaseModel):
    """One turn of one dialogue, two models' answers compared in both orders."""

    model_config = ConfigDict(frozen=True, extra="allow")

    question_id: int
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
    #: ``model_1``/``model_2`` -> the rule that ruled its answer out (No answer, Incorrect
    #: language); the games were then decided without a judge call
    rule: dict[str, str] | None = None
    usage: Usage = Usage()
    #: the judge really asked (rule-decided turns too: they belong to that judge's file);
    #: ``None`` in FastChat's files and in hyoka's from before it was recorded
    judge_settings: PairJudgeSettings | None = None

    @property
    def models(self) -> frozenset[str]:
        return frozenset((self.model_1, self.model_2))
