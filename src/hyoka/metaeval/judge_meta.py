"""A leaderboard of judges: how far each judge's numbers can be trusted, from data at hand.

One row per suite and judge, and where a judge used several templates (judge prompts:
FastChat's ``single-v1``, ``single-math-v1``, ``single-v1-multi-turn`` ...; ``pair-v2``
...) one more per template, as alpaca_eval's leaderboard of judges has a row per annotator
config; the judge's row then says ``(all)`` and holds every template's grades. A template's
row is compared with the reference on the items the reference graded with the same
template. A suite is the benchmark (and variant) a judgment file belongs to
(``judged_suite``: its manifest's, else the registry's by its folder's name), its lines
checked as the leaderboard checks them; where no benchmark is known the notes say so, and
no number is computed against a guessed scale:

- faults, counted and named: grades missing (``null``, FastChat's -1, a pairwise game
  without a verdict) and grades off the suite's scale (outside it, or not a whole
  number), which are kept out of every statistic below and never clamped;
- against a reference (human labels given as a judge, else a reference judge: the first
  of ``--reference`` grading the suite, by default the judge of the suite that shares the
  most graded items with the others, on the scale): on the items
  both graded on the scale, exact agreement and quadratic-weighted kappa (intervals
  resample models), and over the models both graded, Spearman and Kendall's τ-b of the
  models' mean grades over those shared items (intervals resample models);
- from both-order pairwise data: order consistency (the two orders name the same winner,
  ``judge.order_agreement``) and position bias (the share of decisive games won by the
  answer shown first; 0.5 is none), intervals resampling questions; a game judged again
  (the same question and answers in the same order) counts once here and in length bias,
  as its first judgment: the second is a repeat;
- length bias where the answers are at hand: the probability that the longer answer (in
  characters: Japanese has no whitespace words) is preferred, among decisive comparisons
  of answers of different lengths (single grades: two models' answers to one item graded
  differently), intervals resampling questions;
- repeats: the same game (question and both answers in the same order), or the same
  answer's turn (model, question, turn, trial) graded, judged more than once; how many of
  those got different verdicts, the share that got the same one (intervals resample the
  repeated items), and for grades the mean within-item standard deviation (alpaca_eval's
  "variance"; ``ddof=1``, over the repeated items with two grades on the scale). Where
  nothing was judged twice, or the data cannot show it, the cells stay empty and the notes
  say why, never a zero;
- tokens and price per 100 judge calls where the lines carry token counts (and the user
  gives prices); otherwise unknown, never estimated.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any, ClassVar, Literal, TypedDict

import numpy as np
import numpy.typing as npt

from hyoka.errors import InputError
from hyoka.judge import DRY_RUN, cost_usd, order_agreement, orders_agree
from hyoka.metaeval.judge_scores import (
    LEGACY_PREFIX,
    NO_TEMPLATE,
    PairTable,
    ScoreTable,
    Sources,
    on_scale,
)
from hyoka.mtbench import PairJudgmentLine
from hyoka.printable import csv_text, markdown_cell, one_line
from hyoka.providers import Usage
from hyoka.signature import Signature, SignatureType
from hyoka.stats import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    Interval,
    grouped_share,
    rank_correlations,
    scale_agreement,
)
from hyoka.store import json_text

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]
#: the fewest models a rank correlation is computed over
MIN_MODELS = 3
#: how the reference judge is chosen when none is named
DEFAULT_REFERENCE = "most-shared"
#: the template of a judge's row over all its templates (where it used several)
ALL_TEMPLATES = "(all)"


@dataclass(frozen=True, kw_only=True)
class JudgeMetaSignature(SignatureType):
    """How the judge table was computed: the reference rule (the judges named, in order,
    or ``most-shared``), the bootstrap's resamples and seed. numpy's version is recorded:
    the intervals come from its seeded ``Generator``."""

    kind: ClassVar[str] = "judge-meta"
    packages: ClassVar[tuple[str, ...]] = ("numpy",)
    reference: tuple[str, ...]
    resamples: int
    seed: int


class _Bootstrap(TypedDict):
    resamples: int
    confidence: float
    seed: int


@dataclass(frozen=True)
class JudgeMetaSettings:
    #: reference judges, the first that grades a suite is its reference; none: most-shared
    reference: tuple[str, ...] = ()
    resamples: int = DEFAULT_RESAMPLES
    seed: int = DEFAULT_SEED
    confidence: float = 0.95
    #: USD per million prompt / completion tokens (the user's), for the price column
    price_in: float = 0.0
    price_out: float = 0.0

    def bootstrap(self) -> _Bootstrap:
        """The keyword arguments every interval takes."""
        return {"resamples": self.resamples, "confidence": self.confidence, "seed": self.seed}

    def signature(self) -> Signature:
        return JudgeMetaSignature(
            reference=self.reference or (DEFAULT_REFERENCE,),
            resamples=self.resamples,
            seed=self.seed,
        ).signature()


@dataclass
class JudgeRow:
    """One judge (and template) on one suite; ``None``: not measurable from this data.
    ``breakdown``: one template's row of a judge that used several (its ``(all)`` row is
    the judge's). ``judge`` is the one that answered (``judge.judged_by``); ``dry_run``:
    a script, its grades or verdicts no model's judgment (marked where the row is shown)."""

    source: str
    suite: str
    judge: str
    template: str = NO_TEMPLATE
    models: int = 0
    judgments: int = 0
    missing: int = 0
    off_scale: int | None = None
    off_scale_values: dict[str, int] = field(default_factory=dict)
    legacy_models: int = 0
    mean: float | None = None
    reference: str | None = None
    shared_items: int = 0
    shared_models: int = 0
    exact: Interval | None = None
    kappa: Interval | None = None
    spearman: Interval | None = None
    kendall: Interval | None = None
    first_position: Interval | None = None
    decisive_games: int = 0
    consistency: Interval | None = None
    consistency_pairs: int = 0
    longer_preferred: Interval | None = None
    length_comparisons: int = 0
    repeats: int | None = None
    repeats_differing: int | None = None
    repeat_agreement: Interval | None = None
    repeat_sd: Interval | None = None
    tokens_per_100: float | None = None
    price_per_100: float | None = None
    kind: Literal["single", "pairwise"] = "single"
    breakdown: bool = False
    dry_run: bool = False

    @property
    def shows_bias(self) -> bool:
        """Whether the row belongs in the table of order, position, length and repeats:
        every pairwise row, and the rows of grades whose lengths or repeats are at hand."""
        return self.kind == "pairwise" or bool(self.length_comparisons or self.repeats)

    @property
    def named(self) -> str:
        """The judge where the row is shown, marked where it is a script (a dry run)."""
        return f"{self.judge} ({DRY_RUN})" if self.dry_run else self.judge

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {}
        for name, value in vars(self).items():
            data[name] = value.to_json() if isinstance(value, Interval) else value
        return data


