"""One cell of a sweep run through the same library entry points as the single commands:
``pfgen.make_run`` and ``score_new_run`` (``hyoka pfgen run``), ``mtbench.generate_bench``,
``judge_bench`` and ``bench_leaderboard`` (``hyoka mtbench generate / judge /
leaderboard``; a constraint-checked suite's and one ranked from matches alike, with
``mode`` pairwise or ``matches`` as the command takes them), and
``ifeval.score_responses`` (``hyoka ifeval score``).

A suite ranked from matches (``spec.RANKED_TOGETHER``) judges every model of the plan at
once: each of its cells makes (or resumes) every peer's answers in that peer's own folder,
judges them into the one file the suite and judge share (``ranked_folder``), ranks them as
the single command ranks that file, and keeps its own model's row. The first such cell
asks; the others find every answer and every verdict in the files and ask nothing.

Each entry point resumes what its files hold (trials, answer lines, judgment lines) and
answers a request it was answered before from the response cache, so a cell stopped half
way and run again asks only what was never answered. A cell hands back a ``CellResult``:
its headline number with its interval, the judge that produced it, the signature, and the
calls it made; an error is kept as the cell's result and the sweep goes on.
"""

from __future__ import annotations

import threading
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hyoka.errors import HyokaError, HyokaWarning
from hyoka.signature import SIGNATURE_KEY
from hyoka.store import path_under
from hyoka.sweep.heard import heard_warnings
from hyoka.sweep.spec import (
    CONSTRAINTS,
    JUDGED,
    MATCHES,
    PAIRS,
    PFGEN_KIND,
    RANKED_TOGETHER,
    RULED,
    Cell,
    Endpoint,
)

#: where a sweep's suites write, under its output folder: ``suites/<bench>[.<variant>]/``
SUITES = "suites"
#: a cell done under other settings, as ``--plan`` names its state: it runs again
CHANGED = "changed: will run again"
#: a cell whose requests are in batches (``batch = true``): neither done nor failed
WAITING = "waiting"
#: where a judge's grades lie under the answers folder it grades (``judge_folder``)
JUDGES = "judges"


class BatchWaiting(Exception):  # noqa: N818 - not an error: the replies come on a later run
    """A cell's requests went to batch APIs (or wait for the next run's batch): the cell
    stops here, with the batches it waits on and the calls made so far, and the sweep's
    next run collects them and goes on from its files."""

    def __init__(self, batches: list[str], calls: int = 0, hits: int = 0) -> None:
        super().__init__(", ".join(batches))
        self.batches, self.calls, self.hits = batches, calls, hits


#: the most characters of one batch note a cell keeps (a notice may quote the API)
BATCH_NOTE_CHARS = 400
#: the most batch notes one entry point adds to a cell's notes
BATCH_NOTES = 8


def waiting_on(stats: Any) -> list[str] | None:
    """The batches a command's run left in flight (``ClientStats.batch``: submitted now,
    still running, or kept noted until released), ``[]`` where requests wait for the next
    run's batch; ``None`` where nothing is left in flight (or it asked online). What the
    batch rounds did beyond that (``batch_said``) is said in the cell's notes."""
    progress = stats.batch
    batch_said(progress)
    if progress is None or not progress.pending:
        return None
    return list(dict.fromkeys([*progress.running, *progress.submitted, *progress.held]))


