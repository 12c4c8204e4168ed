"""Nothing silently wrong: files are sacred by construction (issue 29, an adversarial tester's
findings). Each test failed on the code before its fix, through the command line.

- ``--output FILE`` replaced any file (a run's ``trials.jsonl.xz``, someone's notes) and said
  "Wrote 1 runs": now only a new or empty file, or hyoka's own unchanged output, is written
  (``store.write_output``); the README's examples may still write one ``--output`` twice.
- a file named on its own inside a run folder (``other.jsonl``, or one ``trial_NNN.jsonl`` of
  several) was scored into that folder's ``result.json``, replacing the run's own: refused.
- ``data verify``/``fetch pfgen`` passed a data folder holding a ``Q51.json`` that the scorer
  reads as a question: each names it (``Manifest.reads``: what a benchmark's reader globs).
- a FIFO named ``trials.jsonl`` (``result.json``, ``config.json``) made ``pfgen score`` and
  ``verify`` wait forever; a 3 GB sparse ``trials.jsonl`` or a link to ``/dev/zero`` was read
  whole (a MemoryError traceback): the store opens only regular files, within a bound.
- ``pfgen generate``/``run`` with ``scripted/...`` was a KeyError traceback: one line naming
  the providers that can make a pfgen-bench run.
- ``--format upstream`` pasted a folder's name into the link unescaped (``we ird)[x](http:/...``
  made a second link) and CSV wrote ``=HYPERLINK(...)`` as it was: link targets are
  percent-encoded, link texts' brackets escaped, a CSV field a spreadsheet would run is
  prefixed with ``'`` (numbers, negative ones too, kept).
- a table with a column named twice (``model,pfgen_score,judge_score,pfgen_score``) or a key
  twice in one JSON object used the last one silently: ``store.read_rows`` names it.
"""

from __future__ import annotations

import json
import lzma
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from _shared import PFGEN_RESULTS, SHARED_DATA, hyoka_unblocked, writable_run_copy
from hyoka.cli.main import app

O1_RUN = "openai/chatgpt-o1/9a61e92"


def _hyoka(*args: str | Path) -> tuple[int, str]:
    result = CliRunner().invoke(app, [str(arg) for arg in args])
    return result.exit_code, result.output


def _errors(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith("error:")]


@pytest.fixture
def results(tmp_path: Path) -> Path:
    """A results folder holding one published run, writable."""
    root = tmp_path / "results"
    writable_run_copy(O1_RUN, root)
    return root


# --- 1. an --output file is replaced only when it is hyoka's own -------------------------


@pytest.mark.parametrize("victim", ["trials.jsonl.xz", "result.json", "config.json"])
def test_leaderboard_output_never_replaces_a_runs_file(
    results: Path, hyoka_env: None, victim: str
) -> None:
    target = results / O1_RUN / victim
    before = target.read_bytes()
    code, output = _hyoka("pfgen", "leaderboard", results, "-f", "csv", "--output", target)
    assert code == 1
    assert _errors(output) == [
        f"error: --output {target}: the file exists and hyoka did not write it; hyoka does "
        "not replace it: move it away or choose another file"
    ]
    assert target.read_bytes() == before


def test_an_output_hyoka_wrote_is_replaced_and_an_edited_one_is_not(
    results: Path, tmp_path: Path, hyoka_env: None
) -> None:
    board = tmp_path / "board.csv"
    for _ in range(2):  # a README example run twice
        code, output = _hyoka("pfgen", "leaderboard", results, "-f", "csv", "--output", board)
        assert code == 0, output
    written = board.read_text()
    assert written.startswith("rank,") and "chatgpt-o1" in written
    board.write_text(written + "my note\n")
    code, output = _hyoka("pfgen", "leaderboard", results, "-f", "md", "--output", board)
    assert code == 1
    assert _errors(output) == [
        f"error: --output {board}: the file exists and it changed since hyoka wrote it; "
        "hyoka does not replace it: move it away or choose another file"
    ]
    assert board.read_text() == written + "my note\n"
    empty = tmp_path / "empty.md"
    empty.touch()
    assert _hyoka("pfgen", "leaderboard", results, "--output", empty)[0] == 0
    assert "chatgpt-o1" in empty.read_text()


def test_every_output_file_goes_through_the_one_rule(tmp_path: Path, hyoka_env: None) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("mine\n")
    image = tmp_path / "radar.png"
    image.write_bytes(b"\x89PNG mine")
    commands: list[list[str | Path]] = [
        ["judge", "meta", "-f", "csv", "--output", notes],
        ["mtbench", "leaderboard", "--bench", "elyza-tasks-100", "--output", notes],
        ["mtbench", "leaderboard", "--bench", "elyza-tasks-100", "--radar", image],
    ]
    for command in commands:
        code, output = _hyoka(*command)
        assert code == 1, (command, output)
        assert "hyoka did not write it" in _errors(output)[0], (command, output)
    assert notes.read_text() == "mine\n"
    assert image.read_bytes() == b"\x89PNG mine"


