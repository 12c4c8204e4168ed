"""pfgen scores beside another benchmark's leaderboard, the models matched by name.

The pfgen-bench papers (seed 000 §4.3, seed 002 "comparison with existing benchmarks")
correlate pfgen with Japanese MT-bench and Nejumi's leaderboard over the models both
evaluated, and where a model has a pfgen score for both chat completion and completion,
take the higher one. This module pairs them the same way: the pfgen side is a folder of
runs (``result.json``) or the JSON ``hyoka pfgen leaderboard`` writes, each model's best
complete run; the other side is the JSON ``hyoka mtbench leaderboard --format json``
writes (JMT-bench, ELYZA-tasks-100 ...), each complete row's headline ("overall"), as
``hyoka.stats.read_leaderboard`` reads it.

Models are matched by their names in both files, and through a names file (pfgen name ->
other name) where the two spell a model differently. Nothing is dropped silently: models
on one side only, rows left out (incomplete, no score) and names-file entries that matched
nothing are all listed. A leaderboard whose rows were judged under different variants of
the benchmark is refused unless asked for (``mix_variants``): their numbers are not on one
scale. The other side's benchmark, variant and signature go with the pairs, so every
correlation says what it was computed from, and so does the judge each row says answered
(``judged_by``, written by ``hyoka.judge.JudgedBy.to_json``): a script's grades are a dry
run, said with the correlation.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hyoka.errors import HyokaError, InputError
from hyoka.pfgen.summary import RunSummary
from hyoka.stats import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    MIN_PAIRS,
    Correlation,
    OtherBoard,
    correlate,
    read_leaderboard,
)
from hyoka.store import pfgen_runs, read_json, read_rows

#: the names file's two columns (CSV, TSV, JSON Lines or a JSON list of objects)
NAME_COLUMNS = ("pfgen", "other")
#: how a model with several pfgen runs is scored: the papers' rule
PFGEN_RULE = "best complete run per model (the higher of chat and completion, seed 000 §4.3)"


def read_name_map(path: Path) -> dict[str, tuple[str, str]]:
    """pfgen name -> (other name, where: ``file:line``), from a CSV or TSV with a
    ``pfgen,other`` header, JSON Lines or a JSON list of ``{"pfgen": ..., "other": ...}``
    objects. A name mapped twice, or two pfgen names mapped to one other name, is an
    ``InputError`` naming the line."""
    mapping: dict[str, tuple[str, str]] = {}
    first: dict[tuple[str, str], str] = {}
    for where, row in read_rows(path):
        names = [row.get(column) for column in NAME_COLUMNS]
        if not all(isinstance(n, str) and n.strip() for n in names):
            raise InputError(f"{where}: a names row needs {' and '.join(NAME_COLUMNS)}")
        pfgen, other = (str(n).strip() for n in names)
        for side, name in (("pfgen", pfgen), ("other", other)):
            earlier = first.get((side, name))
            if earlier is not None:
                raise InputError(
                    f"{where}: {side} name {name!r} is mapped twice (also at {earlier}); "
                    "each model pairs with one other"
                )
            first[side, name] = where
        mapping[pfgen] = (other, where)
    return mapping


@dataclass(frozen=True)
class PfgenModel:
    """A model's pfgen score: its best complete run's."""

    model: str
    score: float
    run: str
    #: its complete runs, the best included
    runs: int


@dataclass(frozen=True)
class PfgenSide:
    source: Path
    models: dict[str, PfgenModel]
    #: runs left out: (run, why)
    left_out: tuple[tuple[str, str], ...]


def read_pfgen_side(source: Path) -> PfgenSide:
    """Each model's best complete pfgen run, from a folder of runs or the JSON ``hyoka
    pfgen leaderboard`` writes; incomplete runs are left out and listed."""
    runs = _leaderboard_runs(source) if source.is_file() else _folder_runs(source)
    best: dict[str, PfgenModel] = {}
    left_out: list[tuple[str, str]] = []
    for model, score, run, incomplete in runs:
        if incomplete:
            left_out.append((run, incomplete))
            continue
        known = best.get(model)
        count = 1 if known is None else known.runs + 1
        if known is None or score > known.score:
            best[model] = PfgenModel(model, score, run, count)
        else:
            best[model] = PfgenModel(model, known.score, known.run, count)
    return PfgenSide(source, best, tuple(left_out))


_Run = tuple[str, float, str, str]  # model, score, run, what an incomplete run lacks


def _folder_runs(results: Path) -> list[_Run]:
    if not results.is_dir():
        raise InputError(f"{results}: not a folder of pfgen results nor a pfgen leaderboard")
    problems: list[str] = []
    files = pfgen_runs.find_result_files(results, problems)
    if problems:
        raise InputError(problems[0])
    if not files:
        raise InputError(f"{results}: no {pfgen_runs.RESULT_FILE} found")
    runs: list[_Run] = []
    for path in files:
        try:
            result = pfgen_runs.read_result(path.parent) or {}
            summary = RunSummary.from_result(path.parent, result, root=results)
        except HyokaError:
            raise
        except (ValueError, KeyError, TypeError) as exc:
            raise InputError(f"{path}: not a pfgen result ({exc})") from None
        run = f"{summary.label} ({path.parent})"
        runs.append((summary.model, summary.score, run, summary.incomplete))
    return runs


def _leaderboard_runs(path: Path) -> list[_Run]:
    data = read_json(path)
    entries = data.get("runs") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise InputError(
            f"{path}: not a pfgen leaderboard as `hyoka pfgen leaderboard --format json` "
            "writes it (an object with 'runs')"
        )
    runs: list[_Run] = []
    for number, entry in enumerate(entries, start=1):
        where = f"{path}: run {number}"
        if not isinstance(entry, dict):
            raise InputError(f"{where}: not an object")
        model, score = entry.get("model"), entry.get("score")
        if not isinstance(model, str) or isinstance(score, bool):
            raise InputError(f"{where}: a run needs 'model' and 'score'")
        if not isinstance(score, int | float):
            raise InputError(f"{where}: score {score!r} is not a number")
        run = f"{model} ({entry.get('mode', '?')}, {entry.get('folder', where)})"
        runs.append((model, float(score), run, str(entry.get("incomplete") or "")))
    return runs


@dataclass(frozen=True)
class MatchedPair:
    pfgen_model: str
    other_model: str
    pfgen: float
    other: float
    run: str
    #: the model's complete pfgen runs, the best (``run``) among them
    runs: int
    #: how the names met: ``same name`` or ``names file``
    matched_by: str
    other_variant: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "model": self.pfgen_model,
            "other_model": self.other_model,
            "pfgen": self.pfgen,
            "other": self.other,
            "pfgen_run": self.run,
            "pfgen_runs": self.runs,
            "matched_by": self.matched_by,
            "other_variant": self.other_variant,
        }


@dataclass
class BoardPairs:
    """The models both sides scored, and every model or row that is not among them."""

    pairs: list[MatchedPair]
    pfgen: PfgenSide
    board: OtherBoard
    names: Path | None
    pfgen_only: list[str] = field(default_factory=list)
    other_only: list[str] = field(default_factory=list)
    #: names-file entries whose pfgen name is not among the pfgen models
    unused_names: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """Where each side came from and what was left out (the correlation beside it)."""
        return {
            "pfgen": {
                "source": str(self.pfgen.source),
                "rule": PFGEN_RULE,
                "left_out": [{"run": r, "why": why} for r, why in self.pfgen.left_out],
            },
            "other": self.board.to_json(),
            "names": None if self.names is None else str(self.names),
            "models": [pair.to_json() for pair in self.pairs],
            "pfgen_only": self.pfgen_only,
            "other_only": self.other_only,
            "unused_names": self.unused_names,
        }


def pair_with_leaderboard(
    pfgen_source: Path,
    leaderboard: Path,
    *,
    names: Path | None = None,
    mix_variants: bool = False,
) -> BoardPairs:
    """The pfgen and leaderboard scores of every model both have, matched by name (through
    ``names`` where given); an ``InputError`` where one other model would pair twice."""
    # the small files first: a refusal comes before the runs are read
    board = read_leaderboard(leaderboard, mix_variants=mix_variants)
    mapping = read_name_map(names) if names is not None else {}
    pfgen = read_pfgen_side(pfgen_source)
    out = BoardPairs([], pfgen, board, names)
    claimed: dict[str, str] = {}
    for model in sorted(pfgen.models):
        mapped = mapping.get(model)
        other = model if mapped is None else mapped[0]
        row = board.rows.get(other)
        if row is None:
            out.pfgen_only.append(model)
            continue
        if other in claimed:
            mapped_at = [mapping[m][1] for m in (claimed[other], model) if m in mapping]
            raise InputError(
                f"{mapped_at[0]}: {other!r} would pair with both {claimed[other]!r} and "
                f"{model!r} (one by its own name, one by the names file); map only one"
            )
        claimed[other] = model
        best = pfgen.models[model]
        how = "same name" if mapped is None else "names file"
        out.pairs.append(
            MatchedPair(model, other, best.score, row.score, best.run, best.runs, how, row.variant)
        )
    out.other_only = sorted(set(board.rows) - set(claimed))
    out.unused_names = sorted(set(mapping) - set(pfgen.models))
    return out


@dataclass(frozen=True)
class BoardCorrelation:
    """Pearson and Spearman over the matched models, with what each side was."""

    matched: BoardPairs
    correlation: Correlation

    def to_json(self) -> dict[str, Any]:
        return {**self.correlation.to_json(), **self.matched.to_json()}


def correlate_with_leaderboard(
    pfgen_source: Path,
    leaderboard: Path,
    *,
    names: Path | None = None,
    mix_variants: bool = False,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> BoardCorrelation:
    """``pair_with_leaderboard``, then both correlations over the pairs (models resampled
    together for the intervals)."""
    matched = pair_with_leaderboard(
        pfgen_source, leaderboard, names=names, mix_variants=mix_variants
    )
    pairs = matched.pairs
    if len(pairs) < MIN_PAIRS:
        raise InputError(
            f"{leaderboard}: {len(pairs)} model(s) both here and among the pfgen runs in "
            f"{pfgen_source}, a correlation needs {MIN_PAIRS} (`names` maps names that differ)"
        )
    result = correlate(
        [p.pfgen for p in pairs], [p.other for p in pairs], resamples=resamples, seed=seed
    )
    return BoardCorrelation(matched, result)
