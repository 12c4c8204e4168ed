"""Single-grading pages of every judged benchmark (MT-bench, pfmt-bench-fin-ja, Japanese
MT-bench per variant, Japanese Vicuna QA, ELYZA-tasks-100): one page per benchmark and
variant, with each judge's per-category table and radar, the variant's settings and the
signature of the numbers, and one page per question with every judged turn side by side.

Which benchmark (and variant) a file holds is what hyoka wrote beside it: a judgment
file's manifest names both (``mtbench.recorded_bench``, the reader ``hyoka mtbench verify``
uses). A file without one (upstream's published judgments) is matched by its judged
conversations (``BenchFinder.identify``), and the page says how each file was told.

Where the judged models' answers lie beside the judgments (``find_answers``), each judge's
table is followed by the length-adjusted means (``mtbench.length_column_of``, as
``hyoka mtbench leaderboard --answers`` computes them) with the within-question partial
correlation of score with length and its signature; otherwise the page says why not.

The judge's reasoning is most of the bytes (13,680 published judgments are 12.6 MB of
text), so each question page carries it gzip-compressed (``html.packed``) and the browser
unpacks it; scores and the rule that zeroed a turn are plain HTML.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from hyoka.errors import DataError, InputError
from hyoka.judge import DRY_RUN, JudgedBy, any_dry_run, judged_by, judges_shown
from hyoka.mtbench import (
    NO_RATING,
    Bench,
    BenchSpec,
    IntervalSettings,
    Leaderboard,
    LengthColumn,
    Question,
    SingleJudgmentLine,
    build_leaderboard,
    display_name,
    fastchat_benches,
    length_column_of,
    load_answers,
    mean_interval,
    model_answer_file,
    recorded_bench,
    round_half_up,
    row_variants,
    table_separability,
)
from hyoka.report.html import Cell, cell, esc, packed, page, table
from hyoka.report.svg import radar_chart
from hyoka.stats import Interval
from hyoka.store import manifest_path, read_records

INDEX_PATH = "mtbench/index.html"
#: how a file whose manifest names its benchmark was told
BY_MANIFEST = "named by the hyoka manifest beside it"


@dataclass(frozen=True)
class JudgeSet:
    """The single-grading files of one judge on one benchmark and variant (one
    ``<judge>_single`` folder, or upstream's one ``<judge>_single.jsonl``)."""

    set_id: str
    name: str
    files: tuple[Path, ...]
    board: Leaderboard
    lines: tuple[SingleJudgmentLine, ...]
    #: how the files' benchmark was told (``Identified.how``), each way once
    identified: tuple[str, ...] = ()
    #: the judge that answered, per file (``judge.judged_by``), each once
    judges: tuple[JudgedBy, ...] = ()

    @property
    def label(self) -> str:
        """The set's name where its grades are shown, marked where a script made them."""
        dry = any(judge.dry_run for judge in self.judges)
        return f"{self.name} (dry run)" if dry else self.name

    @property
    def judge_named(self) -> str:
        """The judge that answered the set's files, short, where a table or a list shows
        its grades (the set's folder name is not the judge; ``--judge-name`` is a label):
        the model asked, or the name the lines give, marked where a script graded."""
        named = "; ".join(dict.fromkeys(judge.judge for judge in self.judges)) or "not recorded"
        return f"{named} ({DRY_RUN})" if any_dry_run(self.judges) else named


@dataclass(frozen=True)
class Identified:
    """A judgment file's benchmark (and variant), how hyoka told it, and the models whose
    rows are that benchmark's (``None``: all; a file of two variants is on two pages)."""

    bench: Bench
    how: str
    models: frozenset[str] | None = None


def bench_key(bench: Bench) -> str:
    """The benchmark's name, with its variant's where it has one: numbers of different
    variants get pages of their own and are never ranked together."""
    return bench.spec.name if bench.variant is None else f"{bench.spec.name}.{bench.variant.name}"


def bench_label(bench: Bench) -> str:
    """The title a page shows: the benchmark's, and its variant's name."""
    variant = "" if bench.variant is None else f" ({bench.variant.name})"
    return bench.spec.title + variant


class BenchFinder:
    """Tells each judgment file's benchmark, loading each benchmark (and variant) once."""

    def __init__(self, data_dir: Path | None) -> None:
        self.data_dir = data_dir
        self._loaded: dict[tuple[str, str | None], Bench | DataError] = {}

    def load(self, name: str, variant: str | None) -> Bench:
        key = (name, variant)
        if key not in self._loaded:
            try:
                self._loaded[key] = Bench.load(name, self.data_dir, variant)
            except DataError as exc:  # missing, or not the pinned bytes: said when needed
                self._loaded[key] = exc
        found = self._loaded[key]
        if isinstance(found, DataError):
            raise found
        return found

    def identify(self, path: Path) -> list[Identified]:
        """The benchmark and variant of ``path``: the ones its hyoka manifest names; for a
        file without one, the benchmark whose questions every line judges, and for a
        benchmark with variants the variant of each model's rows, read from its judged
        prompts (``mtbench.judged_variant``): a file of two variants is on two pages.

        A line fits a benchmark (variant) when its ``question_id`` is one of its
        questions, the first turn of that question is in the judged prompt
        (``user_prompt``), and its turn is one the variant judges. Benchmarks that share
        question ids (Japanese MT-bench's 1-80 and Japanese Vicuna QA's; MT-bench's
        81-160 and a JMT-bench file numbered as MT-bench) differ in their text, so the
        judged prompt tells them apart; a file that fits two benchmarks (lines without a
        judged prompt) is an error naming both, never a guess. Variants that share their
        questions (Stability's two 2023 snapshots) differ in their judge prompts: a row
        whose lines keep none, or keep prompts no variant builds, is an error naming it,
        never put beside another variant's rows. Variants that build the same prompts are
        named beside the one taken. Whatever is taken, ``build_leaderboard`` checks every
        line against it again.
        """
        recorded = recorded_bench(path)
        if recorded is not None:
            spec, signed = recorded
            known = spec.recorded_variant(signed, manifest_path(path))
            named = known.name if known is not None else None
            return [Identified(self.load(spec.name, named), BY_MANIFEST)]
        lines = [line for _, line in read_records(path, SingleJudgmentLine)]
        fits: list[Bench] = []
        unavailable: list[DataError] = []
        for spec in fastchat_benches().values():
            benches: list[Bench] = []
            for variant in spec.variants or (None,):
                try:
                    benches.append(self.load(spec.name, None if variant is None else variant.name))
                except DataError as exc:
                    unavailable.append(exc)
            if benches and _fits(benches, lines):  # each line judged by one of its variants
                fits.append(benches[0])
        titles = list(dict.fromkeys(b.spec.title for b in fits))
        if len(titles) > 1:
            raise InputError(
                f"{path}: its judgments fit {', '.join(titles)} alike and no hyoka "
                "manifest names the benchmark (its lines hold no judged prompt to tell them "
                "apart): report it from a file hyoka judged"
            )
        if not fits:
            if unavailable:  # perhaps the benchmark whose data is missing: say which
                raise unavailable[0]
            raise InputError(
                f"{path}: its judged conversations are the questions of no benchmark hyoka "
                f"knows ({', '.join(s.title for s in fastchat_benches().values())}), and no hyoka "
                "manifest names one"
            )
        how = "matched by its judged questions (no hyoka manifest beside it)"
        spec = fits[0].spec
        if not spec.variants:
            return [Identified(fits[0], how)]
        return self._by_variant(path, spec, lines, how)

    def _by_variant(
        self, path: Path, spec: BenchSpec, lines: Sequence[SingleJudgmentLine], how: str
    ) -> list[Identified]:
        """The rows of ``lines`` by the variant their judged prompts show (the first of
        those that build them, the others named), or an error naming a row none shows."""
        found = row_variants(spec, lines, lambda variant: self.find(spec.name, variant.name))
        rows: dict[tuple[str, ...], list[str]] = defaultdict(list)
        for model, candidates in found.items():
            if not candidates:
                why = (
                    "its lines keep no judged prompt"
                    if candidates is None
                    else "its judged prompts are those of none of them"
                )
                raise InputError(
                    f"{path}: nothing shows which of this hyoka's {spec.title} variants "
                    f"judged {model} ({why}) and no hyoka manifest names one: its numbers "
                    "are not shown beside a variant's"
                )
            rows[tuple(v.name for v in candidates)].append(model)
        told = []
        for names, models in rows.items():
            also = f"; {', '.join(names[1:])} build the same prompts" if names[1:] else ""
            variant = f"; its variant read from its judged prompts{also}"
            bench = self.load(spec.name, names[0])
            told.append(Identified(bench, how + variant, frozenset(models)))
        return told

    def find(self, name: str, variant: str | None) -> Bench | None:
        """``load``, or ``None`` where the benchmark's files are missing or not pinned."""
        try:
            return self.load(name, variant)
        except DataError:
            return None


def _fits(benches: Sequence[Bench], lines: Sequence[SingleJudgmentLine]) -> bool:
    """Whether each line judges a question and turn of one of ``benches`` (a benchmark's
    variants), the conversation it keeps being that question's."""
    by_id = [(bench, bench.by_id) for bench in benches]
    for line in lines:
        if not any(_line_fits(bench, questions, line) for bench, questions in by_id):
            return False
    return bool(lines)


def _line_fits(bench: Bench, questions: dict[int, Question], line: SingleJudgmentLine) -> bool:
    question = questions.get(line.question_id)
    if question is None or line.turn not in bench.turns:
        return False
    return not line.user_prompt or question.turns[0] in line.user_prompt


def set_name(path: Path) -> str:
    """The judge set a file belongs to: upstream's ``<judge>_single.jsonl`` is one by
    itself, hyoka's ``<judge>_single/<model>.jsonl`` are one per folder."""
    return path.stem if path.stem.endswith("_single") else path.parent.name


def load_judge_set(
    set_id: str,
    name: str,
    files: Sequence[Path],
    bench: Bench,
    identified: Sequence[str] = (),
    models: Mapping[Path, frozenset[str]] | None = None,
) -> JudgeSet:
    """The judgments of ``files``, read once (with every check ``build_leaderboard`` makes),
    their per-category table, and the judge that answered each file."""
    board = build_leaderboard(bench, list(files), models=models)
    names = {line.judge[0] for line in board.lines}
    judges = tuple(dict.fromkeys(judged_by(path, names) for path in files))
    return JudgeSet(
        set_id, name, tuple(files), board, board.lines, tuple(dict.fromkeys(identified)), judges
    )


def _mean(value: Fraction | None) -> str:
    return "–" if value is None else str(round_half_up(value))


def _sort(value: Fraction | None) -> float:
    return -1.0 if value is None else float(value)


def bench_path(bench: Bench) -> str:
    return f"mtbench/{bench_key(bench)}/index.html"


def set_path(judge_set: JudgeSet) -> str:
    """Where a judge set's table is: its section of the benchmark's page."""
    return f"{bench_path(judge_set.board.bench)}#{judge_set.set_id}"


def question_path(bench: Bench, question_id: int) -> str:
    return f"mtbench/{bench_key(bench)}/q{question_id:04d}.html"


def _overall_tip(board: Leaderboard) -> str:
    """What the table's "Overall" is, by the rule it was computed with (signed by name)."""
    return f"{board.headline.summary} (upstream's headline: {board.headline.name})"


#: what a page says where no answers were found beside a judge's files
NO_ANSWERS = (
    "no answer files beside the judgments (FastChat's layout: <bench>/model_answer/"
    "<model>.jsonl next to <bench>/model_judgment/)"
)


@dataclass(frozen=True)
class LengthResult:
    """A judge set's length-adjusted column, or why it has none."""

    column: LengthColumn | None
    why: str | None = None


def length_result(
    judge_set: JudgeSet,
    answers: dict[str, dict[int, tuple[str, ...]]],
    resamples: int,
    seed: int,
) -> LengthResult:
    """The set's length-adjusted means from ``answers`` (``find_answers``), or why not."""
    if not any(model.model in answers for model in judge_set.board.models):
        return LengthResult(None, NO_ANSWERS)
    try:
        column = length_column_of(judge_set.board, answers, resamples=resamples, seed=seed)
    except InputError as exc:
        return LengthResult(None, str(exc))
    return LengthResult(column)


def length_html(judge_set: JudgeSet, found: LengthResult) -> str:
    """Each model's mean beside its length-adjusted mean, the partial correlation, the
    signature; or the line that says why the column is absent."""
    column = found.column
    if column is None:
        return (
            f'<p class="muted" id="{esc(judge_set.set_id)}-no-length">No length-adjusted '
            f"column: {esc(found.why or '')}.</p>"
        )
    by_model = column.fit.by_model()
    rows = []
    for model in judge_set.board.ranked():
        label = display_name(model.model, judge_set.board.bench)
        score = by_model.get(model.model)
        missing = column.missing.get(model.model, 0)
        shown = [cell(esc(label), label), cell(_mean(model.overall()), _sort(model.overall()))]
        if score is None:
            why = f"{missing} judged turn(s) without an answer" if missing else "not fitted"
            shown += [cell("–", None, why), cell("", None)]
        else:
            adjusted = score.adjusted
            shown += [
                cell(str(round_half_up(Fraction(adjusted.estimate))), adjusted.estimate),
                _interval(adjusted),
            ]
        rows.append(shown)
    headers: list[str | tuple[str, str]] = [
        "Model",
        ("Overall", _overall_tip(judge_set.board)),
        ("length-adj.", "the mean of every rated turn, every answer as long as its question's"),
        ("95% CI", "bootstrap of the length-adjusted mean"),
    ]
    return (
        "<h3>Length-adjusted</h3>"
        + table(headers, rows, table_id=f"{judge_set.set_id}-length")
        + f'<p id="{esc(judge_set.set_id)}-partial">{esc(column.note)}</p>'
        + f'<p>signature: <code class="signature">{esc(column.fit.signature.line)}</code></p>'
    )


def category_table(judge_set: JudgeSet, length: LengthResult | None = None) -> str:
    """The judge set's per-category table (``build_leaderboard``'s numbers) and radar."""
    board = judge_set.board
    bench = board.bench
    categories = bench.spec.categories
    turns = bench.turns if len(bench.turns) > 1 else ()
    headers: list[str | tuple[str, str]] = ["Model", ("Overall", _overall_tip(board))]
    headers += [("95% CI", "bootstrap over questions, then trials (one trial: questions only)")]
    headers += [f"Turn {turn}" for turn in turns]
    headers += [(bench.spec.column(c), c) for c in categories]
    headers += [("Zeroed", "turns scored 0 by a rule: no answer or wrong language"), "Unrated"]
    zeroed: dict[str, int] = defaultdict(int)
    for line in judge_set.lines:
        if line.zeroed_by_rule:
            zeroed[line.model] += 1
    rows = []
    for model in board.ranked():
        means = model.means()
        label = display_name(model.model, board.bench)
        differs = board.differences(model)
        tip = (
            ("differs: " + "; ".join(differs))
            if differs
            else (model.signature.line if model.signature else "")
        )
        if not board.complete(model):
            label += f" (incomplete: {model.judged} of {board.expected(model)} turns)"
        rows.append(
            [
                cell(esc(label), label, tip or None),
                cell(_mean(model.overall()), _sort(model.overall())),
                _interval(mean_interval(model)),
                *[cell(_mean(model.overall(t)), _sort(model.overall(t))) for t in turns],
                *[cell(_mean(means[c]), _sort(means[c])) for c in categories],
                cell(str(zeroed[model.model]), zeroed[model.model]),
                cell(str(model.unrated), model.unrated),
            ]
        )
    series = [
        (
            display_name(m.model, board.bench),
            [None if (v := m.means()[c]) is None else float(v) for c in categories],
        )
        for m in board.ranked()
    ]
    top = float(bench.spec.scale[1])  # the benchmark's own scale (ELYZA-tasks-100's is 1-5)
    radar = radar_chart([bench.spec.column(c) for c in categories], series, maximum=top)
    interval = IntervalSettings()  # the intervals' (mean_interval's defaults), signed
    signed = board.signature
    if signed is not None:
        signed = signed.with_field("interval", interval.signed)
    signature = signed.with_field("headline", board.headline.name).line if signed else "none"
    separated = table_separability(board, None, interval)
    told = "; ".join(judge_set.identified) or "–"
    return (
        f'<section id="{esc(judge_set.set_id)}"><h2>{esc(judge_set.label)}</h2>'
        f"<p>{len(judge_set.files)} judgment files, {len(judge_set.lines)} judged turns. "
        "Means of the judged turns per category, rounded half-up; rule zeros count, unrated "
        f"turns (-1) are {esc(board.headline.unrated_note)}. "
        f"Benchmark: {esc(told)}.</p>"
        f'<p id="{esc(judge_set.set_id)}-judge">Judge: {esc(judges_shown(judge_set.judges))}</p>'
        + table(headers, rows, table_id=f"{judge_set.set_id}-categories")
        + (f"<p>{esc(separated.line)}</p>" if separated else "")
        + (length_html(judge_set, length) if length is not None else "")
        + f'<h3>Radar</h3>{radar}<p>signature: <code class="signature">{esc(signature)}'
        "</code></p></section>"
    )


def _variant_html(bench: Bench) -> str:
    """The variant's name, label, who runs it and every setting that changes numbers."""
    variant = bench.variant
    if variant is None:
        return ""
    # the variant's judge is upstream's, not necessarily the one that graded these files
    # (each judge set names its own): said as upstream's
    rows = [
        ["upstream's judge" if name == "judge" else name, value]
        for name, value in variant.settings().items()
    ]
    return (
        f'<p>variant: <b id="variant">{esc(variant.name)}</b> '
        f"(<code>{esc(variant.label)}</code>): {esc(variant.used_by)}</p>"
        + table(["Setting", "Value"], rows, sortable=False, table_id="variant-settings")
    )


def _interval(found: Interval | None) -> Cell:
    """A row's 95% interval (``mtbench.mean_interval``, the leaderboard's), sorted by
    its low end."""
    if found is None:
        return cell("", None)
    low, high = (round_half_up(Fraction(bound)) for bound in (found.low, found.high))
    return cell(f"[{low}, {high}]", found.low)


def bench_page(
    bench: Bench, sets: Sequence[JudgeSet], lengths: Sequence[LengthResult] | None = None
) -> str:
    """The benchmark's (and variant's) page: its variant, then each judge's table (with
    its length-adjusted means, ``lengths`` in the order of ``sets``) and radar with the
    signature of its numbers, then links to every question."""
    path = bench_path(bench)
    questions = "".join(
        f'<a href="q{q.question_id:04d}.html">{q.question_id}</a> ' for q in bench.questions
    )
    body = (
        _variant_html(bench)
        + "".join(
            category_table(s, lengths[k] if lengths is not None else None)
            for k, s in enumerate(sets)
        )
        + f'<h2>Questions</h2><p class="qlinks">{questions}</p>'
    )
    return page(f"{bench_label(bench)}: single grading", body, path=path)


def find_answers(bench: Bench, sets: Sequence[JudgeSet]) -> dict[str, dict[int, tuple[str, ...]]]:
    """The judged models' answers, from FastChat's layout beside the judgments:
    ``<bench>/model_answer/<model>.jsonl`` next to hyoka's ``model_judgment/<judge>/`` or
    upstream's ``model_judgment/<judge>_single.jsonl``."""
    found: dict[str, dict[int, tuple[str, ...]]] = {}
    for judge_set in sets:
        for path in judge_set.files:
            if path.stem.endswith("_single"):  # upstream's: every model in one file
                folder = path.parent.parent / "model_answer"
                models = sorted({line.model for line in judge_set.lines})
            else:
                folder, models = path.parent.parent.parent / "model_answer", [path.stem]
            for model in models:
                model_file = model_answer_file(folder, model)  # a name from data
                if model in found or model_file is None or not model_file.is_file():
                    continue
                records = load_answers(model_file, bench)
                found[model] = {qid: record.turns for qid, record in records.items()}
    return found


def question_pages(
    bench: Bench,
    sets: Sequence[JudgeSet],
    answers: dict[str, dict[int, tuple[str, ...]]] | None = None,
) -> dict[str, str]:
    """One page per question: its turns, every model's score and reasoning per judge for
    each judged turn, and (when ``answers`` are given) each model's answers."""
    by_question: dict[int, list[tuple[JudgeSet, SingleJudgmentLine]]] = defaultdict(list)
    for judge_set in sets:
        for line in judge_set.lines:
            by_question[line.question_id].append((judge_set, line))
    pages: dict[str, str] = {}
    for question in bench.questions:
        entries = by_question.get(question.question_id, [])
        grid: dict[tuple[str, str], dict[int, SingleJudgmentLine]] = defaultdict(dict)
        by_label = {}
        for judge_set, line in entries:
            grid[judge_set.label, line.model][line.turn] = line
            by_label[judge_set.label] = judge_set
        rows = []
        payload: dict[str, str] = {}
        for number, ((label, model), turns) in enumerate(sorted(grid.items())):
            judge_set = by_label[label]
            judge = judge_set.judge_named
            shown = f"{judges_shown(judge_set.judges)}; files: {label}"
            cells = [
                cell(esc(display_name(model, bench)), model),
                cell(esc(judge), judge, shown, classes="name"),
            ]
            details = []
            for turn in bench.turns:
                judged = turns.get(turn)
                if judged is None:
                    cells.append(cell("–", -2))
                    continue
                cells.append(_score_cell(judged))
                target = f"j{number}t{turn}"
                details.append(
                    f"<details><summary>turn {turn}: judge's reasoning</summary>"
                    f'<div class="judgment" id="{target}">…</div></details>'
                )
                payload[target] = esc(judged.judgment)
            cells.append(cell("".join(details), classes="text"))
            rows.append(cells)
        answered = []
        for number, model in enumerate(sorted(answers or {})):
            given = (answers or {})[model].get(question.question_id)
            if not given:
                continue
            parts = []
            for turn, text in enumerate(given, 1):
                target = f"a{number}t{turn}"
                parts.append(
                    f"<details><summary>turn {turn}</summary>"
                    f'<div class="judgment" id="{target}">…</div></details>'
                )
                payload[target] = esc(text)
            answered.append(f"<li><b>{esc(display_name(model, bench))}</b>{''.join(parts)}</li>")
        answers_html = f"<h2>Answers</h2><ul>{''.join(answered)}</ul>" if answered else ""
        turns_html = "".join(
            f'<div class="card"><h3>Turn {i + 1}</h3><div class="judgment">{esc(t)}</div></div>'
            for i, t in enumerate(question.turns)
        )
        headers = ["Model", "Judge", *(f"Turn {turn}" for turn in bench.turns), "Reasoning"]
        body = (
            f'<p><a href="index.html">{esc(bench_label(bench))}</a> · category: '
            f"<b>{esc(question.category)}</b></p>{turns_html}"
            + table(headers, rows, table_id="judgments")
            + answers_html
            + packed("payload", payload)
        )
        path = question_path(bench, question.question_id)
        title = f"{bench_label(bench)} question {question.question_id}"
        pages[path] = page(title, body, path=path)
    return pages


def _score_cell(line: SingleJudgmentLine) -> Cell:
    score = float(line.score)
    if line.zeroed_by_rule:
        return cell(
            f'<span class="zero">0 ({esc(line.judgment)})</span>',
            0,
            "scored 0 by a rule, without the judge",
        )
    if score == NO_RATING:
        return cell('<span class="zero">no rating</span>', -1, "the judge's reply held no rating")
    return cell(f"{line.score:g}", score)


def index_page(
    bench_sets: Sequence[tuple[Bench, Sequence[JudgeSet]]],
    graded: Sequence[tuple[str, str]] = (),
) -> str:
    """Every benchmark (and variant) shown, with its judge sets, then the ``hyoka judge
    single`` files (``graded``: name and page, ``report.grading_pages``)."""
    if not bench_sets and not graded:
        body = "<p>No single-grading judgment files among the inputs.</p>"
    else:
        items = []
        for bench, sets in bench_sets:
            judges = []
            for judge_set in sets:
                best = judge_set.board.ranked()[:1]
                top = f" · best: {esc(display_name(best[0].model, bench))}" if best else ""
                judges.append(
                    f'<li><a href="../{esc(set_path(judge_set))}">{esc(judge_set.name)}</a> '
                    f"({len(judge_set.board.models)} models{top}; judged by "
                    f"{esc(judge_set.judge_named)})</li>"
                )
            items.append(
                f'<li><a href="../{esc(bench_path(bench))}">{esc(bench_label(bench))}</a>'
                f"<ul>{''.join(judges)}</ul></li>"
            )
        body = f"<ul>{''.join(items)}</ul>" if items else ""
        if graded:
            files = "".join(f'<li><a href="../{esc(p)}">{esc(n)}</a></li>' for n, p in graded)
            body += f"<h2>hyoka judge single</h2><ul>{files}</ul>"
    return page("Single-grading judgments", body, path=INDEX_PATH)
