"""The ``--bench`` and ``--variant`` flags, built from the benchmark registry.

No command lists benchmarks by hand: the choices a help screen shows, the help lines and
shell completion are read from ``hyoka.mtbench.registry`` when they are shown, so a
definition added (a module under ``hyoka.mtbench.definitions``, or an entry point) is a
choice everywhere at once. A name that is none of them is refused while the command line
is parsed, before anything is read, as a usage error (exit 2) whose message is the
library's own (``registry.definition``: one line listing those there are). A variant is
checked against the benchmark given, so ``--bench`` is parsed first (eager).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Annotated, Any

import typer
from typer._click.core import Context, Parameter
from typer._click.exceptions import UsageError
from typer._click.shell_completion import CompletionItem
from typer._click.types import ParamType

from hyoka.cli._common import flagged
from hyoka.errors import HyokaError

#: looks a name up in the library given the values parsed before it, raising its
#: ``HyokaError`` for one that is not there
Check = Callable[[str, Mapping[str, Any]], object]


class RegisteredName(ParamType):
    """A name from a listing read when it is needed (help, completion, parsing), not at
    import (typer's own click, which typer vendors, is the one its options take)."""

    def __init__(
        self, name: str, listing: Callable[[], Iterable[str]], check: Check | None = None
    ) -> None:
        self.name = name
        self._listing = listing
        self._check = check

    def get_metavar(self, param: Parameter, ctx: Context) -> str:
        return "<" + "|".join(self._listing()) + ">"

    def convert(self, value: Any, param: Parameter | None, ctx: Context | None) -> Any:
        """``value`` as given, once the library knows it; else its one error line (every
        choice named, the parameter as its flag) as a usage error."""
        if self._check is not None and isinstance(value, str):
            try:
                self._check(value, ctx.params if ctx is not None else {})
            except HyokaError as error:
                raise UsageError(flagged(str(error)), ctx) from None
        return value

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


def known_bench(name: str, parsed: Mapping[str, Any]) -> None:
    """``name`` is a registered benchmark (``registry.definition``'s error otherwise)."""
    from hyoka.mtbench import definition

    definition(name)


def graded_bench(name: str, parsed: Mapping[str, Any]) -> None:
    """``name`` is a benchmark judged by single grades (``registry.fastchat_bench``'s
    error otherwise)."""
    from hyoka.mtbench import fastchat_bench

    fastchat_bench(name)


def bench_variant(name: str, parsed: Mapping[str, Any]) -> None:
    """``name`` is a variant of the ``--bench`` parsed (``BenchSpec.variant``'s error
    otherwise); an unknown benchmark was refused already, and without one the library
    decides."""
    from hyoka.mtbench import definitions

    bench = parsed.get("bench")
    spec = definitions().get(bench) if isinstance(bench, str) else None
    if spec is not None:
        spec.variant(name)


def bench_help(lead: str, names: Iterable[str] | None = None) -> str:
    """``lead`` then each benchmark's name with its title and protocol, from the registry."""
    from hyoka.mtbench import definitions

    shown = []
    for name, spec in definitions().items():
        if names is not None and name not in names:
            continue
        shown.append(f"{name} ({spec.title}{spec.judging.listing()})")
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
        click_type=RegisteredName("benchmark", bench_names, known_bench),
        is_eager=True,  # before --variant, which is checked against it
        help=bench_help("Benchmark"),
    ),
]
VariantOption = Annotated[
    str | None,
    typer.Option(
        "--variant",
        metavar="<variant>",
        click_type=RegisteredName("variant", variant_choices, bench_variant),
        help=variant_help(),
    ),
]
