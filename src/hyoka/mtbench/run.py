"""What the ``hyoka mtbench`` commands do, as library calls: ``generate_bench`` answers a
benchmark's dialogues as its generation protocol says, ``judge_bench`` judges the answers
(single grading, pairwise matches, or Rakuda's drawn matches, as the definition says),
``bench_leaderboard`` ranks the judged models, ``iter_verify_bench`` checks judgment files
and ``variants_json`` lists a benchmark's variants. Each hands back a result with
``to_json`` (what ``--json`` prints); the command line only parses flags, calls one of
these and shows the result. A Python user gets the same files and numbers::

    from hyoka.mtbench import generate_bench, judge_bench
    answers = generate_bench("openai/gpt-4o-mini", bench="jmt-bench").answer_file
    done = judge_bench("openai/gpt-4o", [answers], bench="jmt-bench")
    done.to_json()

A ``judge.JudgeWatcher`` hears a run (its file, each stage's progress); warnings about
the user's files are ``HyokaWarning``s. Errors name parameters (`bench`, `matches`),
never flags.
"""

from __future__ import annotations

import asyncio
import warnings
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, get_args

from hyoka import arguments
from hyoka.arguments import at_least_one, one_of, paths
from hyoka.errors import HyokaError, HyokaWarning, InputError
from hyoka.judge import (
    Connection,
    JudgedBy,
    JudgePlan,
    JudgeReport,
    JudgeSettings,
    JudgeWatcher,
    WinCounts,
    cost_usd,
    dry_run_title,
    judge_plans,
    judges_json,
    pairwise_settings,
    parse_methods,
    run_judge,
)
from hyoka.mtbench.answers import answer_file, answer_model_id, load_answers, model_name
from hyoka.mtbench.bench import Bench
from hyoka.mtbench.constraint_checked import (
    ConstraintBoard,
    ConstraintsJudged,
    constraint_leaderboard,
    judge_constraints,
)
from hyoka.mtbench.dialogue import Injection
from hyoka.mtbench.generate import (
    GeneratePlan,
    GenerateReport,
    Template,
    answer_set,
    check_plan,
    default_repetition_penalty,
    generate_answers,
    parse_temperatures,
)
from hyoka.mtbench.grade_battles import GradeRatings, grade_ratings_of
from hyoka.mtbench.headline import FASTCHAT_RULE, HeadlineRule, headline_rule
from hyoka.mtbench.judge import (
    BenchJudging,
    default_judge_name,
    pair_output,
    plan_all_turns,
    plan_turns,
    single_output,
)
from hyoka.mtbench.leaderboard import Leaderboard, build_leaderboard, judgment_files
from hyoka.mtbench.length_columns import (
    LengthColumn,
    answer_turns,
    for_answers_flag,
    length_column_of,
)
from hyoka.mtbench.pair_summary import (
    length_controlled,
    method_counts,
    no_logprobs,
    style_controlled,
    turn_label,
)
from hyoka.mtbench.pairwise import TurnStyles, make_matches, plan_matches, turn_styles
from hyoka.mtbench.radar import SUFFIXES as RADAR_SUFFIXES
from hyoka.mtbench.radar import write_radar
from hyoka.mtbench.rakuda import RakudaRanking, plan_rakuda_judging, rank_rakuda
from hyoka.mtbench.records import INCORRECT_LANGUAGE, NO_ANSWER
from hyoka.mtbench.registry import definition, definitions
from hyoka.mtbench.report import Format, board_judges, render
from hyoka.mtbench.rule_checked import RuleBoard, rule_leaderboard
from hyoka.mtbench.spec import (
    CONSTRAINT_CHECKED,
    DRAWN_MATCHES,
    FASTCHAT_JUDGING,
    RULE_CHECKED,
    JudgingProtocol,
    parse_layout,
)
from hyoka.mtbench.trials import IntervalSettings
from hyoka.mtbench.verify import Benches as VerifyBenches
from hyoka.mtbench.verify import JudgmentCheck, verify_file
from hyoka.printable import shown_alike, unicode_form
from hyoka.providers import (
    DEFAULT_THINKING,
    ClientStats,
    ModelClient,
    ThinkingRule,
    parse_model_string,
    signed_rule,
)
from hyoka.signature import SIGNATURE_KEY, Signature
from hyoka.stats import STYLE_CONTROLS, LengthControlled, RawAndControlled
from hyoka.store import check_output, write_output

#: where answers and judgments go unless told otherwise
RESULTS = Path("results") / "mtbench"


def _calls(
    report: JudgeReport, stats: ClientStats, price_in: float, price_out: float
) -> dict[str, Any]:
    usage = stats.usage
    return {
        "judged": report.judged, "done_before": report.done_before,
        "judge_calls": report.judge_calls, "cache_hits": stats.cache_hits,
        "prompt_tokens": usage.prompt_tokens, "completion_tokens": usage.completion_tokens,
        "cost_usd": round(cost_usd(usage, price_in, price_out), 6),
        **({} if stats.batch is None else {"batch": stats.batch.to_json()}),
    }  # fmt: skip


