"""The leaderboard's length-adjusted column: does a model lead because it writes longer?

``hyoka mtbench leaderboard --answers`` reads the judged models' answer files and fits
``stats.length_adjusted_scores`` over the table's judgments: every rated turn is one
grade, its length the characters of the judged turn's answer (after any thinking block,
as it was judged). Each judged turn is a question of the regression (turn 2 of a dialogue
is asked after turn 1's answer: its own question mean), but the bootstrap draws whole
dialogues (``RESAMPLED``: a question's turns together), as the leaderboard's other
intervals do (``stats.two_level_draws``): the turns of one dialogue share its topic and
its answers, so drawing them one by one would make the interval too narrow.

The adjusted mean stands beside "Avg.", never instead of it: it is the mean of every rated
turn with every answer as long as its question's mean, so that a model whose lead comes
from longer answers is seen. A judged turn whose answer is not in the files is counted,
and that model's adjusted mean left out rather than fitted on a guess; unrated turns (-1)
are left out as they are from the means.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from hyoka.errors import InputError
from hyoka.mtbench.answers import load_answers, model_name
from hyoka.mtbench.bench import Bench
from hyoka.mtbench.leaderboard import Leaderboard
from hyoka.mtbench.records import AnswerRecord
from hyoka.stats import Grade, Interval, LengthAdjusted, length_adjusted_scores

#: the column's header, beside "Avg." in the table of both turns
HEADER = "length-adj."
#: what the bootstrap draws: a question id with all its judged turns
RESAMPLED = "dialogue"

#: model -> question id -> the answer of each turn (what ``--answers`` files hold)
AnswerTurns = Mapping[str, Mapping[int, Sequence[str]]]
Result = TypeVar("Result")


@dataclass(frozen=True)
class LengthColumn:
    """The fitted regression and, per model, its judged turns without an answer (a
    model with any is left out of the fit: no adjusted mean)."""

    fit: LengthAdjusted
    missing: dict[str, int]

    def adjusted(self, model: str) -> Interval | None:
        found = self.fit.by_model().get(model)
        return None if found is None else found.adjusted

    @property
    def note(self) -> str:
        """The line under the table: what the column is, and the partial correlation."""
        r = self.fit.partial_correlation
        return (
            f"{HEADER}: mean of every rated turn with every answer as long as its question's "
            "mean (two-way fixed effects of score on log(1 + characters of the judged turn's "
            f"answer), each judged turn a question); score and length within question: partial "
            f"r = {r.format(3)}, 95% CI resampling the {self.fit.clusters} dialogues "
            f"({self.fit.questions} judged turns)"
        )


def answer_files(paths: Iterable[Path], bench: Bench) -> list[Path]:
    """The answer files given to ``--answers``: files, folders of ``*.jsonl`` (FastChat's
    ``model_answer``) or of one folder per model holding ``results.jsonl``
    (ja-vicuna-qa-benchmark's), or a results folder holding either under
    ``<bench>/model_answer/`` (hyoka's layout) or upstream's folders."""
    found: list[Path] = []
    for path in paths:
        if path.exists() and not path.is_dir():  # the store refuses one no regular file
            found.append(path)
            continue
        if not path.is_dir():
            raise InputError(f"`answers`: {path} does not exist")
        files = _answer_files_in(path)
        for layout in ("hyoka", "upstream"):
            if files:
                break
            spec = bench.spec
            nested = path / spec.results_folder(layout) / spec.answers_folder(layout)
            files = _answer_files_in(nested) if nested.is_dir() else []
        if not files:
            raise InputError(f"`answers`: no *.jsonl answer files in {path}")
        found += files
    return found


def _answer_files_in(folder: Path) -> list[Path]:
    """A folder's ``*.jsonl``, else its ``*/results.jsonl`` (one folder per model)."""
    return sorted(folder.glob("*.jsonl")) or sorted(folder.glob("*/results.jsonl"))


def read_answer_sets(paths: Iterable[Path], bench: Bench) -> dict[str, dict[int, AnswerRecord]]:
    """Every answer file's answers by the name its model's judgments carry; one model in
    two files is refused (which one was judged?)."""
    sets: dict[str, dict[int, AnswerRecord]] = {}
    where: dict[str, Path] = {}
    for path in answer_files(paths, bench):
        answers = load_answers(path, bench)
        model = model_name(bench, path, answers)
        if model in sets:
            raise InputError(f"`answers`: {model}'s answers are in both {where[model]} and {path}")
        sets[model], where[model] = answers, path
    return sets


def answer_turns(paths: Iterable[Path], bench: Bench) -> dict[str, dict[int, Sequence[str]]]:
    """The answers in ``paths`` (``--answers``), read once for every column that needs
    them: model -> question id -> each turn's answer."""
    answers = read_answer_sets(paths, bench)
    return {model: {qid: r.turns for qid, r in by_id.items()} for model, by_id in answers.items()}


def for_answers_flag(work: Callable[[], Result]) -> Result:
    """``work()``, its ``InputError`` naming ``--answers`` (the files it was given)."""
    try:
        return work()
    except InputError as exc:
        raise InputError(f"`answers`: {exc}") from None


@dataclass(frozen=True)
class JudgedTurn:
    """One rated turn of a model and the answer its judge read."""

    question_id: int
    turn: int
    model: str
    score: float
    answer: str


def judged_turns(
    board: Leaderboard, answers: AnswerTurns, column: str
) -> tuple[list[JudgedTurn], dict[str, int]]:
    """Every rated turn of ``board``'s models with its answer, in the table's model order;
    a model with a judged turn whose answer is missing is left out whole, its missing
    turns counted (never guessed). Several trials are refused: ``column`` (what reads the
    answers) could not tell which trial's answer was judged."""
    found: list[JudgedTurn] = []
    missing: dict[str, int] = {}
    for model in board.models:
        if model.trials > 1:
            raise InputError(
                f"{model.model} was judged in {model.trials} trials; {column} reads one "
                "answer per judged turn"
            )
        own = answers.get(model.model, {})
        turns = []
        for (question_id, turn, _trial), score in sorted(model.ratings.items()):
            given = own.get(question_id)
            if given is None or len(given) < turn:
                missing[model.model] = missing.get(model.model, 0) + 1
                continue
            turns.append(JudgedTurn(question_id, turn, model.model, float(score), given[turn - 1]))
        if model.model not in missing:
            found += turns
    return found, missing


def length_column(
    board: Leaderboard,
    answer_paths: Iterable[Path],
    *,
    resamples: int,
    seed: int,
    confidence: float = 0.95,
) -> LengthColumn:
    """The length-adjusted means of ``board``'s models from the answers in
    ``answer_paths`` (see the module's docstring); an ``InputError`` for answers judged in
    several trials (which trial's length?) or fewer than two models with every answer."""
    turns = answer_turns(answer_paths, board.bench)
    return for_answers_flag(
        lambda: length_column_of(
            board, turns, resamples=resamples, seed=seed, confidence=confidence
        )
    )


def length_column_of(
    board: Leaderboard,
    answers: AnswerTurns,
    *,
    resamples: int,
    seed: int,
    confidence: float = 0.95,
) -> LengthColumn:
    """``length_column`` from answers already read: model -> question id -> its turns."""
    judged, missing = judged_turns(board, answers, "the length-adjusted column")
    grades = [
        Grade(f"{t.question_id}/turn{t.turn}", t.model, t.score, len(t.answer),
              cluster=str(t.question_id))
        for t in judged
    ]  # fmt: skip
    fit = length_adjusted_scores(
        grades, resamples=resamples, confidence=confidence, seed=seed, unit=RESAMPLED
    )
    return LengthColumn(fit, missing)
