"""One line per run, as the leaderboard and the score command show it.

Reads only the top of a ``result.json`` (scores, lengths, config, signature), so it works the
same for our results and for upstream ones.

A result's numbers are checked against what scoring can make before any is shown or ranked
(``result_problem``; every reader of ``result.json`` goes through it, ``RunSummary`` too): a
score of 1e308 would otherwise print as 309 digits and rank first. A score is no fraction:
Fluency is an answer's n-grams against the references' own mean (1 by the baseline's
definition), and upstream's ground-truth row (the references scored against themselves)
scores 1.05 with a Fluency of 1.15. So the bounds are what no answer can pass, not 1:

- Fluency (each set's share, their sum) in [0, ``FLUENCY_BOUND``] = 12: against no set of the
  pinned release can any answer reach more than 11.2 (Q07's P set: ``fluency_ceiling``);
- Truthfulness and Helpfulness (each share, their sum) in [0, 1], their range by definition;
- ``score``, ``scores.average``, ``score_std`` and each question's ``score`` and
  ``score_std`` in [0, ``SCORE_BOUND``] = 5, above (12 + 1 + 1) / 3: an average of the
  three metrics;
- ``length`` and ``length_std`` (characters) in [0, the most bytes a run may hold,
  ``pfgen_runs.MAX_TRIALS_BYTES``]; ``num_trials`` a whole number from 1 to
  ``MAX_RESULT_TRIALS``.

A sum of shares rounded to 5 decimals question by question may pass its bound by
``ROUNDING_SLACK``. NaN, the infinities and ``true`` are in no range.

The headline must also be what its parts make (``_parts_problem``): an answer's score is
(Fluency + Truthfulness + Helpfulness) / 3, so the mean over a run's answers, the run's
``scores.average``, is the same average of its Fluency (the sum of its shares),
Truthfulness and Helpfulness; and ``score``, the mean of the trials' means, is that mean
too when every question was answered ``num_trials`` times. Only rounding parts them:
every mean kept to 5 decimals question by question, ``score`` to 4, at most
``PARTS_SLACK`` = 0.001 in all (the 535 result.json files of pfgen-bench's release part by
1.3e-4 at most, but one). A ``score`` of 0.9 beside parts that make 0.39455 would otherwise
be ranked by the number its own file contradicts.

The one exception is pfgen-bench's own rule: a question answered more often than
``num_trials`` (upstream's criteria row holds up to three reference sets' answers to a
question; trials gathered by hand may be uneven) counts only its first ``num_trials``
answers in ``score``, every answer in the parts (the criteria row: 0.8494 over parts of
0.8066). A result.json does not say how often each question was answered, but whatever
the counts, such a ``score`` is a mean over questions of some of each one's answers: it
lies between the mean of the questions' worst answers and the mean of their best (the
first and last of each question's ``samples``, the answers pfgen-bench keeps ranked best
first). A ``score`` off its parts is kept only inside that range; without samples, never.

A result must hold every field upstream's scorer writes (``REQUIRED_KEYS``; each question's
``score`` and ``score_std``): a file stripped of its ``questions`` would pass for a whole run.
Its signature, where it has one, must agree with the file it signs (``signature_problem``:
its data with ``metadata_hash``, its mode with the config): a signature edited to claim the
pinned data would otherwise be believed over the file's own hash. And read from a run folder
(``run_result_problem``), a result whose answers changed since it was scored (their hash is
no longer its ``input_hash``) is refused, as ``pfgen score`` would rescore it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hyoka.errors import InputError
from hyoka.pfgen._pysum import float_sum
from hyoka.pfgen.provenance import result_data_id, signature_of, signature_problem
from hyoka.signature import Signature
from hyoka.store import pfgen_runs

if TYPE_CHECKING:
    from hyoka.stats import Interval

#: How many questions pfgen-bench asks (spec §1); a run with fewer (``--limit``, a lost
#: question) is incomplete: its numbers are not comparable with a whole run's.
PFGEN_QUESTIONS = 50

#: Top-level keys upstream's scorer writes into every ``result.json`` (``config`` only when
#: the run has a ``config.json``): a file without one was not written by a scorer (a
#: result stripped of its ``questions`` would pass for a whole run of unknown questions).
REQUIRED_KEYS = (
    "input_hash",
    "metadata_hash",
    "num_trials",
    "score",
    "score_std",
    "length",
    "length_std",
    "scores",
    "questions",
)
#: The most trials a result may record: a million trials of 50 answers, far beyond what any
#: run holds (published runs have 100; ``pfgen_runs.MAX_TRIALS`` bounds a compressed run).
MAX_RESULT_TRIALS = 1_000_000
#: How far a sum of shares, each rounded to 5 decimals question by question (50 times),
#: may pass its bound.
ROUNDING_SLACK = 0.001
#: Above the most Fluency any answer can reach against any set of the pinned release (11.2).
FLUENCY_BOUND = 12.0
#: Above the most an average of Fluency, Truthfulness and Helpfulness can be ((12 + 2) / 3).
SCORE_BOUND = 5.0
#: How far ``score`` and ``scores.average`` may lie from (Fluency + Truthfulness +
#: Helpfulness) / 3 by rounding alone: each part and the average are sums of about a hundred
#: means rounded to 5 decimals (at most 5e-6 off each), ``score`` is rounded to 4.
PARTS_SLACK = 0.001


def result_problem(result: object) -> str | None:
    """Why ``result`` is not a pfgen-bench ``result.json`` object, or ``None`` if it is one."""
    if not isinstance(result, dict):
        return "not a pfgen-bench result (expected a JSON object)"
    missing = [key for key in REQUIRED_KEYS if key not in result]
    if missing:
        return f"not a pfgen-bench result (no {', '.join(repr(k) for k in missing)})"
    scores = result["scores"]
    if (
        not isinstance(scores, dict)
        or not isinstance(scores.get("fluency"), dict)
        or not isinstance(scores.get("truthfulness"), dict)
        or "helpfulness" not in scores
    ):
        return "not a pfgen-bench result (malformed 'scores')"
    config = result.get("config")
    if config is not None and not isinstance(config, dict):
        return "not a pfgen-bench result (malformed 'config')"
    for key in ("input_hash", "metadata_hash"):
        if not isinstance(result[key], str) or not re.fullmatch(r"[0-9a-f]{40}", result[key]):
            return f"not a pfgen-bench result ({key} {_shown(result[key])} is not a SHA-1)"
    if not isinstance(result["questions"], dict) or not result["questions"]:
        return "not a pfgen-bench result (malformed 'questions')"
    problem = _range_problem(result) or _parts_problem(result)
    if problem is not None:
        return f"not a pfgen-bench result ({problem})"
    contradiction = signature_problem(result)
    return None if contradiction is None else f"its signature contradicts the file: {contradiction}"


def run_result_problem(folder: Path, result: object) -> str | None:
    """Why the ``result.json`` read from the run in ``folder`` cannot be shown: not a
    pfgen-bench result (``result_problem``), or no longer the result of the answers beside
    it (``answers_problem``); ``None`` when it can."""
    problem = result_problem(result)
    if problem is not None or not isinstance(result, dict):
        return problem
    return answers_problem(folder, result)


def answers_problem(folder: Path, result: dict[str, Any]) -> str | None:
    """Whether the answers in ``folder`` changed since ``result`` was scored from them: its
    ``input_hash`` is no longer their hash (``pfgen_runs.answers_hash``; hashing them costs
    little beside reading the result: upstream's hash is that of the compressed file). A
    folder without answers (a leaderboard of result files alone) has nothing to compare."""
    try:
        found = pfgen_runs.answers_hash(folder)
    except InputError as exc:
        return f"its answers cannot be checked ({exc})"
    if found is None:
        return None
    source, input_hash = found
    if input_hash == result.get("input_hash"):
        return None
    return (
        f"answers changed since scoring ({pfgen_runs.source_name(source)}'s input hash is "
        f"{input_hash}, not the {result.get('input_hash')} it records); rescore the run "
        "with 'hyoka pfgen score'"
    )


def parts_average(scores: dict[str, Any]) -> float:
    """(Fluency + Truthfulness + Helpfulness) / 3 of a result's ``scores`` (numbers
    ``_range_problem`` found in range): what its ``score`` is, up to rounding."""
    fluency = float_sum(scores["fluency"].values())
    truthfulness = float_sum(scores["truthfulness"].values())
    return float(fluency + truthfulness + scores["helpfulness"]) / 3


def _parts_problem(result: dict[str, Any]) -> str | None:
    """Which headline number of ``result`` (in range) its own parts contradict (module
    docstring): ``scores.average``, then ``score`` unless uneven trials explain it."""
    scores = result["scores"]
    made = parts_average(scores)
    said = f"is not what its parts make: (fluency + truthfulness + helpfulness) / 3 = {made:.5f}"
    average = scores.get("average")
    if average is not None and abs(float(average) - made) > PARTS_SLACK:
        return f"scores.average {_shown(average)} {said}"
    score = float(result["score"])
    if abs(score - made) <= PARTS_SLACK:
        return None
    span = _answers_span(result.get("questions"))
    if span is None:
        return f"score {_shown(result['score'])} {said}"
    worst, best = span
    if worst - PARTS_SLACK <= score <= best + PARTS_SLACK:
        return None  # some question answered more than num_trials times: upstream's rule
    return (
        f"score {_shown(result['score'])} {said}, nor lies between the means of its "
        f"questions' worst and best answers ({worst:.5f} to {best:.5f})"
    )


def _answers_span(questions: object) -> tuple[float, float] | None:
    """The mean over ``questions`` of each one's worst answer's score and of its best's
    (the last and first of its ``samples``), or ``None`` where a question keeps none."""
    if not isinstance(questions, dict) or not questions:
        return None
    worst: list[float] = []
    best: list[float] = []
    for entry in questions.values():
        samples = entry.get("samples") if isinstance(entry, dict) else None
        if not isinstance(samples, list) or not samples:
            return None
        ends = [_sample_average(samples[-1]), _sample_average(samples[0])]
        if ends[0] is None or ends[1] is None:
            return None
        worst.append(ends[0])
        best.append(ends[1])
    return float_sum(worst) / len(worst), float_sum(best) / len(best)


def _sample_average(sample: object) -> float | None:
    """A sample answer's ``scores.average``, when it is a number in range."""
    scores = sample.get("scores") if isinstance(sample, dict) else None
    value = scores.get("average") if isinstance(scores, dict) else None
    return float(value) if isinstance(value, int | float) and _within(value, SCORE_BOUND) else None


