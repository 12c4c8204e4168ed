"""What every command shares: the flags that recur, the consoles, and error reporting.

Each flag that more than one command takes is declared here once, as an ``Annotated``
alias carrying its name and help, so the same flag reads the same everywhere. Defaults
stay in each command's signature (``max_tokens: MaxTokensOption = 1024``), because they
differ by command.

Models and connections
    ``ModelOption`` (--model/-m, required; ``OptionalModelOption`` where a settings file
    may give it), ``JudgeOption`` (--judge/-j, required),
    ``BaseUrlOption`` (--base-url), ``ProviderOptionsOption`` (--option/-o KEY=VALUE,
    repeatable; read with ``provider_options``), ``ConcurrencyOption`` (--concurrency),
    ``NoCacheOption`` (--no-cache), ``BatchOption`` (--batch), ``ModelNameOption`` (--name).
Sampling
    ``TemperatureOption`` (--temperature), ``TopPOption`` (--top-p), ``TopKOption``
    (--top-k), ``MaxTokensOption`` (--max-tokens; ``MaxTokensOrDefaultOption`` where
    leaving it out means the template's or benchmark's budget), ``SeedTextOption``
    (--seed, a string), ``NumExamplesOption`` (--num-examples), ``TrialsOption`` (--trials).
Judging
    ``JudgeTemplateOption`` (--template/-t), ``RepeatsOption`` (--repeats),
    ``AttemptsOption`` (--max-attempts), ``PerQuestionOption`` (--per-question),
    ``PriceInOption``/``PriceOutOption`` (--price-in/--price-out; ``hyoka.judge.cost_usd``);
    the two whose choices are the judge's enums, ``AggregateOption`` (--aggregate) and
    ``MethodOption`` (--method), are in ``hyoka.cli._judging``.
Inputs and outputs
    ``DataDirOption`` (--data-dir), ``ResultsDirOption`` (--results-dir), ``OutputOption``
    (--output), ``LimitOption`` (--limit), ``JsonOption`` (--json), ``WorkersOption``
    (--workers).
Statistics
    ``ResamplesOption`` (--resamples), ``BootstrapSeedOption`` (--seed, an integer).

A user mistake (``HyokaError``) becomes one line on stderr and exit code 1 (2 for a bad
flag, as typer does); anything else is a bug and keeps its traceback. A ``HyokaWarning``
raised while a command runs becomes one ``warning:`` line on stderr, every time. Ctrl-C
becomes one ``interrupted:`` line saying what was kept and how to go on, and exit code 130.
Each of those lines is made printable (``hyoka.printable``): a message may quote a server
or a file, and no escape sequence or line break in it reaches the terminal to clear the
screen or forge a line. Every string the consoles print (a line, a table's cell, a
note) is made printable on one line: its line breaks shown escaped, so a name from outside
formatted into it (a run folder, a model) cannot end it and pose as a line of hyoka's own,
wherever it is printed; a command prints several lines as several strings. Text a command
writes whole (``echo``: Markdown, CSV) keeps its line breaks, so the renderers build it one
line per line (``hyoka.printable.one_line``; a CSV field's line breaks are shown escaped,
``csv_text``); JSON is printed by ``echo_json`` (or ``echo``'s ``json_text``), made
printable as JSON. A line that quotes a file's or a model's name is printed by ``say``,
never read as rich markup; commands print no line any other way (``typer.echo`` only here).

Only typer and the standard library are imported here at module level, so that a command
module importing its flags from here pays nothing more: rich (``console``, ``err_console``,
``progress_bar``, ``RateColumn``) and the provider types load on first use.
"""

from __future__ import annotations

import functools
import json
import os
import sys
import threading
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, ParamSpec, TypeVar

import typer

from hyoka.arguments import MIN_RESAMPLES
from hyoka.errors import PARAMETER, HyokaError, HyokaNote, HyokaWarning, InputError
from hyoka.printable import printable, printable_csv, printable_json

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress
    from rich.text import Text

    from hyoka.cli._progress import RateColumn as RateColumn

    #: standard output, for tables and results (created on first use)
    console: Console
    #: standard error, for progress, warnings and errors (created on first use)
    err_console: Console

P = ParamSpec("P")
R = TypeVar("R")

# --- models and connections -------------------------------------------------------------