# --- 2. a side file named in a run folder does not replace the run's result --------------

QWEN_RUN = PFGEN_RESULTS / "Qwen" / "Qwen2-1.5B-Instruct" / "b8f3248"


def _qwen_lines(count: int) -> bytes:
    with lzma.open(QWEN_RUN / "trials.jsonl.xz") as handle:
        return b"".join(handle.readline() for _ in range(count))


def test_a_side_file_in_a_run_folder_is_refused_and_the_result_kept(
    results: Path, hyoka_env: None
) -> None:
    run = results / O1_RUN
    side = run / "other.jsonl"
    side.write_bytes(_qwen_lines(50))
    before = (run / "result.json").read_bytes()
    code, output = _hyoka("pfgen", "score", side, "--force")
    assert code == 1
    assert _errors(output) == [
        f"error: {side}: named on its own, but its folder holds a run's answers "
        "(trials.jsonl.xz) whose result.json scoring it would replace; score the folder, "
        "or move other.jsonl out of it"
    ]
    assert (run / "result.json").read_bytes() == before


def test_one_trial_part_named_alone_is_refused_while_it_has_siblings(
    tmp_path: Path, hyoka_env: None
) -> None:
    run = tmp_path / "o" / "m" / "5555555"
    run.mkdir(parents=True)
    by_question: dict[str, list[bytes]] = {}
    for line in _qwen_lines(5000).splitlines(keepends=True):  # sorted: a question's lines together
        by_question.setdefault(json.loads(line)["question"], []).append(line)
    for trial in (1, 2):  # one answer to each question per trial
        part = b"".join(answers[trial - 1] for answers in by_question.values())
        (run / f"trial_{trial:03d}.jsonl").write_bytes(part)
    code, output = _hyoka("pfgen", "score", run / "trial_001.jsonl")
    assert code == 1
    assert _errors(output)[0].startswith(
        f"error: {run / 'trial_001.jsonl'}: named on its own, but its folder holds a run's "
        "answers (trial_*.jsonl)"
    )
    assert not (run / "result.json").exists()
    (run / "trial_002.jsonl").unlink()  # the run's one part is the run
    code, output = _hyoka("pfgen", "score", run / "trial_001.jsonl")
    assert code == 0, output
    assert (run / "result.json").exists()


# --- 5, 6. a run's files are opened only as regular files, and read within a bound --------


@pytest.mark.parametrize(
    ("name", "command"),
    [
        ("trials.jsonl", "score"),
        ("trials.jsonl.xz", "score"),
        ("result.json", "score"),
        ("config.json", "score"),
        ("result.json", "verify"),
    ],
)
def test_a_fifo_in_a_run_folder_is_named_not_waited_on(
    results: Path, hyoka_env: None, name: str, command: str
) -> None:
    run = results / O1_RUN
    if name == "trials.jsonl":
        (run / "trials.jsonl.xz").unlink()
    (run / name).unlink(missing_ok=True)
    os.mkfifo(run / name)
    forced = ["--force"] if command == "score" else []
    code, output = hyoka_unblocked([run / name], "pfgen", command, run, *forced)
    assert code == 1, output
    reason = "a FIFO, not a regular file; not read"
    what = {"result.json": "result: ", "config.json": "generation config: "}.get(name, "")
    assert _errors(output) == [f"error: {run / name}: {what}{reason}"]


def test_a_plain_trials_file_is_read_within_the_bound_of_a_run(
    tmp_path: Path, hyoka_env: None
) -> None:
    sparse = tmp_path / "sparse" / "o" / "m"
    sparse.mkdir(parents=True)
    with (sparse / "trials.jsonl").open("wb") as handle:
        handle.truncate(3 * 1024**3)  # 3 GiB of nothing: no disk used
    zero = tmp_path / "zero" / "o" / "m"
    zero.mkdir(parents=True)
    (zero / "trials.jsonl").symlink_to("/dev/zero")
    code, output = _hyoka("pfgen", "score", sparse)
    assert code == 1
    assert _errors(output) == [
        f"error: {sparse / 'trials.jsonl'}: 3,221,225,472 bytes, more than a run of 1000 "
        "trials of 50 answers holds (204,800,000 bytes); not read"
    ]
    code, output = _hyoka("pfgen", "score", zero)
    assert code == 1
    assert _errors(output) == [
        f"error: {zero / 'trials.jsonl'}: a device, not a regular file; not read"
    ]


# --- 3. data verify names a file the scorer would read that the manifest does not pin -----