class _Priced:
    """A judging run priced at the user's prices (USD per million tokens): the one
    ``cost_usd`` of ``TurnsJudged`` and ``PairsJudged`` (a base, not a dataclass: the
    fields are each run's own)."""

    stats: ClientStats
    price_in: float
    price_out: float

    @property
    def cost_usd(self) -> float:
        """What this run's calls cost at the user's prices (USD per million tokens)."""
        return cost_usd(self.stats.usage, self.price_in, self.price_out)


@dataclass(frozen=True)
class TurnsJudged(_Priced):
    """Every turn of each answer file graded: the judgment files (``outputs``: what each
    holds, by its models, and where), what this run did (``report``, ``stats``), the judges
    that answered and one signature for all the files."""

    outputs: list[tuple[str, Path]]
    report: JudgeReport
    stats: ClientStats
    judges: list[JudgedBy]
    signature: Signature | None
    lang_check: str
    price_in: float = 0.0
    price_out: float = 0.0

    @property
    def asked(self) -> int:
        """Turns sent to the judge in this run (not decided by a rule)."""
        return self.report.judged - self.report.ruled

    def to_json(self) -> dict[str, Any]:
        """The run's counts (turns ``judged`` now, ``done_before``, ``no_answer``,
        ``wrong_language`` by ``lang_check``, ``unrated``), its calls, tokens and cost, the
        judgment files, the judges that answered and the signature."""
        report = self.report
        return {
            "mode": "single", **_calls(report, self.stats, self.price_in, self.price_out),
            "no_answer": report.reasons[NO_ANSWER],
            "wrong_language": report.reasons[INCORRECT_LANGUAGE],
            "lang_check": self.lang_check, "unrated": report.unrated,
            "outputs": [{"answers": label, "output": str(path)} for label, path in self.outputs],
            "judged_by": judges_json(self.judges),
            "dry_run": any(judge.dry_run for judge in self.judges),
            SIGNATURE_KEY: None if self.signature is None else self.signature.to_json(),
        }  # fmt: skip


def _win_json(counts: WinCounts) -> dict[str, Any]:
    return {
        "model": counts.model, "wins": counts.wins, "losses": counts.losses,
        "ties": counts.ties, "invalid": counts.invalid, "win_rate": counts.win_rate,
        "adjusted_win_rate": counts.adjusted_win_rate,
    }  # fmt: skip


@dataclass(frozen=True)
class PairsJudged(_Priced):
    """Every turn of the answer files compared in pairs (``output``): per method and model
    the wins, losses, ties and invalid verdicts (``counts``, over ``turns`` turns of the
    file); against a ``baseline`` each model's length-controlled win rate (``controlled``);
    the Bradley-Terry ratings raw and style-controlled (``rated``); the turns whose games
    came back without log probabilities (``lacking``: each turn's label and games)."""

    output: Path
    counts: dict[str, dict[str, WinCounts]]
    turns: int
    baseline: str | None
    controlled: dict[str, LengthControlled] | None
    rated: dict[str, RawAndControlled]
    lacking: list[tuple[str, list[str]]]
    rules: tuple[str, ...]
    report: JudgeReport
    stats: ClientStats
    judge: JudgedBy
    signature: Signature
    price_in: float = 0.0
    price_out: float = 0.0
    #: how ``counts`` count a turn (``mtbench.headline``: the benchmark's own rule, or
    #: FastChat's, whose denominator leaves a turn without a verdict out)
    headline: HeadlineRule = FASTCHAT_RULE

    @property
    def games_without_logprobs(self) -> int:
        return sum(len(games) for _label, games in self.lacking)

    def to_json(self) -> dict[str, Any]:
        """The run's counts, calls, tokens and cost; per method and model the verdicts and
        rates, the length-controlled rates and the ratings where made; the turns without
        log probabilities; the judge that answered and the signature."""
        return {
            "mode": "pairwise", "output": str(self.output),
            **_calls(self.report, self.stats, self.price_in, self.price_out),
            "ruled": self.report.ruled, "rules": list(self.rules),
            "no_verdict": self.report.no_verdict, "turns": self.turns,
            "methods": {method: [_win_json(c) for c in models.values()]
                        for method, models in self.counts.items()},
            "baseline": self.baseline,
            "length_controlled": None if self.controlled is None else
            {method: c.to_json() for method, c in self.controlled.items()},
            "style_controlled": {method: r.to_json() for method, r in self.rated.items()},
            "no_logprobs": [{"turn": label, "games": games} for label, games in self.lacking],
            "judged_by": self.judge.to_json(), "dry_run": self.judge.dry_run,
            "headline": self.headline.name, SIGNATURE_KEY: self.signature.to_json(),
        }  # fmt: skip


