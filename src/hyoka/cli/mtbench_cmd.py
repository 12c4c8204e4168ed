"""``hyoka mtbench ...``: two-turn benchmarks judged by an LLM (pfmt-bench-fin-ja, MT-bench)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from hyoka.arguments import MIN_RESAMPLES
from hyoka.cli._benches import (
    BenchOption,
    RegisteredName,
    VariantOption,
    bench_help,
    bench_names,
    known_bench,
)
from hyoka.cli._common import (
    BaseUrlOption,
    BatchOption,
    ConcurrencyOption,
    DataDirOption,
    JsonOption,
    JudgeOption,
    LimitOption,
    ModelNameOption,
    ModelOption,
    NoCacheOption,
    OutputOption,
    PriceInOption,
    PriceOutOption,
    ProviderOptionsOption,
    ResultsDirOption,
    echo,
    echo_json,
    reports_errors,
    say,
)
from hyoka.cli._judging import ControlFeaturesOption
from hyoka.cli._tables import print_table
from hyoka.cli._thinking import ThinkingOption
from hyoka.errors import InputError

# the flags' choices: typer needs them when it builds the commands
from hyoka.judge import MethodChoice
from hyoka.mtbench import (
    FormatChoice,
    HeadlineChoice,
    InjectionChoice,
    JudgeModeChoice,
    LangCheckChoice,
    LayoutChoice,
    TemplateChoice,
)
from hyoka.providers import CONCURRENCY, ThinkingChoice

if TYPE_CHECKING:
    from hyoka.mtbench import (
        BenchBoard,
        ConstraintBoard,
        ConstraintsJudged,
        MatchesJudged,
        PairsJudged,
        RakudaRanking,
        RuleBoard,
        TurnsJudged,
    )

#: where answers and judgments go unless --output/--output-dir say otherwise
RESULTS = Path("results") / "mtbench"
LayoutOption = Annotated[
    LayoutChoice,
    typer.Option(
        "--layout",
        help="Files under --results-dir: hyoka (<bench>/model_answer/, <bench>/model_judgment/"
        "<judge>_single/<model>.jsonl) or upstream (where upstream's scripts look with "
        "--results-dir as their data/; mt-bench: mt_bench/..., one <judge>_single.jsonl).",
    ),
]


HeadlineOption = Annotated[
    HeadlineChoice | None,
    typer.Option(
        "--headline",
        help="Compute the cells, Avg. and win rates by another script's rule than the "
        "benchmark's own (signed in the table's signature): turn-mean (lm-sys FastChat's "
        "show_result.py), category-mean (pfmt-bench-fin-ja), swallow-trials "
        "(swallow-evaluation: per-trial means, then their mean), every-line "
        "(ja-vicuna-qa-benchmark: every line and every pair in the denominator).",
    ),
]


@reports_errors
def leaderboard_command(
    bench: BenchOption = "pfmt-fin",
    judgments: Annotated[
        list[Path] | None,
        typer.Option(
            "--judgments",
            help="Folder of judgment files (*.jsonl; elyza-tasks-100 also Shaberi's *.json) "
            "or one file; repeat to combine. Default: the published judgments in the data "
            "directory (pfmt-fin: gpt-4o-mini; elyza-tasks-100: Shaberi's gpt-4-turbo-preview).",
        ),
    ] = None,
    fmt: Annotated[
        FormatChoice, typer.Option("--format", help="How the table is written.")
    ] = FormatChoice.MD,
    as_json: JsonOption = False,
    output: OutputOption = None,
    per_turn: Annotated[
        bool, typer.Option("--per-turn/--no-per-turn", help="Also a table per turn.")
    ] = True,
    radar: Annotated[
        list[Path] | None,
        typer.Option("--radar", help="Write the radar chart: FILE.png or FILE.html; repeatable."),
    ] = None,
    rounds: Annotated[
        int, typer.Option("--rounds", min=1, help="Rakuda: bootstrap rounds (upstream: 500).")
    ] = 500,
    seed: Annotated[
        int, typer.Option("--seed", help="Seed of the bootstrap (the intervals; Rakuda's).")
    ] = 0,
    resamples: Annotated[
        int,
        typer.Option(
            "--resamples",
            min=MIN_RESAMPLES,
            help="Bootstrap resamples of the 95% intervals (not Rakuda).",
        ),
    ] = 2000,
    data_dir: DataDirOption = None,
    variant: VariantOption = None,
    mix_variants: Annotated[
        bool,
        typer.Option(
            "--mix-variants",
            help="Rank rows judged under different variants together (each row is marked "
            "with its variant); without it such a table is refused.",
        ),
    ] = False,
    answers: Annotated[
        list[Path] | None,
        typer.Option(
            "--answers",
            help="The judged models' answer files (or folders of them, hyoka's or FastChat's "
            "layout); repeatable. Adds a length-adj. column beside Avg.: the mean with every "
            "answer as long as its question's mean.",
        ),
    ] = None,
    style_control: Annotated[
        bool,
        typer.Option(
            "--style-control",
            help="With --answers: also Bradley-Terry ratings from the grades (the higher "
            "grade wins each pair on a judged turn, equal grades tie), raw and with length "
            "and Markdown held equal, intervals resampling questions (--resamples, --seed).",
        ),
    ] = False,
    headline: HeadlineOption = None,
) -> None:
    """Rank models by category: the mean of both turns' scores, overall as upstream has it.

    Overall (Avg.) and each cell as the benchmark's own script computes them: pfmt-fin the
    mean of the category means (its make_leaderboard.py), mt-bench the mean of every rated
    turn (FastChat's show_result.py), elyza-tasks-100 the mean of every rated task
    (Shaberi's; its published files read as it reads them, every row counted, a repeated
    one too, and marked), jmt-bench --variant swallow per trial the mean of its rated turns,
    then the mean over trials (swallow-evaluation's), ja-vicuna-qa the mean over every line
    (its show_result.py; -1 counted). --headline turn-mean gives FastChat's rule instead;
    the signature names the rule. Rule-based zeros (no answer, wrong language) count;
    unrated turns (-1) count only in ja-vicuna-qa's mean over every line; rows with any
    are marked with how many. Means are rounded half-up to two decimals in md and csv, full
    precision in json. Rows not judged on every turn are marked incomplete and ranked
    last; rows judged another way than most are marked; the table ends with its signature.
    Written to stdout, or replaced atomically in --output.

    Beside Avg. stands its 95% interval: a percentile bootstrap over questions, then each
    question's trials (answers judged several times: `mtbench generate --trials`; with one
    trial, over questions only), --resamples and --seed in the signature. For --variant
    swallow also swallow-evaluation's own figure: the mean over the turns per trial, then
    mean ± sample standard deviation over trials. Under the table, its separability: the
    share of the complete rows' model pairs whose intervals do not overlap.

    With --answers, beside Avg. (never instead of it) a length-adj. column: the mean of
    every rated turn had every answer been as long as its question's mean (a two-way
    fixed-effects regression of score on log(1 + characters) of the judged turn's answer),
    and a note with the partial correlation of score with length within question and its
    interval. A model with a judged turn whose answer is missing gets no adjusted mean.

    With --answers and --style-control, beside Avg. also BT and style-controlled BT: on
    every judged turn each pair of models is a battle the higher grade wins (equal grades
    tie), rated by Bradley-Terry raw and with the answers' length and Markdown (headers,
    lists, bold) held equal (arena-hard's features; lengths in characters); 95% intervals
    from --resamples draws of whole questions; notes with the judge's style coefficients
    γ and the signature; n/a where the fit has no maximum, with the reason.

    Examples:

      hyoka mtbench leaderboard --bench pfmt-fin

      hyoka mtbench leaderboard --judgments my_judgments/ --format json

      hyoka mtbench leaderboard --bench elyza-tasks-100 --format json --output elyza.json

      hyoka mtbench leaderboard --radar radar.png --radar radar.html

      hyoka mtbench leaderboard --answers data/pfmt-bench-fin-ja/model_answer/

      hyoka mtbench leaderboard --answers data/pfmt-bench-fin-ja/model_answer/ --style-control

      hyoka mtbench leaderboard --bench jmt-bench --variant swallow --judgments judged/

      hyoka mtbench leaderboard --bench rakuda --judgments gpt-4_pair.jsonl --rounds 100

    Rakuda ranks by Bradley-Terry with a fitted first-position advantage and bootstrap
    16/50/84th percentiles, as its make_ranking.py --compute mle fits it.
    """
    from hyoka.mtbench import bench_leaderboard

    shown = FormatChoice.JSON if as_json else fmt  # --json: --format json
    board = bench_leaderboard(
        bench, judgments, fmt=shown.value, output=output, per_turn=per_turn,
        radar=radar or (), rounds=rounds, seed=seed, resamples=resamples, variant=variant,
        mix_variants=mix_variants, answers=answers, style_control=style_control,
        data_dir=data_dir, headline=None if headline is None else headline.value,
    )  # fmt: skip
    board_printers()[type(board)](board, shown.value, output)


def board_printers() -> Mapping[type, Callable[[Any, str, Path | None], None]]:
    """How ``leaderboard`` prints each judging protocol's board (the result types of
    ``mtbench.run.ProtocolCommands.leaderboard``): a new protocol's board adds its printer
    here, not a branch in the command."""
    from hyoka.mtbench import BenchBoard, ConstraintBoard, RakudaRanking, RuleBoard

    return {
        BenchBoard: _print_board,
        RakudaRanking: _print_ranked,
        RuleBoard: _print_ranked,
        ConstraintBoard: _print_ranked,
    }


def _print_board(board: BenchBoard, _fmt: str, output: Path | None) -> None:
    """A FastChat-style leaderboard as rendered (or where it was written), and its radar
    charts."""
    if output is None:
        echo(board.text, nl=False, json_text=board.fmt == "json", csv_text=board.fmt == "csv")
    else:
        say(f"wrote {output}", err=True)
    for path in board.write_radars():
        say(f"radar chart: {path}", err=True)


def _print_ranked(
    ranked: RakudaRanking | RuleBoard | ConstraintBoard, fmt: str, _output: Path | None
) -> None:
    """Rakuda's ranking (or a rule-checked benchmark's scores) as a table or JSON."""
    if fmt == "json":
        echo_json(ranked.to_json())
    elif fmt == "csv":
        echo(ranked.render("csv"), csv_text=True)
    else:
        echo(ranked.render("md" if fmt == "md" else "plain"))


@reports_errors
def generate_command(
    model: ModelOption,
    bench: BenchOption = "pfmt-fin",
    variant: VariantOption = None,
    template: Annotated[
        TemplateChoice,
        typer.Option(
            help="chat (the model's chat template), base (the dialogue template), auto, or "
            "completions (upstream's legacy-completions protocol: ja-vicuna-qa's hosted models)."
        ),
    ] = TemplateChoice.AUTO,
    max_tokens: Annotated[
        int | None,
        typer.Option("--max-tokens", min=1, help="Reply budget per turn (default: the bench's)."),
    ] = None,
    temperature: Annotated[
        list[str] | None,
        typer.Option("--temperature", help="CATEGORY=T over the bench's defaults; repeatable."),
    ] = None,
    repetition_penalty: Annotated[
        float | None,
        typer.Option(
            "--repetition-penalty", help="Default: the bench's for local models, else unset."
        ),
    ] = None,
    injection: Annotated[
        InjectionChoice,
        typer.Option(
            help="strict: an answer that writes a role marker becomes empty; lenient: cut there."
        ),
    ] = InjectionChoice.STRICT,
    system_message: Annotated[
        str | None,
        typer.Option(
            "--system-message",
            help="System message of chat requests (default: upstream's, for mt-bench and "
            "jmt-bench's stability and swallow the one their FastChat picks by model name); "
            "named in the signature.",
        ),
    ] = None,
    no_system_message: Annotated[
        bool,
        typer.Option("--no-system-message", help="Chat requests without a system message."),
    ] = False,
    thinking: ThinkingOption = ThinkingChoice.STRIP_THINK,
    name: ModelNameOption = None,
    output: OutputOption = None,
    results_dir: ResultsDirOption = RESULTS,
    layout: LayoutOption = LayoutChoice.HYOKA,
    seed: Annotated[
        int | None, typer.Option(help="Sampling seed (answer i of each dialogue: seed + i).")
    ] = None,
    trials: Annotated[
        int | None,
        typer.Option(
            "--trials",
            min=1,
            help="Answers per dialogue (FastChat's --num-choices; default: the variant's, "
            "swallow 5, else 1); each is judged.",
        ),
    ] = None,
    limit: LimitOption = None,
    concurrency: ConcurrencyOption = CONCURRENCY,
    base_url: BaseUrlOption = None,
    option: ProviderOptionsOption = None,
    no_cache: NoCacheOption = False,
    batch: BatchOption = False,
    data_dir: DataDirOption = None,
    as_json: JsonOption = False,
) -> None:
    """Answer the benchmark's two-turn dialogues (resumable: run it again to continue).

    Examples:

      hyoka mtbench generate --bench pfmt-fin -m openai/gpt-4o-mini

      hyoka mtbench generate -m llamacpp/model.gguf --template base --injection lenient

      hyoka mtbench generate -m llamacpp/smollm2 --limit 2 --max-tokens 64

      hyoka mtbench generate --bench jmt-bench --variant swallow -m openai/gpt-4o-mini

      hyoka mtbench generate -m openai/gpt-4o-mini --batch  (again to finish each turn)
    """
    from hyoka.cli._common import provider_options
    from hyoka.cli._judging import ShownJudging, print_batch, print_signature
    from hyoka.judge import Connection
    from hyoka.mtbench import generate_bench

    done = generate_bench(
        model, bench=bench, variant=variant, template=template.value, max_tokens=max_tokens,
        temperatures=temperature or (), repetition_penalty=repetition_penalty,
        injection=injection.value, system_message=system_message,
        no_system_message=no_system_message, thinking=thinking.value, name=name,
        output=output, results_dir=results_dir, layout=layout.value, seed=seed,
        trials=trials, limit=limit, data_dir=data_dir, watcher=ShownJudging("Answer file: {}"),
        connection=Connection(base_url, provider_options(option), no_cache, concurrency, batch),
    )  # fmt: skip
    print_batch(done.stats, as_json)
    if as_json:
        echo_json(done.to_json())
        return
    report, stats = done.report, done.stats
    thought = report.unclosed_thinking
    say(
        f"{report.generated} dialogue(s) answered, {report.done_before} already done "
        f"({report.template or done.template} template); {report.injections} injection(s) "
        f"caught ({done.injection}), {report.empty} empty answer(s)"
        + (f" ({thought} whose thinking never closed)" if thought else "")
        + f"; {stats.requests} request(s), {stats.cache_hits} from cache; tokens: "
        f"{stats.usage.prompt_tokens} in, {stats.usage.completion_tokens} out"
    )
    if report.signature is not None:
        print_signature(report.signature)


@reports_errors
def verify_command(
    judgments: Annotated[
        list[Path],
        typer.Argument(
            help="Judgment files (FastChat JSONL: _single or _pair; Rakuda's _pair; "
            "Shaberi's *.json) or folders of them, as the leaderboard takes them."
        ),
    ],
    bench: Annotated[
        str | None,
        typer.Option(
            "--bench",
            click_type=RegisteredName("benchmark", bench_names, known_bench),
            help=bench_help(
                "Whose rules (default: the benchmark the file's hyoka manifest "
                "names, or whose data folder holds it; Rakuda's lines name it)"
            ),
        ),
    ] = None,
    data_dir: DataDirOption = None,
    as_json: JsonOption = False,
) -> None:
    """Check that judgment files are sound and every score and verdict follows from their
    stored replies.

    Sound: each line has the shape upstream writes (a score is a JSON number), judges a
    question and turn of its benchmark (its variant's) with a score on the benchmark's
    scale, and no judgment is there twice (a copied line never; a turn judged again only
    where upstream's table counts every line, and said). Each line's raw judge reply is
    then read again by the rules the file was made with, every one its hyoka manifest
    records (rating rules for a score, the verdict rule for g1_winner/g2_winner and
    hyoka's per-method verdicts, Rakuda's last digit, the rules that decided without the
    judge, how the judge's thinking was read); a file without a manifest by upstream's,
    each model's rows by the variant its judged prompts show. Prints "reproduced exactly"
    per file, the first line that is not sound or differs (file:line), or "cannot be
    verified" for a file that keeps no judge replies (scores only); exits 1 unless every
    file is reproduced. Nothing is written.

    Examples:

      hyoka mtbench verify results/mtbench/pfmt-fin/model_judgment/gpt-4o-mini_single/

      hyoka mtbench verify --bench ja-vicuna-qa pairwise.jsonl

      hyoka mtbench verify --bench rakuda results/mtbench/rakuda/model_judgment/gpt-4_pair.jsonl
    """
    from hyoka.cli._common import console, flagged, print_error
    from hyoka.errors import HyokaError
    from hyoka.mtbench import check_json, iter_verify_bench

    failures, rows = 0, []
    for path, check in iter_verify_bench(judgments, bench, data_dir):
        if isinstance(check, HyokaError):
            failures += 1
            print_error(check)
            rows.append({"file": str(path), "error": flagged(str(check))})
            continue
        failures += not check.reproduced
        rows.append({**check_json(check), "verdict": flagged(check.verdict)})
        if not as_json:  # an unsound line's error names parameters as flags
            shown = flagged(check.verdict)
            console.print(shown, highlight=False, soft_wrap=True, markup=False, emoji=False)
    if as_json:
        echo_json(rows)
    if failures:
        raise typer.Exit(1)


@reports_errors
def judge_command(
    judge: JudgeOption,
    answers: Annotated[
        list[Path],
        typer.Option("--answers", "-a", help="Answer file(s) to judge (FastChat JSONL)."),
    ],
    bench: BenchOption = "pfmt-fin",
    variant: VariantOption = None,
    judge_name: Annotated[
        str | None,
        typer.Option(
            "--judge-name",
            help="Judge name in file names and records (default: the model of --judge).",
        ),
    ] = None,
    lang_check: Annotated[
        LangCheckChoice,
        typer.Option("--lang-check", help="upstream (fastText, 20 characters) or script."),
    ] = LangCheckChoice.UPSTREAM,
    output_dir: Annotated[
        Path | None, typer.Option("--output-dir", help="Folder for the judgment files.")
    ] = None,
    results_dir: ResultsDirOption = RESULTS,
    layout: LayoutOption = LayoutChoice.HYOKA,
    max_tokens: Annotated[
        int | None,
        typer.Option(
            "--max-tokens", min=1, help="Judge reply budget (default: the benchmark's, 2048)."
        ),
    ] = None,
    price_in: PriceInOption = 0.0,
    price_out: PriceOutOption = 0.0,
    limit: LimitOption = None,
    concurrency: ConcurrencyOption = CONCURRENCY,
    base_url: BaseUrlOption = None,
    option: ProviderOptionsOption = None,
    no_cache: NoCacheOption = False,
    batch: BatchOption = False,
    data_dir: DataDirOption = None,
    mode: Annotated[
        JudgeModeChoice,
        typer.Option(help="single (grade each answer) or pairwise (compare answer files)."),
    ] = JudgeModeChoice.SINGLE,
    baseline: Annotated[
        str | None,
        typer.Option(help="Pairwise: compare each model with this one (default: every pair)."),
    ] = None,
    matches: Annotated[
        int | None,
        typer.Option(
            "--matches",
            min=1,
            help="Rakuda: matches to draw (upstream: 1400 for gpt-4, 2000 for claude-2).",
        ),
    ] = None,
    draw_seed: Annotated[int, typer.Option("--seed", help="Rakuda: seed of the draw.")] = 0,
    method: Annotated[
        MethodChoice | None,
        typer.Option(
            "--method",
            help="Pairwise verdict method, or all (default: bs2, upstream's: "
            "two games that disagree are a tie; only prob asks the judge for logprobs).",
        ),
    ] = None,
    thinking: ThinkingOption = ThinkingChoice.STRIP_THINK,
    control: ControlFeaturesOption = None,
    as_json: JsonOption = False,
    headline: HeadlineOption = None,
) -> None:
    """Grade every turn with the benchmark's judge prompts and rating rules (resumable).

    The benchmark's rules decide some turns without a judge call: in pfmt-bench-fin-ja an
    empty answer or one in the wrong language scores 0 (pairwise, as upstream: an empty
    answer loses to a given one, two empty answers tie); MT-bench has no such rule.
    A judgment file is continued only by the same judge with the same settings.

    Pairwise, every model's Bradley-Terry rating is shown raw and style-controlled
    (arena-hard's length and Markdown features of the two answers, --control-features),
    with the judge's style coefficients; with --baseline also each model's
    length-controlled win rate against it. Win rates count the turns as the benchmark's
    own script does (ja-vicuna-qa: every pair in the denominator, a pair with a game
    without a verdict a tie); --headline turn-mean counts them as FastChat does (pairs
    without a verdict left out). The signature names the rule.

    Examples:

      hyoka mtbench judge -j openai/gpt-4o-mini -a results/mtbench/pfmt-fin/model_answer/m.jsonl

      hyoka mtbench judge -j openai/local --base-url http://127.0.0.1:8000/v1 -a m.jsonl

      hyoka mtbench judge --mode pairwise -j openai/gpt-4o -a x.jsonl -a y.jsonl --method bs2
    """
    from hyoka.cli._common import provider_options
    from hyoka.cli._judging import ShownJudging, control_features, print_batch
    from hyoka.judge import Connection
    from hyoka.mtbench import judge_bench

    done = judge_bench(
        judge, answers, bench=bench, variant=variant, mode=mode.value, judge_name=judge_name,
        lang_check=lang_check.value, output_dir=output_dir, results_dir=results_dir,
        layout=layout.value, max_tokens=max_tokens, limit=limit, baseline=baseline,
        method=None if method is None else method.value,
        control_features=None if control is None else control_features(control),
        matches=matches, seed=draw_seed, thinking=thinking.value, data_dir=data_dir,
        connection=Connection(base_url, provider_options(option), no_cache, concurrency, batch),
        price_in=price_in, price_out=price_out,
        watcher=ShownJudging(announce="Judgment file: {}"),
        headline=None if headline is None else headline.value,
    )  # fmt: skip
    print_batch(done.stats, as_json)
    if as_json:
        echo_json(done.to_json())
    judged_printers()[type(done)](done, judge, as_json)


def judged_printers() -> Mapping[type, Callable[[Any, str, bool], None]]:
    """How ``judge`` prints each judging protocol's result (the result types of
    ``mtbench.run.ProtocolCommands.judge``): a new protocol's result adds its printer here,
    not a branch in the command."""
    from hyoka.mtbench import ConstraintsJudged, MatchesJudged, PairsJudged, TurnsJudged

    return {
        TurnsJudged: _print_turns,
        PairsJudged: _print_pairs,
        MatchesJudged: _print_matches,
        ConstraintsJudged: _print_constraints,
    }


def _print_turns(done: TurnsJudged, judge: str, as_json: bool) -> None:
    """One line of totals, the judges and the signature, then each answer file's judgment
    file on stderr; exit 1 when the judge was asked and gave no rating at all."""
    from hyoka.cli._judging import fail_if_nothing_graded, print_judge, print_signature
    from hyoka.mtbench import INCORRECT_LANGUAGE, NO_ANSWER

    report, stats = done.report, done.stats
    if not as_json:
        usage = stats.usage
        say(
            f"{report.judged} turn(s) judged, {report.done_before} already done: "
            f"{report.reasons[NO_ANSWER]} no answer, {report.reasons[INCORRECT_LANGUAGE]} "
            f"wrong language ({done.lang_check}), {report.unrated} without a rating; "
            f"{report.judge_calls} judge call(s), {stats.cache_hits} from cache; tokens: "
            f"{usage.prompt_tokens} in, {usage.completion_tokens} out; "
            f"cost ${done.cost_usd:.4f}"
        )
    if done.signature is not None:  # one line for every file
        if not as_json:
            print_judge(done.judges)
            print_signature(done.signature)
        outputs = ", ".join(str(path) for _label, path in done.outputs)
        fail_if_nothing_graded(done.asked - report.unrated, report.unrated, judge, outputs)
    for label, path in done.outputs:
        say(f"{label} -> {path}", err=True)


def _print_constraints(done: ConstraintsJudged, _judge: str, as_json: bool) -> None:
    """JFBench's judged constraints counted, the calls, the entries pending, the
    signature; each model's judgment log and result file on stderr."""
    from hyoka.cli._judging import print_judge, print_signature

    report, stats = done.report, done.stats
    if not as_json:
        say(
            f"{report.judged} judged constraint(s) decided, {report.done_before} already done, "
            f"{report.ruled} by rule (an empty response); {report.judge_calls} judge call(s), "
            f"{stats.cache_hits} from cache; tokens: {stats.usage.prompt_tokens} in, "
            f"{stats.usage.completion_tokens} out; {done.pending} entr(ies) pending (a rule "
            "hyoka does not decide yet, or votes in a batch still running)"
        )
        if done.signature is not None:
            print_judge(done.judges)
            print_signature(done.signature)
    for model, log, results in done.outputs:
        say(f"{model} -> {log}; results: {results}", err=True)


def _print_matches(done: MatchesJudged, _judge: str, as_json: bool) -> None:
    """Rakuda's verdicts counted, the calls, and the signature; exit 1 when the judge was
    asked and no reply held a verdict."""
    from hyoka.cli._judging import print_judge, print_signature

    report, stats, winners = done.report, done.stats, done.winners
    if not as_json:
        say(
            f"{report.judged} match(es) judged, {report.done_before} already done: first "
            f"shown won {winners['1']}, second won {winners['2']}, tie {winners['3']}, no "
            f"verdict {winners['error']}; {report.judge_calls} judge call(s), "
            f"{stats.cache_hits} from cache; tokens: {stats.usage.prompt_tokens} in, "
            f"{stats.usage.completion_tokens} out"
        )
        print_judge([done.judge])
        print_signature(done.signature)
    if done.no_verdict:
        raise InputError(f"the judge gave no verdict on any match (see {done.output})")


def _print_pairs(done: PairsJudged, _judge: str, as_json: bool) -> None:
    """The table per method (with each model's length-controlled win rate against the
    baseline, and the ratings raw and style-controlled, where made), the run's calls and
    cost, and the signature; turns whose games came without log probabilities are listed
    loudly. Exit 1 when the judge was asked and gave no verdict on any turn."""
    from hyoka.cli._common import print_warning
    from hyoka.cli._judging import (
        fail_if_no_verdict,
        print_judge,
        print_signature,
        print_style_control,
        win_table,
    )

    report, stats, controlled = done.report, done.stats, done.controlled
    if not as_json:
        print_table(win_table(done.counts, done.turns, controlled, [done.judge]))
        say(f"win rates counted by {done.headline.name}: {done.headline.pair_note}")
        if controlled:
            say(
                f"length-controlled: a model's win rate against {done.baseline} were their "
                "answers to each turn equally long (alpaca_eval's logistic model; lengths in "
                "characters)"
            )
            # one signature for every method: it names the baseline, the fit and the bootstrap
            print_signature(next(iter(controlled.values())).signature)
        print_style_control(done.rated)
    games, lacking = done.games_without_logprobs, done.lacking
    if lacking:
        shown = ", ".join(label for label, _games in lacking[:10])
        more = f" and {len(lacking) - 10} more" if len(lacking) > 10 else ""
        print_warning(
            f"{games} game(s) in {len(lacking)} turn(s) came back without log probabilities, "
            f"so without a prob verdict: {shown}{more}"
        )
    if not as_json:
        usage = stats.usage
        say(
            f"{report.judged} turn(s) judged, {report.done_before} already done: "
            f"{report.ruled} decided by a rule ({', '.join(done.rules) or 'none'}); "
            f"{report.judge_calls} judge call(s), {stats.cache_hits} from cache, "
            f"{report.no_verdict} without a verdict, {games} without log probabilities (in the "
            f"file); tokens: {usage.prompt_tokens} in, {usage.completion_tokens} out; "
            f"cost ${done.cost_usd:.4f}"
        )
        print_judge([done.judge])
        print_signature(done.signature.with_field("headline", done.headline.name))
    fail_if_no_verdict(report, done.judge.judge, done.output, "turn(s)")


@reports_errors
def variants_command(bench: BenchOption = "jmt-bench", as_json: JsonOption = False) -> None:
    """List a benchmark's named variants with every setting that changes its numbers.

    A variant pins its question, judge prompt and reference files by SHA-256 (shown
    shortened), the turns judged, the trials, the answer cut and the rating rules; its
    name and version are in every signature and judgment manifest made with it.

    Examples:

      hyoka mtbench variants --bench jmt-bench
    """
    from hyoka.mtbench import definition, variants_json

    if as_json:
        echo_json(variants_json(bench))
        return
    spec = definition(bench)
    if not spec.variants:
        say(f"{spec.title} has no variants: its data manifest pins one set of files")
        return
    from rich.table import Table

    table = Table("variant", *spec.variants[0].settings(), "used by", title=spec.title)
    for v in spec.variants:
        table.add_row(v.label, *v.settings().values(), v.used_by)
    print_table(table)