@dataclass(frozen=True)
class JudgeMeta:
    """The rows, the faults of the data (kept out of every number) and the notes (why a
    cell is empty)."""

    rows: list[JudgeRow]
    faults: list[str]
    signature: Signature
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "rows": [row.to_json() for row in self.rows],
            "faults": self.faults,
            "notes": self.notes,
            "signature": str(self.signature),
        }


# --- single grades ----------------------------------------------------------------------


@dataclass(frozen=True)
class _Slice:
    """One judge's grades on one suite: row indices into the table, sorted by item key."""

    rows: IntArray
    key: IntArray  # model * items + item


def _slices(table: ScoreTable) -> dict[tuple[int, int], _Slice]:
    order = np.lexsort((table.item, table.model, table.judge, table.suite))
    suite, judge = table.suite[order], table.judge[order]
    starts = np.flatnonzero(
        np.concatenate(([True], (suite[1:] != suite[:-1]) | (judge[1:] != judge[:-1])))
    )
    ends = np.append(starts[1:], len(order))
    slices: dict[tuple[int, int], _Slice] = {}
    for start, end in zip(starts, ends, strict=True):
        rows = order[start:end]
        key = table.model[rows] * len(table.items) + table.item[rows]
        slices[int(table.suite[rows[0]]), int(table.judge[rows[0]])] = _Slice(rows, key)
    return slices


def _value_text(value: float) -> str:
    """A grade as written: a whole number without a decimal point (``1e+308`` beyond
    15 digits), else as Python prints it (``inf``, ``7.5``)."""
    if not np.isfinite(value):
        return str(value)
    if value == int(value):
        return str(int(value)) if abs(value) < 1e15 else f"{value:g}"
    return str(value)