@dataclass(frozen=True)
class MatchesJudged:
    """Rakuda's drawn matches judged into ``output``: the verdicts of the file's matches
    (``winners``: ``1`` the first shown, ``2`` the second, ``3`` a tie, ``error`` none)."""

    output: Path
    winners: Counter[str]
    report: JudgeReport
    stats: ClientStats
    judge: JudgedBy
    signature: Signature

    @property
    def no_verdict(self) -> bool:
        """Whether the judge was asked and no reply held a verdict."""
        return bool(self.report.judged) and self.report.no_verdict == self.report.judged

    def to_json(self) -> dict[str, Any]:
        """The run's counts and calls, the verdicts, the judge and the signature."""
        return {
            "mode": "matches", "output": str(self.output),
            **_calls(self.report, self.stats, 0.0, 0.0),
            "first_won": self.winners["1"], "second_won": self.winners["2"],
            "tie": self.winners["3"], "no_verdict": self.winners["error"],
            "judged_by": self.judge.to_json(), "dry_run": self.judge.dry_run,
            SIGNATURE_KEY: self.signature.to_json(),
        }  # fmt: skip


def judge_bench(
    judge: str,
    answers: Sequence[Path],
    *,
    bench: str = "pfmt-fin",
    variant: str | None = None,
    mode: str = "single",
    judge_name: str | None = None,
    lang_check: str = "upstream",
    output_dir: Path | None = None,
    results_dir: Path = RESULTS,
    layout: str = "hyoka",
    max_tokens: int | None = None,
    limit: int | None = None,
    baseline: str | None = None,
    method: str | None = None,
    control_features: Sequence[str] | None = None,
    matches: int | None = None,
    seed: int = 0,
    thinking: ThinkingRule = DEFAULT_THINKING,
    data_dir: Path | None = None,
    connection: Connection | None = None,
    price_in: float = 0.0,
    price_out: float = 0.0,
    watcher: JudgeWatcher | None = None,
    headline: str | None = None,
) -> TurnsJudged | PairsJudged | MatchesJudged | ConstraintsJudged:
    """Judge the answer files of ``bench`` (its ``variant``) with ``judge``: every turn
    graded (``mode`` single), or compared in pairs (pairwise: every pair of files, or each
    against ``baseline``, by ``method``), or, for a benchmark of drawn matches (Rakuda),
    ``matches`` matches drawn with ``seed``. Each answer file is checked, every prompt
    built and every rule applied before the judge is connected; judgment files go under
    ``results_dir`` in ``layout`` (or into ``output_dir``) and are continued only by the
    same judge with the same settings. What is done is the benchmark's judging protocol's
    (``COMMANDS``). ``headline``: the rule (``mtbench.headline.RULES``) a pairwise run's
    win rates are counted by, by default the benchmark's own."""
    paths("answers", answers)
    if headline is not None:
        headline_rule(headline)  # an unknown name refused before any file is read
    at_least_one("limit", limit)
    call = JudgeCall(
        judge=judge, answers=tuple(answers), bench=bench, variant=variant, mode=mode,
        judge_name=judge_name, lang_check=lang_check, output_dir=output_dir,
        results_dir=results_dir, layout=layout, max_tokens=max_tokens, limit=limit,
        baseline=baseline, method=method,
        control_features=None if control_features is None else tuple(control_features),
        matches=matches, seed=seed, thinking=thinking, data_dir=data_dir,
        connection=connection or Connection(), price_in=price_in, price_out=price_out,
        watcher=watcher, headline=headline,
    )  # fmt: skip
    return commands_of(bench).judge(call)


@dataclass(frozen=True, kw_only=True)
class JudgeCall:
    """``judge_bench``'s arguments (checked where every protocol checks them alike), as
    the commands of the benchmark's judging protocol take them."""

    judge: str
    answers: tuple[Path, ...]
    bench: str
    variant: str | None
    mode: str
    judge_name: str | None
    lang_check: str
    output_dir: Path | None
    results_dir: Path
    layout: str
    max_tokens: int | None
    limit: int | None
    baseline: str | None
    method: str | None
    control_features: tuple[str, ...] | None
    matches: int | None
    seed: int
    thinking: ThinkingRule
    data_dir: Path | None
    connection: Connection
    price_in: float
    price_out: float
    watcher: JudgeWatcher | None
    headline: str | None = None


def _refuse_unused(bench: str, given: dict[str, object]) -> None:
    """One error naming every parameter given (truthy in ``given``) that ``bench``'s
    protocol does not use: never silently ignored."""
    unused = [f"`{name}`" for name, value in given.items() if value]
    if unused:
        raise InputError(f"`bench` {bench} does not take {', '.join(unused)}")


