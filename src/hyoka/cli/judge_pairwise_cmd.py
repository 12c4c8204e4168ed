"""``hyoka judge pairwise``: two answer files compared by a judge, both orders (seed 001)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from hyoka.cli._common import (
    BaseUrlOption,
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
from hyoka.errors import InputError
from hyoka.judge import CriteriaChoice, MethodChoice
from hyoka.providers import ThinkingChoice

if TYPE_CHECKING:
    from hyoka.judge import JudgedBy, JudgePlan, JudgmentRecord, PairwiseSummary
    from hyoka.store import JsonlLog

#: where judgments go unless --output says otherwise
RESULTS = Path("results") / "judge" / "pairwise"


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
    concurrency: ConcurrencyOption = 8,
    base_url: BaseUrlOption = None,
    option: ProviderOptionsOption = None,
    no_cache: NoCacheOption = False,
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

      hyoka judge pairwise results/org/a/1234abc results/org/b/5678def -j openai/gpt-4o \
          --per-question 3
    """
    from hyoka.cli._common import print_warning, progress_bar, provider_options
    from hyoka.cli._judging import (
        control_features,
        fail_if_no_verdict,
        print_judge,
        print_signature,
        run_plans,
    )
    from hyoka.judge import (
        PairwiseRun,
        check_criteria_use,
        check_judge,
        default_max_tokens,
        default_output,
        export_verdicts,
        fill_criteria,
        load_pairs,
        load_template,
        open_log,
        pairwise_settings,
        parse_methods,
        plan_pairs,
        run_judge,
        summarise_pairwise,
        template_name,
    )
    from hyoka.pfgen import answer_reader
    from hyoka.providers import connect
    from hyoka.stats import StyleCounts

    methods = parse_methods(method)
    exported = parse_methods(export_method or (method if method != "all" else "prob"))
    if export_verdicts_to is not None and (len(exported) != 1 or exported[0] not in methods):
        raise InputError(f"--export-method must be one of the judged methods ({method})")
    chosen = load_template(template or template_name(criteria, reasons))
    check_criteria_use(chosen, criteria)
    items = load_pairs(answers_x, answers_y, answer_reader(per_question, data_dir))
    items = items[: limit or None]
    budget = max_tokens or default_max_tokens(chosen)
    settings = pairwise_settings(judge, base_url, budget, methods, thinking.value)
    out = output or default_output(RESULTS, judge, items, chosen.name)
    # before the criteria cost any call: the file can be continued
    pending = plan_pairs(items, chosen, settings, out, methods=methods, pending_criteria=True)
    client = connect(
        judge, base_url=base_url, options=provider_options(option), no_cache=no_cache,
        concurrency=concurrency, flag="--judge",
    )  # fmt: skip
    check_judge(client, pending.protocol)
    # held from this check until the pairs are judged into it: the file is opened once
    log = open_log(pending)
    say(f"Judgment file: {out}", err=True)
    store = criteria_file or out.parent / "criteria.json"

    async def with_criteria() -> list[
        tuple[str, JudgePlan[JudgmentRecord], JsonlLog[JudgmentRecord]]
    ]:
        nonlocal items
        if "criteria" in chosen.placeholders:
            with progress_bar(rate=True) as bar:
                task = bar.add_task("criteria", total=len(items))
                items = await fill_criteria(
                    client, items, judge=judge, store=store, max_tokens=criteria_max_tokens,
                    thinking=settings.thinking_rule, on_done=lambda: bar.advance(task),
                )  # fmt: skip
                bar.update(task, completed=len(items))
        plans.append(plan_pairs(items, chosen, settings, out, methods=methods))
        return [("pairs", plans[-1], log)]

    plans: list[JudgePlan[JudgmentRecord]] = []
    with log:
        report, (judged,) = run_plans(client, [], prepare=with_criteria)
    records = list(judged.lines)  # the file's records of these pairs, as the run left them
    lengths = {item.id: (len(item.answer_x), len(item.answer_y)) for item in items}
    styles = {item.id: (StyleCounts.of(item.answer_x), StyleCounts.of(item.answer_y))
              for item in items}  # fmt: skip
    summary = summarise_pairwise(records, methods, lengths, styles, control_features(control))
    model_x, model_y = items[0].model_x, items[0].model_y
    signature, answered = judged.run.signature(), run_judge(judged.run)
    if not as_json:
        _print_summary(summary, model_x, model_y, answered)
    if summary.no_logprobs:
        shown = ", ".join(summary.no_logprobs[:10])
        print_warning(
            f"{len(summary.no_logprobs)} pair(s) came back without log probabilities, "
            f"so without a prob verdict: {shown}"
        )
    if export_verdicts_to is not None:
        categories = {item.id: item.category for item in items}
        count = export_verdicts(records, exported[0], export_verdicts_to, categories)
        say(f"{count} {exported[0]} verdict(s) -> {export_verdicts_to}", err=True)
    stats = client.stats
    if as_json:
        run = PairwiseRun(
            out, chosen, answered, model_x, model_y, summary, report, stats, signature
        )  # fmt: skip
        echo_json(run.to_json(), indent=1)
        fail_if_no_verdict(report, judge, out, "pair(s)")
        return
    say(
        f"{report.judged} pair(s) judged, {report.done_before} already done; "
        f"{stats.requests} judge call(s), {stats.cache_hits} from cache; tokens: "
        f"{stats.usage.prompt_tokens} in, {stats.usage.completion_tokens} out "
        f"(all judgments in the file: {summary.usage.prompt_tokens} in, "
        f"{summary.usage.completion_tokens} out)"
    )
    print_judge([answered])
    print_signature(signature)
    fail_if_no_verdict(report, judge, out, "pair(s)")
