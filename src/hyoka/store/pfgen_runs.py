"""The pfgen-bench run folder: the one module that knows its file names and how to read them.

A run folder has upstream's layout, which hyoka writes too::

    <results>/<model>/<7-hex config hash>/
        config.json        the generation settings (absent from hand-made runs)
        trial_001.jsonl    one file per trial while generating ...
        trials.jsonl.xz    ... and all of them, sorted bytewise, as upstream publishes them
        trials.jsonl       (a plain run may hold this instead)
        result.json        the scores

Answers in more than one of these (upstream's Makefile keeps all three) are scored from the
first listed, and only when the others hold the same answers: which of two differing files a
user meant cannot be guessed, so that is an error naming both.

Everything that reads or writes these files goes through here, so a change of layout is made
once. Every problem is an ``InputError`` naming the file (and line) it comes from, raised
before anything is scored or written. The input hash is the SHA-1 of the bytes upstream's
scorer hashes, so a ``result.json`` we write says the same about its input as theirs does.

``trials.jsonl.xz`` is inflated within ``MAX_TRIALS_BYTES`` (``store.read_decompressed``), a
bound derived from what a run can hold, so a decompression bomb is refused unread. A line
repeated identically (a trial file copied twice, a concatenated run) is dropped with a
warning; two different answers to one question in one trial file are an error naming both.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import lzma
import operator
import os
import stat
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hyoka.errors import HyokaWarning, InputError
from hyoka.store.compressed import sha1_and_content
from hyoka.store.jsonl import (
    BOM,
    STRICT_DECODER,
    JsonDocumentError,
    bom_line_error,
    decode_json,
    json_problem,
    lone_surrogate,
)
from hyoka.store.regular import NotReadError, read_regular

CONFIG_FILE = "config.json"
TRIALS_XZ = "trials.jsonl.xz"
TRIALS_JSONL = "trials.jsonl"
TRIAL_GLOB = "trial_*.jsonl"
RESULT_FILE = "result.json"
#: The xz preset of upstream's Makefile (``xz -9 -k -f trials.jsonl``).
XZ_PRESET = 9

#: pfgen-bench asks 50 questions per trial.
QUESTIONS_PER_TRIAL = 50
#: The most trials a run is read with: ten times the 100 of every published run.
MAX_TRIALS = 1000
#: The mean bytes of one trial line allowed for: three times the published runs' mean (about
#: 1.3 KB; the longest published line is 4.8 KB, answers being cut at 300 tokens).
MAX_MEAN_LINE_BYTES = 4096
#: What a run's inflated ``trials.jsonl.xz`` may hold: 1000 x 50 x 4 KiB = 204,800,000 bytes.
MAX_TRIALS_BYTES = MAX_TRIALS * QUESTIONS_PER_TRIAL * MAX_MEAN_LINE_BYTES
#: What a run's ``result.json`` or ``config.json`` may hold: 64 MiB (the largest published
#: ``result.json``, of 100 trials, is 228 KB; one of ``MAX_TRIALS`` would be ten times that).
MAX_JSON_BYTES = 64 * 1024 * 1024


def trial_file(folder: Path, trial: int) -> Path:
    """Where trial number ``trial`` (1-based) of a run being generated is written."""
    return folder / f"trial_{trial:03d}.jsonl"


def trial_parts(folder: Path) -> list[Path]:
    """The ``trial_NNN.jsonl`` files of a run folder, in trial order."""
    return sorted(folder.glob(TRIAL_GLOB))


def _is_trials_name(name: str) -> bool:
    return name in (TRIALS_XZ, TRIALS_JSONL) or fnmatch.fnmatchcase(name, TRIAL_GLOB)


def run_sources(folder: Path) -> list[Path]:
    """Every answer source a run folder holds, the one scored first: ``trials.jsonl.xz``,
    ``trials.jsonl``, then the folder itself for its ``trial_*.jsonl`` parts.

    Upstream's Makefile leaves all three side by side (``cat trial_???.jsonl | LC_ALL=C sort
    > trials.jsonl; xz -9 -k``) and hyoka's generator keeps the parts beside its
    ``trials.jsonl.xz``: several sources are legitimate as long as they hold the same
    answers, which ``read_trials`` checks. A trials file that is there but cannot be read
    (a broken or looping link, no permission) still counts: reading it then reports why,
    instead of the run vanishing silently.
    """
    found = [folder / name for name in (TRIALS_XZ, TRIALS_JSONL) if os.path.lexists(folder / name)]
    if any(folder.glob(TRIAL_GLOB)):
        found.append(folder)
    return found


def run_source(folder: Path) -> Path | None:
    """The trials source of a run folder that is scored (the file itself, or the folder for
    trial parts): the first of ``run_sources``."""
    sources = run_sources(folder)
    return sources[0] if sources else None


def source_name(source: Path) -> str:
    """A trials source as a user sees it in its folder: the file's name, or ``trial_*.jsonl``
    for a folder of trial parts."""
    return TRIAL_GLOB if source.is_dir() else source.name


def source_label(source: Path) -> str:
    """A trials source as a path a user can find: the file, or ``<folder>/trial_*.jsonl``."""
    return str(source / TRIAL_GLOB) if source.is_dir() else str(source)


@dataclass(frozen=True)
class SkippedFolder:
    """A folder of a tree that looks like a run (it holds a run's files) but has no answers
    to score or check, and why."""

    folder: Path
    reason: str


@dataclass
class RunScan:
    """The runs found under a path, the folders that could not be searched, and the
    run-like folders without answers (``skipped``: never silently left out)."""

    sources: list[Path] = field(default_factory=list)
    problems: list[InputError] = field(default_factory=list)
    skipped: list[SkippedFolder] = field(default_factory=list)


def scan_runs(path: Path) -> RunScan:
    """The trials sources a user's PATH names: a trials file, a run folder, or a tree of them.

    A PATH that does not exist, is not a trials file or holds no run at all is an
    ``InputError``; a sub-folder that cannot be read is reported in ``problems`` and the
    search goes on, so one bad folder never hides the good runs beside it.
    """
    if path.is_file():
        if path.name.endswith((".jsonl", ".jsonl.xz")):
            return RunScan([path])
        raise InputError(f"{path}: not a trials file (expected .jsonl or .jsonl.xz)")
    if not os.path.lexists(path):
        raise InputError(f"{path}: no such file or folder")
    if not path.is_dir():
        raise InputError(f"{path}: not a file or folder (a broken or looping link?)")
    own = run_source(path)
    if own is not None:
        return RunScan([own])
    scan = RunScan()

    def unreadable(exc: OSError) -> None:
        scan.problems.append(InputError(f"{exc.filename}: cannot read folder: {exc.strerror}"))

    for top, dirnames, filenames in os.walk(path, onerror=unreadable):
        dirnames.sort()
        source = run_source(Path(top)) if any(map(_is_trials_name, filenames)) else None
        if source is not None:
            scan.sources.append(source)
        elif RESULT_FILE in filenames or CONFIG_FILE in filenames:
            scan.skipped.append(SkippedFolder(Path(top), _no_answers(filenames)))
    if not scan.sources and not scan.problems and not scan.skipped:
        raise InputError(f"{path}: no {TRIALS_XZ}, {TRIALS_JSONL} or {TRIAL_GLOB} found")
    return scan


def _no_answers(filenames: list[str]) -> str:
    """Why a folder holding a run's files has nothing to score."""
    answers = f"no answers ({TRIALS_XZ}, {TRIALS_JSONL} or {TRIAL_GLOB})"
    if RESULT_FILE in filenames:
        return f"a {RESULT_FILE} but {answers} to check it against"
    return f"a {CONFIG_FILE} but {answers}: not generated, or its answers are missing"


def find_runs(path: Path) -> list[Path]:
    """``scan_runs`` for callers that want all or nothing: an unreadable folder is an error."""
    scan = scan_runs(path)
    if scan.problems:
        raise scan.problems[0]
    if not scan.sources:
        raise InputError(f"{path}: no {TRIALS_XZ}, {TRIALS_JSONL} or {TRIAL_GLOB} found")
    return scan.sources


def find_result_files(root: Path, problems: list[str]) -> list[Path]:
    """The ``result.json`` files under ``root``, in a stable order; unreadable folders are
    appended to ``problems`` as one-line messages."""

    def unreadable(exc: OSError) -> None:
        problems.append(f"{exc.filename}: cannot read folder: {exc.strerror}")

    files: list[Path] = []
    for top, dirnames, filenames in os.walk(root, onerror=unreadable):
        dirnames.sort()
        if RESULT_FILE in filenames:
            files.append(Path(top) / RESULT_FILE)
    return files


@dataclass(frozen=True)
class TrialsInput:
    """The answers of one run, and where its ``result.json`` belongs."""

    folder: Path
    source: Path
    input_hash: str
    records: list[dict[str, Any]]
    #: Where each record came from, for error messages: (file, line number).
    origins: list[tuple[Path, int]]

    def where(self, index: int) -> str:
        """``file:line`` of record ``index``."""
        path, line = self.origins[index]
        return f"{path}:{line}"

    @property
    def result_path(self) -> Path:
        return self.folder / RESULT_FILE


def read_trials(source: Path, *, limit: int = MAX_TRIALS_BYTES) -> TrialsInput:
    """Parse a trials source (see ``scan_runs``) into records, or fail naming file and line.

    ``limit`` bounds an inflated ``trials.jsonl.xz`` (``MAX_TRIALS_BYTES``). Identical
    repeated lines are dropped with a warning; conflicting ones are an ``InputError``.
    """
    _refuse_side_file(source)
    trials, content = _read_trials(source, limit)
    _check_other_sources(trials.source, content, limit)
    return _distinct(trials)


def _refuse_side_file(source: Path) -> None:
    """Refuse a file named on its own whose folder holds a run's answers (``run_sources``)
    it is not one of: scoring it would give that folder's ``result.json`` its answers, and
    the run's own would be lost. A ``trial_NNN.jsonl`` named alone is refused while it has
    siblings (it is a part, not the run); as the run's one part it is the run."""
    if source.is_dir():
        return
    folder = source.parent
    sources = run_sources(folder)
    if not sources or source in sources:
        return
    if sources == [folder] and trial_parts(folder) == [source]:
        return
    held = ", ".join(source_name(other) for other in sources)
    raise InputError(
        f"{source}: named on its own, but its folder holds a run's answers ({held}) whose "
        f"{RESULT_FILE} scoring it would replace; score the folder, or move {source.name} "
        "out of it"
    )


def _check_other_sources(source: Path, content: bytes, limit: int) -> None:
    """Refuse a run whose folder holds other answer sources (``run_sources``) than ``source``
    with other answers: which file was meant cannot be guessed, and the ``result.json`` the
    folder gets belongs to all of them. The same lines in another order (a hand-made
    ``trials.jsonl`` not sorted, a byte-order mark, CRLF line ends) are the same answers.
    Each other source is read as scoring would read it (``trials.jsonl.xz`` inflated within
    ``limit``), so one that cannot be read is an error naming it.
    """
    folder = source if source.is_dir() else source.parent
    sources = run_sources(folder)
    if source not in sources or len(sources) == 1:
        return  # a file named on its own (answers.jsonl), or the folder's only source
    ours: list[bytes] | None = None
    for other in sources:
        if other == source:
            continue
        theirs = _source_content(other, limit)
        if theirs == content:
            continue
        ours = _answer_lines(content) if ours is None else ours
        if _answer_lines(theirs) != ours:
            raise InputError(
                f"{folder}: {source_name(source)} and {source_name(other)} hold different "
                "answers (which to score cannot be guessed); remove the one that is not this "
                "run's and run again"
            )


def _source_content(source: Path, limit: int) -> bytes:
    """The answers' bytes of a trials source, as ``_read_trials`` reads them."""
    if source.is_dir():
        return sorted_trial_lines(source)
    if source.name.endswith(".xz"):
        what = f"a run of {MAX_TRIALS} trials of {QUESTIONS_PER_TRIAL} answers"
        return sha1_and_content(source, limit=limit, what=what)[1]
    return _read(source)


_BOM_BYTES = BOM.encode("utf-8")


def _answer_lines(content: bytes) -> list[bytes]:
    """The answer lines of ``content`` in bytewise order, blank lines and byte-order marks
    left out: what two sources must share to hold the same answers."""
    lines = (line.removeprefix(_BOM_BYTES) for line in content.splitlines())
    return sorted(line for line in lines if line.strip())


def _read_trials(source: Path, limit: int) -> tuple[TrialsInput, bytes]:
    """The run's records and the bytes they were read from (hashed for ``input_hash``)."""
    if source.is_dir():
        own = run_source(source)
        if own is not None and own != source:
            return _read_trials(own, limit)
        parts = trial_parts(source)
        if not parts:
            raise InputError(f"{source}: no {TRIAL_GLOB} files in folder")
        lines: list[tuple[Path, int, bytes]] = []
        for part, data in _read_parts(parts, limit):
            lines.extend((part, i, line) for i, line in enumerate(data.splitlines(), 1))
        # upstream's trials.jsonl.xz is these lines sorted bytewise (LC_ALL=C sort)
        lines = [item for item in lines if item[2].strip()]
        lines.sort(key=lambda item: item[2])
        if not lines:
            raise InputError(f"{source}: no answers in {TRIAL_GLOB} files")
        content = b"".join(line + b"\n" for _, _, line in lines)
        records = [_parse_line(path, number, line) for path, number, line in lines]
        origins = [(path, number) for path, number, _ in lines]
        input_hash = hashlib.sha1(content).hexdigest()
        return TrialsInput(source, source, input_hash, records, origins), content
    if source.name.endswith(".xz"):
        what = f"a run of {MAX_TRIALS} trials of {QUESTIONS_PER_TRIAL} answers"
        input_hash, content = sha1_and_content(source, limit=limit, what=what)
    else:
        content = _read(source)
        input_hash = hashlib.sha1(content).hexdigest()
    parsed = _parse_whole(content)
    if parsed is None:  # something to report: line by line, to name the line
        numbered = [
            (number, line)
            for number, line in enumerate(content.splitlines(), start=1)
            if line.strip()
        ]
        records = [_parse_line(source, number, line) for number, line in numbered]
        numbers = [number for number, _ in numbered]
    else:
        records, numbers = parsed
    if not records:
        raise InputError(f"{source}: no answers in file")
    origins = [(source, number) for number in numbers]
    return TrialsInput(source.parent, source, input_hash, records, origins), content


def _distinct(trials: TrialsInput) -> TrialsInput:
    """``trials`` with identical repeats of a line dropped (one warning), or an
    ``InputError`` naming both lines when one trial file answers a question twice.

    A trial line is one answer at one time (``timestamp``, which every published and every
    hyoka run has): the same line twice is the same answer counted twice, which would
    inflate ``num_trials`` and shrink the standard error. Lines without a time stamp cannot
    be told apart from a greedy model's equal answers in two trials, and are all kept. A
    ``trial_NNN.jsonl`` holds one answer per question, so two different ones there conflict.
    """
    if not any(fnmatch.fnmatchcase(path.name, TRIAL_GLOB) for path in _paths(trials)):
        # the usual file: no two lines share question, answer and time (all C-level loops);
        # else the walk below, which drops nothing in this case either
        records = trials.records
        stamps = [record.get("timestamp") for record in records]
        questions = map(operator.itemgetter("question"), records)
        answers = map(operator.itemgetter("answer"), records)
        if all(type(stamp) is str for stamp in stamps) and len(
            set(zip(questions, answers, stamps, strict=True))
        ) == len(records):
            return trials
    bucket: dict[tuple[str, str, str], list[int]] = {}
    in_part: dict[tuple[Path, str], int] = {}
    keep: list[int] = []
    is_part: dict[Path, bool] = {}  # per file, not per line
    for index, record in enumerate(trials.records):
        path = trials.origins[index][0]
        part = is_part.get(path)
        if part is None:
            part = is_part[path] = fnmatch.fnmatchcase(path.name, TRIAL_GLOB)
        if part:
            earlier = in_part.setdefault((path, record["question"]), index)
            if earlier != index and trials.records[earlier] != record:
                raise InputError(
                    f"{trials.where(index)}: a second, different answer to "
                    f"{record['question'][:40]!r} in one trial (first at "
                    f"{trials.where(earlier)}); remove one of them"
                )
        stamp = record.get("timestamp")
        if not isinstance(stamp, str):
            keep.append(index)
            continue
        # lines equal as JSON have equal question, answer and time: only lines that share
        # those three (rare) are written out whole to compare
        same_answer = bucket.setdefault((record["question"], record["answer"], stamp), [])
        if same_answer:
            text = _canonical(record)
            if any(_canonical(trials.records[i]) == text for i in same_answer):
                continue
        same_answer.append(index)
        keep.append(index)
    dropped = len(trials.records) - len(keep)
    if not dropped:
        return trials
    warnings.warn(
        f"{trials.source}: {dropped} identical duplicate trial line(s) dropped",
        HyokaWarning,
        stacklevel=3,
    )
    return TrialsInput(
        trials.folder,
        trials.source,
        trials.input_hash,
        [trials.records[i] for i in keep],
        [trials.origins[i] for i in keep],
    )


def _paths(trials: TrialsInput) -> list[Path]:
    """The files ``trials`` came from, each once."""
    return list(dict.fromkeys(path for path, _ in trials.origins))


def _canonical(record: dict[str, Any]) -> str:
    return json.dumps(record, sort_keys=True)


def sorted_trial_lines(folder: Path) -> bytes:
    """All trial parts' lines, sorted bytewise (as ``LC_ALL=C sort``): ``trials.jsonl``'s
    content, as upstream compresses it into ``trials.jsonl.xz``."""
    lines: list[bytes] = []
    for _, data in _read_parts(trial_parts(folder), MAX_TRIALS_BYTES):
        lines.extend(line for line in data.splitlines() if line.strip())
    lines.sort()
    return b"".join(line + b"\n" for line in lines)


def answers_hash(folder: Path) -> tuple[Path, str] | None:
    """The answers a run folder's ``result.json`` was scored from (``run_source``) and their
    input hash as scoring computes it (``read_trials``: the SHA-1 of the trials file's bytes,
    compressed or not, or of the trial parts' sorted lines), without parsing a line: what a
    reader compares with the ``input_hash`` a result records, to tell answers changed since.
    ``None`` when the folder holds no answers; an ``InputError`` naming the file when they
    cannot be read (a trials file that is no regular file is not opened: it could block)."""
    source = run_source(folder)
    if source is None:
        return None
    if source.is_dir():
        return source, hashlib.sha1(sorted_trial_lines(source)).hexdigest()
    try:
        regular = stat.S_ISREG(source.stat().st_mode)
    except OSError as exc:
        raise InputError(f"{source}: cannot read: {exc.strerror}") from None
    if not regular:
        raise InputError(f"{source}: not a regular file")
    return source, hashlib.sha1(_read(source)).hexdigest()


def compress_trials(content: bytes) -> bytes:
    """``content`` compressed as upstream's Makefile compresses ``trials.jsonl`` (``xz -9``).

    The same preset gives the same bytes (liblzma's single-threaded encoder, as ``xz -9``
    runs up to XZ Utils 5.4 and ``xz -9 -T1`` always), so the same answers get the same
    ``input_hash``; Python's default preset (6) would give other bytes and another hash.
    """
    return lzma.compress(content, format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC64, preset=XZ_PRESET)


class UnreadableJsonError(InputError):
    """A JSON file that cannot be used: ``path`` and the ``reason``, for callers that word
    the message their own way (a leaderboard skips such a file with a warning)."""

    def __init__(self, path: Path, reason: str, line: int | None = None) -> None:
        where = f"{path}:{line}" if line is not None else str(path)
        super().__init__(f"{where}: {reason}")
        self.path = path
        self.reason = reason


def read_json_object(path: Path, what: str) -> dict[str, Any]:
    """A JSON object from ``path``, or ``UnreadableJsonError`` saying why it is not ``what``.
    Read as the store reads every JSON document (``decode_json``): a byte-order mark at its
    start is read past, and every reason is in hyoka's words. ``NaN`` is read (upstream's
    writer may write it): the numbers are judged by what reads them."""
    try:
        data = read_regular(path, limit=MAX_JSON_BYTES, what=f"a {what}")
    except NotReadError as exc:  # a FIFO is not waited on, a device not read
        raise UnreadableJsonError(path, f"{what}: {exc.reason}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        reason = f"{what} is not valid JSON (not UTF-8: {exc.reason})"
        raise UnreadableJsonError(path, reason) from None
    try:
        value = decode_json(text, strict=False)
    except JsonDocumentError as problem:
        raise UnreadableJsonError(path, f"{what} is {problem.reason}", problem.line) from None
    if not isinstance(value, dict):
        raise UnreadableJsonError(path, f"{what}: expected a JSON object")
    return value


def read_config(folder: Path) -> dict[str, Any] | None:
    """A run's ``config.json``, or ``None`` when the run has none."""
    path = folder / CONFIG_FILE
    if not os.path.lexists(path):
        return None
    return read_json_object(path, "generation config")


def read_result(folder: Path) -> dict[str, Any] | None:
    """A run's ``result.json`` as stored, or ``None`` when there is none."""
    path = folder / RESULT_FILE
    if not os.path.lexists(path):
        return None
    return read_json_object(path, "result")


def _read(path: Path, limit: int = MAX_TRIALS_BYTES) -> bytes:
    """A plain trials file's bytes: a regular file only (a FIFO is not waited on), within
    what a run may hold (``MAX_TRIALS_BYTES``, as an inflated ``trials.jsonl.xz``)."""
    what = f"a run of {MAX_TRIALS} trials of {QUESTIONS_PER_TRIAL} answers"
    return read_regular(path, limit=limit, what=what)


def _read_parts(parts: list[Path], limit: int) -> list[tuple[Path, bytes]]:
    """Each trial part's bytes (``_read``), all of them together within ``limit``."""
    read: list[tuple[Path, bytes]] = []
    left = limit
    for part in parts:
        data = _read(part, left)
        left -= len(data)
        read.append((part, data))
    return read


#: Every trials line is parsed by the store's strict decoder (NaN and Infinity refused);
#: its C scanner reads one JSON value from an index, no surrounding whitespace
#: (``_parse_whole``): an attribute every ``JSONDecoder`` sets, not listed in typeshed.
_SCAN: Callable[[str, int], tuple[Any, int]] = STRICT_DECODER.scan_once  # type: ignore[attr-defined]


#: Lines with at most this many brackets cannot nest deep enough to meet Python's recursion
#: limit, wherever they are read from; a line with more is read line by line, as before.
_SHALLOW = 64
#: What ``bytes.strip()`` strips (ASCII whitespace): ``str.strip()`` would strip more.
_ASCII_SPACE = " \t\n\r\x0b\x0c"


def _parse_whole(content: bytes) -> tuple[list[dict[str, Any]], list[int]] | None:
    """Every record of ``content`` and its line number, as ``_parse_line`` line by line would
    read them, or None where that would refuse a line (or might read it differently: a
    carriage return, a BOM after the file's start, a line with space around its JSON), for
    it to name the line. A byte-order mark at the start of the file is read past, as the
    store reads every file (``jsonl``); it stays in the bytes hashed.

    The file is decoded once and each line handed straight to the decoder's C scanner
    (``scan_once``: what ``JSONDecoder.decode`` calls after skipping whitespace, which these
    lines have none of), without a Python frame per line: a third of the time of reading.
    """
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError:
        return None
    text = text.removeprefix(BOM)
    if "\r" in text or BOM in text:
        return None  # bytes.splitlines() splits at "\r" too; a BOM elsewhere has its message
    scan = _SCAN
    records: list[dict[str, Any]] = []
    numbers: list[int] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip(_ASCII_SPACE):
            continue
        if line.count("[") + line.count("{") > _SHALLOW:
            return None  # how deep is too deep depends on the stack: read where it always was
        try:
            record, end = scan(line, 0)
        except (StopIteration, ValueError, RecursionError):  # malformed, NaN, too deep
            return None
        if (
            end != len(line)
            or type(record) is not dict
            or type(record.get("question")) is not str
            or type(record.get("answer")) is not str
            or ("\\u" in line and lone_surrogate(record) is not None)
        ):
            return None
        records.append(record)
        numbers.append(number)
    return records, numbers


def _parse_line(path: Path, number: int, line: bytes) -> dict[str, Any]:
    """Line ``number`` of ``path`` as a trial record; a byte-order mark is read past at the
    start of the file (line 1) and named anywhere else."""
    try:
        text = line.decode("utf-8")
        if text.startswith(BOM) and number == 1:
            text = text.removeprefix(BOM)
        if text.startswith(BOM):
            raise bom_line_error(f"{path}:{number}")
        record = STRICT_DECODER.decode(text)  # the decoder made once, not one a line
    except UnicodeDecodeError as exc:  # the messages name the line only when one is made
        reason = f"not UTF-8 ({exc.reason} at byte {exc.start})"
        raise InputError(f"{path}:{number}: {reason}") from None
    except json.JSONDecodeError as exc:
        reason = f"malformed JSON: {json_problem(exc)} (column {exc.colno})"
        raise InputError(f"{path}:{number}: {reason}") from None
    except ValueError as exc:  # NaN or Infinity, a number too long to read
        raise InputError(f"{path}:{number}: malformed JSON: {json_problem(exc)}") from None
    except RecursionError:
        raise InputError(f"{path}:{number}: JSON nested too deeply to read") from None
    if not isinstance(record, dict):
        raise InputError(f"{path}:{number}: expected a JSON object")
    for name in ("question", "answer"):
        if not isinstance(record.get(name), str):
            raise InputError(f"{path}:{number}: missing or non-string '{name}'")
    try:  # JSON allows it; it is not text
        bad = lone_surrogate(record) if "\\u" in text else None
    except RecursionError:  # as deep as the decoder could just read: too deep to write
        raise InputError(f"{path}:{number}: JSON nested too deeply to read") from None
    if bad is not None:
        raise InputError(
            f"{path}:{number}: lone surrogate \\u{ord(bad):04x} in a string "
            "(not valid Unicode text)"
        )
    return record