def _judge_fastchat(call: JudgeCall) -> TurnsJudged | PairsJudged:
    """FastChat's judging: every turn graded, or pairs of answer files compared."""
    if call.matches is not None:
        raise InputError(f"`matches` is for `bench` {_drawn_names()}")
    if call.mode == "single" and (
        call.baseline is not None or call.method is not None or call.control_features is not None
    ):
        raise InputError("`baseline`, `method` and `control_features` are for `mode` pairwise")
    if call.mode == "single" and call.headline is not None:
        raise InputError("`headline` is for `mode` pairwise (the leaderboard takes it for grades)")
    judge, connection, thinking, limit = call.judge, call.connection, call.thinking, call.limit
    files = parse_layout(call.layout)
    loaded = Bench.load(call.bench, call.data_dir, call.variant)
    # upstream's judge reply budget (ELYZA's Shaberi: 1024), else 2048 (FastChat's)
    max_tokens = call.max_tokens or loaded.rating_rules.max_tokens or 2048
    # every answer file is checked before the first judge call
    given = [
        (path, load_answers(path, loaded, complete=limit is None, thinking=thinking))
        for path in call.answers
    ]
    how = BenchJudging.of(call.judge_name or default_judge_name(judge), call.lang_check, limit)
    results_dir, output_dir = call.results_dir, call.output_dir
    if call.mode == "pairwise":
        methods = parse_methods(call.method or loaded.spec.pair_method)
        settings = pairwise_settings(judge, connection.base_url, max_tokens, methods, thinking)
        output = pair_output(results_dir, loaded, how.judge_name, output_dir, files)
        made = make_matches(given, call.baseline, loaded.spec.pair_models)
        plan = plan_matches(loaded, made, settings, output, how, methods)
        styles = turn_styles(loaded, made)
        controls = call.control_features or STYLE_CONTROLS
        rule = loaded.headline if call.headline is None else headline_rule(call.headline)
        return _judge_pairs(
            plan, connection.connect(judge), call.baseline, styles, controls, call.price_in,
            call.price_out, call.watcher, rule,
        )  # fmt: skip
    settings = JudgeSettings.for_judge(
        judge, base_url=connection.base_url, max_tokens=max_tokens, thinking=signed_rule(thinking)
    )
    plans: list[tuple[str, JudgePlan[Any]]] = []
    models = [(model_name(loaded, path, by_id), by_id) for path, by_id in given]
    if loaded.spec.single_file(files):  # upstream's one file for every model
        output = single_output(results_dir, loaded, how.judge_name, None, output_dir, files)
        label = ", ".join(model for model, _by_id in models)
        plans.append((label, plan_all_turns(loaded, models, settings, output, how)))
    else:
        for (path, _by_id), (model, by_id) in zip(given, models, strict=True):
            output = single_output(results_dir, loaded, how.judge_name, model, output_dir, files)
            plans.append((str(path), plan_turns(loaded, by_id, model, settings, output, how)))
    return _judge_turns(plans, connection.connect(judge), how.lang_check, call.price_in,
                        call.price_out, call.watcher)  # fmt: skip


def _drawn_names() -> str:
    """The benchmarks whose protocol draws matches (rakuda)."""
    drawn = [name for name, spec in definitions().items() if COMMANDS[spec.judging].draws]
    return " or ".join(drawn)


def _judge_turns(
    plans: list[tuple[str, JudgePlan[Any]]],
    client: ModelClient,
    check: str,
    price_in: float,
    price_out: float,
    watcher: JudgeWatcher | None,
) -> TurnsJudged:
    labelled = [(", ".join(plan.run.models) or label, plan) for label, plan in plans]
    report, runs = judge_plans(client, labelled, watcher=watcher)
    signature = None
    if runs:  # one signature for every file: the snapshots that served any of them
        served = tuple(sorted({name for judged in runs for name in judged.run.served}))
        signature = runs[0].run.model_copy(update={"served": served}).signature()
    return TurnsJudged(
        [(label, plan.output) for label, plan in plans], report, client.stats,
        [run_judge(judged.run) for judged in runs], signature, check, price_in, price_out,
    )  # fmt: skip


def _judge_pairs(
    plan: JudgePlan[Any],
    client: ModelClient,
    baseline: str | None,
    styles: TurnStyles,
    controls: Sequence[str],
    price_in: float,
    price_out: float,
    watcher: JudgeWatcher | None,
    rule: HeadlineRule,
) -> PairsJudged:
    if watcher is not None:
        watcher.planned(plan.output)
    report, (judged,) = judge_plans(client, [("turns", plan)], watcher=watcher, rate=False)
    methods = plan.run.methods
    lines = list(judged.lines)  # the file's lines for these turns, as the run left them
    controlled = None
    if baseline is not None:
        lengths = {key: style.chars for key, style in styles.items()}
        controlled = length_controlled(lines, methods, baseline, lengths)
    lacking = no_logprobs(lines) if "prob" in methods else []
    return PairsJudged(
        plan.output, method_counts(lines, methods, rule), len(lines), baseline, controlled,
        style_controlled(lines, methods, styles, controls),
        [(turn_label(line, which), which) for line, which in lacking], tuple(plan.run.rules),
        report, client.stats, run_judge(judged.run), judged.run.signature(), price_in, price_out,
        rule,
    )  # fmt: skip


