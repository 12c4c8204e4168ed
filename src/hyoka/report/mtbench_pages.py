"""MT-bench / pfmt-bench-fin-ja single-grading pages: the per-category table and radar of
each judge's files, and one page per question with both turns' judgments side by side.

The judge's reasoning is most of the bytes (13,680 published judgments are 12.6 MB of
text), so each question page carries it gzip-compressed (``html.packed``) and the browser
unpacks it; scores and the rule that zeroed a turn are plain HTML.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from hyoka.errors import MissingDataError
from hyoka.mtbench import (
    NO_RATING,
    SHORT_NAMES,
    Bench,
    Leaderboard,
    SingleJudgmentLine,
    build_leaderboard,
    display_name,
    load_answers,
    mean_interval,
    round_half_up,
)
from hyoka.report.html import Cell, cell, esc, packed, page, table
from hyoka.report.svg import radar_chart
from hyoka.stats import Interval
from hyoka.store import read_records

INDEX_PATH = "mtbench/index.html"


@dataclass(frozen=True)
class JudgeSet:
    """The single-grading files of one judge (one ``<judge>_single`` folder)."""

    set_id: str
    name: str
    files: tuple[Path, ...]
    board: Leaderboard
    lines: tuple[SingleJudgmentLine, ...]


def load_bench(files: Sequence[Path], data_dir: Path | None) -> Bench:
    """pfmt-bench-fin-ja, or MT-bench when the first judged conversation is not pfmt's.

    Only the data of what is shown is needed: a benchmark whose data was never fetched is
    passed over while another one's questions match; its absence is the error only when
    no fetched benchmark holds the judged conversation (it may be the missing one's).
    """
    first = next((line for _, line in read_records(files[0], SingleJudgmentLine)), None)
    loaded: list[Bench] = []
    missing: list[MissingDataError] = []
    for name in ("pfmt-fin", "mt-bench"):
        try:
            bench = Bench.load(name, data_dir)
        except MissingDataError as exc:
            missing.append(exc)
            continue
        loaded.append(bench)
        if first is not None:
            question = bench.by_id.get(first.question_id)
            if question is not None and question.turns[0] in first.user_prompt:
                return bench
    if missing and (first is not None or not loaded):
        raise missing[0]
    return loaded[0]


def load_judge_set(set_id: str, name: str, files: Sequence[Path], bench: Bench) -> JudgeSet:
    """The judgments of ``files``, read once (with every check ``build_leaderboard`` makes),
    and their per-category table."""
    board = build_leaderboard(bench, list(files))
    return JudgeSet(set_id, name, tuple(files), board, board.lines)


def _mean(value: Fraction | None) -> str:
    return "–" if value is None else str(round_half_up(value))


def _sort(value: Fraction | None) -> float:
    return -1.0 if value is None else float(value)


def set_path(judge_set: JudgeSet) -> str:
    return f"mtbench/{judge_set.set_id}.html"


def question_path(bench: Bench, question_id: int) -> str:
    return f"mtbench/{bench.spec.name}/q{question_id:04d}.html"


def judge_set_page(judge_set: JudgeSet) -> str:
    board = judge_set.board
    categories = board.bench.spec.categories
    headers: list[str | tuple[str, str]] = [
        "Model",
        ("Overall", "mean of the category means"),
        ("95% CI", "bootstrap over questions, then trials (one trial: questions only)"),
        "Turn 1",
        "Turn 2",
    ]
    headers += [(SHORT_NAMES.get(c, c), c) for c in categories]
    headers += [("Zeroed", "turns scored 0 by a rule: no answer or wrong language"), "Unrated"]
    zeroed: dict[str, int] = defaultdict(int)
    for line in judge_set.lines:
        if line.zeroed_by_rule:
            zeroed[line.model] += 1
    rows = []
    for model in board.ranked():
        means = model.means()
        label = display_name(model.model)
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
                cell(_mean(model.overall(1)), _sort(model.overall(1))),
                cell(_mean(model.overall(2)), _sort(model.overall(2))),
                *[cell(_mean(means[c]), _sort(means[c])) for c in categories],
                cell(str(zeroed[model.model]), zeroed[model.model]),
                cell(str(model.unrated), model.unrated),
            ]
        )
    series = [
        (
            display_name(m.model),
            [None if (v := m.means()[c]) is None else float(v) for c in categories],
        )
        for m in board.ranked()
    ]
    radar = radar_chart([SHORT_NAMES.get(c, c) for c in categories], series)
    questions = "".join(
        f'<a href="../{esc(question_path(board.bench, q.question_id))}">{q.question_id}</a> '
        for q in board.bench.questions
    )
    signature = board.signature.line if board.signature else "none"
    body = (
        f"<p>{len(judge_set.files)} judgment files, {len(judge_set.lines)} judged turns. "
        "Means of both turns per category, rounded half-up; rule zeros count, unrated turns "
        "(-1) do not.</p>"
        + table(headers, rows, table_id="categories")
        + f'<h2>Radar</h2>{radar}<h2>Questions</h2><p class="qlinks">{questions}</p>'
    )
    footer = f"<p>signature: <code>{esc(signature)}</code></p>"
    return page(
        f"{board.bench.spec.title}: {judge_set.name}", body, path=set_path(judge_set), footer=footer
    )


def _interval(found: Interval | None) -> Cell:
    """A row's 95% interval (``mtbench.mean_interval``, the leaderboard's), sorted by
    its low end."""
    if found is None:
        return cell("", None)
    low, high = (round_half_up(Fraction(bound)) for bound in (found.low, found.high))
    return cell(f"[{low}, {high}]", found.low)


def find_answers(bench: Bench, sets: Sequence[JudgeSet]) -> dict[str, dict[int, tuple[str, ...]]]:
    """The judged models' answers, from FastChat's layout beside the judgments
    (``<bench>/model_answer/<model>.jsonl`` next to ``model_judgment/<judge>/``)."""
    found: dict[str, dict[int, tuple[str, ...]]] = {}
    for judge_set in sets:
        for path in judge_set.files:
            model_file = path.parent.parent.parent / "model_answer" / path.name
            model = path.stem
            if model in found or not model_file.is_file():
                continue
            records = load_answers(model_file, bench)
            found[model] = {qid: record.turns for qid, record in records.items()}
    return found


def question_pages(
    bench: Bench,
    sets: Sequence[JudgeSet],
    answers: dict[str, dict[int, tuple[str, ...]]] | None = None,
) -> dict[str, str]:
    """One page per question: both turns, every model's score and reasoning per judge, and
    (when ``answers`` are given) each model's answers to both turns."""
    by_question: dict[int, list[tuple[JudgeSet, SingleJudgmentLine]]] = defaultdict(list)
    for judge_set in sets:
        for line in judge_set.lines:
            by_question[line.question_id].append((judge_set, line))
    pages: dict[str, str] = {}
    for question in bench.questions:
        entries = by_question.get(question.question_id, [])
        grid: dict[tuple[str, str], dict[int, SingleJudgmentLine]] = defaultdict(dict)
        for judge_set, line in entries:
            grid[judge_set.name, line.model][line.turn] = line
        rows = []
        payload: dict[str, str] = {}
        for number, ((judge, model), turns) in enumerate(sorted(grid.items())):
            cells = [cell(esc(display_name(model)), model), cell(esc(judge), judge)]
            details = []
            for turn in (1, 2):
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
            answered.append(f"<li><b>{esc(display_name(model))}</b>{''.join(parts)}</li>")
        answers_html = f"<h2>Answers</h2><ul>{''.join(answered)}</ul>" if answered else ""
        turns_html = "".join(
            f'<div class="card"><h3>Turn {i + 1}</h3><div class="judgment">{esc(t)}</div></div>'
            for i, t in enumerate(question.turns)
        )
        body = (
            f"<p>category: <b>{esc(question.category)}</b></p>{turns_html}"
            + table(["Model", "Judge", "Turn 1", "Turn 2", "Reasoning"], rows, table_id="judgments")
            + answers_html
            + packed("payload", payload)
        )
        path = question_path(bench, question.question_id)
        pages[path] = page(f"{bench.spec.title} question {question.question_id}", body, path=path)
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


def index_page(bench_sets: Sequence[tuple[Bench, Sequence[JudgeSet]]]) -> str:
    if not bench_sets:
        body = "<p>No single-grading judgment files among the inputs.</p>"
    else:
        items = []
        for bench, sets in bench_sets:
            for judge_set in sets:
                best = judge_set.board.ranked()[:1]
                top = f" · best: {esc(display_name(best[0].model))}" if best else ""
                items.append(
                    f'<li><a href="../{esc(set_path(judge_set))}">{esc(bench.spec.title)}: '
                    f"{esc(judge_set.name)}</a> ({len(judge_set.board.models)} models{top})</li>"
                )
        body = f"<ul>{''.join(items)}</ul>"
    return page("MT-bench style judgments", body, path=INDEX_PATH)
