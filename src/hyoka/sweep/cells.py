"""One cell of a sweep run through the same library entry points as the single commands:
``pfgen.make_run`` and ``score_new_run`` (``hyoka pfgen run``), ``mtbench.generate_bench``,
``judge_bench`` and ``bench_leaderboard`` (``hyoka mtbench generate / judge /
leaderboard``), and ``ifeval.score_responses`` (``hyoka ifeval score``).

Each entry point resumes what its files hold (trials, answer lines, judgment lines) and
answers a request it was answered before from the response cache, so a cell stopped half
way and run again asks only what was never answered. A cell hands back a ``CellResult``:
its headline number with its interval, the judge that produced it, the signature, and the
calls it made; an error is kept as the cell's result and the sweep goes on.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hyoka.errors import HyokaError, HyokaWarning
from hyoka.signature import SIGNATURE_KEY
from hyoka.store import path_under
from hyoka.sweep.spec import JUDGED, PFGEN_KIND, RULED, Cell, suite_kind

#: where a sweep's suites write, under its output folder: ``suites/<bench>[.<variant>]/``
SUITES = "suites"
#: a cell done under other settings, as ``--plan`` names its state: it runs again
CHANGED = "changed: will run again"


@dataclass(frozen=True)
class CellResult:
    """What one cell gave: the headline number (``score``, on ``scale``, named by
    ``metric``) with its 95% interval, the judge that produced it (``judged_by``, as
    ``judge.JudgedBy.to_json`` writes it; empty where no judge graded), the signature
    (``signature``: as ``Signature.to_json`` writes it), whether every question was asked
    (``complete``), the model and judge calls this run made and those answered from the
    cache, the files written, the warnings heard (``notes``), or the ``error`` that stopped
    it."""

    key: str
    model: str
    suite: str
    bench: str
    variant: str | None
    judge: str | None
    digest: str
    metric: str = ""
    scale: str = ""
    score: float | None = None
    low: float | None = None
    high: float | None = None
    judged_by: tuple[dict[str, Any], ...] = ()
    signature: dict[str, Any] | None = None
    complete: bool = True
    calls: int = 0
    cache_hits: int = 0
    files: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    error: str | None = None
    #: the model's replies were read from a script (``scripted/``): its numbers a dry run
    model_dry_run: bool = False

    @property
    def done(self) -> bool:
        return self.error is None

    @property
    def signature_line(self) -> str:
        return "" if self.signature is None else str(self.signature.get("line", ""))

    @property
    def dry_run(self) -> bool:
        """Whether the model's or a judge's replies were read from a script (its numbers a
        dry run)."""
        return self.model_dry_run or any(judge.get("dry_run") for judge in self.judged_by)

    @property
    def judge_shown(self) -> str:
        """The judge as a page names it beside its number (``JudgedBy.shown``)."""
        from hyoka.judge import JudgedBy

        return "; ".join(JudgedBy.from_json(judge).shown for judge in self.judged_by)

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key, "model": self.model, "suite": self.suite, "bench": self.bench,
            "variant": self.variant, "judge": self.judge, "digest": self.digest,
            "status": "done" if self.done else "failed", "metric": self.metric,
            "scale": self.scale, "score": self.score, "low": self.low, "high": self.high,
            "judged_by": list(self.judged_by), "dry_run": self.dry_run,
            SIGNATURE_KEY: self.signature, "complete": self.complete, "calls": self.calls,
            "cache_hits": self.cache_hits, "files": list(self.files), "notes": list(self.notes),
            "error": self.error,
        }  # fmt: skip

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CellResult:
        """A cell as ``to_json`` wrote it into the sweep's manifest; ``ValueError`` saying
        which field is not what ``to_json`` writes (a damaged manifest)."""

        def number(key: str) -> float | None:
            value = data.get(key)
            return float(value) if isinstance(value, int | float) else None

        for key, kinds in _FIELDS.items():
            value = data.get(key)
            if not isinstance(value, kinds) or isinstance(value, bool):
                raise ValueError(f"its {key} is {value!r}, not {_FIELD_KINDS[key]}")

        signature = data.get(SIGNATURE_KEY)
        return cls(
            key=str(data["key"]), model=str(data["model"]), suite=str(data["suite"]),
            bench=str(data["bench"]), variant=data.get("variant"), judge=data.get("judge"),
            digest=str(data.get("digest", "")), metric=str(data.get("metric", "")),
            scale=str(data.get("scale", "")), score=number("score"), low=number("low"),
            high=number("high"),
            judged_by=tuple(j for j in data.get("judged_by") or () if isinstance(j, dict)),
            signature=signature if isinstance(signature, dict) else None,
            complete=data.get("complete") is not False, calls=int(data.get("calls") or 0),
            cache_hits=int(data.get("cache_hits") or 0),
            files=tuple(map(str, data.get("files") or ())),
            notes=tuple(map(str, data.get("notes") or ())), error=data.get("error"),
            model_dry_run=data.get("dry_run") is True,
        )  # fmt: skip


#: the fields of a manifest's cell that must be there, of these types (None: may be absent)
_FIELDS: dict[str, tuple[type, ...]] = {
    "key": (str,), "model": (str,), "suite": (str,), "bench": (str,),
    "variant": (str, type(None)), "judge": (str, type(None)), "digest": (str, type(None)),
    "calls": (int, type(None)), "cache_hits": (int, type(None)), "error": (str, type(None)),
    "files": (list, type(None)), "notes": (list, type(None)), "judged_by": (list, type(None)),
}  # fmt: skip
_FIELD_KINDS = {
    key: " or ".join({str: "a string", int: "a whole number", list: "a list",
                      type(None): "absent"}[kind] for kind in kinds)
    for key, kinds in _FIELDS.items()
}  # fmt: skip


@dataclass(frozen=True)
class CellContext:
    """What every cell of a sweep shares: the output folder, the data directory and the
    requests in flight at once."""

    out: Path
    data_dir: Path | None = None
    concurrency: int = 8


def suite_folder(out: Path, cell: Cell) -> Path:
    """``<out>/suites/<bench>[.<variant>]/<settings>``: each suite's files apart, a
    variant's too, and apart for each model and suite settings (``settings``: the first 12
    hex digits of their digest). A cell whose model or suite settings change is run into
    fresh files, its earlier files kept beside them: the answer and run files refuse a run
    under other settings, and the sweep chooses their paths itself."""
    return path_under(out, SUITES, cell.suite.label, _digest(cell.model, cell.suite), what="suite")


def judge_folder(out: Path, cell: Cell) -> Path:
    """``<suite folder>/judges/<settings>``: where a judge's grades of the cell's answers are
    written, apart for each judge's settings (a judge edited under the same name writes a
    judgment file of its own)."""
    judge = cell.judge.identity() if cell.judge is not None else None
    return path_under(suite_folder(out, cell), "judges", _digest(judge), what="judge")


def _digest(*parts: Any) -> str:
    import hashlib
    import json

    found = [part.identity() if hasattr(part, "identity") else part for part in parts]
    text = json.dumps(found, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def run_cell(cell: Cell, context: CellContext) -> CellResult:
    """Run ``cell`` to its number; a ``HyokaError`` (a model that cannot be reached, a bad
    setting, missing data) is the cell's ``error``, never the sweep's end."""
    base = CellResult(
        key=cell.key, model=cell.model.name, suite=cell.suite.label, bench=cell.suite.bench,
        variant=cell.suite.variant, judge=None if cell.judge is None else cell.judge.name,
        digest=cell.digest, model_dry_run=_scripted(cell.model.spec),
    )  # fmt: skip
    with warnings.catch_warnings(record=True) as heard:
        warnings.simplefilter("always", HyokaWarning)
        try:
            found = _run(cell, context)
        except HyokaError as exc:
            found = {"error": str(exc)}
    notes = tuple(
        dict.fromkeys(str(w.message) for w in heard if issubclass(w.category, HyokaWarning))
    )
    for key in ("score", "low", "high"):  # one type in every format: 6.0, never 6
        value = found.get(key)
        found[key] = float(value) if isinstance(value, int | float) else None
    return CellResult(**{**base.__dict__, **found, "notes": notes})


def _scripted(spec: str) -> bool:
    from hyoka.providers import is_scripted

    return is_scripted(spec)


def _run(cell: Cell, context: CellContext) -> dict[str, Any]:
    kind = suite_kind(cell.suite.bench)
    if kind == PFGEN_KIND:
        return _pfgen(cell, context)
    answers, calls, hits = _answers(cell, context)
    if kind == JUDGED:
        return _judged(cell, context, answers, calls, hits)
    if kind == RULED:
        return _ruled(cell, context, answers, calls, hits)
    raise HyokaError(f"{cell.suite.bench}: a sweep does not run this benchmark yet")


def _connection(cell: Cell, context: CellContext, judge: bool = False) -> Any:
    from hyoka.judge import Connection

    endpoint = cell.judge if judge and cell.judge is not None else cell.model
    return Connection(
        base_url=endpoint.base_url, options=dict(endpoint.options) or None,
        concurrency=context.concurrency,
    )  # fmt: skip


def _pfgen(cell: Cell, context: CellContext) -> dict[str, Any]:
    from hyoka.pfgen import (
        PROTOCOL,
        GenerateSettings,
        Mode,
        PfgenBenchmark,
        make_run,
        score_interval,
        score_new_run,
    )
    from hyoka.store import pfgen_runs, read_json

    suite, model = cell.suite, cell.model
    settings = GenerateSettings(
        model=model.spec, mode=Mode(suite.mode or Mode.CHAT.value),
        trials=suite.trials or PROTOCOL.trials, max_tokens=suite.max_tokens or PROTOCOL.max_tokens,
        num_examples=PROTOCOL.num_examples if suite.num_examples is None else suite.num_examples,
        limit=suite.limit, results_dir=suite_folder(context.out, cell), name=model.name,
        base_url=model.base_url, options=dict(model.options), concurrency=context.concurrency,
    )  # fmt: skip
    benchmark = PfgenBenchmark.load(context.data_dir)
    generated = make_run(settings, benchmark)
    summary = score_new_run(generated.folder, benchmark)
    result = read_json(generated.folder / pfgen_runs.RESULT_FILE)
    interval = score_interval(result)
    return {
        "metric": "score", "scale": "0-1", "score": summary.score,
        "low": _finite(interval.low), "high": _finite(interval.high),
        "signature": None if summary.signature is None else summary.signature.to_json(),
        "complete": summary.complete, "calls": generated.stats.requests,
        "cache_hits": generated.stats.cache_hits, "files": (str(generated.folder),),
    }  # fmt: skip


def _finite(value: float) -> float | None:
    import math

    return value if math.isfinite(value) else None


def _answers(cell: Cell, context: CellContext) -> tuple[Path, int, int]:
    """The model's answers to the suite (``generate_bench``, resumed): the file, the calls
    made now and those the cache answered."""
    from hyoka.mtbench import generate_bench

    suite = cell.suite
    made = generate_bench(
        cell.model.spec, bench=suite.bench, variant=suite.variant, max_tokens=suite.max_tokens,
        name=cell.model.name, results_dir=suite_folder(context.out, cell), trials=suite.trials,
        limit=suite.limit, data_dir=context.data_dir, connection=_connection(cell, context),
    )  # fmt: skip
    return made.answer_file, made.stats.requests, made.stats.cache_hits


def _judged(
    cell: Cell, context: CellContext, answers: Path, calls: int, hits: int
) -> dict[str, Any]:
    from hyoka.mtbench import BenchBoard, TurnsJudged, bench_leaderboard, judge_bench

    suite, judge = cell.suite, cell.judge
    if judge is None:  # a judged suite's cells always name one (``SweepPlan.cells``)
        raise HyokaError(f"{cell.key}: no judge")
    judged = judge_bench(
        judge.spec, [answers], bench=suite.bench, variant=suite.variant, judge_name=judge.name,
        results_dir=judge_folder(context.out, cell), limit=suite.limit,
        data_dir=context.data_dir, connection=_connection(cell, context, judge=True),
    )  # fmt: skip
    if not isinstance(judged, TurnsJudged):
        raise HyokaError(f"{suite.bench}: a sweep grades single turns only")
    files = [path for _label, path in judged.outputs]
    board = bench_leaderboard(
        suite.bench, files, fmt="json", variant=suite.variant, data_dir=context.data_dir
    )
    if not isinstance(board, BenchBoard):
        raise HyokaError(f"{suite.bench}: a sweep ranks single grades only")
    (row,) = board.to_json()
    interval = row.get("interval") or {}
    low, high = board.board.bench.spec.scale
    return {
        "metric": "overall", "scale": f"{low}-{high}",
        "score": row.get("overall"), "low": interval.get("low"), "high": interval.get("high"),
        "judged_by": tuple(row.get("judged_by") or ()), "signature": row.get(SIGNATURE_KEY),
        "complete": bool(row.get("complete")), "calls": calls + judged.stats.requests,
        "cache_hits": hits + judged.stats.cache_hits,
        "files": (str(answers), *map(str, files)),
    }  # fmt: skip


def _ruled(
    cell: Cell, context: CellContext, answers: Path, calls: int, hits: int
) -> dict[str, Any]:
    from hyoka.data import data_file
    from hyoka.ifeval import read_prompts, score_responses
    from hyoka.mtbench import definition

    spec = definition(cell.suite.bench)
    relative = Path(spec.folder) / spec.question_file
    prompts = read_prompts(data_file(relative, spec.name, f"{spec.title} data", context.data_dir))
    scored = score_responses([answers], prompts, limit=cell.suite.limit)
    ((_path, scores),) = scored.results
    accuracy = scores["strict"].prompt_level
    interval = accuracy.interval
    asked = len(prompts.prompts[: cell.suite.limit or None])
    return {
        "metric": "strict prompt accuracy", "scale": "%", "score": 100 * accuracy.value,
        "low": None if interval is None else _finite(100 * interval.low),
        "high": None if interval is None else _finite(100 * interval.high),
        "signature": scored.signature.to_json(), "complete": asked == len(prompts.prompts),
        "calls": calls, "cache_hits": hits, "files": (str(answers),),
    }  # fmt: skip
