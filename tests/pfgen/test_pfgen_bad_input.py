"""Bad input to the pfgen-bench scorer: one clear error that names the file, nothing written.

Every case checks the same contract: the error is a ``HyokaError`` of the right kind, its
message is one line naming the offending file (and line, where there is one), and a
``result.json`` already beside the run is left byte for byte as it was. The command line
turns the same errors into one ``error:`` line and a non-zero exit, without a traceback.
"""

from __future__ import annotations

import json
import lzma
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from _shared import data_mark
from hyoka.cli.main import app
from hyoka.errors import DataError, HyokaError, InputError
from hyoka.pfgen import find_runs, read_trials
from hyoka.pfgen.benchmark import PfgenBenchmark
from hyoka.pfgen.questions import QuestionFile
from hyoka.pfgen.runs import score_run, score_runs
from hyoka.store import pfgen_runs

SHARED_DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
QUESTION_DIR = SHARED_DATA / "pfgen-bench" / "data"

pytestmark = data_mark(QUESTION_DIR / "Q01.json")

#: An existing result.json from an earlier scoring: it must survive any failed rescoring.
OLD_RESULT = '{"input_hash": "earlier", "metadata_hash": "earlier", "score": 0.5}\n'
UNKNOWN_QUESTION = "この質問はベンチマークにありません？"

# ``benchmark`` (conftest.py): the session's PfgenBenchmark over the shared data, with a
# temporary index cache; ``hyoka_env`` points the command line at the same two folders.


@pytest.fixture(scope="module")
def questions() -> list[str]:
    """The texts of Q01 and Q09 (whose indexes other tests of the session build anyway)."""
    return [
        json.loads((QUESTION_DIR / f"{q}.json").read_text(encoding="utf-8"))["question"]
        for q in ("Q01", "Q09")
    ]


def line(question: str, answer: Any = "回答です。", **extra: Any) -> bytes:
    record = {"question": question, "answer": answer, "timestamp": "2024-08-01T00:00:00"}
    record.update(extra)
    return json.dumps(record, ensure_ascii=False).encode("utf-8") + b"\n"


def without(field: str, question: str) -> bytes:
    record = {"question": question, "answer": "回答です。", "timestamp": "2024-08-01T00:00:00"}
    del record[field]
    return json.dumps(record, ensure_ascii=False).encode("utf-8") + b"\n"


@dataclass(frozen=True)
class BadRun:
    """A run folder holding one bad trials source and an older result.json."""

    folder: Path
    culprit: Path  # the file the error must name
    line: int | None  # the line it must name, if any

    @property
    def result(self) -> Path:
        return self.folder / "result.json"

    def snapshot(self) -> tuple[bytes, int]:
        return self.result.read_bytes(), self.result.stat().st_mtime_ns


@dataclass(frozen=True)
class Case:
    """How to write a bad run: file name, content (given two real question texts), line."""

    name: str
    content: Callable[[list[str]], bytes]
    line: int | None
    words: tuple[str, ...]  # the message must say what is wrong, not just where

    def write(self, root: Path, questions: list[str]) -> BadRun:
        folder = root / "run"
        folder.mkdir(parents=True)
        culprit = folder / self.name
        culprit.write_bytes(self.content(questions))
        (folder / "result.json").write_text(OLD_RESULT, encoding="utf-8")
        return BadRun(folder, culprit, self.line)


def _xz(data: bytes) -> bytes:
    return lzma.compress(data, format=lzma.FORMAT_XZ)


