"""The persisted records, in FastChat's formats so files move freely between tools.

An answer file holds one ``AnswerRecord`` per dialogue; a judgment file one
``JudgmentRecord`` per judged turn. Both are what the upstream benchmark publishes, field
for field, so the published files load here and ours load there.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class AnswerChoice(BaseModel):
    model_config = ConfigDict(frozen=True, extra="allow")

    index: int = 0
    turns: tuple[str, ...]


class AnswerRecord(BaseModel):
    """A model's answers to one dialogue (FastChat ``model_answer`` line)."""

    model_config = ConfigDict(frozen=True, extra="allow")

    question_id: int
    answer_id: str = ""
    model_id: str
    choices: tuple[AnswerChoice, ...] = Field(min_length=1)
    tstamp: float = 0.0

    @property
    def turns(self) -> tuple[str, ...]:
        return self.choices[0].turns


class JudgmentRecord(BaseModel):
    """A judge's grade of one turn (FastChat ``model_judgment/*_single`` line).

    ``score`` is the rating, 0 when a rule decided without the judge (``judgment`` then
    says which: ``No answer`` or ``Incorrect language``), and -1 when the judge's reply
    held no rating even after retries (left out of every mean).
    """

    model_config = ConfigDict(frozen=True, extra="allow")

    question_id: int
    model: str
    judge: tuple[str, str]
    user_prompt: str = ""
    judgment: str
    score: int | float
    turn: int = Field(ge=1, le=2)
    tstamp: float = 0.0


NO_ANSWER = "No answer"
INCORRECT_LANGUAGE = "Incorrect language"
