"""How the pfgen code is laid out (issue 10 §6-7): one home for the run-folder layout, one
face for the package, command modules that cost nothing to import."""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import hyoka.pfgen
from _shared import writable_run_copy
from hyoka.cli import _common, pfgen_analysis_cmd
from hyoka.data import manifest, manifest_names, upstream_data_hash
from hyoka.data.pins import pinned_sha256
from hyoka.pfgen.benchmark import PfgenBenchmark
from hyoka.stats.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED

SRC = Path(__file__).resolve().parents[2] / "src" / "hyoka"
#: The file names of a run folder, which only hyoka/store/pfgen_runs.py may spell.
LAYOUT_NAMES = {"config.json", "result.json", "trials.jsonl", "trials.jsonl.xz", "trial_*.jsonl"}
PFGEN_COMMANDS = [
    "hyoka.cli.pfgen_cmd",
    "hyoka.cli.pfgen_generate_cmd",
    "hyoka.cli.pfgen_leaderboard_cmd",
    "hyoka.cli.pfgen_analysis_cmd",
    "hyoka.cli.demo_cmd",
]
HEAVY = ["numpy", "pydantic", "rich.table", "hyoka.pfgen.benchmark", "hyoka.providers.client"]


def _modules_after_import(*names: str) -> set[str]:
    code = (
        "import importlib, json, sys\n"
        f"for name in {list(names)!r}: importlib.import_module(name)\n"
        "print(json.dumps(sorted(sys.modules)))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(json.loads(done.stdout))


def _files(*folders: str) -> list[Path]:
    return [p for folder in folders for p in sorted((SRC / folder).glob("*.py"))]


@pytest.mark.parametrize(
    "path",
    [
        # pfgen/judge.py is another engineer's file: its config.json is reported to the lead
        *[p for p in _files("pfgen") if p.name != "judge.py"],
        *[SRC / "cli" / f"{name.rsplit('.', 1)[1]}.py" for name in PFGEN_COMMANDS],
        SRC / "cli" / "_context.py",
    ],
    ids=lambda p: f"{p.parent.name}/{p.name}",
)
def test_only_the_store_spells_the_run_folder_layout(path: Path) -> None:
    constants = {
        node.value
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    }
    assert constants & LAYOUT_NAMES == set()


def test_the_package_face_resolves_every_name_it_promises() -> None:
    assert len(hyoka.pfgen.__all__) > 30
    for name in hyoka.pfgen.__all__:
        assert getattr(hyoka.pfgen, name) is not None, name


def test_importing_the_package_face_loads_nothing_heavy() -> None:
    loaded = _modules_after_import("hyoka.pfgen")
    assert loaded.isdisjoint(HEAVY)


def test_pfgen_command_modules_are_cheap_to_import() -> None:
    loaded = _modules_after_import(*PFGEN_COMMANDS)
    assert loaded.isdisjoint(HEAVY), sorted(loaded.intersection(HEAVY))


def test_the_bootstrap_defaults_shown_by_the_commands_are_the_library_s() -> None:
    assert pfgen_analysis_cmd.DEFAULT_RESAMPLES == DEFAULT_RESAMPLES
    assert pfgen_analysis_cmd.DEFAULT_SEED == DEFAULT_SEED


#: What scoring a run never uses: the data-download code, the manifest models, model
#: clients, judging and reports, asyncio (pydantic it does use: a result's signature is a
#: model).
UNUSED_BY_SCORING = [
    "asyncio",
    "hyoka.data.fetch",
    "hyoka.data.manifest",
    "http.client",
    "urllib.request",
    "hyoka.providers.client",
    "hyoka.judge",
    "hyoka.mtbench",
    "hyoka.report",
    # a pfgen signature is a plain dataclass and a trials file plain JSON: pydantic (0.06 s
    # to import) is for settings records and logs, and a package's version is read only
    # where a signature names packages
    "pydantic",
    "importlib.metadata",
]


def test_the_pinned_data_hash_is_read_as_the_manifest_models_read_it() -> None:
    for name in manifest_names():
        assert upstream_data_hash(name) == manifest(name).upstream_data_hash
        for file in manifest(name).files:  # a file's pin, as a run checks what it reads
            assert pinned_sha256(name, file.path) == file.sha256
    assert upstream_data_hash("pfgen") is not None
    assert pinned_sha256("mt-bench", "mt-bench/no-such-file") is None


_SCORE_AND_LIST_MODULES = """
import json, sys
from pathlib import Path
run = Path(sys.argv[1])
if sys.argv[2] == "cli":
    from hyoka.cli.main import app
    try:
        app(["pfgen", "score", "--force", "--json", str(run)], prog_name="hyoka")
    except SystemExit as exc:
        assert not exc.code, exc.code
else:
    from hyoka.pfgen import PfgenBenchmark, score_run
    score_run(run, PfgenBenchmark.load(), force=True)
assert (run / "result.json").is_file()
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""


@pytest.mark.usefixtures("hyoka_env")
@pytest.mark.parametrize("way", ["cli", "library"])
def test_scoring_a_run_loads_nothing_it_does_not_use(
    tmp_path: Path, way: str, benchmark: PfgenBenchmark
) -> None:
    """``hyoka pfgen score RUN`` (and ``score_run``) in a fresh interpreter: none of the
    modules it has no use for is loaded, nor, from the library, rich or typer; nor, with
    stderr no terminal, the progress bar that would show nothing there; nor, where the
    compiled kernel is built and the indexes are cached (building them is numpy's work),
    numpy."""
    benchmark.scorers(benchmark.questions)  # the session's cache, which the process reads
    run = writable_run_copy("openai/chatgpt-o1/9a61e92", tmp_path)
    plain = {k: v for k, v in os.environ.items() if k not in _common._TERMINAL_VARIABLES}
    done = subprocess.run(
        [sys.executable, "-c", _SCORE_AND_LIST_MODULES, str(run), way],
        capture_output=True, text=True, check=True, env=plain,
    )  # fmt: skip
    loaded = set(json.loads(done.stderr.strip().splitlines()[-1]))
    assert "hyoka.pfgen.scorer" in loaded  # it did score
    unused = [*UNUSED_BY_SCORING, "rich.progress", "hyoka.cli._progress"]
    unused += ["rich", "typer"] if way == "library" else []
    if importlib.util.find_spec("hyoka.pfgen._ngram_kernel") is not None:
        unused.append("numpy")  # the kernel walks the mapped trie: no array is made
    assert loaded.isdisjoint(unused), sorted(loaded.intersection(unused))


def test_stderr_is_surely_plain_only_off_a_terminal_and_unforced(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A pipe, with none of rich's variables: plain. A real terminal (a pty), or any of the
    variables that make rich draw anyway: rich decides."""
    for name in _common._TERMINAL_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    read_end, write_end = os.pipe()
    primary, secondary = os.openpty()
    try:
        with open(write_end, "w", closefd=False) as pipe:
            monkeypatch.setattr(sys, "stderr", pipe)
            assert _common.stderr_surely_plain()
            for name in _common._TERMINAL_VARIABLES:
                monkeypatch.setenv(name, "0")
                assert not _common.stderr_surely_plain(), name
                monkeypatch.delenv(name)
        with open(secondary, "w", closefd=False) as terminal:
            monkeypatch.setattr(sys, "stderr", terminal)
            assert not _common.stderr_surely_plain()
    finally:
        for fd in (read_end, write_end, primary, secondary):
            os.close(fd)