def _shared(
    table: ScoreTable, first: _Slice, second: _Slice, valid: BoolArray
) -> tuple[IntArray, IntArray]:
    """Row indices of the items both graded on the scale, aligned."""
    _, at_first, at_second = np.intersect1d(
        first.key, second.key, assume_unique=True, return_indices=True
    )
    a, b = first.rows[at_first], second.rows[at_second]
    keep = valid[a] & valid[b]
    return a[keep], b[keep]


def _grades(count: int) -> str:
    return f"{count} grade" if count == 1 else f"{count} grades"


def _choose_reference(
    table: ScoreTable,
    judges: list[int],
    slices: Mapping[int, _Slice],
    valid: BoolArray,
    named: tuple[str, ...],
) -> int | None:
    if named:
        present = [table.judges.index(n) for n in named if n in table.judges]
        return next((code for code in present if code in judges), None)
    shared: Counter[int] = Counter(dict.fromkeys(judges, 0))
    for x, y in combinations(judges, 2):
        count = len(_shared(table, slices[x], slices[y], valid)[0])
        shared[x] += count
        shared[y] += count
    if not shared:
        return None
    return max(judges, key=lambda judge: (shared[judge], -judges.index(judge)))


def _compact(codes: IntArray, names: Sequence[str]) -> tuple[IntArray, int]:
    """The codes present, renumbered 0..k-1 in the order of their ``names``.

    A table numbers names in the order it first saw them, which depends on what else was
    read beside (another table, another judge's folder); the bootstrap draws clusters by
    these numbers, so numbering by name keeps each interval the same whatever else is read.
    """
    unique, inverse = np.unique(codes, return_inverse=True)
    by_name = np.argsort(np.array([names[code] for code in unique], dtype=object), kind="stable")
    rank = np.empty(len(unique), dtype=np.int64)
    rank[by_name] = np.arange(len(unique), dtype=np.int64)
    return rank[inverse.reshape(-1)], len(unique)


def _length_bias(
    table: ScoreTable, rows: IntArray, settings: JudgeMetaSettings
) -> tuple[Interval | None, int]:
    """Among pairs of answers to one item graded differently and of different lengths,
    the share where the longer got the higher grade (intervals resample items)."""
    rows = rows[np.isfinite(table.length[rows])]
    if len(rows) < 2:
        return None, 0
    items, count = _compact(table.item[rows], table.items)
    hits = np.zeros(count)
    counted = np.zeros(count)
    order = np.argsort(items, kind="stable")
    bounds = np.flatnonzero(np.diff(items[order])) + 1
    for group in np.split(order, bounds):
        score, length = table.score[rows[group]], table.length[rows[group]]
        by_score = np.sign(score[:, None] - score[None, :])
        by_length = np.sign(length[:, None] - length[None, :])
        upper = np.triu(np.ones_like(by_score, dtype=bool), k=1)
        decided = upper & (by_score != 0) & (by_length != 0)
        index = items[group[0]]
        counted[index] = decided.sum()
        hits[index] = (decided & (by_score == by_length)).sum()
    total = int(counted.sum())
    if not total:
        return None, 0
    interval = grouped_share(
        hits, counted, np.arange(count, dtype=np.int64), resamples=settings.resamples,
        confidence=settings.confidence, seed=settings.seed,
    )  # fmt: skip
    return interval, total


def _agreement(
    row: JudgeRow,
    table: ScoreTable,
    pair: tuple[IntArray, IntArray],
    scale: tuple[int, int] | None,
    settings: JudgeMetaSettings,
) -> None:
    a, b = pair
    row.shared_items = len(a)
    if not len(a):
        return
    first, second = table.score[a], table.score[b]
    models, count = _compact(table.model[a], table.models)
    if scale is not None:
        low, high = scale
        codes = ((first - low).astype(np.int64), (second - low).astype(np.int64))
        categories, steps = high - low + 1, None
    else:  # the whole numbers seen, each a code, weighted by their values (any size)
        seen = np.unique(np.concatenate([first, second]))
        codes = (np.searchsorted(seen, first), np.searchsorted(seen, second))
        spread = float(seen[-1] - seen[0]) or 1.0
        categories, steps = len(seen), (seen - seen[0]) / spread
    agreement = scale_agreement(
        codes[0], codes[1], models, categories, steps=steps, resamples=settings.resamples,
        confidence=settings.confidence, seed=settings.seed,
    )  # fmt: skip
    row.exact, row.kappa = agreement.exact, agreement.kappa
    row.shared_models = count
    if count >= MIN_MODELS:
        sizes = np.bincount(models, minlength=count)
        own, theirs = _model_means(first, models, sizes), _model_means(second, models, sizes)
        options = settings.bootstrap()
        if np.ptp(own) > 0 and np.ptp(theirs) > 0:
            ranks = rank_correlations(own, theirs, **options)
            row.spearman, row.kendall = ranks.spearman, ranks.kendall


