"""Judges' published grades and verdicts, read as tables to measure the judges by.

Three shapes of file are read, each as its producer wrote it:

- a score table, one JSON line per grade: ``{"judge", "suite", "model", "item", "score"}``
  (the Shaberi table under ``shaberi-judgments/``, derived from shisa-ai/shaberi; or any
  table in that shape, human labels included: name them as a judge). ``score`` is a number
  or ``null`` (the judge's reply held no grade); ``.xz``/``.gz``/``.zst`` are inflated
  through the store within ``SCORES_MAX_BYTES``.
- a FastChat single-grading folder (``model_judgment/<judge>_single``) or file
  (``<judge>_single.jsonl``, FastChat's ``gen_judgment.py`` layout); -1 (no rating) is a
  missing grade; each line's template is its ``judge: [name, template]``; a line of
  swallow-evaluation's (lists over the trials) is one grade per trial. Every line is kept:
  a second grade of one (model, question, turn, trial) is a repeat of the judge, kept
  beside the first (which alone counts elsewhere) for the variance across repeats. The
  answers graded are read from ``model_answer/`` beside it, where present, for their
  lengths.
- FastChat pairwise lines, both orders per line (``g1_winner``, ``g2_winner``): a file or
  a folder of them, each line read as the one pair line every reader takes
  (``mtbench.PairJudgmentLine``: the judge is ``judge: [name, prompt]``, FastChat's, or
  ``judge_model``/``judge_prompt``, ja-vicuna-qa-benchmark's; the answers shown, where the
  line carries them, ``shown_answers``).

Nothing is dropped or clamped here: a missing grade stays missing (NaN) and a grade off
its scale stays as written; ``judge_meta`` counts and names both.

Each judgment is read once (``_files_once``, ``JudgmentCopies``): a file reached twice (given
twice, beside the folder holding it, through a link) is read once, and a line the same as
one read before in every field but, where it keeps a time stamp and a reply, the judge's
name (a file copied under another name, or joined to itself, or its judge renamed) is an
error naming both: counted again, it would be a repeat on which the judge agreed with
itself, or a second judge agreeing perfectly. A repeat is another call of the judge, so
another line: another time stamp at least. An empty file, and a pair of one model
(``line_checks.check_models``), are errors too.

A judgment file's judge is the one that answered (``judge.judged_by``): what its hyoka
manifest records (``scripted/s.jsonl``, ``openai/gpt-4o``), not the label its lines
carry (``--judge-name gpt-4o-mini``); a file without one is named by its lines. A scripted
judge's grades and verdicts are a dry run, and are said to be one.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from hyoka.errors import HyokaNote, InputError
from hyoka.judge import judged_by
from hyoka.metaeval.judged_suite import Suite, Suites, file_stem
from hyoka.metaeval.judgment_copies import JudgmentCopies
from hyoka.mtbench import (
    NO_RATING,
    AnswerRecord,
    PairJudgmentLine,
    SingleGradingLine,
    SingleJudgmentLine,
    check_line,
    check_models,
    model_answer_file,
    spec_named,
)
from hyoka.store import (
    codec_of,
    parse_lines,
    read_bytes,
    read_decompressed,
    read_records,
)

#: the most a score table may inflate to (the Shaberi table: 72.5 MB)
SCORES_MAX_BYTES = 1 << 30
#: the scale of each Shaberi suite hyoka has no definition of (shisa-ai/shaberi's judge
#: prompts; a defined one's is its definition's: ``shaberi_scale``); a grade elsewhere, or
#: not a whole number, is off the scale
SHABERI_SCALES: Mapping[str, tuple[int, int]] = {
    "lightblue__tengu_bench": (0, 10),
    "shisa-ai__ja-mt-bench-1shot": (1, 10),
    "yuzuai__rakuda-questions": (1, 10),
}
#: Shaberi items of the older 80-question ja-mt-bench files, which have no ids
LEGACY_PREFIX = "legacy-"
#: the template of a grade whose file names none (a table of grades)
NO_TEMPLATE = "-"
_FIELDS = ("judge", "suite", "model", "item")
#: the fields a ``ScoreTable`` holds as names and codes
_CODED = (*_FIELDS, "template")
IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]


def on_scale(score: FloatArray, scale: tuple[int, int] | None) -> BoolArray:
    """The grades that count: whole numbers on the suite's scale (any whole number where
    the scale is unknown); the rest are missing or off-scale and named, never used."""
    whole: BoolArray = np.isfinite(score) & (score == np.round(score))
    if scale is None:
        return whole
    inside: BoolArray = whole & (score >= scale[0]) & (score <= scale[1])
    return inside


class _Codes:
    """Names to small integer codes, in order of first sight."""

    def __init__(self) -> None:
        self.codes: dict[str, int] = {}

    def __call__(self, name: str) -> int:
        code = self.codes.get(name)
        if code is None:
            code = self.codes[name] = len(self.codes)
        return code

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self.codes)


@dataclass(frozen=True)
class ScoreTable:
    """Single grades of one or more judges: one row per (judge, suite, model, item).

    ``score`` is NaN where no grade was given; ``length`` is the graded answer's length in
    characters, NaN where the answer is not at hand; ``template`` the judge prompt the grade
    was made with (``NO_TEMPLATE`` where the file names none). ``scales`` holds each
    suite's scale where it is known; ``origin`` names where each judge's grades were read
    from. Later grades of a row (the judge asked again) are ``repeat_score``, each naming
    its row in ``repeat_of``; ``repeats_seen``: the judges whose files could hold repeats
    (judgment lines; a table of grades refuses a second grade of an item); ``dry_runs``:
    the judges that are scripts (``judge.judged_by``: their grades a dry run)."""

    judges: tuple[str, ...]
    suites: tuple[str, ...]
    models: tuple[str, ...]
    items: tuple[str, ...]
    templates: tuple[str, ...]
    judge: IntArray
    suite: IntArray
    model: IntArray
    item: IntArray
    template: IntArray
    score: FloatArray
    length: FloatArray
    scales: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    origin: Mapping[str, str] = field(default_factory=dict)
    repeat_of: IntArray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    repeat_score: FloatArray = field(default_factory=lambda: np.zeros(0))
    repeats_seen: frozenset[str] = frozenset()
    dry_runs: frozenset[str] = frozenset()

    @property
    def size(self) -> int:
        return len(self.score)

    @classmethod
    def coded(
        cls,
        names: Mapping[str, tuple[str, ...]],
        codes: Mapping[str, IntArray],
        score: FloatArray,
        length: FloatArray,
        **more: Any,
    ) -> ScoreTable:
        """A table from each coded field's names and codes (``_CODED``: ``names["judge"]``
        the judges, ``codes["judge"]`` each row's), its other fields as keywords."""
        return cls(
            judges=names["judge"], suites=names["suite"], models=names["model"],
            items=names["item"], templates=names["template"],
            judge=codes["judge"], suite=codes["suite"], model=codes["model"],
            item=codes["item"], template=codes["template"],
            score=score, length=length, **more,
        )  # fmt: skip

    def coding(self, name: str) -> tuple[tuple[str, ...], IntArray]:
        """The coded field ``name``'s names and each row's code (``_CODED``)."""
        names = {"judge": self.judges, "suite": self.suites, "model": self.models,
                 "item": self.items, "template": self.templates}  # fmt: skip
        return names[name], getattr(self, name)


