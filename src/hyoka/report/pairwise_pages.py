"""Pairwise judgments: win/tie/loss matrices per method, Bradley–Terry ratings with bootstrap
intervals, robustness to the order of the two answers, and the pairs whose orders disagreed.

Three file kinds are read: hyoka's judgment records (``hyoka judge pairwise``), FastChat's
``*_pair.jsonl`` lines (which hyoka's MT-bench runs write too, and ja-vicuna-qa-benchmark
publishes in its own spelling) and Rakuda's match lines (``hyoka mtbench judge --bench
rakuda``: each match judged once, in its drawn order, shown as the method ``one-order``).
Each becomes one ``judge.PairOutcome`` per judged item, counted, rated and controlled by
``judge``'s adapters as ``judge pairwise`` and ``mtbench judge`` are; ``prob`` ratings use
the probability-averaged verdict as a fractional win (P(A) + P(tie)/2 of the mass on A, B
and tie), the other methods their letters (a tie is half a win).

Where both answers' texts are at hand for every item (``pairwise_styles.with_styles``),
each method's table also shows the style-controlled ratings beside the raw ones
(``stats.style_controlled_bradley_terry``, arena-hard's length and Markdown features), the
judge's style coefficients and their signature; and where one model met every other on
every item (a baseline), each model's length-controlled win rate against it
(``stats.length_controlled_winrates``). Otherwise the page says why they are absent.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from hyoka.errors import InputError, MissingDataError
from hyoka.judge import (
    METHODS,
    ONE_ORDER,
    JudgedBy,
    JudgmentRecord,
    PairOutcome,
    battles,
    head_to_head,
    judged_by,
    order_agreement,
    orders_agree,
    outcome_of,
)
from hyoka.judge import length_controlled as controlled_rates
from hyoka.judge import style_controlled as controlled_ratings
from hyoka.mtbench import (
    BenchSpec,
    MatchChecks,
    PairJudgmentLine,
    RakudaBench,
    RakudaPairLine,
    VerifyBenches,
    check_models,
    checked_pairs,
    judgment_spec,
    pair_benches,
)
from hyoka.report.html import Cell, cell, esc, page, table
from hyoka.report.svg import IntervalRow, interval_chart
from hyoka.stats import (
    LETTERS,
    NO_MAXIMUM,
    LengthControlled,
    Rating,
    Ratings,
    StyleControlled,
    bradley_terry,
)
from hyoka.store import first_object, read_records, unique_records

INDEX_PATH = "pairwise/index.html"


def read_pairs(path: Path, data_dir: Path | None = None) -> list[PairOutcome]:
    """Every pairwise judgment in ``path``, each item once; an ``InputError`` (file:line)
    for anything else, or for a line no reader of its kind takes: FastChat's and Rakuda's
    lines are checked as ``hyoka mtbench verify`` checks them (two models, their
    benchmark's questions and turns in ``data_dir``, one judge a file, each pair a turn and
    each Rakuda match once: a copy or a second verdict is refused, never counted as another
    item); hyoka's own records as ``judge pairwise`` reads them (an identical copy dropped
    with a warning, a second, different verdict refused)."""
    first = _first_object(path)
    if first.get("kind") == "pairwise":
        # each item once, as ``judge pairwise`` reads its file: a copy dropped (said), a
        # second, different verdict refused
        kept = unique_records(path, _pair_records(path), lambda record: record.id)
        return [outcome_of(record) for record in kept]
    benches = VerifyBenches(data_dir)
    if "g1_winner" in first:
        try:
            candidates, notes = pair_benches(path, _spec(path, data_dir), benches)
        except InputError:  # a variant this hyoka lacks: the page says so (pairwise_styles)
            candidates, notes = [None], []
        lines = checked_pairs(path, candidates, notes)
        return [_from_fastchat(line) for _, line in lines]
    if "model1_id" in first:
        try:
            bench: RakudaBench | None = benches.rakuda()
        except MissingDataError:  # the models, the judge and each match once still are
            bench = None
        checks = MatchChecks(path, bench)
        outcomes = []
        for number, line in read_records(path, RakudaPairLine):
            checks.check(number, line)
            outcomes.append(line.outcome())
        return outcomes
    raise InputError(
        f"{path}:1: not a pairwise judgment (no 'g1_winner', 'model1_id' or kind 'pairwise')"
    )


def _pair_records(path: Path) -> Iterator[tuple[int, JudgmentRecord]]:
    """The pairwise records of one of hyoka's judgment files, numbered, each checked."""
    for number, record in read_records(path, JudgmentRecord):
        if record.kind != "pairwise":
            continue
        if len(record.models) != 2:  # a record hyoka never writes: said, not a traceback
            raise InputError(
                f"{path}:{number}: a pairwise judgment names {len(record.models)} "
                "model(s) in 'models', not the two it compares"
            )
        check_models(f"{path}:{number}", *record.models, ("models[0]", "models[1]"))
        yield number, record


