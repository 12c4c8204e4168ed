"""Folder outputs go only where nothing of the user's can be lost (issue 17, items 5 and 6).

A catalogue: each test is one promise, checked on real files (and a real full disk), and
each failed before the fix it guards.

- #5 ``hyoka report -o FOLDER`` on a folder holding the user's ``index.html`` and
     ``assets/site.css`` is refused with one line, every file byte-identical (they were
     overwritten, exit 0);
- #5 a previous hyoka site is replaced whole: no page of the old site is left beside the
     new one, nothing else in the parent folder is touched;
- #5 a build that fails midway (a full disk, an error while writing) leaves the old site
     byte-identical and no half-built folder (it stopped after replacing some pages);
- #5 a page of a previous site made read-only, or a file the user put into it, stops the
     report before anything changes;
- #6 ``refset publish``/``build`` into a data directory holding pfgen-bench's own question
     files is refused, byte-identical (an upstream 280,239-byte ``Q01.json`` was replaced by
     a 6,617-byte new set, Q02-Q50 kept, nothing said); a folder hyoka published is written;
- the one decision (``store.owned_folder``) behind all of them, and ``hyoka demo --out``.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from _shared import SHARED_DATA
from _shared import small_disk as shared_small_disk
from hyoka.cli.main import app
from hyoka.errors import InputError
from report_fixtures import write_fastchat_pairs

QUESTION_DIR = SHARED_DATA / "pfgen-bench" / "data"
OUTPUT_MARKER = ".hyoka-output.json"  # the store's name for it, spelt out: it is a promise


def _tree(root: Path) -> dict[str, bytes | None]:
    """Every entry under ``root`` (relative path: bytes, ``None`` for a folder)."""
    found: dict[str, bytes | None] = {}
    for top, dirs, files in os.walk(root):
        for name in dirs:
            found[str((Path(top) / name).relative_to(root))] = None
        for name in files:
            path = Path(top) / name
            found[str(path.relative_to(root))] = path.read_bytes()
    return found


def _errors(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith("error:")]


def _report(inputs: list[Path], out: Path) -> tuple[int, str]:
    command = ["report", *map(str, inputs), "-o", str(out), "--no-public", "--rounds", "10"]
    result = CliRunner().invoke(app, [*command, "--data-dir", str(SHARED_DATA)])
    return result.exit_code, result.output


@pytest.fixture
def pairs(tmp_path: Path) -> Path:
    path = tmp_path / "inputs" / "judge-x_pair.jsonl"
    path.parent.mkdir()
    write_fastchat_pairs(path)
    return path


def test_report_refuses_a_folder_of_the_users_files_byte_identical(
    tmp_path: Path, pairs: Path
) -> None:
    out = tmp_path / "mysite"
    (out / "assets").mkdir(parents=True)
    (out / "index.html").write_text("<h1>my own page</h1>\n")
    (out / "assets" / "site.css").write_text("body { color: hotpink }\n")
    before = _tree(tmp_path)
    code, output = _report([pairs], out)
    assert code == 1, output
    (line,) = _errors(output)
    assert line == (
        f"error: -o {out}: holds files hyoka did not write (assets, index.html); "
        "choose an empty or new folder"
    )
    assert _tree(tmp_path) == before  # nothing changed, nothing left beside it


def test_report_replaces_its_own_previous_site_whole(tmp_path: Path, pairs: Path) -> None:
    out = tmp_path / "site"
    (tmp_path / "notes.txt").write_text("the user's, beside the site\n")
    second = pairs.with_name("judge-y_pair.jsonl")
    shutil.copy(pairs, second)
    assert _report([pairs, second], out)[0] == 0
    assert (out / "pairwise" / "p2.html").is_file()
    code, output = _report([pairs], out)
    assert code == 0, output
    assert (out / "pairwise" / "p1.html").is_file()  # the new build's
    assert not (out / "pairwise" / "p2.html").exists()  # the old site is gone whole
    marker = json.loads((out / OUTPUT_MARKER).read_text())
    assert marker["kind"] == "report" and "pairwise/p1.html" in marker["files"]
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == ["inputs", "notes.txt", "site"]  # no leftovers
    assert (tmp_path / "notes.txt").read_text() == "the user's, beside the site\n"


def test_an_error_while_writing_leaves_the_previous_site_intact(
    tmp_path: Path, pairs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "site"
    assert _report([pairs], out)[0] == 0
    before = _tree(tmp_path)
    import hyoka.report.site as site
    from hyoka.store import WriteError
    from hyoka.store import atomic_write_text as real_write

    written: list[Path] = []

    def failing_write(path: Path, text: str) -> None:
        if path.name == "p2.html":  # the other pages are written, this one fails
            raise WriteError(
                f"{path}: cannot write: Input/output error; the file is left as it was"
            )
        written.append(path)
        real_write(path, text)

    monkeypatch.setattr(site, "atomic_write_text", failing_write)
    second = shutil.copy(pairs, pairs.with_name("judge-y_pair.jsonl"))
    before[str(Path(second).relative_to(tmp_path))] = Path(second).read_bytes()
    code, output = _report([pairs, Path(second)], out)  # a site that differs from the old
    assert code == 1, output
    (line,) = _errors(output)
    assert line.startswith(f"error: {out}/pairwise/p2.html: cannot write: Input/output error")
    assert any(path.name == "index.html" for path in written)
    assert _tree(tmp_path) == before  # old site byte-identical, no half-built folder beside


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A real 256 KiB tmpfs, mounted for the test and removed after."""
    with shared_small_disk(tmp_path, "256k") as mount:
        yield mount