def test_data_verify_and_fetch_name_a_question_file_not_in_the_release(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shared = SHARED_DATA / "pfgen-bench"
    root = tmp_path / "data"
    (root / "pfgen-bench" / "data").mkdir(parents=True)
    for path in [shared / "LICENSE", *sorted((shared / "data").iterdir())]:
        (root / path.relative_to(SHARED_DATA)).symlink_to(path)
    extra = root / "pfgen-bench" / "data" / "Q51.json"
    extra.write_bytes((shared / "data" / "Q01.json").read_bytes())
    monkeypatch.setenv("HYOKA_DATA_BASE_URL", "http://127.0.0.1:9")  # nothing is downloaded
    code, output = _hyoka("data", "verify", "pfgen", "--data-dir", root)
    assert code == 1
    assert (
        "pfgen-bench: extra: pfgen-bench/data/Q51.json (not in the pinned release, yet read "
        "as data: every pfgen-bench/data/Q*.json is)"
    ) in output.splitlines()
    assert _errors(output) == [
        f"error: {root} holds files that would be read as benchmark data; move out the files "
        "not in the pinned release (named above)"
    ]
    code, output = _hyoka("data", "fetch", "pfgen", "--data-dir", root)
    assert code == 1
    assert _errors(output) == [
        f"error: {extra}: not in the pinned release, yet read as data: every "
        "pfgen-bench/data/Q*.json is; move it out of the data directory"
    ]
    extra.unlink()
    assert _hyoka("data", "verify", "pfgen", "--data-dir", root)[0] == 0


# --- 4. pfgen generate with a model no pfgen-bench engine names is one line ------------------


@pytest.mark.parametrize("command", ["generate", "run"])
def test_pfgen_generate_names_the_providers_that_can_make_a_run(
    tmp_path: Path, hyoka_env: None, command: str
) -> None:
    script = tmp_path / "s.jsonl"
    script.write_text('{"reply": "x"}\n')
    results = tmp_path / "res"
    args: list[str | Path] = ["--trials", "1", "--limit", "4", "--results-dir", results]
    code, output = _hyoka("pfgen", command, "-m", f"scripted/{script}", *args)
    assert code == 1
    assert _errors(output) == [
        "error: --model: pfgen-bench runs are generated by anthropic, google, hf, llamacpp, "
        f"openai, vllm models (an engine upstream's config.json can name), not 'scripted' "
        f"('scripted/{script}')"
    ]
    assert not results.exists()


# --- 7. a table with a column (or key) named twice is refused, naming it --------------------


@pytest.mark.parametrize(
    ("name", "text", "error"),
    [
        (
            "t.csv",
            "model,pfgen_score,judge_score,pfgen_score\na,0.5,6,0.9\nb,0.6,7,0.1\nc,0.7,8,0.2\n",
            ":1: column 'pfgen_score' is named twice in the header; which one a row means "
            "cannot be guessed",
        ),
        (
            "t.json",
            '[{"model": "a", "pfgen_score": 0.5, "judge_score": 6, "pfgen_score": 0.9},'
            ' {"model": "b", "pfgen_score": 0.6, "judge_score": 7}]',
            ": key 'pfgen_score' appears twice in one object; which value is meant cannot be "
            "guessed",
        ),
        (
            "t.jsonl",
            '{"model": "a", "pfgen_score": 0.5, "judge_score": 6}\n'
            '{"model": "b", "pfgen_score": 0.6, "judge_score": 7, "judge_score": 1}\n',
            ":2: key 'judge_score' appears twice in one object; which value is meant cannot be "
            "guessed",
        ),
    ],
)
def test_correlate_refuses_a_table_that_names_a_column_twice(
    tmp_path: Path, name: str, text: str, error: str
) -> None:
    table = tmp_path / name
    table.write_text(text)
    code, output = _hyoka("pfgen", "correlate", "--table", table)
    assert code == 1
    assert _errors(output) == [f"error: {table}{error}"]


# --- 8. the upstream table's links and CSV cells cannot act ---------------------------------


def test_upstream_links_are_percent_encoded_and_csv_formulas_are_text(
    results: Path, tmp_path: Path, hyoka_env: None
) -> None:
    run = results / O1_RUN
    odd = results / "we ird)[x](http:" / "evil.com)" / "line\nbreak"
    odd.parent.mkdir(parents=True)
    run.rename(odd)
    result = json.loads((odd / "result.json").read_text())
    result["config"]["model"] = "a](http://e.vil)"
    (odd / "result.json").write_text(json.dumps(result))
    code, output = _hyoka("pfgen", "leaderboard", results, "-f", "upstream")
    assert code == 0, output
    (row,) = [line for line in output.splitlines() if "<code>[" in line]
    link = row.split(" | ")[2]
    assert link.startswith("<code>[💬 a\\](http://e.vil)](")  # one link, its text escaped
    target = "/we%20ird%29%5Bx%5D%28http:/evil.com%29/line%0Abreak/README.md)</code>"
    assert link.endswith(target), link
    result["config"]["model"] = '=HYPERLINK("http://evil.com")'
    result["model"] = '=HYPERLINK("http://evil.com")'
    (odd / "result.json").write_text(json.dumps(result))
    code, output = _hyoka("pfgen", "leaderboard", results, "-f", "csv")
    assert code == 0, output
    assert '"\'=HYPERLINK(""http://evil.com"")"' in output  # shown as text
    assert ",=HYPERLINK" not in output and "\n=HYPERLINK" not in output