def _check_unique(table: ScoreTable, where: str) -> None:
    """A second grade of one (judge, suite, model, item) is refused: which one counts
    cannot be told (the table's producer keeps the first and says so)."""
    key = (table.judge * len(table.suites) + table.suite) * len(table.models) + table.model
    key = key * len(table.items) + table.item
    order = np.argsort(key, kind="stable")
    repeated = np.flatnonzero(key[order][1:] == key[order][:-1])
    if len(repeated):
        first, second = sorted((int(order[repeated[0]]), int(order[repeated[0] + 1])))
        what = ", ".join(
            f"{name}={values[codes[first]]!r}"
            for name, (values, codes) in zip(_FIELDS, map(table.coding, _FIELDS), strict=True)
        )
        raise InputError(
            f"{where}: a second grade of ({what}), objects {first + 1} and {second + 1}"
        )


#: rows turned into columns at a time: half a million parsed lines held at once would take
#: most of a gigabyte
_CHUNK = 1 << 16


def _add_chunk(
    path: Path,
    chunk: list[tuple[int, dict[str, Any]]],
    codes: dict[str, _Codes],
    columns: dict[str, list[IntArray]],
    scores: list[FloatArray],
) -> None:
    """One chunk of parsed lines as columns, column by column (a loop per row and field
    costs twice the time), each line checked: names non-empty strings, a score a number
    or null."""
    rows = [row for _, row in chunk]
    for name in _FIELDS:
        values = [row.get(name) for row in rows]
        if not all(type(value) is str and value for value in values):
            at = next(i for i, v in enumerate(values) if not (type(v) is str and v))
            raise InputError(f"{path}:{chunk[at][0]}: {name!r} must be a non-empty string")
        known = codes[name].codes
        columns[name].append(
            np.fromiter(
                (known.setdefault(value, len(known)) for value in values),  # type: ignore[arg-type]
                dtype=np.int64,
                count=len(values),
            )
        )
    raw = [row.get("score", ...) for row in rows]
    if not {type(value) for value in raw} <= {int, float, type(None)}:
        at = next(i for i, v in enumerate(raw) if type(v) not in (int, float, type(None)))
        raise InputError(f"{path}:{chunk[at][0]}: 'score' must be a number or null")
    scores.append(np.asarray([np.nan if v is None else v for v in raw], dtype=np.float64))