def test_a_full_disk_midway_leaves_the_previous_site_intact(
    small_disk: Path, pairs: Path, tmp_path: Path
) -> None:
    """A real full disk: the first site fits, the second does not fit beside it."""
    out = small_disk / "site"
    assert _report([pairs], out)[0] == 0
    used = sum(p.stat().st_blocks * 512 for p in out.rglob("*"))
    filler = small_disk / "filler"  # leaves room for about half a site more
    free = shutil.disk_usage(small_disk).free
    filler.write_bytes(b"\0" * max(0, free - used // 2))
    before = _tree(small_disk)
    code, output = _report([pairs], out)
    assert code == 1, output
    (line,) = _errors(output)
    assert "No space left on device" in line
    assert _tree(small_disk) == before


def test_a_read_only_page_of_a_previous_site_stops_the_report_first(
    tmp_path: Path, pairs: Path
) -> None:
    out = tmp_path / "site"
    assert _report([pairs], out)[0] == 0
    (out / "index.html").chmod(0o444)
    before = _tree(tmp_path)
    code, output = _report([pairs], out)
    assert code == 1, output
    assert _errors(output) == [
        f"error: -o {out}: index.html is read-only; hyoka does not replace it"
    ]
    assert _tree(tmp_path) == before


def test_a_file_the_user_put_into_a_previous_site_is_never_deleted(
    tmp_path: Path, pairs: Path
) -> None:
    """The site is replaced whole, so a file added to it since would go with it: the marker
    lists the site's files, and a folder holding others is refused."""
    out = tmp_path / "site"
    assert _report([pairs], out)[0] == 0
    (out / "pairwise" / "my-notes.md").write_text("what I think of these judges\n")
    before = _tree(tmp_path)
    code, output = _report([pairs], out)
    assert code == 1, output
    assert _errors(output) == [
        f"error: -o {out}: a hyoka report output, but it also holds files hyoka did not "
        "write (pairwise/my-notes.md); move them out or choose another folder"
    ]
    assert _tree(tmp_path) == before


def test_a_report_through_a_symlink_replaces_the_folder_it_points_to(
    tmp_path: Path, pairs: Path
) -> None:
    real = tmp_path / "real"
    link = tmp_path / "link"
    link.symlink_to(real, target_is_directory=True)
    real.mkdir()
    assert _report([pairs], link)[0] == 0
    assert _report([pairs], link)[0] == 0
    assert link.is_symlink() and (real / "index.html").is_file()


def _refset_work(tmp_path: Path) -> tuple[Path, Path]:
    """A work folder whose final stage holds Q01's answers, and a one-question benchmark."""
    from hyoka.refset.pool import PoolRecord, pool_path, write_pool

    work = tmp_path / "work"
    write_pool(pool_path(work / "06-representative", "Q01"), [PoolRecord("N", "新しい答え", 1)])
    bench = tmp_path / "bench"
    bench.mkdir()
    sample = {"question": "時計の針は何回重なる？", "answer": "22回です。"}
    (bench / "questions.jsonl").write_text(json.dumps(sample) + "\n", encoding="utf-8")
    return work, bench


def test_refset_publish_refuses_a_data_directory_of_upstream_files(tmp_path: Path) -> None:
    work, bench = _refset_work(tmp_path)
    out = tmp_path / "data-dir"
    data = out / "pfgen-bench" / "data"
    data.mkdir(parents=True)
    for name in ("Q01.json", "Q02.json"):
        shutil.copyfile(QUESTION_DIR / name, data / name)  # a copy: the shared data is read-only
    assert (data / "Q01.json").stat().st_size == 280_239
    before = _tree(tmp_path)
    command = ["refset", "publish", str(work), str(out), "--benchmark", str(bench)]
    result = CliRunner().invoke(app, command)
    assert result.exit_code == 1, result.output
    assert _errors(result.output) == [
        f"error: OUT {data}: holds files hyoka did not write (Q01.json, Q02.json); "
        "choose an empty or new folder"
    ]
    assert _tree(tmp_path) == before


def test_refset_build_refuses_before_any_stage_runs(tmp_path: Path) -> None:
    work, bench = _refset_work(tmp_path)
    (work / "01-generated" / "Q01" / "P").mkdir(parents=True)  # any stage input
    data = tmp_path / "data-dir" / "pfgen-bench" / "data"
    data.mkdir(parents=True)
    shutil.copyfile(QUESTION_DIR / "Q01.json", data / "Q01.json")
    config = tmp_path / "build.toml"
    config.write_text(f'work = "{work}"\nbenchmark = "{bench}"\nout = "{data.parents[1]}"\n')
    before = _tree(tmp_path)
    result = CliRunner().invoke(app, ["refset", "build", str(config)])
    assert result.exit_code == 1, result.output
    (line,) = _errors(result.output)
    assert line.startswith(f"error: out {data}: holds files hyoka did not write (Q01.json)")
    assert _tree(tmp_path) == before  # not even stage 2's folder was made


def test_refset_publish_writes_into_a_folder_it_published(tmp_path: Path) -> None:
    work, bench = _refset_work(tmp_path)
    out = tmp_path / "data-dir"
    command = ["refset", "publish", str(work), str(out), "--benchmark", str(bench)]
    for _ in range(2):  # new, then its own folder again
        result = CliRunner().invoke(app, command)
        assert result.exit_code == 0, result.output
    data = out / "pfgen-bench" / "data"
    assert json.loads((data / OUTPUT_MARKER).read_text())["kind"] == "refset"
    published = json.loads((data / "Q01.json").read_text(encoding="utf-8"))
    assert published["answers"] == {"N": ["新しい答え"]}


def test_one_decision_for_every_folder_output(tmp_path: Path) -> None:
    """``owned_folder``: absent or empty -> False, ours of this kind -> True, else refused."""
    from hyoka.store import claim_folder, owned_folder, replacing_folder

    assert owned_folder(tmp_path / "absent", "report") is False
    (tmp_path / "empty").mkdir()
    assert owned_folder(tmp_path / "empty", "report") is False
    claim_folder(tmp_path / "ours", "refset")
    assert owned_folder(tmp_path / "ours", "refset") is True
    with pytest.raises(InputError, match="holds a hyoka refset output, not a report one"):
        owned_folder(tmp_path / "ours", "report")
    (tmp_path / "file").write_text("x")
    with pytest.raises(InputError, match="exists and is not a folder"):
        owned_folder(tmp_path / "file", "report")
    legacy = tmp_path / "legacy"
    legacy.mkdir()
    (legacy / "refset-build.json").write_text("{}")
    assert owned_folder(legacy, "refset", legacy=("refset-build.json",)) is True
    many = tmp_path / "many"
    many.mkdir()
    for n in range(5):
        (many / f"f{n}").write_text("")
    with pytest.raises(InputError, match=r"\(f0, f1, f2 and 2 more\)"):
        owned_folder(many, "report")
    with pytest.raises(RuntimeError), replacing_folder(tmp_path / "ours2", "report") as staging:
        (staging / "page.html").write_text("half")
        raise RuntimeError("the build failed")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty", "file", "legacy", "many", "ours"]


def test_demo_out_never_replaces_a_users_example_folder(tmp_path: Path) -> None:
    """``hyoka demo --example --out DIR`` removed ``DIR/example`` whatever it held; now only
    its own earlier copy (scores included) is replaced."""

    def demo(out: Path) -> tuple[int, str]:
        command = ["demo", "--example", "--out", str(out), "--data-dir", str(SHARED_DATA)]
        result = CliRunner().invoke(app, command)
        return result.exit_code, result.output

    for _ in range(2):
        assert demo(tmp_path / "ours")[0] == 0
    assert (tmp_path / "ours" / "example" / "hyoka-examples").is_dir()
    mine = tmp_path / "theirs" / "example" / "thesis.tex"
    mine.parent.mkdir(parents=True)
    mine.write_text("two years of work\n")
    code, output = demo(tmp_path / "theirs")
    assert code == 1, output
    assert _errors(output) == [
        f"error: --out {mine.parent}: holds files hyoka did not write (thesis.tex); "
        "choose an empty or new folder"
    ]
    assert mine.read_text() == "two years of work\n"


def test_a_report_that_does_not_fit_names_its_output_folder_not_the_staging_one(
    tmp_path: Path,
) -> None:
    """A site that cannot be written whole is one error naming the page under ``-o``
    (never the hidden folder it is built in), and nothing is left behind."""
    from hyoka.report import ReportOptions, build_report
    from hyoka.store import WriteError

    pairs = tmp_path / "judge-x_pair.jsonl"
    write_fastchat_pairs(pairs)
    with shared_small_disk(tmp_path, "12k") as disk:
        out = disk / "site"
        with pytest.raises(WriteError) as raised:
            build_report([pairs], out, ReportOptions(data_dir=SHARED_DATA, public=False))
        message = str(raised.value)
        assert message.startswith(f"{out}/") and ": cannot write: " in message
        assert ".tmp" not in message and "\n" not in message
        assert list(disk.iterdir()) == []