def _judge_matches(call: JudgeCall) -> MatchesJudged:
    """Rakuda has its own draw and ranking: a parameter it does not use is one error,
    never silently ignored."""
    _refuse_unused(call.bench, {"variant": call.variant, "baseline": call.baseline,
                                "method": call.method, "limit": call.limit,
                                "headline": call.headline})  # fmt: skip
    if call.mode != "pairwise" or call.matches is None:
        raise InputError(f"`bench` {call.bench} is judged with `mode` pairwise `matches` N")
    plan = plan_rakuda_judging(
        call.judge, call.answers, matches=call.matches, seed=call.seed,
        results_dir=call.results_dir, output_dir=call.output_dir, judge_name=call.judge_name,
        base_url=call.connection.base_url, max_tokens=call.max_tokens, thinking=call.thinking,
        data_dir=call.data_dir,
    )  # fmt: skip
    client = call.connection.connect(call.judge)
    if call.watcher is not None:
        call.watcher.planned(plan.output)
    report, (judged,) = judge_plans(client, [("matches", plan)], watcher=call.watcher, rate=False)
    winners = Counter(str(line.winner) for line in judged.lines)
    return MatchesJudged(
        plan.output, winners, report, client.stats, run_judge(judged.run),
        judged.run.signature(),
    )  # fmt: skip


def _judge_constraints(call: JudgeCall) -> ConstraintsJudged:
    """Every constraint of every answered entry decided, by rule or by the judge."""
    _refuse_unused(call.bench, {"variant": call.variant, "baseline": call.baseline,
                                "method": call.method, "control_features": call.control_features,
                                "matches": call.matches, "headline": call.headline,
                                "mode": call.mode != "single"})  # fmt: skip
    return judge_constraints(
        definition(call.bench), call.judge, call.answers,
        judge_name=call.judge_name or default_judge_name(call.judge),
        connection=call.connection, results_dir=call.results_dir, output_dir=call.output_dir,
        limit=call.limit, max_tokens=call.max_tokens, thinking=call.thinking,
        data_dir=call.data_dir, watcher=call.watcher,
    )  # fmt: skip


def _judge_by_rules(call: JudgeCall) -> MatchesJudged:
    """A rule-checked benchmark has no judge to call."""
    raise InputError(
        f"`bench` {call.bench} has no judge: its rules decide each answer; score the answer "
        "files with bench_leaderboard (hyoka mtbench leaderboard), the files as its "
        "`judgments`"
    )


@dataclass(frozen=True)
class Rendering:
    """How a leaderboard's table is written: a table per turn too, the intervals' draws,
    the length-adjusted column and the grade ratings, where made."""

    per_turn: bool = True
    interval: IntervalSettings | None = None
    length: LengthColumn | None = None
    grades: GradeRatings | None = None

    def text(self, board: Leaderboard, fmt: Format) -> str:
        return render(board, fmt, per_turn=self.per_turn, interval=self.interval,
                      length=self.length, grades=self.grades)  # fmt: skip


@dataclass(frozen=True)
class BenchBoard:
    """A benchmark's leaderboard (``board``) written in ``fmt`` (``text``), with the radar
    charts asked for still to write (``write_radars``: after the table is shown)."""

    board: Leaderboard
    fmt: str
    text: str
    radar: tuple[Path, ...] = ()
    #: what the table was rendered with, so that its JSON says the same numbers
    rendering: Rendering = field(default_factory=Rendering)

    def to_json(self) -> Any:
        """The table as ``--format json`` writes it (``text`` read back where it is)."""
        from hyoka.store import parse_json

        text = self.text if self.fmt == "json" else self.rendering.text(self.board, "json")
        return parse_json(text, "the leaderboard's JSON", strict=False)

    def write_radars(self) -> list[Path]:
        """Write each radar chart (PNG or HTML), titled a dry run where a script's numbers
        are in it; the files written."""
        board = self.board
        title = dry_run_title(board.bench.spec.title, board_judges(board))
        for path in self.radar:
            write_radar(board, path, title=title)
        return list(self.radar)