def _spec(path: Path, data_dir: Path | None) -> BenchSpec | None:
    """The benchmark a FastChat pair file is of, as ``mtbench verify`` tells it; ``None``
    for neither a manifest nor a data folder naming one."""
    try:
        return judgment_spec(path, None, data_dir)
    except InputError:
        return None


def _from_fastchat(line: PairJudgmentLine) -> PairOutcome:
    """The line's outcome, with the style of the answers it carries itself."""
    outcome, styles = line.outcome(), line.inline_styles()
    return outcome if styles is None else outcome.styled(styles)


def file_judge(path: Path, outcomes: Sequence[PairOutcome]) -> JudgedBy:
    """The judge that answered a pair file: what its hyoka manifest records, else the name
    its lines give (``judge.judged_by``)."""
    return judged_by(path, (o.judge for o in outcomes if o.judge))


def bench_title(path: Path, data_dir: Path | None) -> str | None:
    """The benchmark a pair file is of: Rakuda's lines say so themselves; otherwise the
    one its hyoka manifest names, else the one whose data folder holds it
    (``mtbench.judgment_spec``, as ``hyoka mtbench verify`` tells it); ``None``: neither
    (the page is then named by the file alone)."""
    first = first_object(path) or {}
    if "model1_id" in first:
        return "Rakuda"
    if "g1_winner" not in first:
        return None  # hyoka's own judgment records: no benchmark
    try:
        return judgment_spec(path, None, data_dir).title
    except InputError:
        return None


def _first_object(path: Path) -> dict[str, object]:
    first = first_object(path)
    if first is None:
        raise InputError(f"{path}: empty file")
    return first


@dataclass(frozen=True)
class MethodResult:
    method: str
    models: tuple[str, ...]
    #: (row model, column model) -> (wins, ties, losses) of the row model
    matrix: dict[tuple[str, str], tuple[int, int, int]]
    invalid: int
    ratings: Ratings | None


def analyse(outcomes: Sequence[PairOutcome], method: str, rounds: int, seed: int) -> MethodResult:
    models = tuple(dict.fromkeys(m for o in outcomes for m in (o.x, o.y)))
    letters = [(o.x, o.y, _letter(o.verdicts.get(method))) for o in outcomes]
    counts = head_to_head(letters)
    invalid = sum(1 for _, _, letter in letters if letter is None)
    rated, groups = battles(outcomes, method)  # two-turn dialogues: a question's turns together
    ratings = bradley_terry(rated, rounds=rounds, seed=seed, groups=groups) if len(rated) else None
    matrix = {k: (c.wins, c.ties, c.losses) for k, c in counts.items() if c.valid}
    return MethodResult(method, models, matrix, invalid, ratings)


def style_controlled(
    outcomes: Sequence[PairOutcome], method: str, rounds: int, seed: int
) -> StyleControlled | None:
    """The style-controlled ratings of ``method``'s battles (those ``analyse`` rates, in
    the same order: ``judge.style_controlled``), or ``None`` where an item lacks its
    answers' style."""
    return controlled_ratings(outcomes, method, rounds, seed)


def baseline(outcomes: Sequence[PairOutcome]) -> str | None:
    """The model every item compares with another (alpaca_eval's baseline): of three or
    more models, the one in every item; of two, the second named (Y, as ``hyoka judge
    pairwise`` controls X's rate against Y); ``None`` where there is none."""
    models = dict.fromkeys(m for o in outcomes for m in (o.x, o.y))
    if len(models) == 2:
        return outcomes[0].y
    everywhere = [m for m in models if all(m in (o.x, o.y) for o in outcomes)]
    return everywhere[0] if len(everywhere) == 1 else None


def length_controlled(
    outcomes: Sequence[PairOutcome], method: str, against: str
) -> LengthControlled | None:
    """Each model's length-controlled win rate against ``against`` under ``method``
    (``judge.length_controlled``: the model's share, lengths the characters of the two
    answers), or ``None`` where an item with a valid verdict lacks its answers or no
    verdict is valid."""
    if any(o.lengths is None and o.share(method) is not None for o in outcomes):
        return None
    return controlled_rates(outcomes, method, against)