def _model_means(grades: FloatArray, models: IntArray, sizes: IntArray) -> FloatArray:
    """Each model's mean grade; where a sum overflows (grades near 1e308 on an unknown
    scale), the means scaled by the largest grade, which keeps their order (all the rank
    correlations read)."""
    with np.errstate(over="ignore", invalid="ignore"):
        means: FloatArray = np.bincount(models, weights=grades, minlength=len(sizes)) / sizes
        if np.isfinite(means).all():
            return means
        largest = float(np.max(np.abs(grades)))
        scaled = np.bincount(models, weights=grades / largest, minlength=len(sizes))
        return np.asarray(scaled / sizes, dtype=np.float64)


def mean_grade(grades: FloatArray) -> float:
    """The mean of ``grades`` without overflow: each divided by their count first where
    their sum would not be finite."""
    with np.errstate(over="ignore", invalid="ignore"):
        mean = float(grades.mean())
        return mean if np.isfinite(mean) else float(np.sum(grades / len(grades)))


def _spread(grades: FloatArray) -> float:
    """The standard deviation (``ddof=1``) of one item's grades, without overflow (scaled
    by the largest where the squares would not be finite)."""
    with np.errstate(over="ignore", invalid="ignore"):
        spread = float(np.std(grades, ddof=1))
        if np.isfinite(spread):
            return spread
        largest = float(np.max(np.abs(grades)))
        return float(np.std(grades / largest, ddof=1)) * largest


def _subset(part: _Slice, keep: BoolArray) -> _Slice:
    return _Slice(part.rows[keep], part.key[keep])


def _repeat_statistics(
    row: JudgeRow,
    table: ScoreTable,
    rows: IntArray,
    scale: tuple[int, int] | None,
    settings: JudgeMetaSettings,
) -> None:
    """The items of ``rows`` graded more than once: how many, how many got differing
    grades, the share that got the same grade each time and the mean within-item
    standard deviation (over the items with two grades or more on the scale; intervals
    resample those items)."""
    mine = np.isin(table.repeat_of, rows)
    of, again = table.repeat_of[mine], table.repeat_score[mine]
    repeated = np.unique(of)
    row.repeats = len(repeated)
    if not len(repeated):
        return
    firsts = table.score[repeated]
    grades = [
        np.concatenate(([first], again[of == index]))
        for index, first in zip(repeated, firsts, strict=True)
    ]
    graded = [group[on_scale(group, scale)] for group in grades]
    row.repeats_differing = sum(len(np.unique(group)) > 1 for group in grades)
    kept = [group for group in graded if len(group) > 1]
    if not kept:
        return
    items = np.arange(len(kept), dtype=np.int64)
    ones = np.ones(len(kept))
    same = np.asarray([float(np.ptp(group) == 0) for group in kept])
    spread = np.asarray([_spread(group) for group in kept])
    row.repeat_agreement = grouped_share(same, ones, items, **settings.bootstrap())
    row.repeat_sd = grouped_share(spread, ones, items, **settings.bootstrap())