def bench_leaderboard(
    bench: str = "pfmt-fin",
    judgments: Sequence[Path] | None = None,
    *,
    fmt: str = "md",
    output: Path | None = None,
    per_turn: bool = True,
    radar: Sequence[Path] = (),
    rounds: int = 500,
    seed: int = 0,
    resamples: int = 2000,
    variant: str | None = None,
    mix_variants: bool = False,
    answers: Sequence[Path] | None = None,
    style_control: bool = False,
    data_dir: Path | None = None,
    headline: str | None = None,
) -> BenchBoard | RakudaRanking | RuleBoard | ConstraintBoard:
    """Rank the models of ``judgments`` (default: the benchmark's published judgments) by
    category, as upstream ranks them, with intervals (``resamples`` draws, ``seed``), in
    ``fmt`` (md, csv or json), written to ``output`` when given; with ``answers`` a
    length-adjusted column beside the mean (and with ``style_control`` Bradley-Terry
    ratings, raw and style-controlled). A benchmark of drawn matches (Rakuda) is ranked by
    its own Bradley-Terry fit (``rounds``, ``seed``); a rule-checked one (M-IFEval-Ja) by
    its rules, ``judgments`` being its answer files (default: upstream's published ones).
    Rows incomplete, unrated, repeated or without answers are named in ``HyokaWarning``s.
    What is done is the benchmark's judging protocol's (``COMMANDS``). ``headline``: the
    rule (``mtbench.headline.RULES``) the cells and "Avg." are computed by, by default the
    benchmark's own; signed in the table's signature."""
    one_of("fmt", fmt, get_args(Format))
    if headline is not None:
        headline_rule(headline)  # an unknown name refused before any file is read
    arguments.resamples(resamples)
    for name, listed in {"judgments": judgments, "radar": radar, "answers": answers}.items():
        paths(name, listed)
    paths("judgments", judgments, empty=False)  # None: the published ones; [] is no request
    call = BoardCall(
        bench=bench, judgments=None if judgments is None else tuple(judgments), fmt=fmt,
        output=output, per_turn=per_turn, radar=tuple(radar), rounds=rounds, seed=seed,
        resamples=resamples, variant=variant, mix_variants=mix_variants,
        answers=None if answers is None else tuple(answers), style_control=style_control,
        data_dir=data_dir, headline=headline,
    )  # fmt: skip
    return commands_of(bench).leaderboard(call)


@dataclass(frozen=True, kw_only=True)
class BoardCall:
    """``bench_leaderboard``'s arguments (checked where every protocol checks them
    alike), as the commands of the benchmark's judging protocol take them."""

    bench: str
    judgments: tuple[Path, ...] | None
    fmt: str
    output: Path | None
    per_turn: bool
    radar: tuple[Path, ...]
    rounds: int
    seed: int
    resamples: int
    variant: str | None
    mix_variants: bool
    answers: tuple[Path, ...] | None
    style_control: bool
    data_dir: Path | None
    headline: str | None = None


def _board_options(call: BoardCall) -> dict[str, object]:
    """The options of FastChat's leaderboard alone, which the other protocols refuse."""
    return {"radar": call.radar, "variant": call.variant, "mix_variants": call.mix_variants,
            "answers": call.answers, "style_control": call.style_control,
            "output": call.output, "headline": call.headline}  # fmt: skip


def _rule_board(call: BoardCall) -> RuleBoard:
    """A rule-checked benchmark's answer files scored by its rules."""
    _refuse_unused(call.bench, _board_options(call))
    return rule_leaderboard(
        definition(call.bench), call.judgments, data_dir=call.data_dir,
        resamples=call.resamples, seed=call.seed,
    )  # fmt: skip


def _match_ranking(call: BoardCall) -> RakudaRanking:
    """Drawn matches ranked by Rakuda's Bradley-Terry fit with a home advantage."""
    resamples = call.resamples if call.resamples != 2000 else None
    _refuse_unused(call.bench, {**_board_options(call), "resamples": resamples})
    if not call.judgments:
        unpublished = "upstream's pair judgments are not published"
        raise InputError(f"`bench` {call.bench}: give `judgments` ({unpublished})")
    ranked = rank_rakuda(
        judgment_files(list(call.judgments)), rounds=call.rounds, seed=call.seed,
        data_dir=call.data_dir,
    )  # fmt: skip
    if ranked.errors:
        _warn(f"{ranked.errors} match(es) without a verdict (error) left out")
    return ranked


def _constraint_board(call: BoardCall) -> ConstraintBoard:
    """Result files summarised as the benchmark's authors summarise them."""
    _refuse_unused(call.bench, _board_options(call))
    return constraint_leaderboard(
        definition(call.bench), call.judgments, resamples=call.resamples, seed=call.seed
    )