def read_score_table(path: Path) -> ScoreTable:
    """A table of grades (see the module docstring), compressed or not."""
    data = (
        read_decompressed(path, limit=SCORES_MAX_BYTES, what="a table of judges' grades")
        if codec_of(path)
        else read_bytes(path)
    )
    codes = {name: _Codes() for name in _FIELDS}
    columns: dict[str, list[IntArray]] = {name: [] for name in _FIELDS}
    scores: list[FloatArray] = []
    chunk: list[tuple[int, dict[str, Any]]] = []
    for line in parse_lines(data, str(path)):
        chunk.append(line)
        if len(chunk) == _CHUNK:
            _add_chunk(path, chunk, codes, columns, scores)
            chunk = []
    if chunk:
        _add_chunk(path, chunk, codes, columns, scores)
    if not scores:
        raise InputError(f"{path}: no grades")
    suites = codes["suite"].names
    table = ScoreTable.coded(
        {**{name: codes[name].names for name in _FIELDS}, "template": (NO_TEMPLATE,)},
        {
            **{name: np.concatenate(columns[name]) for name in _FIELDS},
            "template": np.zeros(sum(map(len, scores)), dtype=np.int64),
        },
        score=np.concatenate(scores),
        length=np.full(sum(map(len, scores)), np.nan),
        scales={suite: scale for suite in suites if (scale := shaberi_scale(suite)) is not None},
        origin=dict.fromkeys(codes["judge"].names, file_stem(path)),
    )
    _check_unique(table, str(path))
    return table


def _files_once(
    paths: Sequence[Path], files_of: Callable[[Path], list[Path]]
) -> list[tuple[Path, list[Path]]]:
    """Each path with its files (``files_of``) not reached before, by their resolved
    paths: a file given twice, or beside the folder holding it, or through a link, is read
    once (one ``HyokaNote`` naming the path); a path with none left is dropped."""
    read: set[Path] = set()
    found: list[tuple[Path, list[Path]]] = []
    for path in paths:
        files = []
        again = False
        for file in files_of(path):
            real = file.resolve()
            if real in read:
                again = True
            else:
                read.add(real)
                files.append(file)
        if again:
            note = f"{path}: given again (or within a path given), read once"
            warnings.warn(note, HyokaNote, stacklevel=3)
        if files:
            found.append((path, files))
    return found