def _unsigned(value: float) -> float:
    """``value`` (a number ``result_problem`` found in range: at least 0) as a float, with
    ``-0.0`` made 0.0 (adding 0.0 does): a writer's rounding may leave one, and every
    format would show it as a negative score (``-0.0000``)."""
    return float(value) + 0.0


def _range_problem(result: dict[str, Any]) -> str | None:
    """Which number of ``result`` lies outside what scoring makes (module docstring)."""
    trials = result["num_trials"]
    if type(trials) is not int or not 1 <= trials <= MAX_RESULT_TRIALS:
        return f"num_trials {_shown(trials)} is not a whole number from 1 to {MAX_RESULT_TRIALS:,}"
    scores = result["scores"]
    slack = 1.0 + ROUNDING_SLACK
    checks: list[tuple[str, object, float]] = [
        ("score", result["score"], SCORE_BOUND),
        ("score_std", result["score_std"], SCORE_BOUND),
        ("length", result["length"], pfgen_runs.MAX_TRIALS_BYTES),
        ("length_std", result["length_std"], pfgen_runs.MAX_TRIALS_BYTES),
        ("scores.helpfulness", scores["helpfulness"], slack),
    ]
    if "average" in scores:
        checks.append(("scores.average", scores["average"], SCORE_BOUND))
    for metric, bound in (("fluency", FLUENCY_BOUND), ("truthfulness", slack)):
        shares = scores[metric]
        checks += [(f"scores.{metric}.{_key(name)}", v, bound) for name, v in shares.items()]
        if all(_within(v, bound) for v in shares.values()):
            checks.append((f"scores.{metric} (its shares' sum)", float_sum(shares.values()), bound))
    questions = result.get("questions")
    if isinstance(questions, dict):
        for question_id, entry in questions.items():
            if not isinstance(entry, dict):
                return f"questions.{_key(question_id)} is not an object"
            for key in ("score", "score_std"):  # upstream writes both; intervals read them
                if key not in entry:
                    return f"questions.{_key(question_id)} has no {key!r}"
                checks.append((f"questions.{_key(question_id)}.{key}", entry[key], SCORE_BOUND))
    for name, value, most in checks:
        if type(value) not in (int, float):
            return f"{name} {_shown(value)} is not a number"
        if not _within(value, most):
            return f"{name} {_shown(value)} is outside [0, {_bound(most)}]"
    return None


