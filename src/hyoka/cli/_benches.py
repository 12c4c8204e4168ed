"""The ``--bench`` and ``--variant`` flags, built from the benchmark registry.

No command lists benchmarks by hand: the choices a help screen shows, the help lines and
shell completion are read from ``hyoka.mtbench.registry`` when they are shown, so a
definition added (a module under ``hyoka.mtbench.definitions``, or an entry point) is a
choice everywhere at once. A name that is none of them passes through to the library,
whose error is one line listing those there are (``registry.definition``), as every
``HyokaError`` is shown.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Annotated, Any

import typer
from typer._click.core import Context, Parameter
from typer._click.shell_completion import CompletionItem
from typer._click.types import ParamType


class RegisteredName(ParamType):
    """A name from a listing read when it is needed (help, completion), not at import
    (typer's own click, which typer vendors, is the one its options take)."""

    def __init__(self, name: str, listing: Callable[[], Iterable[str]]) -> None:
        self.name = name
        self._listing = listing

    def get_metavar(self, param: Parameter, ctx: Context) -> str:
        return "<" + "|".join(self._listing()) + ">"

    def convert(self, value: Any, param: Parameter | None, ctx: Context | None) -> Any:
        return value  # checked by the library: one error line naming every choice

    def shell_complete(
        self, ctx: Context, param: Parameter, incomplete: str
    ) -> list[CompletionItem]:
        return [CompletionItem(n) for n in self._listing() if n.startswith(incomplete)]


def bench_names() -> tuple[str, ...]:
    """Every registered benchmark."""
    from hyoka.mtbench import definitions

    return tuple(definitions())


def graded_bench_names() -> tuple[str, ...]:
    """The benchmarks judged by single grades per turn (FastChat's protocol)."""
    from hyoka.mtbench import fastchat_benches

    return tuple(fastchat_benches())


def variant_choices() -> tuple[str, ...]:
    """Every variant name of every benchmark, each once."""
    from hyoka.mtbench import variant_names

    return tuple(dict.fromkeys(v for names in variant_names().values() for v in names))


def bench_help(lead: str, names: Iterable[str] | None = None) -> str:
    """``lead`` then each benchmark's name with its title and protocol, from the registry."""
    from hyoka.mtbench import FASTCHAT_JUDGING, definitions

    shown = []
    for name, spec in definitions().items():
        if names is not None and name not in names:
            continue
        how = "" if spec.judging is FASTCHAT_JUDGING else f"; {spec.judging.summary}"
        shown.append(f"{name} ({spec.title}{how})")
    return f"{lead}: {', '.join(shown)}."


def variant_help() -> str:
    """Each benchmark's variants, the default first, from the registry."""
    from hyoka.mtbench import variant_names

    listed = "; ".join(f"{bench}: {', '.join(names)}" for bench, names in variant_names().items())
    return (
        f"The benchmark's named preset ({listed}; default the first); "
        "`hyoka mtbench variants --bench NAME` lists their settings."
    )


BenchOption = Annotated[
    str,
    typer.Option(
        "--bench",
        click_type=RegisteredName("benchmark", bench_names),
        help=bench_help("Benchmark"),
    ),
]
VariantOption = Annotated[
    str | None,
    typer.Option(
        "--variant",
        metavar="<variant>",
        click_type=RegisteredName("variant", variant_choices),
        help=variant_help(),
    ),
]