def read_single_folders(paths: list[Path], data_dir: Path | None = None) -> ScoreTable:
    """FastChat single-grading folders or files as one table: item ``<question>/<turn>``
    (and ``/<trial>`` for trials after the first), the benchmark as the suite (each file's,
    ``judged_suite``: its manifest's, else the registry's by its folder's name; every line
    of a known benchmark checked as the leaderboard checks it, ``line_checks.check_line``,
    its questions read from ``data_dir``; a grade off the scale is counted, not refused), the
    template from ``judge``, -1 (no rating) as a missing grade, a second grade of an item
    a repeat (``ScoreTable.repeat_of``; in one file or across the paths given: a second
    run of the judge; each file and line read once: ``_files_once``, ``JudgmentCopies``),
    lengths from the answers in ``model_answer/`` beside ``model_judgment/`` where that
    folder exists. A folder or file holds one judge (the
    one that answered: ``judge.judged_by``); a grade off its benchmark's scale is kept as
    written (``judge_meta`` counts it)."""
    codes = {name: _Codes() for name in _CODED}
    columns: dict[str, list[int]] = {name: [] for name in codes}
    scores: list[float] = []
    lengths: list[float] = []
    repeat_of: list[int] = []
    repeat_score: list[float] = []
    answers: dict[Path | None, dict[tuple[str, int, int], float]] = {}
    origin: dict[str, str] = {}
    seen: dict[tuple[str, str, str, int, str, int], int] = {}
    dry_runs: set[str] = set()
    copies = JudgmentCopies()
    suites = Suites(data_dir)
    scales: dict[str, tuple[int, int]] = {}
    for path, files in _files_once(paths, _single_files):
        answer_dir = path.resolve().parent.parent / "model_answer"
        judge, lines, dry_run = _judgment_lines(path, files, copies, suites)
        if dry_run:
            dry_runs.add(judge)
        for suite, template, (question, turn, model, trial), score in lines:
            origin.setdefault(judge, f"{suite.name}/{path.name}")
            bench = suite.name
            if suite.scale is not None:
                scales[bench] = suite.scale
            grade = np.nan if score == NO_RATING else float(score)
            key = (judge, bench, question, turn, model, trial)
            if key in seen:
                repeat_of.append(seen[key])
                repeat_score.append(grade)
                continue
            seen[key] = len(scores)
            item = f"{question}/{turn}" + (f"/{trial}" if trial else "")
            for name, value in zip(_CODED, (judge, bench, model, item, template), strict=True):
                columns[name].append(codes[name](value))
            scores.append(grade)
            answer_file = model_answer_file(answer_dir, model)
            if answer_file not in answers:
                answers[answer_file] = _answer_lengths(answer_file)
            lengths.append(answers[answer_file].get((question, turn, trial), np.nan))
    table = ScoreTable.coded(
        {name: coded.names for name, coded in codes.items()},
        {name: np.asarray(column, dtype=np.int64) for name, column in columns.items()},
        score=np.asarray(scores, dtype=np.float64),
        length=np.asarray(lengths, dtype=np.float64),
        scales=scales,
        origin=origin,
        repeat_of=np.asarray(repeat_of, dtype=np.int64),
        repeat_score=np.asarray(repeat_score, dtype=np.float64),
        repeats_seen=frozenset(codes["judge"].names),
        dry_runs=frozenset(dry_runs),
    )
    _check_unique(table, ", ".join(map(str, paths)))
    return table


def shaberi_scale(suite: str) -> tuple[int, int] | None:
    """The scale of a Shaberi suite: the definition's whose upstream name it is (ELYZA-
    tasks-100's 1-5), else Shaberi's own prompt's (``SHABERI_SCALES``); ``None``: unknown."""
    spec = spec_named(suite)
    return spec.scale if spec is not None else SHABERI_SCALES.get(suite)


Graded = tuple[Suite, str, tuple[str, int, str, int], float]


def _jsonl_files(path: Path, what: str, *, nested: bool = False) -> list[Path]:
    """The ``*.jsonl`` files of a folder of ``what`` judgments (``nested``: in its
    subfolders too), or the file itself; a folder without one, or a path that is neither,
    is one error naming it."""
    if path.is_dir():
        files = sorted(path.rglob("*.jsonl") if nested else path.glob("*.jsonl"))
        if not files:
            raise InputError(f"{path}: no *.jsonl {what} judgment files")
        return files
    if path.is_file():
        return [path]
    raise InputError(f"{path}: not a {what} folder or file")


def _single_files(path: Path) -> list[Path]:
    """The judgment files of a single-grading folder, or the file itself."""
    return _jsonl_files(path, "single-grading")