def _single_row(
    table: ScoreTable,
    suite: str,
    judge: int,
    template: str,
    pair: tuple[_Slice, _Slice | None],
    valid: BoolArray,
    legacy: BoolArray,
    settings: JudgeMetaSettings,
) -> JudgeRow:
    """One judge's row (or one template's) on one suite; ``pair``: its grades and the
    reference's (on the same template), ``None`` where it is the reference or none."""
    mine, reference = pair
    scale = table.scales.get(suite)
    indices = mine.rows
    score = table.score[indices]
    off = indices[~valid[indices] & np.isfinite(score)]
    row = JudgeRow(
        source=table.origin.get(table.judges[judge], "-"), suite=suite,
        judge=table.judges[judge], template=template,
        dry_run=table.judges[judge] in table.dry_runs,
        models=len(np.unique(table.model[indices])), judgments=len(indices),
        missing=int(np.isnan(score).sum()), off_scale=len(off) if scale is not None else None,
        off_scale_values=dict(sorted(Counter(map(_value_text, table.score[off])).items())),
        legacy_models=len(np.unique(table.model[indices[legacy[table.item[indices]]]])),
    )  # fmt: skip
    good = indices[valid[indices]]
    row.mean = mean_grade(table.score[good]) if len(good) else None
    row.longer_preferred, row.length_comparisons = _length_bias(table, good, settings)
    if table.judges[judge] in table.repeats_seen:
        _repeat_statistics(row, table, indices, scale, settings)
    if reference is not None:
        _agreement(row, table, _shared(table, mine, reference, valid), scale, settings)
    return row


def _single_faults(row: JudgeRow, scale: tuple[int, int] | None) -> list[str]:
    where = f"{row.suite}, {row.judge}"
    faults = []
    if row.missing:
        faults.append(f"{where}: {_grades(row.missing)} missing (null / no rating)")
    if row.off_scale and scale is not None:
        seen = ", ".join(f"{v} ×{n}" for v, n in row.off_scale_values.items())
        low, high = scale
        faults.append(f"{where}: {_grades(row.off_scale)} off the {low}-{high} scale ({seen})")
    if row.legacy_models:
        faults.append(
            f"{where}: {row.legacy_models} models on the older question file "
            f"(items {LEGACY_PREFIX}*, not merged with the current ids)"
        )
    return faults


def _repeat_note(row: JudgeRow) -> str | None:
    """Why the repeat cells of a judge whose lines could hold repeats are empty
    (``None``: they are not)."""
    where = f"{row.suite}, {row.judge}"
    if not row.repeats:
        return f"{where}: no variance across repeats: no item was graded twice"
    if row.repeat_sd is None:
        return f"{where}: no variance across repeats: no item has two grades on the scale"
    return None


def score_rows(
    table: ScoreTable, settings: JudgeMetaSettings
) -> tuple[list[JudgeRow], list[str], list[str]]:
    """The rows of every suite, judge and template of a table of single grades, its faults
    and the notes on the empty repeat cells."""
    slices = _slices(table)
    valid = np.zeros(table.size, dtype=bool)
    for suite_code, suite in enumerate(table.suites):
        in_suite = table.suite == suite_code
        valid[in_suite] = on_scale(table.score[in_suite], table.scales.get(suite))
    legacy = np.asarray([item.startswith(LEGACY_PREFIX) for item in table.items])
    rows: list[JudgeRow] = []
    faults: list[str] = []
    notes: list[str] = []
    unseen: dict[str, list[str]] = {}  # source -> its judges, whose repeats cannot show
    for suite_code, suite in enumerate(table.suites):
        scale = table.scales.get(suite)
        judges = sorted(
            (j for s, j in slices if s == suite_code), key=lambda code: table.judges[code]
        )
        mine = {judge: slices[suite_code, judge] for judge in judges}
        reference = _choose_reference(table, judges, mine, valid, settings.reference)
        if scale is None:
            notes.append(f"{suite}: no benchmark hyoka defines (no hyoka manifest names one, "
                         "nor does its name), so its scale is unknown: off-scale grades not "
                         "counted, kappa over the whole numbers seen")  # fmt: skip
        for judge in judges:
            whole = mine[judge]
            theirs = None if reference in (None, judge) else mine[reference]
            used = np.unique(table.template[whole.rows])
            name = ALL_TEMPLATES if len(used) > 1 else table.templates[used[0]]
            row = _single_row(table, suite, judge, name, (whole, theirs), valid, legacy, settings)
            faults += _single_faults(row, scale)
            if table.judges[judge] not in table.repeats_seen:
                unseen.setdefault(row.source, []).append(row.judge)
            elif note := _repeat_note(row):
                notes.append(note)
            parts = [row]
            for code in sorted(used, key=lambda c: table.templates[c]) if len(used) > 1 else []:
                own = _subset(whole, table.template[whole.rows] == code)
                other = (
                    None if theirs is None else _subset(theirs, table.template[theirs.rows] == code)
                )
                part = _single_row(
                    table, suite, judge, table.templates[code], (own, other), valid, legacy,
                    settings,
                )  # fmt: skip
                part.breakdown = True
                parts.append(part)
            for part in parts:
                if reference is not None:
                    part.reference = (
                        "(reference)" if judge == reference else table.judges[reference]
                    )
            rows += parts
    tables = [
        f"{source} ({', '.join(dict.fromkeys(judges))}): no variance across repeats: a table "
        "of grades holds one grade per item (a second is refused), so a repeat cannot show"
        for source, judges in unseen.items()
    ]
    return rows, faults, tables + notes