CASES = {
    "malformed-json": Case(
        "trials.jsonl",
        lambda q: line(q[0]) + b'{"question": "x", "answer": \n' + line(q[1]),
        2,
        ("malformed JSON",),
    ),
    "missing-answer": Case(
        "trials.jsonl", lambda q: line(q[0]) + without("answer", q[1]), 2, ("answer",)
    ),
    "missing-question": Case(
        "trials.jsonl", lambda q: line(q[0]) + without("question", q[1]), 2, ("question",)
    ),
    "answer-not-a-string": Case(
        "trials.jsonl", lambda q: line(q[0]) + line(q[1], answer=42), 2, ("answer",)
    ),
    "not-an-object": Case("trials.jsonl", lambda q: line(q[0]) + b"[1, 2]\n", 2, ("object",)),
    "bom-on-a-line": Case(
        "trials.jsonl",
        lambda q: line(q[0]) + "\ufeff".encode() + line(q[1]),
        2,
        ("byte-order mark",),
    ),
    "nan-in-a-line": Case(
        "trials.jsonl",
        lambda q: line(q[0]) + line(q[1])[:-2] + b', "seed": NaN}\n',
        2,
        ("NaN is not a number JSON allows",),
    ),
    "unknown-question": Case(
        "trials.jsonl",
        lambda q: line(q[0]) + line(q[1]) + line(UNKNOWN_QUESTION),
        3,
        ("not in pfgen-bench",),
    ),
    "unknown-question-after-blank-line": Case(
        "trials.jsonl",
        lambda q: line(q[0]) + b"\n" + line(UNKNOWN_QUESTION),
        3,
        ("not in pfgen-bench",),
    ),
    "empty-file": Case("trials.jsonl", lambda q: b"", None, ("no answers",)),
    "blank-lines-only": Case("trials.jsonl", lambda q: b"\n  \n\n", None, ("no answers",)),
    "not-utf8": Case(
        "trials.jsonl",
        lambda q: line(q[0]) + line(q[1]).replace("回答".encode(), b"\xff\xfe"),
        2,
        ("UTF-8",),
    ),
    "latin1-file": Case(
        "trials.jsonl",
        lambda q: '{"question": "café", "answer": "é"}\n'.encode("latin-1"),
        1,
        ("UTF-8",),
    ),
    "truncated-xz": Case(
        "trials.jsonl.xz",
        lambda q: _xz(line(q[0]) * 200 + line(q[1]) * 200)[:-40],
        None,
        ("xz",),
    ),
    "not-xz-at-all": Case("trials.jsonl.xz", lambda q: line(q[0]), None, ("xz",)),
    "empty-xz-file": Case("trials.jsonl.xz", lambda q: b"", None, ("xz",)),
    "xz-of-nothing": Case("trials.jsonl.xz", lambda q: _xz(b""), None, ("no answers",)),
    "malformed-json-inside-xz": Case(
        "trials.jsonl.xz", lambda q: _xz(line(q[0]) + line(q[1]) + b"{oops\n"), 3, ("JSON",)
    ),
    "malformed-trial-part": Case(
        "trial_002.jsonl", lambda q: line(q[0]) + b"not json\n", 2, ("malformed JSON",)
    ),
    "unknown-question-in-trial-part": Case(
        "trial_002.jsonl",
        lambda q: line(q[0]) + line(UNKNOWN_QUESTION),
        2,
        ("not in pfgen-bench",),
    ),
}


def assert_one_clear_error(exc: HyokaError, run: BadRun, words: tuple[str, ...]) -> None:
    message = str(exc)
    assert "\n" not in message, message
    assert str(run.culprit) in message, message
    if run.line is not None:
        assert f"{run.culprit}:{run.line}:" in message, message
    for word in words:
        assert word in message, message


@pytest.mark.parametrize("case", [pytest.param(case, id=name) for name, case in CASES.items()])
def test_bad_trials_raise_one_clear_error(
    case: Case, tmp_path: Path, questions: list[str], benchmark: PfgenBenchmark
) -> None:
    run = case.write(tmp_path, questions)
    if run.culprit.name.startswith("trial_"):  # a folder of parts: give it a good first part
        (run.folder / "trial_001.jsonl").write_bytes(line(questions[0]) + line(questions[1]))
    before = run.snapshot()
    (source,) = find_runs(run.folder)
    with pytest.raises(InputError) as caught:
        score_run(source, benchmark)
    assert_one_clear_error(caught.value, run, case.words)
    assert run.snapshot() == before


def test_read_trials_alone_reports_the_same(tmp_path: Path, questions: list[str]) -> None:
    run = CASES["malformed-json"].write(tmp_path, questions)
    with pytest.raises(InputError) as caught:
        read_trials(run.culprit)
    assert_one_clear_error(caught.value, run, ("malformed JSON",))


@pytest.mark.parametrize("kind", ["missing", "missing-xz", "missing-dir"])
def test_nonexistent_path(kind: str, tmp_path: Path) -> None:
    path = {
        "missing": tmp_path / "trials.jsonl",
        "missing-xz": tmp_path / "nowhere" / "trials.jsonl.xz",
        "missing-dir": tmp_path / "no-such-run",
    }[kind]
    with pytest.raises(InputError) as caught:
        find_runs(path)
    assert str(path) in str(caught.value)
    assert "\n" not in str(caught.value)
    with pytest.raises(InputError) as caught:
        read_trials(path)
    assert str(path) in str(caught.value)