def batch_said(progress: Any) -> None:
    """What a single command prints after its batch rounds (``BatchProgress.line``: a
    batch that ended failed, expired or cancelled and why, requests failed and asked
    again, refused, unreadable), warned so that it is in the cell's notes (sweep.json, the
    matrix's note): a sweep that only said "waiting" resubmitted them without a word. Only
    where there is more to say than the waiting line does; each line printable and
    bounded."""
    if progress is None or not (
        progress.notices or progress.failed or progress.refused or progress.foreign
        or progress.unreadable
    ):  # fmt: skip
        return
    from hyoka.printable import printable

    for line in progress.line().splitlines()[-BATCH_NOTES:]:
        warnings.warn(printable(line, limit=BATCH_NOTE_CHARS), HyokaWarning, stacklevel=2)


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
    #: the batches it waits on (``batch = true``: requests submitted, their replies not
    #: yet there; empty: requests left for the next run's batch); ``None``: not waiting
    waiting: tuple[str, ...] | None = None

    @property
    def done(self) -> bool:
        return self.error is None and self.waiting is None

    @property
    def status(self) -> str:
        """``done``, ``failed``, or ``waiting`` (on batches: the next run goes on)."""
        if self.error is not None:
            return "failed"
        return "done" if self.waiting is None else WAITING

    @property
    def waiting_line(self) -> str:
        """``waiting on batch ID, ID`` (or on the next run's batch) for a waiting cell."""
        if not self.waiting:
            return "waiting: its requests go in the next run's batch"
        return f"waiting on batch {', '.join(self.waiting)}"

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
            "status": self.status, "metric": self.metric,
            "scale": self.scale, "score": self.score, "low": self.low, "high": self.high,
            "judged_by": list(self.judged_by), "dry_run": self.dry_run,
            SIGNATURE_KEY: self.signature, "complete": self.complete, "calls": self.calls,
            "cache_hits": self.cache_hits, "files": list(self.files), "notes": list(self.notes),
            "error": self.error,
            **({} if self.waiting is None else {"batches": list(self.waiting)}),
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
            waiting=(tuple(map(str, data.get("batches") or ()))
                     if data.get("status") == WAITING else None),
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
    return answers_folder(out, cell, cell.model)


def answers_folder(out: Path, cell: Cell, model: Endpoint) -> Path:
    """``model``'s folder of ``cell``'s suite (``suite_folder``; a peer's, where the suite
    ranks models together): the same for every cell of the model and suite, whatever the
    ranking's settings, so that answers are made once."""
    digest = _digest(model, cell.suite.answers_identity())
    return path_under(out, SUITES, cell.suite.label, digest, what="suite")


def ranked_folder(out: Path, cell: Cell) -> Path:
    """``<out>/suites/<bench>[.<variant>]/ranked/<settings>``: where a suite ranked from
    matches writes its judge's verdicts on every peer's answers, one folder for every cell
    of the suite and judge (``settings``: the digest of the suite's settings that decide
    verdicts, not its bootstrap rounds; the peers by name and identity, and the judge:
    verdicts between other names are never fitted with these)."""
    judge = cell.judge.identity() if cell.judge is not None else None
    digest = _digest(cell.suite.verdicts_identity(), cell.peers_identity(), judge)
    return path_under(out, SUITES, cell.suite.label, "ranked", digest, what="suite")


def judge_folder(out: Path, cell: Cell) -> Path:
    """``<suite folder>/judges/<settings>``: where a judge's grades of the cell's answers are
    written, apart for each judge's settings (a judge edited under the same name writes a
    judgment file of its own)."""
    judge = cell.judge.identity() if cell.judge is not None else None
    return path_under(suite_folder(out, cell), JUDGES, _digest(judge), what="judge")


def cell_folders(out: Path, cell: Cell) -> tuple[Path, ...]:
    """The folders of the files a run of ``cell`` reads and writes (``run_cell``): each
    answering model's answers folder (the cell's own, or every peer's where the suite
    ranks them together), and its judge's grades or the suite's verdicts. Another cell
    whose folders are among these shares those files, and the batches they wait on."""
    if cell.suite.kind in RANKED_TOGETHER:
        peers = (answers_folder(out, cell, peer) for peer in cell.peers)
        return (*peers, ranked_folder(out, cell))
    if cell.suite.kind in (JUDGED, CONSTRAINTS):
        return (suite_folder(out, cell), judge_folder(out, cell))
    return (suite_folder(out, cell),)


