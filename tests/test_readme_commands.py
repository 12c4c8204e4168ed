"""Every ``hyoka`` command the README shows is one the CLI accepts as typed, and the quick
path runs as typed.

Running them all needs the network, hosted judges and a GPU, so every command line of each
``bash`` block is parsed by the real command tree (click's own parser, the same one
``hyoka`` runs), down to its leaf command, so an option renamed or removed, a command
moved, or a value a choice no longer offers fails here with the README line that shows it.
Code blocks are also checked to be closed: an unclosed block swallows the sections after
it. Parsing cannot see an example that stops when run (a file it needs that nothing made,
a flag that points elsewhere than the README's exported data directory), so the examples
that run offline are run too, in order, after the quick start (``QUICK_PATH``).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import typer.main
from typer._click import Command, Context  # typer's own click: the parser hyoka runs
from typer._click.exceptions import ClickException
from typer.core import TyperGroup
from typer.exceptions import Exit
from typer.testing import CliRunner

from _shared import SHARED_DATA, data_with_sources
from hyoka.cli.main import app
from hyoka.mtbench import answer_model_id
from hyoka.mtbench.judge import default_judge_name

README = Path(__file__).resolve().parents[1] / "README.md"
FENCE = re.compile(r"^```(\w*)\s*$")


def _bash_blocks(text: str) -> list[tuple[int, list[str]]]:
    """(first line number, lines) of each ``bash`` block; asserts every fence is closed."""
    blocks: list[tuple[int, list[str]]] = []
    language: str | None = None
    start = 0
    body: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        fence = FENCE.match(line)
        if fence is None:
            if language is not None:
                body.append(line)
            continue
        if language is None:
            language, start, body = fence.group(1), number, []
        else:
            assert not fence.group(1), f"README.md:{number}: a block opens inside another"
            if language == "bash":
                blocks.append((start, body))
            language = None
    assert language is None, f"README.md:{start}: code block never closed"
    return blocks


def _commands(blocks: list[tuple[int, list[str]]]) -> list[tuple[str, list[str]]]:
    """(``README.md:line``, argv after ``hyoka``) of every command line, continuations joined."""
    found: list[tuple[str, list[str]]] = []
    for start, lines in blocks:
        joined = ""
        first = 0
        for offset, line in enumerate(lines, start=1):
            if not joined:
                first = start + offset
            joined += line.rstrip("\\").rstrip() + " " if line.endswith("\\") else line
            if line.endswith("\\"):
                continue
            words = _command_words(joined)
            joined = ""
            if words[:1] == ["hyoka"]:
                found.append((f"README.md:{first}", words[1:]))
    return found


SHELL_OPERATORS = ("|", "||", "&&", ";", "<", ">", ">>", "2>", "2>&1", "&>")


def _command_words(line: str) -> list[str]:
    """The words of a line's first command: a redirection or pipe ends it (the shell's)."""
    words = shlex.split(line, comments=True)
    for index, word in enumerate(words):
        if word in SHELL_OPERATORS or word.startswith((">", "2>")):
            return words[:index]
    return words


COMMANDS = _commands(_bash_blocks(README.read_text(encoding="utf-8")))


def _parse(argv: list[str]) -> None:
    """Parse ``argv`` down to its leaf command, as ``hyoka`` would before running it."""
    command: Command = typer.main.get_command(app)
    name = "hyoka"
    args = list(argv)
    parent: Context | None = None
    while True:
        context = command.make_context(name, args, parent=parent)
        if not hasattr(command, "resolve_command"):  # a leaf: parsed whole
            return
        rest = [*context._protected_args, *context.args]
        if not rest:
            return
        name, found, args = command.resolve_command(context, rest)
        assert found is not None, f"no command {name!r}"
        command, parent = found, context


def test_the_readme_shows_commands() -> None:
    assert len(COMMANDS) > 40  # the README is read: every section's examples are found


@pytest.mark.parametrize(("where", "argv"), COMMANDS, ids=[w for w, _ in COMMANDS])
def test_a_readme_command_parses_as_typed(where: str, argv: list[str]) -> None:
    if "--help" in argv or "--version" in argv:
        argv = [word for word in argv if word not in ("--help", "--version")]
        argv.append("--help") if argv else None
    try:
        _parse(argv)
    except Exit:
        pass  # a --help reached: the command exists
    except ClickException as exc:
        pytest.fail(f"{where}: hyoka {shlex.join(argv)}: {exc.format_message()}")


# --- the quick path, run ------------------------------------------------------------------
#
# The examples below run as typed after the quick start, in one fresh folder and in the
# README's order (a later example reads what an earlier one wrote, as it does for a user):
# `hyoka` on the PATH, HYOKA_DATA_DIR the shared data. Shell lines (echo, cp) run in bash;
# on a `hyoka` line bash expands the words (variables, globs, `$(...)`) and the command then
# runs in this process, its stdout written where the line redirects it. A model or judge
# that cannot answer here (a hosted one; the embedded model, minutes on two cores) is
# replaced by a scripted stand-in under its own name (`--name`, `--judge-name`, where the
# command has them), so every path the README names next is the one written.

VENV_BIN = Path(sys.executable).parent
#: a flag naming an answering model or a judge -> the flag that names its outputs
STAND_IN_FLAGS = {"-m": "--name", "--model": "--name", "-j": "--judge-name",
                  "--judge": "--judge-name"}  # fmt: skip


def _lines() -> list[tuple[str, str]]:
    """(``README.md:line``, text as typed, continuations joined) of every line of the bash
    blocks."""
    found: list[tuple[str, str]] = []
    for start, lines in _bash_blocks(README.read_text(encoding="utf-8")):
        joined, first = "", 0
        for offset, line in enumerate(lines, start=1):
            first = first if joined else start + offset
            joined += line[:-1] if line.endswith("\\") else line
            if not line.endswith("\\"):
                found.append((f"README.md:{first}", joined))
                joined = ""
    return found


def _readme_line(prefix: str, after: int) -> tuple[int, str, str]:
    """The first README line after line number ``after`` that is ``prefix`` (spaces aside),
    else the first that starts with it: (its number, ``README.md:N``, its text)."""
    wanted = " ".join(prefix.split())
    lines = [(int(w.split(":")[1]), w, t, " ".join(t.split())) for w, t in _lines()]
    lines = [line for line in lines if line[0] > after]
    exact = [(n, w, t) for n, w, t, words in lines if words == wanted]
    begins = [(n, w, t) for n, w, t, words in lines if words.startswith(wanted)]
    assert exact or begins, f"README.md: no line after {after} starts {prefix!r}"
    return (exact or begins)[0]


def _leaf_flags(argv: list[str]) -> set[str]:
    """The flags of the command ``argv`` runs."""
    command: Command = typer.main.get_command(app)
    context: Context | None = None
    rest = list(argv)
    while isinstance(command, TyperGroup):
        context = Context(command, info_name=command.name, parent=context)
        name, found, rest = command.resolve_command(context, rest)
        assert found is not None, f"no command {name!r}"
        command = found
    return {flag for param in command.params for flag in getattr(param, "opts", [])}


def _stand_in(argv: list[str], model: Path, judge: Path) -> list[str]:
    """``argv`` with each model and judge the stand-in scripts, under their own names."""
    flags = _leaf_flags(argv)
    out: list[str] = []
    for word in argv:
        flag = out[-1] if out else ""
        if flag not in STAND_IN_FLAGS or word.startswith("scripted/"):
            out.append(word)
            continue
        named = STAND_IN_FLAGS[flag]
        out.append(f"scripted/{judge if named == '--judge-name' else model}")
        if named in flags:
            out += [named, answer_model_id(word) if named == "--name" else default_judge_name(word)]
    return out


def _run_line(
    where: str, line: str, folder: Path, env: dict[str, str], model: Path, judge: Path
) -> str:
    """Run one README line in ``folder`` (the current folder): its output, or a failure
    naming the line."""
    if not line.startswith("hyoka "):
        done = subprocess.run(
            ["bash", "-c", line], cwd=folder, env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, f"{where}: {line}\n{done.stderr}"
        return done.stdout
    words = folder / ".words"
    script = f'hyoka() {{ printf "%s\\0" "$@" > {shlex.quote(str(words))}; }}\n{line}'
    done = subprocess.run(
        ["bash", "-c", script], cwd=folder, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, f"{where}: {line}\n{done.stderr}"
    argv = _stand_in(words.read_text(encoding="utf-8").split("\0")[:-1], model, judge)
    result = CliRunner().invoke(app, argv, env={"COLUMNS": "200"})
    assert result.exit_code == 0, f"{where}: hyoka {shlex.join(argv)}\n{result.output}"
    rest = shlex.split(line, comments=True)[len(_command_words(line)) :]
    if rest[:1] == [">"]:
        (folder / rest[1]).write_text(result.stdout, encoding="utf-8")
    return str(result.output)


@dataclass(frozen=True)
class Step:
    """One README line run (``line``: how it starts), with what the stand-in judge replies
    (texts in turn, for a list) and a text its output shows; or files written first, as
    the README says to (``write``: name and text). ``slow``: run by the whole path only
    (seconds of bootstrap each). ``fetches_sources``: the line downloads a suite's
    ``sources`` (upstream's files, which ``../shared/data`` lacks), the one step the
    offline walk cannot run: from it on the walk reads the shared data with the tests'
    stand-ins of those files in its place (``_shared.data_with_sources``)."""

    line: str = ""
    judge: str | list[str] = "[[5]]"
    shows: str = ""
    write: tuple[tuple[str, str], ...] = ()
    slow: bool = False
    fetches_sources: bool = False


def _answers(answer: str) -> str:
    """A line of the answer files ``judge pairwise`` reads, as the README describes them."""
    row = {"id": "q1", "question": "富士山の高さは?", "answer": answer, "reference": "3,776 m"}
    return json.dumps(row, ensure_ascii=False) + "\n"


#: the generation example's model, as a user edits it: the stand-in
EDIT_MODEL = "generate.toml"


def _copy_example(name: str, to: str) -> str:
    """The README's line that copies a settings file shipped with hyoka."""
    return (
        'cp "$(python -c "import hyoka, pathlib; print(pathlib.Path(hyoka.__file__).parent / '
        f"'examples/refset/{name}')\")\" {to}"
    )


QUICK_PATH = (
    Step("hyoka data fetch pfgen", shows="52 already present"),
    Step("hyoka data verify pfgen", shows="all 52 files verified"),
    Step("hyoka data fetch mt-bench", shows="already present"),
    Step('echo \'{"id": "q1", "question": "富士山の高さは?", "answer": "3,776 mです。"'),
    Step("echo '{\"reply\": [\"評価: [[7]]\""),
    Step("hyoka judge single one.jsonl -j scripted/judge-script.jsonl", shows="8.000"),
    Step(write=(("a.jsonl", _answers("3,776 mです。")), ("b.jsonl", _answers("4,000 mです。")))),
    Step("hyoka judge pairwise a.jsonl b.jsonl -j openai/gpt-4o", judge="[[A]]"),
    Step('hyoka report "$HYOKA_DATA_DIR/ja-vicuna-qa/model_judgment', slow=True),
    Step("hyoka mtbench generate --bench mt-bench -m llamacpp/smollm2 --limit 2"),
    Step("hyoka mtbench judge --bench mt-bench -j openai/gpt-4 --limit 2", shows="4 turn(s)"),
    Step("hyoka mtbench leaderboard --bench mt-bench --judgments", shows="incomplete"),
    Step("hyoka data fetch jmt-bench --with-published"),
    Step("hyoka mtbench variants --bench jmt-bench", shows="stability@aed16da"),
    Step("hyoka mtbench judge --bench jmt-bench --variant stability@aed16da"),
    Step("hyoka mtbench leaderboard --bench jmt-bench --variant stability@aed16da",
         shows="japanese-stablelm-instruct-alpha-7b"),
    Step("hyoka data fetch jmt-bench --with-sources", slow=True, fetches_sources=True),
    Step("hyoka mtbench generate --bench jmt-bench --variant swallow", slow=True),
    Step("hyoka mtbench judge --bench jmt-bench --variant swallow", slow=True),
    Step("hyoka mtbench leaderboard --bench jmt-bench --variant swallow", slow=True,
         shows="gpt-4o-mini"),
    Step("hyoka data fetch ja-vicuna-qa --with-published"),
    Step("hyoka mtbench judge --bench ja-vicuna-qa --mode pairwise", judge="[[A]]",
         shows="80 turn(s) judged"),
    Step("hyoka data fetch pfmt-fin --with-published"),
    Step("hyoka mtbench verify", shows="reproduced exactly"),
    Step("hyoka data fetch elyza-tasks-100 --with-published"),
    Step("hyoka mtbench generate --bench elyza-tasks-100 -m llamacpp/smollm2 --limit 2"),
    Step("hyoka mtbench judge --bench elyza-tasks-100", judge="5", shows="2 turn(s) judged"),
    Step("hyoka mtbench leaderboard --bench elyza-tasks-100 --judgments", shows="5.00"),
    Step("hyoka mtbench leaderboard --bench elyza-tasks-100", shows="Qwen1.5-72B-Chat", slow=True),
    Step("hyoka data fetch rakuda --with-published"),
    Step("hyoka mtbench generate --bench rakuda -m llamacpp/smollm2 --max-tokens 64"),
    # verdicts in turn (first shown wins, second wins, a tie): a ranking with a finite fit
    Step("hyoka mtbench judge --bench rakuda", judge=["1", "2", "3"] * 100, slow=True),
    Step("hyoka mtbench leaderboard --bench rakuda --judgments", slow=True, shows="claude-2"),
    Step("hyoka data fetch m-ifeval-ja", shows="already present"),
    Step("hyoka mtbench generate --bench m-ifeval-ja", shows="3 dialogue(s) answered"),
    Step("hyoka ifeval score results/mtbench/m-ifeval-ja", shows="prompt-level 0.0000 (0/3)"),
    Step("hyoka ifeval score results/mtbench/m-ifeval-ja", shows=""),  # --json > scored.json
    Step("hyoka report scored.json -o m-ifeval-site", shows="m-ifeval-site"),
    Step("hyoka mtbench leaderboard --bench m-ifeval-ja", slow=True,
         shows="| 1 | claude-3-5-sonnet-20240620 | 72.1 | 77.4 | 81.4 | 85.0 |"),
    Step("hyoka mtbench verify --bench m-ifeval-ja", slow=True, shows="226/226 instruction"),
    Step("hyoka jfbench build --n-benchmark-data 3", shows="3 entries (constraint set test"),
    Step("hyoka jfbench build --n-constraints 3", shows="100 entries"),
    Step('cp -r "$(python -c "import hyoka, pathlib; print(pathlib.Path(hyoka.__file__)'),
    Step("hyoka sweep my-sweep/sweep.toml --plan", shows="to run: 4 of 4 cells"),
    Step("hyoka sweep my-sweep/sweep.toml", slow=True, shows="4 cell(s) run, 0 done before"),
    Step("hyoka report my-sweep/sweep-results", slow=True, shows="my-sweep/report"),
    Step("hyoka report results/jmt results/mtbench/elyza-tasks-100", slow=True),
    Step("hyoka mtbench leaderboard --bench rakuda --judgments", slow=True),
    Step("hyoka report results/mtbench/rakuda rakuda-ranking.json", slow=True),
    Step(_copy_example("generate-example.toml", "generate.toml")),
    Step(write=((EDIT_MODEL, ""),)),
    Step("hyoka refset generate --config generate.toml", shows="80 answer(s) generated"),
    Step(_copy_example("build-example.toml", "build.toml")),
    Step("hyoka refset build build.toml", shows="2 question file(s) written"),
)  # fmt: skip


def _write(folder: Path, step: Step, model: Path) -> None:
    for name, text in step.write:
        path = folder / name
        if name == EDIT_MODEL:  # the model a user runs instead: the stand-in
            text = path.read_text(encoding="utf-8").replace(
                'model = "llamacpp/smollm2"', f'model = "scripted/{model}"'
            )
            text = text.replace("[options]\nn_threads = 1\n", "")  # llama.cpp's own option
        path.write_text(text, encoding="utf-8")


def _walk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *, slow: bool) -> None:
    """Run the steps in one folder, in the README's order."""
    folder = tmp_path / "work"
    folder.mkdir()
    env = {**os.environ, "PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}",
           "HYOKA_DATA_DIR": str(SHARED_DATA),
           "HYOKA_CACHE_DIR": str(tmp_path / "cache")}  # fmt: skip
    for key in ("HYOKA_DATA_DIR", "HYOKA_CACHE_DIR"):
        monkeypatch.setenv(key, env[key])
    monkeypatch.chdir(folder)
    model = tmp_path / "model.jsonl"
    model.write_text('{"reply": "富士山の高さは3,776 mです。"}\n', encoding="utf-8")
    after = 0
    for number, step in enumerate(QUICK_PATH):
        _write(folder, step, model)
        if not step.line:
            continue
        after, where, line = _readme_line(step.line, after)
        if step.slow and not slow:
            continue
        if step.fetches_sources:
            env["HYOKA_DATA_DIR"] = str(data_with_sources())
            monkeypatch.setenv("HYOKA_DATA_DIR", env["HYOKA_DATA_DIR"])
            continue
        judge = tmp_path / f"judge-{number}.jsonl"
        judge.write_text(json.dumps({"reply": step.judge}) + "\n", encoding="utf-8")
        shown = _run_line(where, line, folder, env, model, judge)
        assert step.shows in shown, f"{where}: {line}\n{shown}"


def test_the_quick_path_runs_as_typed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's examples that take no more than a moment each run as typed after the
    quick start, one after another: the scripted judge, MT-bench's partial run judged,
    the Japanese suites on the exported data directory, and a reference set built by the
    two shipped settings files."""
    _walk(tmp_path, monkeypatch, slow=False)


@pytest.mark.slow
def test_the_whole_path_runs_as_typed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The quick path with the examples that take seconds each: Swallow's five trials,
    Rakuda's 1,400 matches and bootstrap ranking, and the report sites."""
    _walk(tmp_path, monkeypatch, slow=True)
