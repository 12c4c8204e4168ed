"""``hyoka judge pairwise``: two answer files compared by a judge, both orders (seed 001)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from hyoka.cli._common import (
    BaseUrlOption,
    BatchOption,
    ConcurrencyOption,
    DataDirOption,
    JsonOption,
    JudgeOption,
    LimitOption,
    NoCacheOption,
    PerQuestionOption,
    ProviderOptionsOption,
    echo_json,
    reports_errors,
    say,
)
from hyoka.cli._judging import ControlFeaturesOption, MethodOption
from hyoka.cli._tables import print_table
from hyoka.cli._thinking import ThinkingOption
from hyoka.judge import CriteriaChoice, MethodChoice
from hyoka.providers import CONCURRENCY, ThinkingChoice

if TYPE_CHECKING:
    from hyoka.judge import JudgedBy, PairwiseJudged, PairwiseSummary


def _print_summary(summary: PairwiseSummary, model_x: str, model_y: str, judge: JudgedBy) -> None:
    from rich.markup import escape
    from rich.table import Table

    from hyoka.cli._common import console
    from hyoka.cli._judging import dry_run_title

    def rate(value: float | int | None) -> str:
        return "-" if value is None else f"{value:.3f}"

    title = f"X = {escape(model_x)}, Y = {escape(model_y)}: {summary.pairs} pair(s)"
    table = Table(title=dry_run_title(title, [judge]))
    for column in ("method", "X wins", "Y wins", "ties", "invalid", "X win rate", "X adjusted",
                   "Y win rate", "Y adjusted", "X length-controlled"):  # fmt: skip
        table.add_column(column, justify="left" if column == "method" else "right")
    for name, counts in summary.methods.items():
        row = counts.to_json()
        controlled = counts.x_length_controlled
        table.add_row(
            name, *(str(row[key]) for key in ("x_wins", "y_wins", "ties", "invalid")),
            *(rate(row[f"{side}{kind}win_rate"]) for side in ("x_", "y_")
              for kind in ("", "adjusted_")),
            "-" if controlled is None else controlled.format(),
        )  # fmt: skip
    print_table(table)
    if summary.length_control is not None:
        console.print(
            "X length-controlled: X's win rate against Y were their answers equally long "
            "(alpaca_eval's logistic model; lengths in characters)",
            highlight=False,
        )
        say(f"signature: {summary.length_control.line}")
    from hyoka.cli._judging import print_style_control

    rated = {name: counts.ratings for name, counts in summary.methods.items() if counts.ratings}
    print_style_control(rated)
    both = summary.agree + summary.disagree
    console.print(
        f"robustness (orders agree): {rate(summary.robustness)} ({summary.agree} of {both}); "
        f"{summary.missing_letter} pair(s) with a reply lacking a verdict letter",
        highlight=False,
    )


@reports_errors
def pairwise_command(
    answers_x: Annotated[
        Path, typer.Argument(help="Answers of model X (JSONL), or a pfgen run folder.")
    ],
    answers_y: Annotated[
        Path, typer.Argument(help="Answers of model Y (JSONL, same ids), or a pfgen run folder.")
    ],
    judge: JudgeOption,
    method: MethodOption = MethodChoice.ALL,
    criteria: Annotated[
        CriteriaChoice, typer.Option(help="auto: generate criteria per question (seed 001).")
    ] = CriteriaChoice.NONE,
    reasons: Annotated[
        bool, typer.Option("--reasons/--no-reasons", help="Reasons before the verdict.")
    ] = False,
    template: Annotated[
        str | None,
        typer.Option(help="Template name or .toml path (default: from --criteria/--reasons)."),
    ] = None,
    output: Annotated[Path | None, typer.Option(help="Judgment file (JSONL, appended).")] = None,
    export_verdicts_to: Annotated[
        Path | None,
        typer.Option("--export-verdicts", help="Write verdicts for `hyoka judge agreement`."),
    ] = None,
    export_method: Annotated[
        MethodChoice | None,
        typer.Option(
            "--export-method",
            help="Method whose verdicts are exported (default: --method, or prob for all).",
        ),
    ] = None,
    criteria_file: Annotated[
        Path | None,
        typer.Option(help="Generated criteria (JSON); default criteria.json beside --output."),
    ] = None,
    max_tokens: Annotated[
        int | None,
        typer.Option(min=1, help="Reply budget (default 16, with reasons 1024)."),
    ] = None,
    criteria_max_tokens: Annotated[
        int, typer.Option(min=1, help="Reply budget for each question's criteria.")
    ] = 1024,
    limit: LimitOption = None,
    per_question: PerQuestionOption = None,
    data_dir: DataDirOption = None,
    concurrency: ConcurrencyOption = CONCURRENCY,
    base_url: BaseUrlOption = None,
    option: ProviderOptionsOption = None,
    no_cache: NoCacheOption = False,
    batch: BatchOption = False,
    as_json: JsonOption = False,
    thinking: ThinkingOption = ThinkingChoice.STRIP_THINK,
    control: ControlFeaturesOption = None,
) -> None:
    """Judge every pair in both orders; verdicts by prob (seed 001), bs1 and bs2 (resumable).

    A run that asked the judge and got no verdict on any pair exits 1 after its totals.

    Beside the win rates: X's length-controlled win rate against Y (alpaca_eval's), and
    each method's Bradley-Terry ratings of X and Y, raw and style-controlled (arena-hard's
    length and Markdown features, --control-features), with the judge's style coefficients.

    Answer files: JSONL lines {id, question, answer, reference?, model?, category?}; or two
    pfgen-bench run folders, whose answers pair up by question and position, with each
    question's sample answer as the reference.

    Examples:

      hyoka judge pairwise a.jsonl b.jsonl -j openai/gpt-4o --criteria auto --reasons

      hyoka judge pairwise a.jsonl b.jsonl -j openai/local --base-url http://127.0.0.1:8000/v1

      hyoka judge pairwise a.jsonl b.jsonl -j llamacpp/smollm2 --export-verdicts prob.jsonl

      hyoka judge pairwise a.jsonl b.jsonl -j openai/gpt-4o --batch  (again to finish)

      hyoka judge pairwise results/org/a/1234abc results/org/b/5678def -j openai/gpt-4o \
          --per-question 3
    """
    from hyoka.cli._common import provider_options
    from hyoka.cli._judging import ShownJudging, control_features, print_batch
    from hyoka.judge import Connection, judge_pairwise
    from hyoka.pfgen import answer_reader

    done = judge_pairwise(
        answers_x, answers_y, judge, method=method.value, criteria=criteria.value,
        reasons=reasons, template=template, output=output,
        export_verdicts_to=export_verdicts_to,
        export_method=None if export_method is None else export_method.value,
        criteria_file=criteria_file, max_tokens=max_tokens,
        criteria_max_tokens=criteria_max_tokens, limit=limit,
        answers_of=answer_reader(per_question, data_dir), thinking=thinking.value,
        control=control_features(control),
        connection=Connection(base_url, provider_options(option), no_cache, concurrency, batch),
        watcher=ShownJudging(announce="Judgment file: {}"),
    )  # fmt: skip
    print_batch(done.run.stats, as_json)
    _print_run(done, as_json)


def _print_run(done: PairwiseJudged, as_json: bool) -> None:
    """The run's JSON, or its table, totals, judge and signature; the verdicts exported and
    pairs without log probabilities said on stderr; exit 1 where no pair got a verdict."""
    from hyoka.cli._common import print_warning
    from hyoka.cli._judging import fail_if_no_verdict, print_judge, print_signature

    run = done.run
    summary, report, stats = run.summary, run.report, run.stats
    if not as_json:
        _print_summary(summary, run.model_x, run.model_y, run.judge)
    if summary.no_logprobs:
        shown = ", ".join(summary.no_logprobs[:10])
        print_warning(
            f"{len(summary.no_logprobs)} pair(s) came back without log probabilities, "
            f"so without a prob verdict: {shown}"
        )
    if done.exported is not None:
        exported = done.exported
        say(f"{exported.count} {exported.method} verdict(s) -> {exported.path}", err=True)
    if as_json:
        echo_json(run.to_json(), indent=1)
        fail_if_no_verdict(report, run.judge.judge, run.output, "pair(s)")
        return
    say(
        f"{report.judged} pair(s) judged, {report.done_before} already done; "
        f"{stats.requests} judge call(s), {stats.cache_hits} from cache; tokens: "
        f"{stats.usage.prompt_tokens} in, {stats.usage.completion_tokens} out "
        f"(all judgments in the file: {summary.usage.prompt_tokens} in, "
        f"{summary.usage.completion_tokens} out)"
    )
    print_judge([run.judge])
    print_signature(run.signature)
    fail_if_no_verdict(report, run.judge.judge, run.output, "pair(s)")