def batches_collected(out: Path, cell: Cell) -> set[str]:
    """The ids of the batches a run of ``cell`` collects, or has collected: those the
    manifests of its files note in flight or have read (``providers.batch``), its folders
    as ``cell_folders`` names them (an answers folder without the judges' folders under
    it: other judges' files). A manifest that cannot be read adds none."""
    from hyoka.errors import InputError
    from hyoka.providers import batch_ids_noted
    from hyoka.store import MANIFEST_SUFFIX, read_manifest

    found: set[str] = set()
    for folder in cell_folders(out, cell):
        if not folder.is_dir():
            continue
        for side in folder.rglob(f"*{MANIFEST_SUFFIX}"):
            if side.is_relative_to(folder / JUDGES) or not side.is_file():
                continue
            try:
                manifest = read_manifest(side.with_name(side.name.removesuffix(MANIFEST_SUFFIX)))
                if manifest is None:
                    continue
                found |= batch_ids_noted(manifest.notes, side)
            except InputError:  # damaged: the run that reads it says so in one line
                continue
    return found


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
    with heard_warnings() as heard:  # this cell's alone, where others run beside it
        try:
            found = _run(cell, context)
        except HyokaError as exc:
            found = {"error": str(exc)}
        except BatchWaiting as waits:
            found = {"waiting": tuple(waits.batches), "calls": waits.calls,
                     "cache_hits": waits.hits}  # fmt: skip
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
    kind = cell.suite.kind
    if kind == PFGEN_KIND:
        return _pfgen(cell, context)
    if kind in (MATCHES, PAIRS):
        return _ranked(cell, context)
    answers, calls, hits = _answers(cell, context)
    if kind == JUDGED:
        return _judged(cell, context, answers, calls, hits)
    if kind == RULED:
        return _ruled(cell, context, answers, calls, hits)
    if kind == CONSTRAINTS:
        return _constraints(cell, context, answers, calls, hits)
    raise HyokaError(f"{cell.suite.bench}: a sweep does not run this benchmark yet")


def _connection(cell: Cell, context: CellContext, judge: bool = False) -> Any:
    endpoint = cell.judge if judge and cell.judge is not None else cell.model
    return _connect(endpoint, context)


