"""Rankings of models read from judgments, for ``stats.ranking_quality``: do two judges
(or a judge and a published ranking, or two trials of one judge) rank the models alike,
and how many questions does a benchmark need to tell its models apart?

Three sources of a ranking, each read by the reader that already reads it:

- **single-grade judgment files** of an MT-bench-family benchmark (FastChat's layout,
  pfmt-bench-fin-ja, Japanese MT-bench, ELYZA-tasks-100 and Shaberi's files), through
  ``build_leaderboard`` as ``hyoka mtbench leaderboard`` reads them. Each complete row's
  score is the mean of its question means, with the leaderboard's own two-level draws
  (questions, then each question's trials: ``trials.score_draws``); rows not judged on
  every turn are left out and named. Models are named as the leaderboard shows them.
- **a judge of a score table** (``judge_scores``: the Shaberi table, or any table in its
  shape): the judge's grades on one suite, a questions × models table in which a grade that
  is missing or off the suite's scale (as ``judge meta`` counts them) is left out of its
  model's mean and of every draw; the draws resample items (``mean_score_draws``). Items of
  the older ja-mt-bench file (``legacy-*``) are not the current questions and are left
  out, and with them the models graded on nothing else.
- **a published ranking** without draws: the JSON ``hyoka mtbench leaderboard --format
  json`` writes (each complete row's "overall", through ``stats.read_leaderboard``), or a
  CSV/TSV/JSON Lines table with ``model`` and ``score``.

The subsampling curve refits a ranking on k of its questions drawn without replacement:
the judgments' two-level draws over the chosen questions, or the table's draws over the
chosen items (over the models graded on every item, so that each subset ranks the same
models).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from hyoka.errors import InputError
from hyoka.judge import DRY_RUN, JudgedBy, any_dry_run, judges_json, judges_shown
from hyoka.metaeval.judge_scores import (
    LEGACY_PREFIX,
    SHABERI_TABLE,
    ScoreTable,
    on_scale,
    read_score_table,
)
from hyoka.metaeval.judgment_copies import refuse_copies
from hyoka.mtbench import (
    Bench,
    IntervalSettings,
    board_judges,
    build_leaderboard,
    display_name,
    judgment_files,
    question_cells,
    score_draws,
)
from hyoka.printable import csv_text, one_line
from hyoka.signature import SIGNATURE_KEY
from hyoka.stats import (
    BrierTies,
    RankingComparison,
    ScoreDraws,
    SeparabilityCurve,
    compare_rankings,
    mean_score_draws,
    read_leaderboard,
    separability_curve,
    two_level_draws,
)
from hyoka.store import json_text, read_rows

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
#: what the judgments' draws resample, and the table's
JUDGMENT_UNIT = "questions-then-trials"
TABLE_UNIT = "items"
#: the columns of a reference table
REFERENCE_COLUMNS = ("model", "score")


@dataclass(frozen=True)
class Ranking:
    """One ranking as read: what it was read from, the ranking, what its draws resample,
    notes on what was left out, (where it can be refitted on fewer questions) the
    question count and the refit, and the judges whose grades it ranks (``judge.judged_by``;
    a score table's judge by its name; none known for a reference table)."""

    name: str
    scores: ScoreDraws
    unit: str | None
    notes: tuple[str, ...] = ()
    questions: int = 0
    refit: Callable[[IntArray], ScoreDraws] | None = field(default=None, compare=False)
    #: the models the refit ranks (all of them, or those graded on every item)
    refit_models: tuple[str, ...] = ()
    judges: tuple[JudgedBy, ...] = ()

    @property
    def shown(self) -> str:
        """Its name where it is shown, marked where a script made its grades."""
        return f"{self.name} ({DRY_RUN})" if any_dry_run(self.judges) else self.name


def judgments_rankings(
    bench: Bench, paths: Sequence[Path], settings: IntervalSettings
) -> list[Ranking]:
    """The rankings of the single-grade judgments at each of ``paths``, in order; a line
    of one that is a judgment of another (a copy, its judge renamed or not:
    ``judgment_copies``) is refused, not ranked as a second judge agreeing perfectly."""
    shaberi = bench.spec.question_format.upstream_judgments
    refuse_copies(paths, [judgment_files([path], shaberi=shaberi) for path in paths])
    return [judgments_ranking(bench, path, settings) for path in paths]


def judgments_ranking(
    bench: Bench, path: Path, settings: IntervalSettings, *, mix_variants: bool = False
) -> Ranking:
    """The complete rows of the single-grade judgments at ``path`` (a file or a folder)."""
    files = judgment_files([path], shaberi=bench.spec.question_format.upstream_judgments)
    board = build_leaderboard(bench, files, mix_variants=mix_variants)
    drawn = score_draws(board, settings=settings)
    by_name = {model.model: model for model in board.models}
    shown = tuple(display_name(model, bench) for model in drawn.models)
    scores = ScoreDraws(shown, drawn.estimate, drawn.draws)
    notes = [
        f"{display_name(m.model, bench)}: {m.judged} of {board.expected(m)} turns judged, "
        "left out (incomplete)"
        for m in board.incomplete()
    ]
    cells = [question_cells(by_name[model]) for model in drawn.models]
    questions = sorted(set().union(*cells)) if cells else []
    partial = [name for name, own in zip(shown, cells, strict=True) if len(own) < len(questions)]
    if partial:
        notes.append(
            f"{len(partial)} model(s) without a rated turn on some question ({partial[0]}, "
            "…): their refits on fewer questions draw only the questions they have"
        )

    def refit(chosen: IntArray) -> ScoreDraws:
        ids = [questions[int(k)] for k in chosen]
        estimates, columns = [], []
        for own in cells:
            groups = [own[q] for q in ids if q in own]
            if not groups:
                raise InputError("a model has no rated turn on the questions drawn")
            estimates.append(float(np.mean([group.mean() for group in groups])))
            columns.append(
                two_level_draws(groups, resamples=settings.resamples, seed=settings.seed)
            )
        return ScoreDraws(shown, np.asarray(estimates), np.stack(columns, axis=1))

    return Ranking(
        name=str(path), scores=scores, unit=JUDGMENT_UNIT, notes=tuple(notes),
        questions=len(questions), refit=refit if cells else None, refit_models=shown,
        judges=tuple(board_judges(board)),
    )  # fmt: skip


def _match(name: str, choices: Sequence[str], what: str, flag: str) -> str:
    """``name`` among ``choices``: exactly, else the one that contains it (any case)."""
    if name in choices:
        return name
    found = [c for c in choices if name.lower() in c.lower()]
    if len(found) == 1:
        return found[0]
    listed = ", ".join(choices)
    if not found:
        raise InputError(f"{flag} {name}: no such {what} (there are: {listed})")
    raise InputError(f"{flag} {name}: more than one {what} matches ({', '.join(found)})")


def score_table_path(given: Path | None, data_dir: Path) -> Path:
    """The score table the judges are read from: ``given``, else the Shaberi table in the
    data directory (said how to get where it is absent)."""
    path = given if given is not None else data_dir / SHABERI_TABLE
    if not path.is_file():
        how = (
            ""
            if given is not None
            else (
                " (a table derived from shisa-ai/shaberi: `hyoka data fetch shaberi-judgments "
                "--with-published` says how it is made)"
            )
        )
        raise InputError(f"`scores` {path}: no such file{how}")
    return path


def table_rankings(
    path: Path, judges: Sequence[str], suite: str | None, settings: IntervalSettings
) -> list[Ranking]:
    """Each of ``judges``' grades on ``suite`` (optional where a judge graded one suite)
    from the score table at ``path``, read once."""
    table = read_score_table(path)
    return [_table_ranking(table, judge, suite, settings) for judge in judges]


def _table_ranking(
    table: ScoreTable, judge: str, suite: str | None, settings: IntervalSettings
) -> Ranking:
    chosen_judge = _match(judge, table.judges, "judge in the table", "`judge`")
    judge_code = table.judges.index(chosen_judge)
    graded = sorted({table.suites[s] for s in np.unique(table.suite[table.judge == judge_code])})
    if suite is None:
        if len(graded) != 1:
            raise InputError(
                f"`judge` {chosen_judge} graded {len(graded)} suites ({', '.join(graded)}): "
                "name one with `suite`"
            )
        chosen_suite = graded[0]
    else:
        chosen_suite = _match(suite, graded, f"suite graded by {chosen_judge}", "`suite`")
    rows = np.flatnonzero(
        (table.judge == judge_code) & (table.suite == table.suites.index(chosen_suite))
    )
    legacy = np.asarray([table.items[i].startswith(LEGACY_PREFIX) for i in table.item[rows]])
    notes = []
    if legacy.any():
        dropped = len(set(table.model[rows[legacy]]) - set(table.model[rows[~legacy]]))
        notes.append(
            f"{int(legacy.sum())} grades on the older question file ({LEGACY_PREFIX}* items) "
            f"left out; {dropped} model(s) graded on nothing else"
        )
        rows = rows[~legacy]
    score = table.score[rows]
    valid = on_scale(score, table.scales.get(chosen_suite))
    if (~valid).any():
        notes.append(
            f"{int((~valid).sum())} grades missing or off the scale, left out of their "
            "models' means"
        )
    models, model_at = np.unique(table.model[rows], return_inverse=True)
    items, item_at = np.unique(table.item[rows], return_inverse=True)
    grid = np.full((len(items), len(models)), np.nan)
    grid[item_at[valid], model_at[valid]] = score[valid]
    names = [table.models[m] for m in models]
    present = np.isfinite(grid).any(axis=0)
    if (~present).any():
        notes.append(f"{int((~present).sum())} model(s) without a valid grade, left out")
        grid, names = grid[:, present], [n for n, p in zip(names, present, strict=True) if p]
    scores = mean_score_draws(grid, names, resamples=settings.resamples, seed=settings.seed)
    complete = np.isfinite(grid).all(axis=0)
    whole_names = tuple(n for n, c in zip(names, complete, strict=True) if c)
    whole = grid[:, complete]

    def refit(chosen: IntArray) -> ScoreDraws:
        return mean_score_draws(
            whole[chosen], whole_names, resamples=settings.resamples, seed=settings.seed
        )

    return Ranking(
        name=f"{chosen_judge} on {chosen_suite}", scores=scores, unit=TABLE_UNIT,
        notes=tuple(notes), questions=len(items), refit=refit if whole_names else None,
        refit_models=whole_names, judges=(JudgedBy(chosen_judge, recorded=False),),
    )  # fmt: skip


def reference_ranking(path: Path) -> Ranking:
    """A published ranking without draws: a leaderboard JSON (with the judges its rows
    name) or a model,score table."""
    judges: tuple[JudgedBy, ...] = ()
    if path.suffix.lower() == ".json":
        board = read_leaderboard(path, mix_variants=True)
        judges = tuple(JudgedBy.from_json(judge) for judge in board.judged_by)
        models = list(board.rows)
        scores = [board.rows[m].score for m in models]
        notes = [f"{model}: left out ({why})" for model, why in board.left_out]
    else:
        models, scores, notes = [], [], []
        for where, row in read_rows(path):
            model, value = row.get(REFERENCE_COLUMNS[0]), row.get(REFERENCE_COLUMNS[1])
            if not isinstance(model, str) or not model.strip():
                raise InputError(f"{where}: a reference row needs 'model' and 'score'")
            try:
                number = math.nan if isinstance(value, bool) else float(str(value))
            except ValueError:
                number = math.nan
            if not math.isfinite(number):
                raise InputError(f"{where}: score {value!r} is not a number")
            if model.strip() in models:
                raise InputError(f"{where}: model {model.strip()!r} is there twice")
            models.append(model.strip())
            scores.append(number)
    if not models:
        raise InputError(f"`reference` {path}: no ranked model")
    return Ranking(str(path), ScoreDraws.points(models, scores), None, tuple(notes), judges=judges)


@dataclass(frozen=True)
class RankingsReport:
    """Two rankings compared (``ranking`` against ``reference``) over the models both
    rank, and the models only one of them ranks."""

    ranking: Ranking
    reference: Ranking
    comparison: RankingComparison
    only_ranking: tuple[str, ...]
    only_reference: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "ranking": self.ranking.name,
            "reference": self.reference.name,
            "only_in_ranking": list(self.only_ranking),
            "only_in_reference": list(self.only_reference),
            "notes": {
                self.ranking.name: list(self.ranking.notes),
                self.reference.name: list(self.reference.notes),
            },
            "judged_by": {
                "ranking": judges_json(self.ranking.judges),
                "reference": judges_json(self.reference.judges),
            },
            "dry_run": {
                "ranking": any_dry_run(self.ranking.judges),
                "reference": any_dry_run(self.reference.judges),
            },
            **self.comparison.to_json(),
        }