def _fastchat_board(call: BoardCall) -> BenchBoard:
    """FastChat's leaderboard: each model's mean grade per category, as upstream ranks."""
    output, answers, resamples, seed = call.output, call.answers, call.resamples, call.seed
    for path in call.radar:
        if path.suffix.lower() not in RADAR_SUFFIXES:
            raise InputError(f"`radar`: {path} must end in .png or .html")
        check_output(path, flag="`radar`")  # refused before the work, not after
    check_output(output)
    if call.style_control and not answers:
        raise InputError("`style_control` needs `answers` (the judged answers' style)")
    loaded = Bench.load(call.bench, call.data_dir, call.variant, questions_only=True)
    folders = list(call.judgments or ()) or [loaded.folder / loaded.spec.published_judgments]
    files = judgment_files(folders, shaberi=loaded.spec.question_format.upstream_judgments)
    rule = None if call.headline is None else headline_rule(call.headline)
    board = build_leaderboard(loaded, files, mix_variants=call.mix_variants, headline=rule)
    _warn_of_rows(board)
    length = grades = None
    if answers:
        turns = answer_turns(answers, board.bench)  # read once for both columns
        if call.style_control:
            grades = for_answers_flag(
                lambda: grade_ratings_of(board, turns, rounds=resamples, seed=seed)
            )
        length = for_answers_flag(
            lambda: length_column_of(board, turns, resamples=resamples, seed=seed)
        )
        for name, count in length.missing.items():
            _warn(f"{name}: {count} judged turn(s) without an answer in `answers` "
                  "(no length-adj. mean)")  # fmt: skip
    fmt = call.fmt
    shown: Format = "md" if fmt == "md" else "csv" if fmt == "csv" else "json"
    interval = IntervalSettings(resamples=resamples, seed=seed)
    rendering = Rendering(call.per_turn, interval, length, grades)
    text = rendering.text(board, shown)
    if output is not None:
        write_output(output, text)  # refused or failed: the store's one line
    return BenchBoard(board, shown, text, call.radar, rendering)


@dataclass(frozen=True)
class ProtocolCommands:
    """What ``judge_bench`` and ``bench_leaderboard`` do for the benchmarks of one judging
    protocol (``spec.JudgingProtocol``): a new protocol adds one of these to ``COMMANDS``,
    no branch at a call site."""

    judge: Callable[[JudgeCall], TurnsJudged | PairsJudged | MatchesJudged | ConstraintsJudged]
    leaderboard: Callable[[BoardCall], BenchBoard | RakudaRanking | RuleBoard | ConstraintBoard]
    #: whether its judging draws ``matches`` (named where another benchmark is given them)
    draws: bool = False


#: each judging protocol's commands
COMMANDS: Mapping[JudgingProtocol, ProtocolCommands] = MappingProxyType({
    FASTCHAT_JUDGING: ProtocolCommands(_judge_fastchat, _fastchat_board),
    DRAWN_MATCHES: ProtocolCommands(_judge_matches, _match_ranking, draws=True),
    RULE_CHECKED: ProtocolCommands(_judge_by_rules, _rule_board),
    CONSTRAINT_CHECKED: ProtocolCommands(_judge_constraints, _constraint_board),
})  # fmt: skip


def commands_of(bench: str) -> ProtocolCommands:
    """The commands of ``bench``'s judging protocol."""
    return COMMANDS[definition(bench).judging]


def _warn(message: str) -> None:
    warnings.warn(message, HyokaWarning, stacklevel=3)


def _warn_of_rows(board: Leaderboard) -> None:
    """A warning for each model judged on fewer turns than the others, with unrated turns,
    or with turns judged twice in its file."""
    for model in board.incomplete():
        _warn(f"{model.model}: {model.judged} of {board.expected(model)} turns judged "
              "(marked incomplete, ranked last)")  # fmt: skip
    for model in board.models:
        if model.unrated:
            _warn(f"{model.model}: {model.unrated} of {model.judged} judged turns have no "
                  f"rating (-1), {board.headline.unrated_note} (marked unrated)")  # fmt: skip
        if model.repeated:
            _warn(f"{model.model}: {model.repeated} turn(s) judged again in its file, each "
                  "judgment counted as upstream's mean counts them (marked repeated)")  # fmt: skip
    alike: dict[str, list[str]] = {}
    for model in board.models:
        alike.setdefault(shown_alike(model.model), []).append(model.model)
    for names in alike.values():
        if len(names) > 1:
            shown = [f"'{name}' ({unicode_form(name)})" for name in names]
            _warn(f"{', '.join(shown[:-1])} and {shown[-1]} are the same name in different "
                  "Unicode forms; their judgments are ranked as two models")  # fmt: skip


@dataclass(frozen=True)
class AnswersGenerated:
    """A model's answers to a benchmark's dialogues written to ``answer_file``: what this
    run did (``report``: answered now, done before, injections caught by the ``injection``
    rule, empty answers; the template used and the signature) and what its calls cost
    (``stats``)."""

    answer_file: Path
    report: GenerateReport
    stats: ClientStats
    template: str
    injection: str

    def to_json(self) -> dict[str, Any]:
        """The counts, the template and injection rule, the calls and tokens, and the
        signature of how the answers were made."""
        report, stats = self.report, self.stats
        return {
            "answer_file": str(self.answer_file), "generated": report.generated,
            "done_before": report.done_before, "template": report.template or self.template,
            "injections": report.injections, "injection": self.injection,
            "empty": report.empty, "unclosed_thinking": report.unclosed_thinking,
            "requests": stats.requests, "cache_hits": stats.cache_hits,
            "prompt_tokens": stats.usage.prompt_tokens,
            "completion_tokens": stats.usage.completion_tokens,
            **({} if stats.batch is None else {"batch": stats.batch.to_json()}),
            SIGNATURE_KEY: None if report.signature is None else report.signature.to_json(),
        }  # fmt: skip