def _connect(endpoint: Endpoint, context: CellContext) -> Any:
    from hyoka.judge import Connection

    return Connection(
        base_url=endpoint.base_url, options=dict(endpoint.options) or None,
        concurrency=context.concurrency, batch=endpoint.batch,
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
    if model.batch:  # ``hyoka pfgen run`` has no batch path: said, never silent
        warnings.warn(
            f"{model.name}: batch = true, but pfgen-bench runs ask online (at list price)",
            HyokaWarning, stacklevel=1,
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


def _answers(
    cell: Cell, context: CellContext, model: Endpoint | None = None
) -> tuple[Path, int, int]:
    """The answers of the cell's model (or of ``model``, a peer) to the suite
    (``generate_bench``, resumed): the file, the calls made now and those the cache
    answered."""
    from hyoka.mtbench import generate_bench

    suite, model = cell.suite, model or cell.model
    folder = answers_folder(context.out, cell, model)
    with _folder_lock(folder):  # every judge's cell of the model and suite writes it
        made = generate_bench(
            model.spec, bench=suite.bench, variant=suite.variant, max_tokens=suite.max_tokens,
            name=model.name, results_dir=folder, trials=suite.trials, limit=suite.limit,
            data_dir=context.data_dir, connection=_connect(model, context),
        )  # fmt: skip
    batches = waiting_on(made.stats)
    if batches is not None:  # the judge waits for every answer: the next run goes on
        raise BatchWaiting(batches, made.stats.requests, made.stats.cache_hits)
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
    _judge_waits(judged.stats, calls, hits)
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


def _constraints(
    cell: Cell, context: CellContext, answers: Path, calls: int, hits: int
) -> dict[str, Any]:
    """JFBench: the rules and the judge's votes decide each constraint (``judge_bench``),
    the result file summarised as ``hyoka mtbench leaderboard`` does; the model's success
    rate in percent with its interval."""
    from hyoka.mtbench import ConstraintBoard, ConstraintsJudged, bench_leaderboard, judge_bench

    suite, judge = cell.suite, _judge_of(cell)
    judged = judge_bench(
        judge.spec, [answers], bench=suite.bench, judge_name=judge.name,
        results_dir=judge_folder(context.out, cell), limit=suite.limit,
        max_tokens=None, data_dir=context.data_dir,
        connection=_connection(cell, context, judge=True),
    )  # fmt: skip
    if not isinstance(judged, ConstraintsJudged):
        raise HyokaError(f"{suite.bench}: not a constraint-checked benchmark")
    _judge_waits(judged.stats, calls, hits)
    ((_model, log, results),) = judged.outputs
    board = bench_leaderboard(suite.bench, [results], fmt="json", data_dir=context.data_dir)
    if not isinstance(board, ConstraintBoard):
        raise HyokaError(f"{suite.bench}: not a constraint-checked benchmark")
    found = board.to_json()
    (row,) = found["groups"]
    return {
        "metric": "success rate", "scale": "%", "score": row.get("success_rate"),
        "low": row.get("low"), "high": row.get("high"),
        "judged_by": tuple(j.to_json() for j in judged.judges),
        "signature": found.get(SIGNATURE_KEY),
        # every entry decided, none left out by ``limit`` (JFBench's build is not read again
        # here for its size: a limit is taken as leaving entries out)
        "complete": judged.pending == 0 and suite.limit is None,
        "calls": calls + judged.stats.requests, "cache_hits": hits + judged.stats.cache_hits,
        "files": (str(answers), str(log), str(results)),
    }  # fmt: skip


def _judge_waits(stats: Any, calls: int, hits: int) -> None:
    """Stop the cell where its judge's batches are still in flight (``BatchWaiting``)."""
    batches = waiting_on(stats)
    if batches is not None:
        raise BatchWaiting(batches, calls + stats.requests, hits + stats.cache_hits)


def _all_asked(cell: Cell, context: CellContext) -> bool:
    """Whether the suite's ``limit`` leaves no question out."""
    from hyoka.mtbench import Bench

    if cell.suite.limit is None:
        return True
    loaded = Bench.load(cell.suite.bench, context.data_dir, cell.suite.variant,
                        questions_only=True)  # fmt: skip
    return cell.suite.limit >= len(loaded.questions)


def _judge_of(cell: Cell) -> Endpoint:
    if cell.judge is None:  # a judged suite's cells always name one (``SweepPlan.cells``)
        raise HyokaError(f"{cell.key}: no judge")
    return cell.judge


def _ranked(cell: Cell, context: CellContext) -> dict[str, Any]:
    """A suite ranked from matches between the plan's models: every peer's answers (made or
    resumed, each in its own folder), judged into the suite and judge's one file
    (``judge_bench`` with ``matches`` drawn, or ``mode`` pairwise), ranked as ``hyoka
    mtbench leaderboard`` (drawn matches) or ``hyoka mtbench judge`` (pairs) ranks them;
    the cell's number is its model's row."""
    with _suite_lock(context.out, cell):  # its cells share files: one at a time
        return _ranked_here(cell, context)


#: the in-process locks of a sweep's shared files, by what they guard (``_shared_lock``)
_LOCKS: dict[tuple[str, ...], threading.Lock] = {}
_LOCKS_LOCK = threading.Lock()


def _shared_lock(*key: str) -> threading.Lock:
    """The one lock of ``key`` in this process: cells that an executor runs side by side
    and that write the same files take turns on it, the later one finding the files done
    (never two writers in one process, the second failing on the file's own lock after
    its wait; that lock still keeps another process out)."""
    with _LOCKS_LOCK:
        return _LOCKS.setdefault(key, threading.Lock())


def _suite_lock(out: Path, cell: Cell) -> threading.Lock:
    """The lock of ``cell``'s suite in the sweep writing ``out``: the cells of a suite
    ranked from matches make the same peers' answers and (per judge) the same verdicts."""
    return _shared_lock("suite", str(out.resolve()), cell.suite.label)


def _folder_lock(folder: Path) -> threading.Lock:
    """The lock of one model's answer folder (``answers_folder``): the cells of a model and
    suite share it, whichever judge grades them."""
    return _shared_lock("answers", str(folder.resolve()))


def _ranked_here(cell: Cell, context: CellContext) -> dict[str, Any]:
    from hyoka.mtbench import answer_model_id, judge_bench

    suite, judge = cell.suite, _judge_of(cell)
    files, calls, hits = [], 0, 0
    waits: list[str] | None = None  # every peer's batches submitted before the cell waits
    for peer in cell.peers:
        try:
            path, made, cached = _answers(cell, context, peer)
        except HyokaError as exc:  # the ranking needs every peer: said which one failed
            said = f"{peer.name}'s answers (ranked with {cell.model.name}): {exc}"
            raise HyokaError(said) from None
        except BatchWaiting as waiting:
            waits = [*(waits or []), *waiting.batches]
            calls, hits = calls + waiting.calls, hits + waiting.hits
            continue
        files.append(path)
        calls, hits = calls + made, hits + cached
    if waits is not None:
        raise BatchWaiting(list(dict.fromkeys(waits)), calls, hits)
    seed = suite.seed or 0
    pairwise = suite.kind == PAIRS
    judged = judge_bench(
        judge.spec, files, bench=suite.bench, variant=suite.variant, mode="pairwise",
        judge_name=judge.name, results_dir=ranked_folder(context.out, cell),
        limit=suite.limit if pairwise else None, matches=suite.matches, seed=seed,
        data_dir=context.data_dir, connection=_connection(cell, context, judge=True),
    )  # fmt: skip
    _judge_waits(judged.stats, calls, hits)
    model_id = answer_model_id(cell.model.spec, cell.model.name)
    if pairwise:
        found = {**_pairs_row(judged, model_id), "complete": _all_asked(cell, context)}
    else:
        found = _match_row(cell, context, judged, model_id)
    return {
        **found, "calls": calls + judged.stats.requests,
        "cache_hits": hits + judged.stats.cache_hits, "files": (*map(str, files), found["files"]),
    }  # fmt: skip


def _match_row(cell: Cell, context: CellContext, judged: Any, model_id: str) -> dict[str, Any]:
    """Drawn matches ranked by Rakuda's fit (``bench_leaderboard``, ``rounds`` bootstrap
    refits): the model's bootstrap median rating with the band upstream saves (the 16th and
    84th percentiles: ±1σ, said in the metric)."""
    from hyoka.mtbench import MatchesJudged, RakudaRanking, bench_leaderboard

    suite = cell.suite
    if not isinstance(judged, MatchesJudged):
        raise HyokaError(f"{suite.bench}: not judged by drawn matches")
    ranking = bench_leaderboard(
        suite.bench, [judged.output], fmt="json", rounds=suite.rounds or 500,
        seed=suite.seed or 0, data_dir=context.data_dir,
    )  # fmt: skip
    if not isinstance(ranking, RakudaRanking):
        raise HyokaError(f"{suite.bench}: not ranked from drawn matches")
    shown = ranking.to_json()
    _only_peers(cell, judged.output, [r["model_id"] for r in shown["ranking"]])
    (row,) = [r for r in shown["ranking"] if r["model_id"] == model_id]
    return {
        # upstream's band: the 16th and 84th percentiles of the draws (±1σ), not 95%
        "metric": "Bradley-Terry rating (bootstrap median; 16th-84th percentiles, ±1σ)",
        "scale": "rating",
        "score": row["median"], "low": row["lower"], "high": row["upper"],
        "judged_by": tuple(shown["judged_by"]), "signature": shown[SIGNATURE_KEY],
        "complete": True, "files": str(judged.output),
    }  # fmt: skip


def _only_peers(cell: Cell, verdicts: Path, ranked: list[str]) -> None:
    """Refuse a fit over other models than the plan's: the verdict file is the suite's, the
    judge's and these peers' alone (``ranked_folder``), so a model in it that is not one of
    them is a file not of this plan's making, whose verdicts would move every rating."""
    from hyoka.mtbench import answer_model_id

    peers = {answer_model_id(peer.spec, peer.name) for peer in cell.peers}
    strangers = sorted(set(ranked) - peers)
    if strangers:
        raise HyokaError(
            f"{verdicts}: holds verdicts on {', '.join(strangers)}, not among the plan's "
            "models: not fitted with them (remove the file to judge again)"
        )


def _pairs_row(judged: Any, model_id: str) -> dict[str, Any]:
    """Every pair of answer files compared (FastChat's pairwise judging): the model's raw
    Bradley-Terry rating by the first method, with its bootstrap interval, as ``hyoka
    mtbench judge --mode pairwise`` prints it."""
    from hyoka.mtbench import PairsJudged

    if not isinstance(judged, PairsJudged):
        raise HyokaError("not judged in pairs")
    shown = judged.to_json()
    method = next(iter(judged.rated))
    rated = shown["style_controlled"][method]["raw"]
    (row,) = [r for r in rated if r["model"] == model_id]
    return {
        "metric": f"Bradley-Terry rating ({method}, raw)", "scale": "rating",
        "score": row["rating"], "low": row["low"], "high": row["high"],
        "judged_by": (shown["judged_by"],), "signature": shown[SIGNATURE_KEY],
        "files": str(judged.output),
    }  # fmt: skip
