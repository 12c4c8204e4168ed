"""``hyoka ifeval score`` and ``hyoka ifeval verify``: M-IFEval-Ja without a judge.

Parsing and printing only: the checks, verdicts and accuracies live in ``hyoka.ifeval``
(imported when a command runs, so that this module is cheap to import).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer._click.core import Context, Parameter
from typer._click.types import ParamType

from hyoka.cli._common import (
    BootstrapSeedOption,
    DataDirOption,
    JsonOption,
    LimitOption,
    ResamplesOption,
    echo_json,
    reports_errors,
    say,
)

if TYPE_CHECKING:
    from hyoka.ifeval import Accuracy, Mode, PromptSet, Scores, Verification

_NONE = "none"

PromptsOption = Annotated[
    Path | None,
    typer.Option(
        "--prompts",
        help="M-IFEval's prompts file (default: m-ifeval-ja/data/ja_input_data.jsonl in the "
        "data directory).",
        show_default=False,
        dir_okay=False,
    ),
]


class LangdetectSeed(ParamType):
    """A whole number or ``none``, refused while the command line is parsed (a usage
    error, exit 2) before any file is read."""

    name = "langdetect-seed"

    def get_metavar(self, param: Parameter, ctx: Context) -> str:
        return "<INTEGER|none>"

    def convert(self, value: Any, param: Parameter | None, ctx: Context | None) -> int | None:
        if value is None or isinstance(value, int):
            return value
        if value == _NONE:
            return None
        try:
            return int(value)
        except ValueError:
            self.fail(f"{value!r}: a whole number, or none", param, ctx)


LangdetectSeedOption = Annotated[
    int | None,
    typer.Option(
        "--langdetect-seed",
        click_type=LangdetectSeed(),
        help="Seed of every language detection (0: Swallow's rule), or 'none' for upstream's "
        "unseeded draw.",
    ),
]


def _prompts(path: Path | None, data_dir: Path | None) -> PromptSet:
    from hyoka.data import data_file
    from hyoka.ifeval import PROMPTS_IN_DATA, read_prompts

    if path is None:
        path = data_file(
            PROMPTS_IN_DATA, "m-ifeval-ja", "M-IFEval-Ja prompts", data_dir, flag="--prompts"
        )
    return read_prompts(path)


def _shown(accuracy: Accuracy) -> str:
    text = f"{accuracy.value:.4f} ({accuracy.followed}/{accuracy.total})"
    if accuracy.interval is not None:
        text += f" [{accuracy.interval.low:.4f}, {accuracy.interval.high:.4f}]"
    return text


def _share(label: str, scores: Scores) -> str:
    return (
        f"  {label:<7} prompt-level {_shown(scores.prompt_level)}"
        f"  instruction-level {_shown(scores.instruction_level)}"
    )


@reports_errors
def score_command(
    responses: Annotated[
        list[Path],
        typer.Argument(
            help="Response files: one JSON object a line with prompt and response, or "
            "hyoka's answer files (hyoka mtbench generate --bench m-ifeval-ja).",
            dir_okay=False,
            show_default=False,
        ),
    ],
    prompts: PromptsOption = None,
    langdetect_seed: LangdetectSeedOption = 0,
    groups: Annotated[
        bool, typer.Option("--groups", help="Also show each instruction group's accuracy.")
    ] = False,
    resamples: ResamplesOption = 2000,
    seed: BootstrapSeedOption = 0,
    limit: LimitOption = None,
    as_json: JsonOption = False,
    data_dir: DataDirOption = None,
) -> None:
    """Score response files: strict and loose accuracy, per prompt and per instruction.

    Each response is checked against its prompt's instructions as upstream's M-IFEval-Ja
    code decides them (lightblue-tech/M-IFEval 0bc3143), strict (as written) and loose
    (also without its first or last line, or its asterisks). Intervals: 95% percentile
    bootstrap over prompts. The signature line names the rule set and the language
    detection's seed.

    Examples:

      hyoka ifeval score answers.jsonl

      hyoka ifeval score answers.jsonl --groups --langdetect-seed none

      hyoka ifeval score results/mtbench/m-ifeval-ja/model_answer/m.jsonl --limit 3
    """
    from hyoka.ifeval import score_responses

    done = score_responses(
        responses, _prompts(prompts, data_dir), langdetect_seed=langdetect_seed,
        resamples=resamples, seed=seed, limit=limit,
    )  # fmt: skip
    if as_json:
        echo_json(done.to_json())
        return
    for path, scored in done.results:
        say(f"{path} ({scored['strict'].prompts} prompts)")
        for mode, scores in scored.items():
            say(_share(mode, scores))
            if groups:
                for name, accuracy in scores.groups.items():
                    say(f"    {name:<32} {_shown(accuracy)}")
    say(f"signature: {done.signature.line}")


def _report(checked: Verification) -> None:
    differences = len(checked.differences)
    explained = differences - len(checked.unexplained)
    summary = (
        f"{checked.path} ({checked.mode}): {checked.instructions_agreed}/"
        f"{checked.instructions} instruction and {checked.prompts_agreed}/"
        f"{len(checked.published)} prompt verdicts agree"
    )
    if differences:
        summary += f"; {differences} differ, {explained} of them by langdetect's seed alone"
    if checked.absent:
        total = len(checked.absent) + len(checked.published)
        summary += (
            f"; {len(checked.absent)} of the {total} prompts absent "
            f"(the first: {checked.absent[0].where})"
        )
    say(summary)
    for difference in checked.differences:
        say(f"  {difference.describe()}")
    for where in checked.seed_dependent:
        say(f"  {where}: this language verdict changes with langdetect's seed")
    for where in checked.inconsistent:
        say(f"  {where}: follow_all_instructions is not every instruction's verdict")


@reports_errors
def verify_command(
    paths: Annotated[
        list[Path],
        typer.Argument(
            help="Upstream evaluation files (eval_results_strict.jsonl, "
            "eval_results_loose.jsonl) or folders holding them.",
            show_default=False,
        ),
    ],
    prompts: PromptsOption = None,
    mode: Annotated[
        str | None,
        typer.Option(
            "--mode",
            help="strict or loose (default: from each file's name).",
            show_default=False,
        ),
    ] = None,
    langdetect_seed: LangdetectSeedOption = 0,
    seeds: Annotated[
        int,
        typer.Option(
            "--seeds",
            min=2,
            help="How many langdetect seeds (0, 1, ...) each language verdict is drawn with "
            "to tell whether it depends on the draw.",
        ),
    ] = 10,
    data_dir: DataDirOption = None,
    as_json: JsonOption = False,
) -> None:
    """Rescore upstream evaluation files and compare every verdict.

    Each file's responses are rescored in its mode and every instruction's and prompt's
    verdict compared with the file's. A language verdict is also drawn with several
    langdetect seeds: upstream's draw is unseeded, so where the seed changes the verdict a
    difference is the draw's, and is said so. Prints each file's agreement and every
    difference; exits 1 if any difference is not the seed's, or a file's prompt verdict is
    not the conjunction of its own instruction verdicts.

    Examples:

      hyoka ifeval verify evaluations/ja_input_response_data_gpt-4o-2024-08-06

      hyoka ifeval verify "$HYOKA_DATA_DIR/m-ifeval-ja/evaluations"
    """
    from hyoka.errors import InputError
    from hyoka.ifeval import MODES, files_given, verify_evaluation

    chosen_mode: Mode | None = None
    if mode is not None:
        if mode not in MODES:
            raise InputError(f"--mode {mode!r}: strict or loose")
        chosen_mode = "strict" if mode == "strict" else "loose"
    chosen = langdetect_seed
    found = _prompts(prompts, data_dir)
    files = files_given(
        paths, "eval_results_*.jsonl", "eval_results_strict.jsonl or _loose.jsonl", beneath=True
    )
    checks = [verify_evaluation(p, found, chosen_mode, chosen, tuple(range(seeds))) for p in files]
    failed = sum(not checked.ok for checked in checks)
    if as_json:
        echo_json([checked.to_json() for checked in checks])
    else:
        for checked in checks:
            _report(checked)
        depending = "" if chosen is None else f" (seed {chosen}; {seeds} seeds compared)"
        say(f"{len(files) - failed}/{len(files)} files agree, or differ only where "
            f"langdetect's seed decides{depending}")  # fmt: skip
    if failed:
        raise typer.Exit(1)