def _judgment_lines(
    path: Path, files: list[Path], copies: JudgmentCopies, suites: Suites
) -> tuple[str, list[Graded], bool]:
    """The judge of a single-grading folder or file (``files``: those of its files not
    read before; ``judge.judged_by`` of each file: its manifest's, else its lines' name),
    its grades in file order: (suite, template, (question, turn, model, trial), score),
    each line of a known benchmark checked as the leaderboard checks it (but for the
    scale: off it, a grade is the judge's fault, counted), one per
    trial of a line that lists them (swallow-evaluation's: ``trials`` names the choices,
    else 0, 1, ...), and whether a script made them (a dry run)."""
    grades: list[Graded] = []
    judges: set[str] = set()
    dry_run = False
    for file in files:
        names: set[str] = set()
        numbered: list[tuple[int, SingleJudgmentLine]] = []
        for number, read in read_records(file, SingleGradingLine):
            copies.see(file, number, read.root)
            names.add(read.root.judge[0])
            try:  # one grade per trial of a line of swallow-evaluation's
                numbered += [(number, line) for line in read.per_trial()]
            except ValueError as exc:
                raise InputError(f"{file}:{number}: {exc}") from None
        rows = suites.of_rows(file, path, [line for _, line in numbered])
        for number, line in numbered:
            suite = rows[line.model]
            bench = suites.bench(suite)
            if bench is not None:
                check_line(f"{file}:{number}", line, bench, scale=False)
            key = (str(line.question_id), line.turn, line.model, line.trial or 0)
            grades.append((suite, line.judge[1], key, float(line.score)))
        answered = judged_by(file, names)
        judges |= {answered.judge} if answered.recorded else names
        dry_run = dry_run or answered.dry_run
    if not grades:
        raise InputError(f"{path}: empty, no judgment in it")
    if len(judges) != 1:
        raise InputError(f"{path}: judgments by several judges: {sorted(judges)}")
    return next(iter(judges)), grades, dry_run


def _answer_lengths(path: Path | None) -> dict[tuple[str, int, int], float]:
    """(question id, turn, trial) -> the answer's length in characters; empty without the
    file."""
    if path is None or not path.is_file():
        return {}
    return {
        (str(record.question_id), turn, trial): float(len(text))
        for _, record in read_records(path, AnswerRecord)
        for trial, choice in enumerate(record.choices)
        for turn, text in enumerate(choice.turns, start=1)
    }


@dataclass(frozen=True)
class PairTable:
    """Pairwise lines of one benchmark and judge (every template), in file order; the
    judge is the one that answered (``judge.judged_by``), ``dry_run`` where it is a
    script."""

    suite: str
    judge: str
    path: Path
    lines: tuple[PairJudgmentLine, ...]
    dry_run: bool = False


def _pair_files(path: Path) -> list[Path]:
    """The judgment files of a pairwise folder (and its subfolders), or the file itself."""
    return _jsonl_files(path, "pairwise", nested=True)


def read_pair_tables(paths: list[Path], data_dir: Path | None = None) -> list[PairTable]:
    """FastChat pairwise files or folders, one table per (benchmark, judge): the
    benchmark each file's (``judged_suite``, its questions read from ``data_dir``), the judge
    that answered each file (``judge.judged_by``), else each line's; each file and line
    read once (``_files_once``, ``JudgmentCopies``)."""
    tables: dict[tuple[str, str], list[PairJudgmentLine]] = {}
    where: dict[tuple[str, str], Path] = {}
    dry: set[tuple[str, str]] = set()
    copies = JudgmentCopies()
    suites = Suites(data_dir)
    for path, files in _files_once(paths, _pair_files):
        read = 0
        for file in files:
            bench = suites.of(file, path).name
            lines = []
            for number, line in read_records(file, PairJudgmentLine):
                copies.see(file, number, line)
                check_models(f"{file}:{number}", line.model_1, line.model_2,
                             ("model_1", "model_2"))  # fmt: skip
                lines.append(line)
            read += len(lines)
            answered = judged_by(file, {line.judge[0] for line in lines})
            for line in lines:
                key = (bench, answered.judge if answered.recorded else line.judge[0])
                tables.setdefault(key, []).append(line)
                where.setdefault(key, path)
                if answered.dry_run:
                    dry.add(key)
        if not read:
            raise InputError(f"{path}: empty, no judgment in it")
    return [PairTable(suite, judge, where[suite, judge], tuple(lines), (suite, judge) in dry)
            for (suite, judge), lines in tables.items()]  # fmt: skip