_MODEL = typer.Option(
    "--model",
    "-m",
    help="PROVIDER/MODEL: openai/…, anthropic/…, google/…, hf/…, vllm/…, llamacpp/FILE.gguf "
    "or llamacpp/smollm2 (the embedded model).",
    show_default=False,
)
ModelOption = Annotated[str, _MODEL]
#: the same flag where a settings file may stand in for it (``refset generate --config``)
OptionalModelOption = Annotated[str | None, _MODEL]
JudgeOption = Annotated[
    str,
    typer.Option(
        "--judge", "-j", help="PROVIDER/MODEL of the judge, as for --model.", show_default=False
    ),
]
BaseUrlOption = Annotated[
    str | None,
    typer.Option("--base-url", help="URL of an OpenAI-compatible server to send requests to."),
]
ProviderOptionsOption = Annotated[
    list[str] | None,
    typer.Option(
        "--option",
        "-o",
        help="Backend option KEY=VALUE (VALUE read as JSON if it parses); repeatable.",
        show_default=False,
    ),
]
ConcurrencyOption = Annotated[
    int, typer.Option("--concurrency", min=1, help="Model requests in flight at once.")
]
NoCacheOption = Annotated[
    bool,
    typer.Option("--no-cache", help="Ask the model every time: neither read nor write the cache."),
]
BatchOption = Annotated[
    bool,
    typer.Option(
        "--batch",
        help="Ask through the provider's batch API (openai, anthropic; about half the "
        "price, within 24 h): submits, and the same command run again finishes.",
    ),
]
ModelNameOption = Annotated[
    str | None,
    typer.Option(
        "--name",
        help="Model name written in the outputs (default: from --model).",
        show_default=False,
    ),
]

# --- sampling ---------------------------------------------------------------------------

TemperatureOption = Annotated[
    float, typer.Option("--temperature", min=0.0, help="Sampling temperature.")
]
TopPOption = Annotated[
    float, typer.Option("--top-p", min=0.0, max=1.0, help="Nucleus sampling: top-p.")
]
TopKOption = Annotated[
    int | None, typer.Option("--top-k", min=1, help="Sample from the K likeliest tokens only.")
]
MaxTokensOption = Annotated[
    int, typer.Option("--max-tokens", min=1, help="Longest reply, in tokens.")
]
#: ``--max-tokens`` where leaving it out means "the template's or the benchmark's budget"
MaxTokensOrDefaultOption = Annotated[
    int | None,
    typer.Option(
        "--max-tokens",
        min=1,
        help="Longest reply, in tokens (default: the budget the template or benchmark sets).",
        show_default=False,
    ),
]
SeedTextOption = Annotated[
    str, typer.Option("--seed", help="Seed string for example order and sampling.")
]
NumExamplesOption = Annotated[
    int, typer.Option("--num-examples", min=0, help="Worked examples in each prompt.")
]
TrialsOption = Annotated[
    int, typer.Option("--trials", min=1, help="Trials: answers to each question.")
]

# --- judging ----------------------------------------------------------------------------

JudgeTemplateOption = Annotated[
    str, typer.Option("--template", "-t", help="Packaged template name, or a .toml file.")
]
RepeatsOption = Annotated[
    int, typer.Option("--repeats", min=1, help="Grade each answer K times and aggregate.")
]
AttemptsOption = Annotated[
    int,
    typer.Option(
        "--max-attempts", min=1, help="Judge calls per grade when replies hold no rating."
    ),
]
PerQuestionOption = Annotated[
    int | None,
    typer.Option(
        "--per-question",
        min=1,
        help="pfgen run folders: judge the first N answers to each question (default: all).",
        show_default=False,
    ),
]
PriceInOption = Annotated[
    float, typer.Option("--price-in", min=0.0, help="USD per million prompt tokens, for a cost.")
]
PriceOutOption = Annotated[
    float, typer.Option("--price-out", min=0.0, help="USD per million completion tokens.")
]

# --- inputs and outputs -----------------------------------------------------------------

