"""Entry point of the ``hyoka`` console script."""

from __future__ import annotations

import typer

from hyoka import __version__
from hyoka.cli.data_cmd import data_app
from hyoka.cli.demo_cmd import demo_command
from hyoka.cli.judge_cmd import judge_app
from hyoka.cli.mtbench_cmd import mtbench_app
from hyoka.cli.pfgen_cmd import pfgen_app
from hyoka.cli.refset_cmd import refset_app

app = typer.Typer(
    name="hyoka",
    help="hyoka (評価): measure how well language models write Japanese.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.add_typer(data_app, name="data")
app.add_typer(pfgen_app, name="pfgen")
app.add_typer(refset_app, name="refset")
app.add_typer(judge_app, name="judge")
app.add_typer(mtbench_app, name="mtbench")
app.command("demo")(demo_command)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"hyoka {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """hyoka (評価): measure how well language models write Japanese."""