def _letter(verdict: str | None) -> str | None:
    """A verdict letter, or ``None`` for no verdict and for anything a file holds that is
    not one (counted as invalid on the page rather than failing it)."""
    return verdict if verdict in LETTERS else None


def pairwise_page(
    name: str,
    path: str,
    outcomes: Sequence[PairOutcome],
    rounds: int,
    seed: int,
    without_styles: str | None = None,
    judge: JudgedBy | None = None,
) -> str:
    """The page of one file's judgments, naming ``judge`` (``file_judge``: what answered,
    a dry run said as one); ``without_styles``: why the answers' style is not at hand (no
    controlled columns), said on the page."""
    methods = [
        m
        for m in (*METHODS, ONE_ORDER)
        if any(m in o.verdicts or (m == "prob" and o.mean) for o in outcomes)
    ]
    orders = order_agreement(o.letters for o in outcomes)
    agree, disagree, missing = orders.agree, orders.disagree, orders.missing
    disagreeing = [o for o in outcomes if orders_agree(*o.letters) is False]
    robustness = f"{orders.robustness:.3f}" if orders.robustness is not None else "–"
    named = f'<p id="judge">Judge: {esc(judge.shown)}</p>' if judge is not None else ""
    sections = [
        named,
        f"<p>{len(outcomes)} judged items. Robustness (share of items whose two orders agree): "
        f'<b id="robustness">{robustness}</b> ({agree} agree, {disagree} disagree, {missing} '
        "without a verdict letter in an order).</p>",
    ]
    if methods == [ONE_ORDER]:
        sections.append(
            "<p>Each item was judged once, in one order (Rakuda's matches): there is no "
            "second order to agree with. Rakuda's own ranking also fits the advantage of "
            "being shown first: <code>hyoka mtbench leaderboard --bench rakuda --format "
            "json</code> writes it, and the report shows that file.</p>"
        )
    against = baseline(outcomes)
    if without_styles is not None:
        sections.append(
            '<p class="muted" id="no-style-control">No style-controlled ratings or '
            f"length-controlled win rates: {esc(without_styles)}.</p>"
        )
    for method in methods:
        result = analyse(outcomes, method, rounds, seed)
        sections.append(f"<h2>Method {esc(method)}</h2>")
        if result.ratings is not None:
            r = result.ratings
            controlled = style_controlled(outcomes, method, rounds, seed)
            by_model = controlled.ratings.by_model() if controlled is not None else {}
            rows = [
                [
                    cell(esc(x.model), x.model),
                    *_rating_cells(x),
                    cell(str(x.games), x.games),
                    *(_rating_cells(by_model.get(x.model)) if controlled is not None else []),
                ]
                for x in r.ratings
            ]
            what = (
                "probability-averaged verdicts as fractional wins"
                if method == "prob"
                else "verdicts (tie = half a win)"
            )
            headers: list[str | tuple[str, str]] = ["Model", "Rating", "95% CI", "Games"]
            if controlled is not None:
                headers += [
                    ("Style-controlled", "the rating with length and Markdown held equal"),
                    ("95% CI (controlled)", "bootstrap over the judged items"),
                ]
            sections.append(
                f"<p>Bradley–Terry ratings (Elo scale, mean 1000) from the {what}; "
                f"{int(r.confidence * 100)}% intervals from {r.rounds} bootstrap rounds over "
                f"the judged items (seed {r.seed}).</p>"
                + table(headers, rows, table_id=f"bt-{method}")
                + "".join(f'<p class="muted">Raw {esc(why)}.</p>' for why in r.separation_lines())
                + interval_chart(
                    [
                        IntervalRow(x.model, x.rating, x.low, x.high)
                        for x in r.ratings
                        if math.isfinite(x.rating)
                    ],
                    digits=1,
                )
                + (_style_note(method, controlled) if controlled is not None else "")
            )
        rates = length_controlled(outcomes, method, against) if against is not None else None
        if rates is not None:
            sections.append(_length_table(method, rates))
        header = ["wins / ties / losses of the row model", *result.models]
        rows_m = []
        for row_model in result.models:
            cells = [cell(esc(row_model), row_model)]
            for column in result.models:
                if column == row_model:
                    cells.append(cell("·"))
                    continue
                won, tied, lost = result.matrix.get((row_model, column), (0, 0, 0))
                cells.append(cell(f"{won} / {tied} / {lost}", won - lost))
            rows_m.append(cells)
        sections.append(
            table(header, rows_m, sortable=False, classes="matrix")
            + f'<p class="muted">{result.invalid} items without a valid {esc(method)} verdict.</p>'
        )
    if disagreeing:
        rows_d = []
        for o in disagreeing[:500]:
            mean = o.mean or {}
            probs = " ".join(f"{k} {mean[k]:.2f}" for k in "ABC" if k in mean) or "–"
            rows_d.append([o.item, o.x, o.y, o.letters[0] or "–", o.letters[1] or "–", probs])
        sections.append(
            "<h2>Pairs whose two orders disagreed</h2>"
            + table(
                [
                    "Item",
                    "X",
                    "Y",
                    ("X first", "letter written, A = first shown"),
                    ("Y first", "letter written, A = first shown"),
                    ("P (A = X wins)", "probabilities averaged over both orders"),
                ],
                rows_d,
                table_id="disagreements",
            )
        )
    return page(f"Pairwise: {name}", "".join(sections), path=path)