def _within(value: object, most: float) -> bool:
    """Whether ``value`` is a JSON number (no bool: ``true`` is no score) in [0, ``most``];
    NaN and the infinities are in no range."""
    if type(value) is int:
        return 0 <= value <= most
    return type(value) is float and 0.0 <= value <= most


def _bound(most: float) -> str:
    """A range's bound as a message shows it: ``1``, ``1.001``, ``204,800,000``."""
    return f"{int(most):,}" if float(most).is_integer() else f"{most:g}"


def _key(name: str) -> str:
    """A key from a file as a message names it: as it is when plain (``Q01``, ``R``), else
    quoted and escaped (``repr``), and short."""
    return name if re.fullmatch(r"[A-Za-z0-9_-]{1,40}", name) else _shown(name)


def _shown(value: object) -> str:
    """A value from a file as an error line shows it: short, and in hyoka's words."""
    if type(value) is int and abs(value) >= 10**15:
        return f"(a number of {len(str(abs(value)))} digits)"
    if isinstance(value, float):
        return repr(value)
    shown = repr(value)
    return shown if len(shown) <= 40 else shown[:37] + "..."


def score_interval(
    result: dict[str, Any], *, resamples: int = 2000, seed: int = 0, confidence: float = 0.95
) -> Interval:
    """The score's bootstrap interval from a ``result.json`` alone, over questions *and*
    trials (both vary): per question only the mean and the standard deviation over trials
    are kept, so the inner level is drawn as the normal approximation of a trial resample's
    mean (``stats.summary_two_level_interval``). A result without per-question figures
    has no interval (NaN bounds, 0 resamples)."""
    from hyoka.stats import Interval, summary_two_level_interval

    questions = result.get("questions")
    score = float(result["score"])
    if not isinstance(questions, dict) or not questions:
        return Interval(score, math.nan, math.nan, confidence, 0)
    import numpy as np

    means = np.array([float(q["score"]) for q in questions.values()])
    spread = np.array([float(q.get("score_std", 0.0)) for q in questions.values()])
    trials = max(int(result.get("num_trials", 1)), 1)
    return summary_two_level_interval(
        means, spread, trials, score, resamples=resamples, confidence=confidence, seed=seed
    )