# --- pairwise, both orders --------------------------------------------------------------


#: where a game's winner was shown, by the letter the judge wrote in that game (A: the
#: answer shown first; ``None``: no verdict)
Position = Literal["first", "second", "tie", "error"]
_POSITION: Mapping[str | None, Position] = {"A": "first", "B": "second", "C": "tie", None: "error"}


def _games(line: PairJudgmentLine) -> tuple[tuple[Position, str | None, str | None], ...]:
    """Both games of a line (``letters``: game 1 shows ``model_1``'s answer first, game 2
    ``model_2``'s): the winner's position, the answers shown first and second."""
    one, two = line.letters()
    answer_1, answer_2 = line.shown_answers()
    return (_POSITION[one], answer_1, answer_2), (_POSITION[two], answer_2, answer_1)


def _question_codes(lines: list[PairJudgmentLine]) -> IntArray:
    codes: dict[str, int] = {}
    return np.asarray(
        [codes.setdefault(str(line.question_id), len(codes)) for line in lines], dtype=np.int64
    )


def _pair_row(
    table: PairTable, template: str, lines: list[PairJudgmentLine], settings: JudgeMetaSettings
) -> JudgeRow:
    row = JudgeRow(
        source=str(table.path), suite=table.suite, judge=table.judge, template=template,
        kind="pairwise", dry_run=table.dry_run,
    )  # fmt: skip
    row.models = len({line.model_1 for line in lines} | {line.model_2 for line in lines})
    row.judgments = 2 * len(lines)
    questions = _question_codes(lines)
    options = settings.bootstrap()
    first = np.zeros(len(lines))
    decisive = np.zeros(len(lines))
    longer = np.zeros(len(lines))
    compared = np.zeros(len(lines))
    verdicts: dict[tuple[str, int, str, str], set[str]] = {}
    repeated: Counter[tuple[str, int, str, str]] = Counter()
    # only the first judgment of a game counts outside the repeat cells (the README's rule:
    # a game judged again, the same answers in the same order, is a repeat); a line whose
    # games were all judged before is a repeat of a pair, left out of order consistency
    fresh = np.ones(len(lines), dtype=bool)
    for index, line in enumerate(lines):
        seen_games = 0
        for position, shown_first, shown_second in _games(line):
            row.missing += position == "error"
            key = None
            if shown_first is not None and shown_second is not None:
                key = (str(line.question_id), line.turn, shown_first, shown_second)
                verdicts.setdefault(key, set()).add(position)
                repeated[key] += 1
                if repeated[key] > 1:
                    seen_games += 1
                    continue
            if position in ("first", "second"):
                decisive[index] += 1
                first[index] += position == "first"
            if key is None:
                continue
            if position in ("first", "second") and len(key[2]) != len(key[3]):
                compared[index] += 1
                winner_longer = (len(key[2]) > len(key[3])) == (position == "first")
                longer[index] += winner_longer
        fresh[index] = seen_games < 2
    row.decisive_games = int(decisive.sum())
    if row.decisive_games:
        row.first_position = grouped_share(first, decisive, questions, **options)
    counted = [line for line, new in zip(lines, fresh, strict=True) if new]
    both = order_agreement(line.letters() for line in counted)
    row.consistency_pairs = both.agree + both.disagree
    if row.consistency_pairs:
        agree = [orders_agree(*line.letters()) if new else None
                 for line, new in zip(lines, fresh, strict=True)]  # fmt: skip
        hits = np.asarray([a is True for a in agree], dtype=np.float64)
        known = np.asarray([a is not None for a in agree], dtype=np.float64)
        row.consistency = grouped_share(hits, known, questions, **options)
    row.length_comparisons = int(compared.sum())
    if row.length_comparisons:
        row.longer_preferred = grouped_share(longer, compared, questions, **options)
    if verdicts:
        twice = [key for key, n in repeated.items() if n > 1]
        row.repeats = len(twice)
        row.repeats_differing = sum(len(verdicts[key]) > 1 for key in twice)
        if twice:
            same = np.asarray([float(len(verdicts[key]) == 1) for key in twice])
            items = np.arange(len(twice), dtype=np.int64)
            row.repeat_agreement = grouped_share(same, np.ones(len(twice)), items, **options)
    # token counts where the line gives them (hyoka's), not the zero a line without any reads as
    usages = [line.usage for line in lines if "usage" in line.model_fields_set]
    if usages and len(usages) == len(lines):
        total = sum(usages, Usage())
        calls = row.judgments
        row.tokens_per_100 = 100 * (total.prompt_tokens + total.completion_tokens) / calls
        if settings.price_in or settings.price_out:
            row.price_per_100 = 100 * cost_usd(total, settings.price_in, settings.price_out) / calls
    return row