_TEMPLATES: dict[str, Template] = {
    "auto": "auto",
    "chat": "chat",
    "base": "base",
    "completions": "completions",
}
_INJECTIONS: dict[str, Injection] = {"strict": "strict", "lenient": "lenient"}


def generate_bench(
    model: str,
    *,
    bench: str = "pfmt-fin",
    variant: str | None = None,
    template: str = "auto",
    max_tokens: int | None = None,
    temperatures: Sequence[str] = (),
    repetition_penalty: float | None = None,
    injection: str = "strict",
    system_message: str | None = None,
    no_system_message: bool = False,
    thinking: ThinkingRule = DEFAULT_THINKING,
    name: str | None = None,
    output: Path | None = None,
    results_dir: Path = RESULTS,
    layout: str = "hyoka",
    seed: int | None = None,
    trials: int | None = None,
    limit: int | None = None,
    data_dir: Path | None = None,
    connection: Connection | None = None,
    watcher: JudgeWatcher | None = None,
) -> AnswersGenerated:
    """Answer ``bench``'s dialogues (its ``variant``'s) with ``model``, as upstream asks
    them (its system message, per-category temperatures over which ``temperatures`` give
    ``CATEGORY=T``, token budget, repetition penalty for local models), into ``output``
    (default: under ``results_dir`` in ``layout``), resuming what the file holds."""
    at_least_one("limit", limit)
    if no_system_message and system_message is not None:
        raise InputError("`system_message` and `no_system_message` exclude each other")
    if template not in _TEMPLATES or injection not in _INJECTIONS:
        raise InputError(f"`template` {template!r} or `injection` {injection!r} is unknown")
    watcher = watcher or JudgeWatcher()
    connection = connection or Connection()
    provider_name, served = parse_model_string(model)
    loaded = answer_set(bench, data_dir, variant)
    model_id = answer_model_id(model, name)
    target = output or answer_file(results_dir, loaded, model_id, parse_layout(layout))
    penalty = repetition_penalty
    if penalty is None:
        penalty = default_repetition_penalty(loaded, provider_name, served)
    plan = GeneratePlan(
        answer_file=target, model_id=model_id, template=_TEMPLATES[template],
        max_tokens=max_tokens, temperatures=parse_temperatures(list(temperatures), loaded, served),
        repetition_penalty=penalty, injection=_INJECTIONS[injection], limit=limit, seed=seed,
        system_message=system_message, no_system_message=no_system_message,
        thinking=thinking, trials=trials, served_model=served, model=model,
    )  # fmt: skip
    check_plan(plan, loaded, temperature_flags=bool(temperatures))
    client = connection.connect(model, flag="`model`")
    total = len(loaded.questions[: limit or None])
    watcher.planned(target)
    with watcher.progress(rate=False) as add:
        advance = add("dialogues", total)

        async def go() -> GenerateReport:
            async with client:
                return await generate_answers(plan, loaded, client, lambda: advance(1))

        report = asyncio.run(go())
    return AnswersGenerated(target, report, client.stats, template, injection)


def check_json(check: JudgmentCheck) -> dict[str, Any]:
    """One file's verdict as ``mtbench verify --json`` prints it: the file, whether every
    number was reproduced, the verdict line, the lines read and the rules read by, the
    first difference (or unsound line) and why a file cannot be verified."""
    return {
        "file": str(check.path), "reproduced": check.reproduced, "verdict": check.verdict,
        "lines": check.lines, "rules": check.rules, "difference": check.difference,
        "unsound": check.unsound, "unverifiable": check.unverifiable,
    }  # fmt: skip


def iter_verify_bench(
    judgments: Sequence[Path], bench: str | None = None, data_dir: Path | None = None
) -> Iterator[tuple[Path, JudgmentCheck | HyokaError]]:
    """Each judgment file of ``judgments`` (files, or folders of them) checked as it comes
    (``verify_file``: by ``bench``'s rules, else those its manifest, its data folder or its
    lines name): its verdict, or the error that says why its rules cannot be told. Nothing
    is written."""
    paths("judgments", judgments)
    loaded = VerifyBenches(data_dir)
    for path in judgment_files(list(judgments), shaberi=True, flag="verify"):
        try:
            yield path, verify_file(path, bench, data_dir, loaded)
        except HyokaError as exc:  # this file's rules cannot be told: said, and on
            yield path, exc


def variants_json(bench: str) -> dict[str, Any]:
    """``bench``'s named variants with every setting that changes its numbers (``title``,
    and per variant its ``label``, ``settings`` and who uses it)."""
    spec = definition(bench)
    return {
        "bench": bench, "title": spec.title,
        "variants": [{"variant": v.label, **v.settings(), "used_by": v.used_by}
                     for v in spec.variants],
    }  # fmt: skip