def merge_tables(tables: list[ScoreTable]) -> ScoreTable:
    """Several tables as one, names recoded (a judge in two tables must grade different
    suites or items: a second grade of one item is refused as in one table)."""
    if len(tables) == 1:
        return tables[0]
    merged: dict[str, _Codes] = {name: _Codes() for name in _CODED}
    columns: dict[str, list[IntArray]] = {name: [] for name in _CODED}
    scales: dict[str, tuple[int, int]] = {}
    origin: dict[str, str] = {}
    repeat_of: list[IntArray] = []
    offset = 0
    for table in tables:
        repeat_of.append(table.repeat_of + offset)
        offset += table.size
        for name in _CODED:
            names, codes = table.coding(name)
            recode = np.asarray([merged[name](value) for value in names], dtype=np.int64)
            columns[name].append(recode[codes])
        for suite, scale in table.scales.items():
            if scales.setdefault(suite, scale) != scale:
                raise InputError(f"suite {suite!r} has two scales: {scales[suite]} and {scale}")
        for judge, where in table.origin.items():
            origin[judge] = f"{origin[judge]}, {where}" if judge in origin else where
    result = ScoreTable.coded(
        {name: coded.names for name, coded in merged.items()},
        {name: np.concatenate(column) for name, column in columns.items()},
        score=np.concatenate([t.score for t in tables]),
        length=np.concatenate([t.length for t in tables]),
        scales=scales,
        origin=origin,
        repeat_of=np.concatenate(repeat_of),
        repeat_score=np.concatenate([t.repeat_score for t in tables]),
        repeats_seen=frozenset().union(*(t.repeats_seen for t in tables)),
        dry_runs=frozenset().union(*(t.dry_runs for t in tables)),
    )
    _check_unique(result, "the tables given")
    return result


#: the published judgments ``hyoka judge meta`` reads when given no files, under the data
#: directory: the Shaberi table (derived, see its SOURCE.md), pfmt-bench-fin-ja's two
#: judges' single grades, Stability's GPT-4 single grades of JMT-bench (FastChat's one
#: file; four turns judged twice), Japanese Vicuna QA's GPT-4 pairwise verdicts (both
#: orders)
SHABERI_TABLE = Path("shaberi-judgments") / "scores.jsonl.xz"
PFMT_JUDGMENTS = Path("pfmt-bench-fin-ja") / "model_judgment"
JMT_SINGLE = Path("jmt-bench") / "model_judgment" / "gpt-4_single.jsonl"
VICUNA_PAIRWISE = Path("ja-vicuna-qa") / "model_judgment" / "pairwise"


@dataclass(frozen=True)
class Sources:
    """What a judge table is built from: score tables, single-grading folders or files,
    pairwise files or folders; ``absent``: published sources looked for and not found;
    ``data_dir``: where the benchmarks' questions are, which the judgment lines are checked
    against (``None``: the default data directory)."""

    scores: tuple[Path, ...] = ()
    single: tuple[Path, ...] = ()
    pairwise: tuple[Path, ...] = ()
    absent: tuple[str, ...] = ()
    data_dir: Path | None = None

    def read(self) -> tuple[ScoreTable | None, list[PairTable]]:
        once = _files_once(self.scores, lambda path: [path])
        tables = [read_score_table(path) for path, _ in once]
        if self.single:
            tables.append(read_single_folders(list(self.single), self.data_dir))
        pairs = read_pair_tables(list(self.pairwise), self.data_dir) if self.pairwise else []
        return (merge_tables(tables) if tables else None), pairs


def published_sources(data_dir: Path) -> Sources:
    """The published judgments present under ``data_dir``; those missing are named in
    ``absent`` (with how to get them), and none at all is an error."""
    absent: list[str] = []
    scores: tuple[Path, ...] = ()
    if (data_dir / SHABERI_TABLE).is_file():
        scores = (data_dir / SHABERI_TABLE,)
    else:
        absent.append(
            f"{data_dir / SHABERI_TABLE} (a table derived from shisa-ai/shaberi, not "
            "downloadable: `hyoka data fetch shaberi-judgments --with-published` says how "
            "it is made)"
        )
    single = tuple(sorted((data_dir / PFMT_JUDGMENTS).glob("*_single")))
    if not single:
        absent.append(f"{data_dir / PFMT_JUDGMENTS} (`hyoka data fetch pfmt-fin --with-published`)")
    if (data_dir / JMT_SINGLE).is_file():
        single += (data_dir / JMT_SINGLE,)
    else:
        absent.append(f"{data_dir / JMT_SINGLE} (`hyoka data fetch jmt-bench --with-published`)")
    pairwise = tuple(sorted(p for p in (data_dir / VICUNA_PAIRWISE).glob("*") if p.is_dir()))
    if not pairwise:
        absent.append(
            f"{data_dir / VICUNA_PAIRWISE} (`hyoka data fetch ja-vicuna-qa --with-published`)"
        )
    if not (scores or single or pairwise):
        raise InputError(f"no published judgments under {data_dir}: " + "; ".join(absent))
    return Sources(scores, single, pairwise, tuple(absent), data_dir)