def pair_rows(
    tables: Iterable[PairTable], settings: JudgeMetaSettings
) -> tuple[list[JudgeRow], list[str], list[str]]:
    """Per table: one row per judge prompt, and one over all of them where there are
    several; the faults, and the notes on empty repeat cells."""
    rows: list[JudgeRow] = []
    faults: list[str] = []
    notes: list[str] = []
    for table in tables:
        by_template: dict[str, list[PairJudgmentLine]] = {}
        for line in table.lines:
            by_template.setdefault(line.judge[1], []).append(line)
        parts = [_pair_row(table, t, lines, settings) for t, lines in sorted(by_template.items())]
        if len(parts) > 1:
            for part in parts:
                part.breakdown = True
            parts.insert(0, _pair_row(table, ALL_TEMPLATES, list(table.lines), settings))
        rows += parts
        errors = sum(part.missing for part in parts if not part.breakdown)
        if errors:
            games = "1 game" if errors == 1 else f"{errors} games"
            faults.append(f"{table.suite}, {table.judge}: {games} without a verdict")
        where, row = f"{table.suite}, {table.judge}", parts[0]
        if row.repeats is None:
            notes.append(f"{where}: no variance across repeats: the lines carry no answers, "
                         "so a game judged twice cannot be told")  # fmt: skip
        elif not row.repeats:
            notes.append(f"{where}: no variance across repeats: no game was judged twice")
    return rows, faults, notes


def measure_judges(
    scores: ScoreTable | None,
    pairs: Iterable[PairTable] = (),
    settings: JudgeMetaSettings = JudgeMetaSettings(),
    absent: Iterable[str] = (),
) -> JudgeMeta:
    """The judge table over a table of single grades and pairwise tables; ``absent``:
    faults found before (sources absent), listed first."""
    rows: list[JudgeRow] = []
    faults = list(absent)
    notes: list[str] = []
    if scores is not None:
        unknown = [name for name in settings.reference if name not in scores.judges]
        if unknown:
            raise InputError(
                f"`reference` {unknown[0]!r}: no such judge; judges: "
                + ", ".join(sorted(scores.judges))
            )
        found, found_faults, found_notes = score_rows(scores, settings)
        rows += found
        faults += found_faults
        notes += found_notes
    found, found_faults, found_notes = pair_rows(pairs, settings)
    rows += found
    faults += found_faults
    notes += found_notes
    if not rows:
        raise InputError("no judgments to measure")
    return JudgeMeta(rows, faults, settings.signature(), notes)


def judge_meta(sources: Sources, settings: JudgeMetaSettings = JudgeMetaSettings()) -> JudgeMeta:
    """``hyoka judge meta``: read the sources, measure every judge in them."""
    scores, pairs = sources.read()
    absent = [f"not found: {what}" for what in sources.absent]
    return measure_judges(scores, pairs, settings, absent)


# --- output ---------------------------------------------------------------------------------