DataDirOption = Annotated[
    Path | None,
    typer.Option(
        "--data-dir",
        help="Benchmark data directory (default: $HYOKA_DATA_DIR, else the user cache).",
        show_default=False,
    ),
]
ResultsDirOption = Annotated[
    Path, typer.Option("--results-dir", help="Root folder of the runs, answers and judgments.")
]
OutputOption = Annotated[
    Path | None,
    typer.Option(
        "--output",
        help="File to write (default: named in the command's description).",
        show_default=False,
        dir_okay=False,
    ),
]
LimitOption = Annotated[
    int | None,
    typer.Option(
        "--limit",
        min=1,
        help="Only the first N inputs (questions, answers, dialogues or pairs): a cheap trial.",
        show_default=False,
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")]
WorkersOption = Annotated[
    int | None,
    typer.Option(
        "--workers", min=1, help="Scoring processes (default: one per core).", show_default=False
    ),
]
#: what each Ray worker reserves on its node (refset generate, sweep)
CpusPerWorkerOption = Annotated[
    float, typer.Option("--cpus-per-worker", min=0, help="CPUs each Ray worker reserves.")
]
GpusPerWorkerOption = Annotated[
    float,
    typer.Option(
        "--gpus-per-worker",
        min=0,
        help="GPUs each Ray worker reserves (with vLLM, match its tensor_parallel_size option).",
    ),
]

# --- statistics -------------------------------------------------------------------------

ResamplesOption = Annotated[
    int,
    typer.Option(
        "--resamples", min=MIN_RESAMPLES, help="Bootstrap resamples for the 95% intervals."
    ),
]
BootstrapSeedOption = Annotated[
    int, typer.Option("--seed", help="Seed of the bootstrap resampling.")
]


# --- consoles, progress and errors ------------------------------------------------------


def _console(stderr: bool) -> Console:
    """The console of stdout or stderr for the ``COLUMNS`` in effect: rich reads the width
    once, when a console is made, so a command run in-process (a test, a notebook) under
    another ``COLUMNS`` gets a console of that width, not the first command's."""
    return _made_console(stderr, os.environ.get("COLUMNS"))


@functools.cache
def _made_console(stderr: bool, columns: str | None) -> Console:
    from rich.console import Console

    class Shown(Console):
        """A console that makes every string it renders printable and one line (a line,
        a table's cell, a note) before rich reads it: rich passes escape sequences in text
        through to the terminal, and a line break inside a value formatted into a line
        would let it forge the next. The rule is here, where every string passes, not at
        each place a name is formatted, where the next one could forget it. It reads no
        emoji codes either: ``:smile:`` in a file's name is shown as written."""

        def render_str(self, text: str, **options: Any) -> Text:
            return super().render_str(printable(text), **options)

    return Shown(stderr=stderr, emoji=False)


if not TYPE_CHECKING:

    def __getattr__(name: str) -> Any:
        """``console``, ``err_console`` and ``RateColumn`` load rich on first use only."""
        if name == "console":
            return _console(False)
        if name == "err_console":
            return _console(True)
        if name == "RateColumn":
            from hyoka.cli._progress import RateColumn

            return RateColumn
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: The variables that make rich treat a stream as a terminal whatever ``isatty`` says.
_TERMINAL_VARIABLES = ("TTY_COMPATIBLE", "FORCE_COLOR", "TTY_INTERACTIVE")


def stderr_surely_plain() -> bool:
    """True where rich would surely draw no live display on stderr: stderr is no terminal
    and none of ``_TERMINAL_VARIABLES`` tells rich otherwise. A transient progress bar then
    shows nothing at all, so a command run from a script need not load rich (20-30 ms of
    ``hyoka pfgen score`` on one run) to draw it; anywhere else rich decides."""
    if any(name in os.environ for name in _TERMINAL_VARIABLES) or "IPython" in sys.modules:
        return False  # told otherwise, or maybe a notebook, where rich draws a widget
    try:
        return not sys.stderr.isatty()
    except (AttributeError, ValueError):  # replaced by an object without one, or closed
        return False


def progress_bar(
    *, rate: bool = False, remaining: bool = False, transient: bool = False
) -> Progress:
    """The progress bar on stderr: description, bar, done/total, then items per second
    (``rate``), time elapsed and time left (``remaining``); ``transient`` bars vanish when
    done."""
    from hyoka.cli._progress import progress_bar as make

    return make(_console(True), rate=rate, remaining=remaining, transient=transient)


def echo(text: str, *, nl: bool = True, json_text: bool = False, csv_text: bool = False) -> None:
    """``text`` on stdout as it is (a rendered table, Markdown, CSV), made printable with
    its tabs and line breaks kept: names in it come from files and servers, and its
    renderer put each on one line. ``json_text``: ``text`` is JSON, made printable as JSON
    (``printable_json``: the same value, where ``printable``'s escapes would be no JSON);
    ``csv_text``: ``text`` is CSV (``hyoka.printable.csv_text``), its fields' line breaks
    shown escaped (``printable_csv``), as a file written with ``--output`` keeps them."""
    if json_text:
        shown = printable_json(text)
    elif csv_text:
        shown = printable_csv(text)
    else:
        shown = printable(text, lines=True)
    typer.echo(shown, nl=nl)


def echo_json(value: Any, *, indent: int | None = 2) -> None:
    """``value`` printed as JSON (``--json``, ``--format json``): every command's one way,
    so Japanese stays readable (``ensure_ascii=False``) and what a terminal would act on is
    escaped (``echo``'s ``json_text``)."""
    echo(json.dumps(value, ensure_ascii=False, indent=indent), json_text=True)


def say(text: str, *, err: bool = False) -> None:
    """A line of plain text on stdout (``err``: stderr) that quotes a file's or a model's
    name: never read as markup (``[bold]`` in a name is shown, not applied) or emoji
    codes, never highlighted, never wrapped (paths stay whole), made printable on one line
    (a line break in it shown as ``\\n``: ``say("")`` prints an empty line)."""
    _console(err).print(text, markup=False, emoji=False, highlight=False, soft_wrap=True)


#: the flag of each parameter a library message names (`name`: ``errors.PARAMETER``) where
#: it is not ``--`` and the name with dashes: the one place a parameter becomes a flag
FLAGS: dict[str, str] = {
    "spec": "--model",
    "peak_tflops": "--gpu-tflops",
    "cpus": "--cpus-per-worker",
    "gpus": "--gpus-per-worker",
    "record_file": "--json",
}


def flagged(message: str) -> str:
    """``message`` as the command line says it: each parameter the library names in it
    (`name`) shown as the flag that gives it (``FLAGS``, else ``--name-with-dashes``)."""
    return PARAMETER.sub(lambda named: FLAGS.get(named[1], _dashed(named[1])), message)


def _dashed(name: str) -> str:
    return "--" + name.replace("_", "-")


def print_error(error: Exception) -> None:
    """One line on stderr, never wrapped (paths stay whole), never read as markup, and
    printable (a server's or a file's text in it cannot act on the terminal); the
    parameters it names shown as flags (``flagged``)."""
    from rich.markup import escape

    _console(True).print(
        f"[bold red]error:[/] {escape(printable(flagged(str(error))))}",
        highlight=False,
        soft_wrap=True,
    )


def print_warning(message: str, label: str = "warning") -> None:
    """One ``warning:`` line (or ``label``: ``note``) on stderr, never wrapped, never read
    as markup, printable, the parameters it names shown as flags (``flagged``)."""
    from rich.markup import escape

    _console(True).print(
        f"[bold yellow]{label}:[/] {escape(printable(flagged(message)))}",
        highlight=False,
        soft_wrap=True,
    )


#: the line's label of a ``HyokaWarning`` that is not a warning
_LABELS: dict[type[Warning], str] = {HyokaNote: "note"}


def reports_errors(command: Callable[P, R]) -> Callable[P, R]:
    """Turn ``HyokaError`` into a one-line message and a non-zero exit, and each
    ``HyokaWarning`` into a ``warning:`` line (a ``HyokaNote``: a ``note:`` line; other
    warnings are shown as Python shows them)."""

    @functools.wraps(command)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with warnings.catch_warnings():
            shown_by_python = warnings.showwarning

            def show(
                message: Warning | str,
                category: type[Warning],
                filename: str,
                lineno: int,
                file: Any = None,
                line: str | None = None,
            ) -> None:
                if issubclass(category, HyokaWarning):
                    print_warning(str(message), _LABELS.get(category, "warning"))
                else:
                    shown_by_python(message, category, filename, lineno, file, line)

            # each one says something about the user's files: none is folded into another
            warnings.simplefilter("always", HyokaWarning)
            warnings.showwarning = show
            _forget_kept()
            try:
                return command(*args, **kwargs)
            except HyokaError as exc:
                print_error(exc)
                raise typer.Exit(exc.exit_code) from None
            except KeyboardInterrupt:
                print_interrupted()
                raise typer.Exit(INTERRUPTED) from None

    return wrapper


#: The exit status of a command stopped by Ctrl-C, as shells give it (128 + SIGINT).
INTERRUPTED = 130


def _forget_kept() -> None:
    """A new command starts a new tally of kept files (``hyoka.store.kept``); the store is
    not imported for it: a command that never opens a log never loads it."""
    tally = sys.modules.get("hyoka.store.kept")
    if tally is not None:
        tally.forget()


#: set once this process has said its ``interrupted:`` line (``print_interrupted``)
_SAID_INTERRUPTED = threading.Event()


def print_interrupted() -> None:
    """The one line a command stopped by Ctrl-C prints: what it kept, how to go on."""
    from rich.markup import escape

    from hyoka.store import kept

    _console(True).print(
        f"[bold yellow]interrupted:[/] {escape(printable(kept.interrupted_line()))}",
        highlight=False,
        soft_wrap=True,
    )
    _SAID_INTERRUPTED.set()


def say_interrupted_once() -> None:
    """``print_interrupted`` unless this process said it already: for an exit by Ctrl-C
    that came before the command ran (its code loading, its flags read), which typer ends
    with 130 and nothing said."""
    if not _SAID_INTERRUPTED.is_set():
        print_interrupted()


def provider_options(pairs: list[str] | None) -> dict[str, Any]:
    """``--option KEY=VALUE`` flags (values read as JSON where they parse, else as text), as
    keyword options for ``connect``/``load_provider`` (which add ``--base-url`` themselves)."""
    options: dict[str, Any] = {}
    for pair in pairs or []:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise InputError(f"--option must be KEY=VALUE, got {pair!r}")
        if key == "base_url":  # --base-url is redacted where stored and part of identities
            raise InputError("--option base_url=...: give the server's URL with --base-url")
        try:
            options[key] = json.loads(raw)
        except json.JSONDecodeError:
            options[key] = raw
    return options