def test_folder_without_trials(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("nothing to score", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        find_runs(tmp_path)
    assert str(tmp_path) in str(caught.value)


def test_wrong_file_type(tmp_path: Path) -> None:
    path = tmp_path / "answers.csv"
    path.write_text("question,answer\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        find_runs(path)
    assert str(path) in str(caught.value)


def test_one_bad_run_does_not_stop_the_others(
    tmp_path: Path, questions: list[str], benchmark: PfgenBenchmark
) -> None:
    bad = CASES["malformed-json"].write(tmp_path / "bad", questions)
    good = tmp_path / "good" / "trials.jsonl"
    good.parent.mkdir()
    good.write_bytes(
        line(questions[1], "酵素が働いて涙が出ます。") + line(questions[1], "硫黄化合物")
    )
    before = bad.snapshot()
    outcomes = dict(score_runs([bad.culprit, good], benchmark, workers=1))
    error = outcomes[bad.culprit]
    assert isinstance(error, InputError)
    assert_one_clear_error(error, bad, ("malformed JSON",))
    assert bad.snapshot() == before
    assert not isinstance(outcomes[good], HyokaError)
    written = json.loads((good.parent / "result.json").read_text(encoding="utf-8"))
    assert written["num_trials"] == 2


# --- bad benchmark data: DataError naming the question file ------------------------------------


def _question(**changes: Any) -> dict[str, Any]:
    raw: dict[str, Any] = {
        "question_id": "Q01",
        "question": "テストの質問？",
        "category": "test",
        "note": "",
        "keywords": [{"t": "日本"}],
        "answers": {"P": ["日本の首都は東京です。", "東京は日本の首都です。"]},
    }
    raw.update(changes)
    return raw


def _data_dir(root: Path, content: bytes) -> Path:
    folder = root / "pfgen-bench" / "data"
    folder.mkdir(parents=True)
    (folder / "Q01.json").write_bytes(content)
    return root


def _encode(raw: dict[str, Any]) -> bytes:
    return json.dumps(raw, ensure_ascii=False).encode("utf-8")


BAD_QUESTIONS = {
    "no-answer-sets": (_encode(_question(answers={})), ("Q01", "no reference answers")),
    "empty-answer-set": (_encode(_question(answers={"P": []})), ("Q01", "'P'")),
    "only-empty-answers": (_encode(_question(answers={"P": ["", ""]})), ("'P'", "baseline")),
    "non-string-answer": (_encode(_question(answers={"P": ["日本", 3]})), ("'P'",)),
    "no-answers-field": (
        _encode({k: v for k, v in _question().items() if k != "answers"}),
        ("answers",),
    ),
    "bad-regex": (_encode(_question(keywords=[{"t": "日本("}])), ("Q01", "日本(")),
    "bad-nested-regex": (
        _encode(_question(keywords=[{"t": "日本"}, {"or": [{"t": "東京"}, {"t": "[首都"}]}])),
        ("Q01", "keyword 2", "[首都"),
    ),
    "regex-not-a-string": (_encode(_question(keywords=[{"t": 5}])), ("Q01",)),
    "empty-or": (_encode(_question(keywords=[{"or": []}])), ("Q01", "or")),
    "rule-without-kind": (_encode(_question(keywords=[{"importance": 0.5}])), ("Q01",)),
    "importance-not-a-number": (
        _encode(_question(keywords=[{"t": "日本", "importance": "high"}])),
        ("Q01", "importance"),
    ),
    "keywords-not-a-list": (_encode(_question(keywords={"t": "日本"})), ("Q01", "keywords")),
    "malformed-json": (b'{"question_id": "Q01",\n "question": }', (":2:", "not valid JSON")),
    "not-utf8": (_encode(_question()).replace("日本".encode(), b"\xff", 1), ("UTF-8",)),
    "not-an-object": (b"[]", ("object",)),
    "id-does-not-match-file": (_encode(_question(question_id="Q02")), ("Q02",)),
}


@pytest.mark.parametrize("case", list(BAD_QUESTIONS.values()), ids=list(BAD_QUESTIONS))
def test_bad_question_file_raises_data_error(
    case: tuple[bytes, tuple[str, ...]], tmp_path: Path
) -> None:
    content, words = case
    data_dir = _data_dir(tmp_path / "data", content)
    path = data_dir / "pfgen-bench" / "data" / "Q01.json"
    with pytest.raises(DataError) as caught:
        benchmark = PfgenBenchmark.load(data_dir, cache_dir=tmp_path / "cache")
        benchmark.scorer("Q01")
    message = str(caught.value)
    assert "\n" not in message, message
    assert str(path) in message, message
    for word in words:
        assert word in message, message


def test_question_file_parse_names_the_question(tmp_path: Path) -> None:
    path = tmp_path / "Q01.json"
    path.write_bytes(_encode(_question(keywords=[{"and": [{"t": "("}]}])))
    with pytest.raises(DataError) as caught:
        QuestionFile.read(path).parse()
    assert str(path) in str(caught.value)
    assert "Q01" in str(caught.value)


def test_unreadable_question_file(tmp_path: Path) -> None:
    with pytest.raises(DataError) as caught:
        QuestionFile.read(tmp_path / "Q01.json")
    assert str(tmp_path / "Q01.json") in str(caught.value)


def test_missing_benchmark_data(tmp_path: Path) -> None:
    with pytest.raises(DataError) as caught:
        PfgenBenchmark.load(tmp_path, cache_dir=tmp_path / "cache")
    assert str(tmp_path) in str(caught.value)
    assert "hyoka data fetch" in str(caught.value)


def test_a_good_tiny_question_still_scores(tmp_path: Path) -> None:
    """The tiny data folder above is well formed apart from each case's one defect."""
    data_dir = _data_dir(tmp_path / "data", _encode(_question()))
    benchmark = PfgenBenchmark.load(data_dir, cache_dir=tmp_path / "cache")
    (score,) = benchmark.scorer("Q01").score(["日本の首都は東京です。"])
    assert score.helpfulness == 1.0


# --- the command line --------------------------------------------------------------------------

CLI_CASES = [
    "malformed-json",
    "missing-answer",
    "unknown-question",
    "empty-file",
    "not-utf8",
    "truncated-xz",
    "malformed-trial-part",
]


def _invoke(*args: str) -> Any:
    return CliRunner().invoke(app, ["pfgen", "score", *args])


def assert_cli_error(result: Any, *needles: str) -> None:
    """Non-zero exit, no traceback, an ``error:`` message holding every needle."""
    assert result.exit_code != 0, result.output
    assert isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    assert result.stderr.lstrip().startswith("error: "), result.stderr
    message = "".join(result.stderr.splitlines())  # undo any wrapping; see test below
    for needle in needles:
        assert needle in message, result.stderr


def assert_one_line(result: Any) -> None:
    lines = [ln for ln in result.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, result.stderr


def _write_cli_case(name: str, root: Path, questions: list[str]) -> tuple[BadRun, list[str]]:
    run = CASES[name].write(root, questions)
    if run.culprit.name.startswith("trial_"):
        (run.folder / "trial_001.jsonl").write_bytes(line(questions[0]) + line(questions[1]))
    needles = [str(run.culprit)]
    if run.line is not None:
        needles.append(f"{run.culprit}:{run.line}:")
    return run, needles


@pytest.mark.usefixtures("hyoka_env")
@pytest.mark.parametrize("name", CLI_CASES)
def test_cli_reports_the_error(name: str, tmp_path: Path, questions: list[str]) -> None:
    run, needles = _write_cli_case(name, tmp_path, questions)
    before = run.snapshot()
    result = _invoke(str(run.folder))
    assert_cli_error(result, *needles)
    assert run.snapshot() == before


@pytest.mark.usefixtures("hyoka_env")
def test_cli_run_error_is_one_line(tmp_path: Path, questions: list[str]) -> None:
    run, needles = _write_cli_case("malformed-json", tmp_path / ("deep" * 10), questions)
    result = _invoke(str(run.folder))
    assert_cli_error(result, *needles)
    assert_one_line(result)


@pytest.mark.usefixtures("hyoka_env")
def test_cli_nonexistent_path(tmp_path: Path) -> None:
    missing = tmp_path / ("deep" * 10) / "no-such-run"
    result = _invoke(str(missing))
    assert_cli_error(result, str(missing))
    assert_one_line(result)  # this error goes through reports_errors, which soft-wraps


@pytest.mark.usefixtures("hyoka_env")
def test_cli_question_text_is_not_markup(tmp_path: Path, questions: list[str]) -> None:
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "trials.jsonl").write_bytes(line(questions[0]) + line("[/] [bold]質問[/bold]？"))
    result = _invoke(str(folder))
    assert_cli_error(result, "[/] [bold]質問[/bold]", f"{folder / 'trials.jsonl'}:2:")


@pytest.mark.usefixtures("hyoka_env")
def test_cli_path_is_not_markup(tmp_path: Path) -> None:
    missing = tmp_path / "[/]run"
    assert_cli_error(_invoke(str(missing)), str(missing))


@pytest.mark.usefixtures("hyoka_env")
def test_cli_bad_benchmark_data(tmp_path: Path, questions: list[str]) -> None:
    data_dir = _data_dir(tmp_path / "data", _encode(_question(answers={})))
    run = CASES["missing-answer"].write(tmp_path, questions)
    before = run.snapshot()
    result = _invoke(str(run.folder), "--data-dir", str(data_dir))
    assert_cli_error(result, str(data_dir / "pfgen-bench" / "data" / "Q01.json"), "Q01")
    assert run.snapshot() == before


def _line_by_line(content: bytes, path: Path) -> list[tuple[int, dict[str, Any]]]:
    """What reading a trials file gives, decoded line by line (``_parse_line`` only)."""
    return [
        (number, pfgen_runs._parse_line(path, number, raw))
        for number, raw in enumerate(content.splitlines(), start=1)
        if raw.strip()
    ]


#: Files that read alike whether the whole-file reader takes them or hands them to the
#: line-by-line one: line ends, spaces around the JSON, characters ``str.splitlines`` would
#: split at (or ``str.strip`` strip) but ``bytes.splitlines`` does not.
ODD_BUT_GOOD = {
    "crlf": lambda q: line(q[0]).replace(b"\n", b"\r\n") + line(q[1]).replace(b"\n", b"\r\n"),
    "lone-cr-between-lines": lambda q: line(q[0]).rstrip(b"\n") + b"\r" + line(q[1]),
    "spaces-around": lambda q: b"  " + line(q[0]).rstrip(b"\n") + b" \t\n" + line(q[1]),
    "blank-lines-of-every-ascii-space": lambda q: line(q[0]) + b" \t\x0b\x0c\n\n" + line(q[1]),
    "unicode-line-breaks-inside-answers": lambda q: (
        line(q[0], answer="一\u2028二\x85三\x1c") + line(q[1], answer="\u2029")
    ),
    "no-final-newline": lambda q: line(q[0]) + line(q[1]).rstrip(b"\n"),
}


@pytest.mark.parametrize("name", sorted(ODD_BUT_GOOD))
def test_odd_but_good_files_read_as_line_by_line(
    name: str, tmp_path: Path, questions: list[str]
) -> None:
    content = ODD_BUT_GOOD[name](questions)
    path = tmp_path / "trials.jsonl"
    path.write_bytes(content)
    trials = read_trials(path)
    expected = _line_by_line(content, path)
    assert [(n, r) for (_, n), r in zip(trials.origins, trials.records, strict=True)] == expected
    assert len(expected) == 2


@pytest.mark.parametrize(
    ("name", "bad", "number", "words"),
    [
        ("ideographic-space-line", "\u3000\n".encode(), 2, ("malformed JSON",)),
        ("two-objects-on-a-line", b'{"question": "a", "answer": "b"} {"a": 1}\n', 2, ("JSON",)),
        ("lone-surrogate", b'{"question": "a", "answer": "\\ud800"}\n', 2, ("surrogate",)),
    ],
)
def test_what_only_a_whole_file_read_might_miss_is_refused(
    name: str, bad: bytes, number: int, words: tuple[str, ...], tmp_path: Path, questions: list[str]
) -> None:
    path = tmp_path / "trials.jsonl"
    path.write_bytes(line(questions[0]) + bad + line(questions[1]))
    with pytest.raises(InputError) as caught:
        read_trials(path)
    message = str(caught.value)
    assert f"{path}:{number}:" in message and all(w in message for w in words), message


def test_nesting_near_the_recursion_limit_is_read_or_refused_in_one_line(
    tmp_path: Path, questions: list[str]
) -> None:
    """However deep a line nests (with a ``\\u`` escape, which is checked for lone
    surrogates by writing the value back), it is read, or refused with an ``InputError``
    naming the line: never another exception. Shallow nesting reads as line by line."""
    path = tmp_path / "trials.jsonl"
    limit = sys.getrecursionlimit()
    for depth in [*range(limit - 60, limit + 10, 3), 70, 5000]:
        nested = "[" * depth + '"\\u3042"' + "]" * depth
        bad = f'{{"question": "q", "answer": "a", "x": {nested}}}\n'.encode()
        content = line(questions[0]) + bad
        path.write_bytes(content)
        try:
            trials = read_trials(path)
        except InputError as exc:
            assert f"{path}:2: JSON nested too deeply to read" in str(exc), (depth, exc)
        else:
            assert trials.records == [r for _, r in _line_by_line(content, path)], depth