_AGREEMENT = ("suite", "judge", "template", "models", "judgments", "missing", "off_scale",
              "mean", "reference", "shared_items", "exact", "kappa", "shared_models",
              "spearman", "kendall")  # fmt: skip
_BIAS = ("suite", "judge", "template", "judgments", "missing", "consistency",
         "first_position", "longer_preferred", "length_comparisons", "repeats",
         "repeat_agreement", "repeat_sd", "tokens_per_100", "price_per_100")  # fmt: skip
_TITLES = {
    "off_scale": "off scale", "shared_items": "shared items", "exact": "exact agreement",
    "kappa": "weighted kappa", "shared_models": "shared models", "spearman": "Spearman",
    "kendall": "Kendall", "consistency": "order consistency",
    "first_position": "first position wins", "longer_preferred": "longer preferred",
    "length_comparisons": "length comparisons", "repeats": "repeats (differing)",
    "repeat_agreement": "same on repeat", "repeat_sd": "repeat SD",
    "tokens_per_100": "tokens / 100 calls", "price_per_100": "USD / 100 calls",
}  # fmt: skip


def _cell(row: JudgeRow, name: str) -> str:
    value = getattr(row, name)
    if name == "judge":
        return row.named
    if name == "repeats":
        if value is None:
            return "unknown"
        return f"{value} ({row.repeats_differing})" if value else "0"
    if name in ("tokens_per_100", "price_per_100"):
        return "unknown" if value is None else f"{value:,.4g}"
    if name == "first_position" and value is not None:
        return f"{value.format()} (n={row.decisive_games})"
    if name == "consistency" and value is not None:
        return f"{value.format()} (n={row.consistency_pairs})"
    if value is None:
        return "-"
    if isinstance(value, Interval):
        return value.format()
    if isinstance(value, float):  # a mean of grades near 1e308: in powers of ten
        return f"{value:.3f}" if abs(value) < 1e15 else f"{value:.4g}"
    return str(value)


def render_judge_meta(meta: JudgeMeta, fmt: str) -> str:
    """The table as Markdown (two tables, then the faults, the notes and the signature),
    CSV (every field, one row per judge and template) or JSON."""
    if fmt == "json":
        return json_text(meta.to_json(), indent=1)
    if fmt == "csv":
        flat = [_flat(row) for row in meta.rows]
        fields = list(flat[0])
        return csv_text([fields, *([row.get(name) for name in fields] for row in flat)])
    single = [row for row in meta.rows if row.kind == "single"]
    bias = [row for row in meta.rows if row.shows_bias]
    parts = [
        _markdown("Agreement with the reference", single, _AGREEMENT),
        _markdown("Order, position, length and repeats", bias, _BIAS),
    ]
    listed = "".join(f"- {one_line(fault)}\n" for fault in meta.faults) or "none\n"
    parts.append(f"Faults (kept out of every statistic, never clamped):\n\n{listed}")
    if meta.notes:
        notes = "".join(f"- {one_line(note)}\n" for note in meta.notes)
        parts.append(f"Notes (why a cell is empty):\n\n{notes}")
    parts.append(f"Signature: `{one_line(str(meta.signature))}`\n")
    return "\n".join(part for part in parts if part)


#: the fields that hold an interval (CSV: three columns each, empty when not measured)
_INTERVALS = ("exact", "kappa", "spearman", "kendall", "first_position", "consistency",
              "longer_preferred", "repeat_agreement", "repeat_sd")  # fmt: skip


def _flat(row: JudgeRow) -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for name, value in row.to_json().items():
        if name in _INTERVALS:
            for part in ("estimate", "low", "high"):
                flat[f"{name}_{part}"] = value[part] if value else None
        elif isinstance(value, dict):
            flat[name] = "; ".join(f"{k}:{v}" for k, v in value.items())
        else:
            flat[name] = value
    return flat


def _markdown(title: str, rows: list[JudgeRow], columns: tuple[str, ...]) -> str:
    if not rows:
        return ""
    lines = [f"### {title}\n", "| " + " | ".join(_TITLES.get(c, c) for c in columns) + " |",
             "|" + "---|" * len(columns)]  # fmt: skip
    lines += ["| " + " | ".join(markdown_cell(_cell(row, c)) for c in columns) + " |"
              for row in rows]  # fmt: skip
    return "\n".join(lines) + "\n"
