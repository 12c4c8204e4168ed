"""Stage 1: many-shot generation of candidate answers into append-only shards.

Answer i of a question is fully determined by the settings: its prompt takes the examples
of pfgen-bench's prompt for trial i+1 (the other questions ordered by a seeded SHA-1, so
each prompt has its own random choice of examples), optionally prefixed by k retrieval
snippets drawn with a seeded RNG, and it is sampled with its own seed. Answers are made in
batches of ``batch_size``; a finished batch is one frame appended to shard
``batch mod shards`` (see ``shards``). A restarted job cuts any damaged frame off, reads
which batches are whole, and makes only the others, so nothing is lost or counted twice.
Several workers (Ray actors, see ``ray_workers``) may fill different shards of one question
at once; a shard has one writer at a time (``ShardWriter`` holds its lock), and its batches
go in in order, so the files do not depend on who made them. An empty answer is asked
again with the next seed, unless greedy decoding (temperature 0) would only repeat it.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from hyoka.errors import HyokaError, InputError
from hyoka.pfgen import (
    REFSET_PROTOCOL,
    Mode,
    SampleAnswer,
    build_prompt,
    clean_answer,
    stops_for,
    trial_seed,
)
from hyoka.providers import (
    CONCURRENCY,
    MaxTokens,
    ModelClient,
    SamplingParams,
    Temperature,
    TopK,
    TopP,
    redact_url,
)
from hyoka.refset.pool import PoolRecord, merge_counts
from hyoka.refset.shards import (
    append_frame,
    exclusive_shard,
    repair_shard,
    scan_shard,
    shard_name,
    shard_paths,
)
from hyoka.refset.source import SourceQuestion
from hyoka.store import atomic_write_text, path_under, plain_name, read_bytes, read_objects

GENERATED = "01-generated"
SETTINGS_FILE = "generation.json"
STATS_FILE = "stats.json"
MAX_ATTEMPTS = 10
SNIPPETS_HEADER = "## 参考資料\n"

Progress = Callable[[int], None]
SET_NAME_MAX = 100
SET_NAME = re.compile(rf"[A-Za-z0-9_-][A-Za-z0-9_.-]{{0,{SET_NAME_MAX - 1}}}")


class GenerateConfig(BaseModel):
    """Everything that decides the answers (``answers``, ``shards``, ``concurrency`` do not);
    the sampling and prompt settings default to the papers' (``REFSET_PROTOCOL``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str
    set_name: str
    mode: Mode = Mode.CHAT
    num_examples: int = Field(default=REFSET_PROTOCOL.num_examples, ge=0, le=1000)
    #: the bounds of every request (``providers.types``): a value outside them is refused
    #: where the file or flag is read, not by the first request
    temperature: Temperature = REFSET_PROTOCOL.temperature
    top_p: TopP = REFSET_PROTOCOL.top_p
    top_k: TopK | None = REFSET_PROTOCOL.top_k
    max_tokens: MaxTokens = REFSET_PROTOCOL.max_tokens
    seed: str = ""
    batch_size: int = Field(default=100, ge=1)
    snippets_k: int = Field(default=5, ge=0)
    snippets_sha1: str | None = None
    options: dict[str, Any] = Field(default_factory=dict)
    answers: int = Field(default=1000, ge=1)
    shards: int = Field(default=1, ge=1)
    concurrency: int = Field(default=CONCURRENCY, ge=1)

    @field_validator("set_name")
    @classmethod
    def _one_folder_name(cls, name: str) -> str:
        """A set's answers live in a folder of its name: letters, digits, ``_``, ``-`` and
        ``.``, not first (``.`` and ``..`` would make every question share one folder)."""
        if not SET_NAME.fullmatch(name):
            raise ValueError(
                "a set name is letters, digits, '_', '-' and '.' (not first), "
                f"at most {SET_NAME_MAX} characters"
            )
        return name

    def identity(self) -> dict[str, Any]:
        """What a continued set must share, as ``generation.json`` keeps it: an option that
        is a URL (``base_url``) redacted, with a hash of what was hidden beside it, so the
        file holds no credential and a changed password is another run."""
        found = self.model_dump(mode="json", exclude={"answers", "shards", "concurrency"})
        found["options"] = _shown_options(found["options"])
        return found

    def batches(self) -> int:
        return -(-self.answers // self.batch_size)

    def batch_range(self, batch: int) -> range:
        return range(batch * self.batch_size, min((batch + 1) * self.batch_size, self.answers))


def _shown_options(options: dict[str, Any]) -> dict[str, Any]:
    """``options`` with every URL redacted (``providers.redact_url``) and ``<key>_secret``
    beside a URL that held a secret."""
    shown: dict[str, Any] = {}
    for key, value in options.items():
        if isinstance(value, str) and "://" in value:
            redacted = redact_url(value)
            shown[key] = redacted.shown
            if redacted.secret is not None:
                shown[f"{key}_secret"] = redacted.secret
        else:
            shown[key] = value
    return shown


def load_snippets(path: Path, questions: Sequence[SourceQuestion]) -> dict[str, list[str]]:
    """``{"question_id" or "question": ..., "text": ...}`` lines -> passages per question id."""
    ids = {q.question_id: q.question_id for q in questions}
    ids.update({q.question: q.question_id for q in questions})
    snippets: dict[str, list[str]] = {}
    for number, raw in read_objects(path):
        key, text = raw.get("question_id") or raw.get("question"), raw.get("text")
        if key is None or text is None:
            raise InputError(f"{path}:{number}: expected {{question_id, text}}")
        if (
            not isinstance(key, str)
            or key not in ids
            or not isinstance(text, str)
            or not text.strip()
        ):
            raise InputError(f"{path}:{number}: unknown question {key!r} or empty text")
        snippets.setdefault(ids[key], []).append(text.strip())
    return snippets


def snippets_prefix(passages: Sequence[str], k: int, seed: str, qid: str, index: int) -> str:
    if not passages or k == 0:
        return ""
    rng = random.Random(hashlib.sha1(f"{seed}::{qid}::{index}".encode()).hexdigest())
    chosen = rng.sample(list(passages), min(k, len(passages)))
    return SNIPPETS_HEADER + "".join(f"- {p}\n" for p in chosen) + "\n"


def question_folder(work: Path, question_id: str, set_name: str) -> Path:
    """``<work>/01-generated/<question id>/<set name>``: both names must be plain file names
    (``plain_name``), so no two questions or sets share a folder, and none lies outside."""
    return path_under(generated_root(work, question_id), plain_name(set_name, what="set name"))


def generated_root(work: Path, question_id: str) -> Path:
    """The folder of one question's sets (``question_folder`` without the set)."""
    return path_under(work / GENERATED, plain_name(question_id, what="question id"))


def prepare(folder: Path, config: GenerateConfig) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / SETTINGS_FILE
    text = json.dumps(config.identity(), ensure_ascii=False, sort_keys=True)
    if path.exists():
        if read_bytes(path).decode("utf-8", errors="replace").strip() != text:
            raise HyokaError(
                f"{path} holds different generation settings; use another `set_name` or work dir"
            )
        return
    atomic_write_text(path, text + "\n")


def done_batches(folder: Path, config: GenerateConfig, repair: bool) -> tuple[set[int], int]:
    """Whole batches already in the shards, and how many damaged bytes were cut (or seen)."""
    done: set[int] = set()
    damaged = 0
    for path in shard_paths(folder):
        scan = repair_shard(path) if repair else scan_shard(path)
        damaged += scan.size - scan.good_bytes
        for frame in scan.frames:
            batch = int(frame.header["batch"])
            if frame.header.get("planned") == len(config.batch_range(batch)):
                done.add(batch)
    return done, damaged


@dataclass
class ShardReport:
    """What was done to one shard of one question (by one worker, or over a whole run)."""

    question_id: str
    shard: int
    batches: int = 0
    answers: int = 0
    empty_retries: int = 0
    failed: int = 0
    damaged_bytes: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    notes: list[str] = field(default_factory=list)

    def add(self, other: ShardReport) -> None:
        """Fold a later report on the same shard into this one."""
        self.batches += other.batches
        self.answers += other.answers
        self.empty_retries += other.empty_retries
        self.failed += other.failed
        self.damaged_bytes += other.damaged_bytes
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.notes.extend(other.notes)


@dataclass(frozen=True)
class QuestionWork:
    """Everything a batch of one question needs besides a model client."""

    config: GenerateConfig
    question: SourceQuestion
    samples: Sequence[SampleAnswer]
    passages: Sequence[str]
    folder: Path


@dataclass
class _ShardView:
    """A writer's knowledge of a shard: its size after the last intact frame, whole batches."""

    size: int
    done: set[int]


class ShardWriter:
    """Makes batches into shards, remembering what it has seen of each.

    Every batch is made under the shard's lock (``exclusive_shard``). The writer scans a
    shard (and cuts a torn tail) only when the shard's size is not the one it left it at,
    so a long run does not re-read a growing shard before every batch, and a shard that
    someone else wrote in between is read again.
    """

    def __init__(self, client: ModelClient) -> None:
        self.client = client
        self._views: dict[Path, _ShardView] = {}

    async def make_batch(self, work: QuestionWork, batch: int) -> ShardReport:
        """Make ``batch`` of ``work``'s question unless its shard already holds it whole."""
        config = work.config
        shard = batch % config.shards
        path = work.folder / shard_name(shard)
        report = ShardReport(work.question.question_id, shard)
        async with exclusive_shard(path):
            view = self._view(path, config, report)
            if batch in view.done:
                return report
            indexes = config.batch_range(batch)
            stops = stops_for(config.mode)
            answers = await asyncio.gather(
                *(_answer(work, i, stops, self.client, report) for i in indexes)
            )
            records = [{"i": i, "text": a} for i, a in zip(indexes, answers, strict=True) if a]
            header = {"batch": batch, "planned": len(indexes), "question_id": report.question_id}
            append_frame(path, header, records)
            view.size = path.stat().st_size
            view.done.add(batch)
        report.batches = 1
        report.answers = len(records)
        report.failed = len(indexes) - len(records)
        return report

    def _view(self, path: Path, config: GenerateConfig, report: ShardReport) -> _ShardView:
        size = path.stat().st_size
        view = self._views.get(path)
        if view is not None and view.size == size:
            return view
        scan = repair_shard(path)
        if scan.damaged:
            report.damaged_bytes = scan.size - scan.good_bytes
            report.notes.append(f"{path}: damaged tail of {report.damaged_bytes} bytes dropped")
        done = {
            int(frame.header["batch"])
            for frame in scan.frames
            if frame.header.get("planned") == len(config.batch_range(int(frame.header["batch"])))
        }
        view = self._views[path] = _ShardView(size=scan.good_bytes, done=done)
        return view


def pending_batches(work: QuestionWork) -> dict[int, list[int]]:
    """The batches still to make, by shard, in order; whole batches in any shard count.

    ``shards`` is not part of the settings' identity, so a batch made under another shard
    count may sit in another shard file: every shard of the folder is read (a torn tail is
    ignored here, and cut by the writer that takes the shard).
    """
    config = work.config
    done, _ = done_batches(work.folder, config, repair=False)
    pending: dict[int, list[int]] = {}
    for shard in range(config.shards):
        todo = [b for b in range(shard, config.batches(), config.shards) if b not in done]
        if todo:
            pending[shard] = todo
    return pending


async def generate_shard(
    work: QuestionWork,
    shard: int,
    batches: Sequence[int],
    writer: ShardWriter,
    progress: Progress | None = None,
) -> ShardReport:
    """Make ``batches`` (the shard's part of ``pending_batches``), in batch order."""
    report = ShardReport(work.question.question_id, shard)
    for batch in batches:
        report.add(await writer.make_batch(work, batch))
        if progress is not None:
            progress(len(work.config.batch_range(batch)))
    return report


async def _answer(
    work: QuestionWork,
    index: int,
    stops: list[str],
    client: ModelClient,
    report: ShardReport,
) -> str:
    config, qid = work.config, work.question.question_id
    prefix = snippets_prefix(work.passages, config.snippets_k, config.seed, qid, index)
    prompt = build_prompt(
        work.samples, work.question.question, config.mode, index + 1,
        num_examples=config.num_examples, seed=config.seed, prefix=prefix,
    )  # fmt: skip
    base = trial_seed(index + 1, f"{config.seed}::{qid}::{config.set_name}")
    previous: SamplingParams | None = None
    for attempt in range(MAX_ATTEMPTS):
        params = SamplingParams(
            temperature=config.temperature, top_p=config.top_p, top_k=config.top_k,
            max_tokens=config.max_tokens, stop=tuple(stops), seed=(base + attempt) % 2**31,
        )  # fmt: skip
        if previous is not None and not previous.retry_can_change_reply(params):
            break  # greedy decoding would give the same empty answer again
        if previous is not None:
            report.empty_retries += 1
        previous = params
        response = await client.generate(
            prompt.to_request(params), sample_key=f"refset:{qid}:{index}:{attempt}"
        )
        report.prompt_tokens += response.usage.prompt_tokens
        report.completion_tokens += response.usage.completion_tokens
        answer = clean_answer(response.text, config.mode, stops)
        if answer:
            return answer
    return ""


def read_generated(work: Path, question_id: str) -> list[PoolRecord]:
    """Every answer in the intact frames of a question's shards, as distinct counted records.

    A damaged tail is never read (``scan_shard`` stops at it). If a batch appears in two
    frames (a partial last batch regenerated after ``answers`` grew), each answer index
    counts once, the later frame winning.
    """
    root = generated_root(work, question_id)
    records: list[PoolRecord] = []
    for folder in sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []:
        by_index: dict[int, str] = {}
        for path in shard_paths(folder):
            for frame in scan_shard(path).frames:
                for record in frame.records:
                    by_index[int(record["i"])] = str(record["text"])
        records.extend(PoolRecord(folder.name, text) for text in by_index.values())
    return merge_counts(records)


def generated_fingerprint(work: Path, question_id: str) -> str:
    root = generated_root(work, question_id)
    parts = [
        f"{p.relative_to(root)}:{p.stat().st_size}"
        for p in sorted(root.rglob("shard-*"))
        if p.is_file()
    ]
    return hashlib.sha1("\n".join(parts).encode()).hexdigest()


def write_stats(folder: Path) -> dict[str, int]:
    """Answers and distinct answers of one question's set: the de-duplicated counts."""
    texts: dict[str, int] = {}
    by_index: dict[int, str] = {}
    for path in shard_paths(folder):
        for frame in scan_shard(path).frames:
            for record in frame.records:
                by_index[int(record["i"])] = str(record["text"])
    for text in by_index.values():
        texts[text] = texts.get(text, 0) + 1
    stats = {"answers": len(by_index), "distinct": len(texts)}
    atomic_write_text(folder / STATS_FILE, json.dumps(stats) + "\n")
    return stats