def _rating_cells(found: Rating | None) -> list[Cell]:
    """A rating and its interval; ``n/a: no finite maximum (<why>)`` where the fit has
    no maximum (``n/a: not comparable (<why>)`` where it does not place the model against
    the others), ``n/a`` for a bound that bootstrap draws without one (or that fall apart)
    reach (the reason in the cell's tooltip and the note under the table); ``–`` where the
    model is not rated."""
    if found is None:
        return [cell("–"), cell("–")]
    if not math.isfinite(found.rating):
        return [cell(esc(f"n/a: {found.reason or NO_MAXIMUM}")), cell("n/a")]
    low, high = (f"{x:.1f}" if math.isfinite(x) else "n/a" for x in (found.low, found.high))
    return [
        cell(f"{found.rating:.1f}", found.rating),
        cell(f'<span class="ci">[{low}, {high}]</span>', _sortable(found.low), found.reason),
    ]


def _style_note(method: str, controlled: StyleControlled) -> str:
    """What the controlled column is, the judge's style coefficients, the signature."""
    gamma = ", ".join(
        f"{esc(name)} {esc(controlled.coefficient_text(name))}" for name in controlled.coefficients
    )
    return (
        f'<p id="style-{esc(method)}">Style-controlled: the rating with the answers\' length '
        "and Markdown density (headers, lists, bold; code blocks left out) held equal, fitted "
        "jointly with the ratings (arena-hard's features; lengths in characters). The "
        "judge's style coefficients γ (per root mean square of each feature; γ &gt; 0: it "
        f"prefers more): {gamma or 'none (no feature varied)'}.</p>"
        f'<p>signature: <code class="signature">{esc(controlled.signature.line)}</code></p>'
        + "".join(f'<p class="muted">{esc(why)}.</p>' for why in controlled.separation_lines())
    )


def _sortable(value: float) -> float | None:
    """A sort key: none for n/a (NaN)."""
    return value if math.isfinite(value) else None


def _length_table(method: str, rates: LengthControlled) -> str:
    """Each model's win rate against the baseline, raw and length-controlled."""
    rows = [
        [
            cell(esc(rate.model), rate.model),
            cell(rate.raw.format(), _sortable(rate.raw.estimate)),
            cell(rate.controlled.format(), _sortable(rate.controlled.estimate)),
            cell(rate.length_coefficient.format(2), _sortable(rate.length_coefficient.estimate)),
            cell(str(rate.verdicts), rate.verdicts),
        ]
        for rate in rates.rates
    ]
    headers: list[str | tuple[str, str]] = [
        "Model",
        ("Win rate", f"the model's share of the win against {rates.baseline}, 95% CI"),
        ("Length-controlled", "the win rate were both answers equally long, 95% CI"),
        ("γ length", "how much the judge rewards a longer answer"),
        "Verdicts",
    ]
    return (
        f"<p>Win rates against {esc(rates.baseline)}, raw and length-controlled "
        "(alpaca_eval's logistic model of the verdict on the length difference, per model; "
        "lengths in characters; n/a where length cannot be told from the model).</p>"
        + table(headers, rows, table_id=f"lc-{method}")
        + f'<p>signature: <code class="signature">{esc(rates.signature.line)}</code></p>'
    )


def index_page(entries: Sequence[tuple[str, str, str]]) -> str:
    """Links to each page: (name, path, what it holds: "80 items")."""
    if not entries:
        body = "<p>No pairwise judgment files among the inputs.</p>"
    else:
        body = (
            "<ul>"
            + "".join(
                f'<li><a href="../{esc(p)}">{esc(n)}</a> ({esc(held)})</li>'
                for n, p, held in entries
            )
            + "</ul>"
        )
    return page("Pairwise judgments", body, path=INDEX_PATH)