class UnusableResultError(InputError):
    """A ``result.json`` no reader may show (``run_result_problem``): the file and the
    ``reason``, for callers that word the line their own way (a leaderboard skips it)."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


@dataclass(frozen=True)
class RunSummary:
    """A run's headline numbers; ``score_sem`` is ``score_std / sqrt(num_trials)``.

    ``signature`` is ``None`` for results hyoka did not write (upstream's own files).
    """

    folder: Path
    model: str
    mode: str
    num_trials: int
    score: float
    score_std: float
    length: float
    length_std: float
    fluency: float
    truthfulness: float
    helpfulness: float
    signature: Signature | None = None
    #: questions the result covers (``None``: the result does not list them)
    questions: int | None = None
    #: the benchmark data it was scored with (``pfgen@1a2b3c4d``, ``+custom`` when not the
    #: pinned release; ``None``: the result records no data identity)
    data: str | None = None
    #: the model name exactly as the result's config records it (``None``: none recorded);
    #: upstream's README labels a row with this, where ``model`` may add the organisation
    config_model: str | None = None

    @property
    def complete(self) -> bool:
        """Whether the run answered every question (unknown counts as complete)."""
        return self.questions is None or self.questions >= PFGEN_QUESTIONS

    @property
    def score_sem(self) -> float:
        return self.score_std / math.sqrt(self.num_trials) if self.num_trials > 0 else 0.0

    @property
    def incomplete(self) -> str:
        """What an incomplete run lacks, as every output shows it beside its score
        (``incomplete: 49 of 50 questions``); empty for a complete run."""
        if self.complete:
            return ""
        return f"incomplete: {self.questions} of {PFGEN_QUESTIONS} questions"

    @property
    def label(self) -> str:
        """The model, with its prompt mode when known: ``org/model (chat)``, and what is
        missing when the run is incomplete."""
        label = self.model if self.mode == "?" else f"{self.model} ({self.mode})"
        if not self.complete:
            label += f" [{self.incomplete}]"
        return label

    @classmethod
    def from_result(
        cls, folder: Path, result: dict[str, Any], root: Path | None = None
    ) -> RunSummary:
        """The summary of ``result``, found in ``folder`` under the folder the user named
        (``root``; see ``model_name``); an ``UnusableResultError`` naming its file when it
        is not a pfgen-bench result, a number lies outside its range, its signature
        contradicts it, or the answers in ``folder`` changed since (``run_result_problem``)."""
        where = folder / pfgen_runs.RESULT_FILE
        problem = run_result_problem(folder, result)
        if problem is not None:
            raise UnusableResultError(where, problem)
        config = result.get("config") or {}
        scores = result["scores"]
        questions = result.get("questions")
        return cls(
            folder=folder,
            model=model_name(folder, config, root),
            mode=str(config.get("mode", "?")),
            num_trials=int(result["num_trials"]),
            score=_unsigned(result["score"]),
            score_std=_unsigned(result["score_std"]),
            length=_unsigned(result["length"]),
            length_std=_unsigned(result["length_std"]),
            fluency=_unsigned(float_sum(scores["fluency"].values())),
            truthfulness=_unsigned(float_sum(scores["truthfulness"].values())),
            helpfulness=_unsigned(scores["helpfulness"]),
            signature=signature_of(result, where),
            questions=len(questions) if isinstance(questions, dict) else None,
            data=result_data_id(result, where),
            config_model=recorded if isinstance(recorded := config.get("model"), str) else None,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "folder": str(self.folder),
            "model": self.model,
            "mode": self.mode,
            "num_trials": self.num_trials,
            "score": self.score,
            "score_std": self.score_std,
            "score_sem": self.score_sem,
            "length": self.length,
            "length_std": self.length_std,
            "fluency": self.fluency,
            "truthfulness": self.truthfulness,
            "helpfulness": self.helpfulness,
            "signature": None if self.signature is None else self.signature.line,
            "data": self.data,
            "questions": self.questions,
            "complete": self.complete,
            "incomplete": self.incomplete or None,
        }


def model_name(folder: Path, config: dict[str, Any], root: Path | None = None) -> str:
    """The model a run is labelled with: the name its ``config.json`` records.

    Where a run keeps upstream's ``<org>/<model>/<7-hex hash>/`` layout, upstream's configs
    of API models name the model without its organisation (``chatgpt-4o-latest`` in
    ``openai/chatgpt-4o-latest/``), and the public leaderboard shows ``org/model``: so the
    organisation folder is added, but only when it lies inside ``root``, the folder the user
    named. A folder above it (``results/`` in ``results/fake/<hash>``) is the user's choice of
    place, never part of the name. A run without a recorded name falls back to its folders.
    """
    model = config.get("model")
    upstream_layout = bool(re.fullmatch(r"[0-9a-f]{7}", folder.name))
    org = folder.parent.parent
    org_inside_root = root is not None and org != root and org.is_relative_to(root)
    if isinstance(model, str) and model.strip():
        if "/" not in model and upstream_layout and folder.parent.name == model:
            return f"{org.name}/{model}" if org_inside_root else model
        return model
    if upstream_layout and org.name:
        return f"{org.name}/{folder.parent.name}"
    return folder.name