def rankings_report(
    ranking: Ranking,
    reference: Ranking,
    settings: IntervalSettings,
    *,
    brier_ties: BrierTies = "upstream",
) -> RankingsReport:
    """``compare_rankings`` of the two, the correlations' draws by ``settings``;
    ``brier_ties``: the Brier score's rule for a pair the reference ties."""
    own, theirs = set(ranking.scores.models), set(reference.scores.models)
    if len(own & theirs) < 3:
        raise InputError(
            f"{ranking.name} and {reference.name} rank {len(own & theirs)} model(s) in "
            "common; comparing rankings needs at least three (models are matched by the "
            "names the leaderboard shows)"
        )
    comparison = compare_rankings(
        ranking.scores, reference.scores, settings.confidence,
        resamples=settings.resamples, seed=settings.seed, unit=ranking.unit or "none",
        brier_ties=brier_ties,
    )  # fmt: skip
    return RankingsReport(
        ranking, reference, comparison,
        tuple(m for m in ranking.scores.models if m not in theirs),
        tuple(m for m in reference.scores.models if m not in own),
    )  # fmt: skip


def _share(value: float | None) -> str:
    return "n/a" if value is None or not math.isfinite(value) else f"{value:.1%}"


def _plain(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None or not math.isfinite(value) else f"{value:.{digits}f}"


def _statistics(report: RankingsReport) -> list[tuple[str, str, str]]:
    """(statistic, value, what it needs and means) rows."""
    c = report.comparison
    needs = "needs the reference's draws; it has point scores only"
    return [
        ("models compared", str(len(c.models)),
         f"{len(report.only_ranking)} only in the ranking, {len(report.only_reference)} "
         "only in the reference"),
        ("separability (ranking)", _share(c.separability),
         "share of model pairs whose intervals do not overlap"),
        ("separability (reference)", _share(c.reference_separability),
         "share of model pairs whose intervals do not overlap"
         if c.reference_separability is not None else needs),
        ("agreement with confidence", _plain(c.agreement),
         "over the pairs the reference separates: +1 same order, -1 opposite, 0 not "
         "separated by the ranking; -1 to 1" if c.agreement is not None else needs),
        ("strict agreement", _share(c.strict_agreement),
         "share of all pairs both point rankings order alike"),
        ("pair-rank Brier", _plain(c.brier),
         "the ranking's normal forecast of each pair's order against the reference's; "
         "0 is perfect, 0.25 a coin" + _tied_pairs(c.brier_tied_pairs, c.brier_ties)),
        ("Spearman", c.spearman.format(), "intervals: the models drawn with replacement"),
        ("Kendall tau-b", c.kendall.format(), "intervals: the models drawn with replacement"),
        *(_judge_row(side, ranking) for side, ranking in
          (("ranking", report.ranking), ("reference", report.reference))),
    ]  # fmt: skip


def _tied_pairs(count: int, rule: BrierTies) -> str:
    """The Brier row's note on the pairs the reference ties: they have no order to
    forecast, so upstream's outcome for them ("the name that sorts first is not below")
    follows the names, not the judge; or they were left out."""
    if not count:
        return ""
    if rule == "omit":
        return f"; {count} pair(s) the reference ties left out (--brier-ties omit)"
    return (
        f"; {count} pair(s) the reference ties scored by upstream's rule (the name that sorts "
        "first is not below): their outcome depends on the models' names, not on the judge; "
        "--brier-ties omit leaves them out"
    )


def _judge_row(side: str, ranking: Ranking) -> tuple[str, str, str]:
    """(statistic, value, note) naming the judges a ranking's grades are of: a script's
    said to be a dry run; ``-`` where none is known."""
    named = "; ".join(dict.fromkeys(judge.judge for judge in ranking.judges)) or "-"
    dry = any_dry_run(ranking.judges)
    return (f"judged by ({side})", named, DRY_RUN if dry else "")


def render_rankings(report: RankingsReport, fmt: str) -> str:
    """The comparison as a Markdown table with notes, CSV rows, or JSON; a line naming
    a ranking or models holds them on one line (they come from files)."""
    if fmt == "json":
        return json_text(report.to_json(), indent=2)
    from hyoka.printable import markdown_cell  # a judge's name in a cell comes from a file

    rows = _statistics(report)
    signature = report.comparison.signature
    if fmt == "csv":
        return csv_text([("statistic", "value", "note"), *rows, ("signature", signature.line, "")])
    lines = [
        f"Ranking: {report.ranking.shown}",
        f"Reference: {report.reference.shown}",
        "",
        "| Statistic | Value | Note |",
        "|---|---|---|",
        *(f"| {name} | {markdown_cell(value)} | {note} |" for name, value, note in rows),
        "",
    ]
    for side, names in (("ranking", report.only_ranking), ("reference", report.only_reference)):
        if names:
            lines.append(f"Only in the {side}: {', '.join(names)}")
    judged = {ranking.name: ranking.judges for ranking in (report.ranking, report.reference)}
    lines += [f"{name}: judged by {judges_shown(judges)}" for name, judges in judged.items()
              if judges]  # fmt: skip
    for ranking in (report.ranking, report.reference):
        lines += [f"{ranking.name}: {note}" for note in ranking.notes]
    lines.append(f"signature: {signature.line}")
    return "".join(f"{one_line(line)}\n" for line in lines)


def default_sizes(questions: int, steps: int = 8) -> tuple[int, ...]:
    """``steps`` question counts evenly up to all ``questions`` (at least 2 each)."""
    return tuple(sorted({max(2, math.ceil(questions * k / steps)) for k in range(1, steps + 1)}))


@dataclass(frozen=True)
class CurveReport:
    """A ranking's subsampling curve and the question count a target separability needs."""

    ranking: Ranking
    curve: SeparabilityCurve
    target: float
    needed: int | None

    def to_json(self) -> dict[str, Any]:
        body = self.curve.to_json()
        return {
            "ranking": self.ranking.name,
            "questions": self.ranking.questions,
            "models": len(self.ranking.refit_models),
            "notes": list(self.ranking.notes),
            "judged_by": judges_json(self.ranking.judges),
            "dry_run": any_dry_run(self.ranking.judges),
            "target": self.target,
            "questions_needed": self.needed,
            SIGNATURE_KEY: body[SIGNATURE_KEY],
            "points": body["points"],
        }


def question_curve(
    ranking: Ranking,
    sizes: Sequence[int] | None,
    *,
    repeats: int,
    target: float,
    settings: IntervalSettings,
) -> CurveReport:
    """Separability (and agreement with the whole benchmark's ranking) as the benchmark
    keeps fewer of its questions; the fewest questions whose mean separability reaches
    ``target``."""
    if ranking.refit is None or len(ranking.refit_models) < 2:
        raise InputError(f"{ranking.name}: fewer than two models to rank on every question")
    if not 0.0 < target <= 1.0:
        raise InputError(f"`target` {target}: a separability between 0 and 1")
    full = ranking.refit(np.arange(ranking.questions, dtype=np.int64))
    curve = separability_curve(
        ranking.questions, ranking.refit, sizes or default_sizes(ranking.questions),
        repeats=repeats, confidence=settings.confidence, seed=settings.seed, full=full,
        unit=ranking.unit or "none",
    )  # fmt: skip
    return CurveReport(ranking, curve, target, curve.needed(target))


def render_curve(report: CurveReport, fmt: str) -> str:
    """The curve as a Markdown table with its conclusion, CSV rows, or JSON; the
    ranking's name and notes on one line each."""
    if fmt == "json":
        return json_text(report.to_json(), indent=2)
    points = report.curve.points
    if fmt == "csv":
        header = ("questions", "separability", "lowest", "highest", "agreement_with_full",
                  "agreement_lowest", "agreement_highest")  # fmt: skip
        return csv_text([header, *([p.questions, *(_plain(v, 4) for v in (
            p.separability, p.lowest, p.highest, p.agreement, p.agreement_lowest,
            p.agreement_highest))] for p in points)])  # fmt: skip
    total = report.ranking.questions
    lines = [
        f"Ranking: {report.ranking.shown} ({len(report.ranking.refit_models)} models, "
        f"{total} questions)",
        "",
        "| Questions | Separability [lowest, highest] | Agreement with all questions "
        "[lowest, highest] |",
        "|---:|---|---|",
    ]
    for p in points:
        lines.append(
            f"| {p.questions} | {_share(p.separability)} [{_share(p.lowest)}, "
            f"{_share(p.highest)}] | {_plain(p.agreement)} [{_plain(p.agreement_lowest)}, "
            f"{_plain(p.agreement_highest)}] |"
        )
    lines.append("")
    if report.needed is None:
        lines.append(
            f"separability ≥ {report.target:.0%} is not reached within the benchmark's "
            f"{total} questions"
        )
    else:
        lines.append(
            f"questions needed for separability ≥ {report.target:.0%}: {report.needed} "
            f"(of {total}; the fewest on the curve whose mean reaches it)"
        )
    if report.ranking.judges:
        lines.append(f"{report.ranking.name}: judged by {judges_shown(report.ranking.judges)}")
    lines += [f"{report.ranking.name}: {note}" for note in report.ranking.notes]
    lines.append(f"signature: {report.curve.signature.line}")
    return "".join(f"{one_line(line)}\n" for line in lines)
