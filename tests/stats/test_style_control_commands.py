"""Style-controlled Bradley–Terry where people look: ``hyoka judge pairwise``, the MT-bench
family's pairwise judgments, and the report's pairwise and benchmark pages.

The numbers shown are the library's (``stats.rate_with_style``,
``stats.style_controlled_bradley_terry``, ``stats.length_controlled_winrates``,
``mtbench.length_column``) on the same battles, built here from the inputs; the library
itself is checked against statsmodels in ``tests/stats/test_stats_style_control.py``. A scripted
judge that prefers the longer answer, and GPT-4's published verdicts on Japanese Vicuna
QA, show a judge that rewards length: γ_length > 0 and controlled ratings that differ from
the raw ones.
"""

from __future__ import annotations

import json
import math
import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from _shared import SHARED_DATA
from hyoka.cli.main import app
from hyoka.mtbench import Bench, display_name, length_column, style_controlled
from hyoka.mtbench.pairwise import read_pair_lines
from hyoka.report import mtbench_pages as mt
from hyoka.report.pairwise_pages import pairwise_page, read_pairs
from hyoka.report.pairwise_styles import NOT_HELD, with_styles
from hyoka.stats import (
    BaselineVerdict,
    Battles,
    StyleCounts,
    StyledBattle,
    length_controlled_winrates,
    rate_with_style,
    style_controlled_bradley_terry,
)

VICUNA = SHARED_DATA / "ja-vicuna-qa" / "model_judgment" / "pairwise" / "gpt-4"
CALM2 = next(VICUNA.glob("*calm2*.jsonl"))
PFMT = SHARED_DATA / "pfmt-bench-fin-ja"

# -- hyoka judge pairwise ---------------------------------------------------------------

#: per question: X's and Y's answer lengths (X the longer on nine of twelve); the judge
#: prefers the longer answer except on questions 1 and 8, where it prefers the shorter (so
#: that no feature splits every win from every loss and the fit has a maximum)
LENGTHS = [(60 + 9 * q, 100 - 5 * q + 7 * (q % 3)) for q in range(12)]
CONTRARY = {1, 8}
#: the scripted judge's letter probabilities: its choice, the other answer, a tie
CHOSEN, OTHER, TIE = 0.8, 0.15, 0.05


def _pairwise_inputs(
    tmp_path: Path, contrary: frozenset[int] = frozenset(CONTRARY)
) -> tuple[Path, Path, Path]:
    """Answer files of X and Y and a script: the judge picks by length, in both orders
    (the shorter on the questions in ``contrary``)."""
    rows: dict[str, list[str]] = {"x": [], "y": []}
    rules = []
    for q, (x_len, y_len) in enumerate(LENGTHS):
        texts = {"x": f"{q}番の答え。" + "あ" * x_len, "y": f"{q}番の答え。" + "い" * y_len}
        for model, text in texts.items():
            line = {"id": f"q{q}", "question": f"問{q}", "answer": text, "model": model}
            rows[model].append(json.dumps({**line, "reference": "模範"}, ensure_ascii=False))
        chosen = "x" if (x_len > y_len) != (q in contrary) else "y"
        for letter, shown in (("A", "x"), ("A", "y"), ("B", "x"), ("B", "y")):
            block = f"[アシスタント {letter} の答えの開始]\n{texts[shown]}\n"
            if shown != chosen:
                continue
            other = "B" if letter == "A" else "A"
            probs = {letter: CHOSEN, other: OTHER, "C": TIE}
            rules.append({"contains": block, "reply": letter,
                          "alternatives": {k: math.log(p) for k, p in probs.items()}})  # fmt: skip
    files = []
    for model, lines in rows.items():
        path = tmp_path / f"{model}.jsonl"
        path.write_text("".join(line + "\n" for line in lines), "utf-8")
        files.append(path)
    script = tmp_path / "judge.jsonl"
    script.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rules), "utf-8")
    return files[0], files[1], script


def test_judge_pairwise_shows_raw_and_style_controlled_ratings_of_the_library(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bs2's battles are known from the lengths alone (the longer answer wins in both
    orders, but on two questions): the command's ratings are ``rate_with_style`` of those
    battles; the judge rewards length, so γ_length > 0 and the controlled ratings move."""
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("COLUMNS", "200")
    x, y, script = _pairwise_inputs(tmp_path)
    args = ["judge", "pairwise", str(x), str(y), "-j", f"scripted/{script}", "--method", "all"]
    args += ["--output", str(tmp_path / "pairs.jsonl")]
    shown = CliRunner().invoke(app, [*args, "--json"])
    assert shown.exit_code == 0, shown.output
    printed = json.loads(shown.stdout)
    battles = [
        StyledBattle(
            "x", "y", 1.0 if (a > b) != (q in CONTRARY) else 0.0,
            StyleCounts.of(f"{q}番の答え。" + "あ" * a),
            StyleCounts.of(f"{q}番の答え。" + "い" * b),
        )
        for q, (a, b) in enumerate(LENGTHS)
    ]  # fmt: skip
    expected = rate_with_style(battles)
    assert printed["methods"]["bs2"]["bradley_terry"] == expected.to_json()
    gamma = expected.controlled.coefficients
    assert list(gamma) == ["length"] and gamma["length"].estimate > 0
    raw, controlled = expected.rows()[0]
    # X won nine of twelve, mostly by writing more: held to equal length its lead shrinks
    assert raw.model == "x" and controlled.rating < raw.rating - 20
    line = printed["style_control_signature"]["line"]
    assert "kind:style-controlled-bt|features:length,markdown|" in line
    assert "length:characters" in line
    # prob: the averaged probabilities as fractional wins, the same library call
    prob = printed["methods"]["prob"]["bradley_terry"]
    assert prob["style_controlled"]["style_coefficients"]["length"]["estimate"] > 0
    raw_x, controlled_x = prob["raw"][0], prob["style_controlled"]["ratings"][0]
    assert raw_x["model"] == controlled_x["model"] == "x"
    assert controlled_x["rating"] < raw_x["rating"] - 10
    # a file whose lines came in another order (a cached reply first, a resumed run) is
    # put in the items' order: its bootstrap draws the same battles, to the last digit
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text("".join(reversed(pairs.read_text("utf-8").splitlines(True))), "utf-8")
    resumed = CliRunner().invoke(app, [*args, "--json"])
    assert json.loads(resumed.stdout)["methods"] == printed["methods"]
    # the table as typed: the raw rating beside the controlled one, γ, the signature
    again = CliRunner().invoke(app, [*args, "--control-features", "length"])
    assert again.exit_code == 0, again.output
    only_length = rate_with_style(battles, controls=("length",))
    r, c = only_length.rows()[0]
    # the draws that leave out both contrary questions are split by length alone (no
    # maximum): they count as unbounded, X's controlled rating running upward in them, so
    # its upper bound is n/a and the line under the table says why. The raw fit's draws
    # where Y never wins (under 2.5% of them) lie beyond its bounds: those are shown
    apart = only_length.controlled.separated_draws
    assert not only_length.controlled.separated and apart > 0
    assert math.isfinite(c.low) and math.isnan(c.high)
    assert 0 < only_length.raw.separated_draws < 25
    draws = f"{apart} of 1000 bootstrap draws have no finite maximum"
    assert re.search(
        rf"│ bs2 +│ x +│ +{r.rating:.1f} \[{r.low:.1f}, {r.high:.1f}\] │ "
        rf"+{c.rating:.1f} \[{c.low:.1f}, n/a\] \({draws}\) │ +12 │",
        again.output,
    ), again.output
    assert f"bs2: style-controlled intervals n/a where those draws reach a bound: {draws}" in (
        again.output
    )
    # what the column holds equal is what was asked for: length alone here
    assert "the rating with the answers' length held equal" in again.output
    assert "Markdown" not in again.output
    assert f"bs2: {only_length.coefficients_line()}" in again.output
    assert f"signature: {only_length.controlled.signature.line}" in again.output
    assert "features:length|" in only_length.controlled.signature.line
    # the judgment records keep the answers only inside the prompts: the report says so
    records = tmp_path / "pairs.jsonl"
    assert with_styles(records, read_pairs(records), None)[1] == NOT_HELD


# -- published verdicts: GPT-4 on Japanese Vicuna QA --------------------------------------


def _vicuna_battles(method_rule: str) -> list[StyledBattle]:
    """Every published line as a battle, read here: FastChat's rule for bs2 (both games
    agree: that winner; otherwise a tie), the answers the line carries."""
    battles = []
    for path in sorted(VICUNA.glob("*.jsonl")):
        for text in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(text)
            g1, g2 = row["g1_winner"], row["g2_winner"]
            assert method_rule == "bs2" and "error" not in (g1, g2)
            share = {"model_1": 1.0, "model_2": 0.0}.get(g1, 0.5) if g1 == g2 else 0.5
            battles.append(StyledBattle(
                row["model_1"], row["model_2"], share,
                StyleCounts.of(row["answer_1"]), StyleCounts.of(row["answer_2"]),
            ))  # fmt: skip
    return battles


def test_gpt4_on_ja_vicuna_qa_rewards_length_beyond_chance() -> None:
    """GPT-4's published both-order verdicts on six models against text-davinci-003 (480
    turns): ``mtbench.style_controlled`` on the lines is the library's fit on the battles
    read here; γ_length's interval lies above 0, and calm2's lead shrinks once style is
    held equal."""
    lines = [line for path in sorted(VICUNA.glob("*.jsonl")) for line in read_pair_lines(path)]
    styles = {}
    for line in lines:
        extra = line.model_extra or {}
        styles[(line.question_id, line.turn, line.model_1)] = StyleCounts.of(extra["answer_1"])
        styles[(line.question_id, line.turn, line.model_2)] = StyleCounts.of(extra["answer_2"])
    found = style_controlled(lines, ["bs2"], styles)["bs2"]
    expected = rate_with_style(_vicuna_battles("bs2"))
    assert found.to_json() == expected.to_json()
    assert expected.controlled.coefficients["length"].low > 0
    raw, controlled = expected.rows()[0]
    assert raw.model == "cyberagent--calm2-7b-chat" and controlled.rating < raw.rating - 30


# -- the report --------------------------------------------------------------------------


def _row(html: str, table_id: str, model: str) -> list[str]:
    section = html.split(f'id="{table_id}"', 1)[1].split("</table>", 1)[0]
    for row in re.findall(r"<tr>(.*?)</tr>", section, re.S):
        cells = [re.sub(r"<[^>]+>", "", c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
        if cells and cells[0] == model:
            return cells
    raise AssertionError(f"{model} not in {table_id}")


def test_pairwise_page_shows_style_and_length_controlled_columns_of_the_library() -> None:
    """calm2 against text-davinci-003 (published, answers in the lines): the page's
    controlled columns are ``style_controlled_bradley_terry`` of the bs2 battles read here,
    beside the raw ones, with γ and the signature; the length-controlled win rate against
    the baseline is ``length_controlled_winrates``."""
    outcomes, why = with_styles(CALM2, read_pairs(CALM2), SHARED_DATA)
    assert why is None
    html = pairwise_page("calm2", "pairwise/p1.html", outcomes, rounds=50, seed=0)
    battles = [b for b in _vicuna_battles("bs2") if "calm2" in b.first + b.second]
    plain = Battles.of((b.first, b.second, b.share) for b in battles)
    controlled = style_controlled_bradley_terry(
        plain, [b.first_style for b in battles], [b.second_style for b in battles],
        rounds=50, seed=0,
    )  # fmt: skip
    for rating in controlled.ratings.ratings:
        cells = _row(html, "bt-bs2", rating.model)
        assert cells[4:6] == [
            f"{rating.rating:.1f}", f"[{rating.low:.1f}, {rating.high:.1f}]"
        ]  # fmt: skip
    assert controlled.signature.line in html
    gamma = controlled.coefficients["length"].format(2)
    assert f"length {gamma}" in html.split('id="style-bs2"', 1)[1]
    baseline = "openai--text-davinci-003"
    verdicts = [
        BaselineVerdict(b.first, "", b.share, b.first_style.chars, b.second_style.chars)
        if b.second == baseline
        else BaselineVerdict(b.second, "", 1 - b.share, b.second_style.chars, b.first_style.chars)
        for b in battles
    ]
    rate = length_controlled_winrates(verdicts, baseline=baseline).rates[0]
    cells = _row(html, "lc-bs2", "cyberagent--calm2-7b-chat")
    assert cells[1:3] == [rate.raw.format(), rate.controlled.format()]


def test_pairwise_page_says_why_without_answers_and_finds_them_beside(tmp_path: Path) -> None:
    """A FastChat pair file with no answers in its lines and none beside it: no controlled
    columns, and the page says why; with answer files beside it in FastChat's layout, the
    styles are those of the answers the published lines carry."""
    rows = [json.loads(t) for t in CALM2.read_text(encoding="utf-8").splitlines()]
    data = tmp_path / "data"  # the benchmark's files, linked; judgments and answers ours
    (data / "ja-vicuna-qa").mkdir(parents=True)
    for name in ("question.jsonl", "judge_prompts.jsonl", "reference_answer"):
        (data / "ja-vicuna-qa" / name).symlink_to(SHARED_DATA / "ja-vicuna-qa" / name)
    bare = data / "ja-vicuna-qa" / "model_judgment" / "gpt-4_pair.jsonl"
    bare.parent.mkdir(parents=True)
    drop = ("answer_1", "answer_2")
    text = "".join(
        json.dumps({k: v for k, v in r.items() if k not in drop}, ensure_ascii=False) + "\n"
        for r in rows
    )
    bare.write_text(text, encoding="utf-8")
    outcomes, why = with_styles(bare, read_pairs(bare), data)
    folder = bare.parents[1] / "model_answer"
    assert why == f"its lines carry no answers and no answer files lie in {folder}"
    html = pairwise_page("bare", "pairwise/p1.html", outcomes, 20, 0, why)
    assert 'id="no-style-control"' in html and "Style-controlled" not in html
    assert 'id="lc-bs2"' not in html
    # answer files beside it, in FastChat's layout: found, and the page has its columns
    answers = folder
    answers.mkdir()
    for model in ("cyberagent--calm2-7b-chat", "openai--text-davinci-003"):
        side = "1" if rows[0]["model_1"] == model else "2"
        lines = [
            {"question_id": r["question_id"], "model_id": model,
             "choices": [{"index": 0, "turns": [r[f"answer_{side}"]]}]}
            for r in rows
        ]  # fmt: skip
        text = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
        (answers / f"{model}.jsonl").write_text(text, encoding="utf-8")
    found, why = with_styles(bare, read_pairs(bare), data)
    inline, _ = with_styles(CALM2, read_pairs(CALM2), SHARED_DATA)
    assert why is None and [o.styles for o in found] == [o.styles for o in inline]


def test_pairwise_page_reads_no_answers_under_a_variant_it_does_not_know(tmp_path: Path) -> None:
    """A pair file whose manifest records a variant this hyoka does not have: its answers
    are not cut as the default variant would cut them; the page has no controlled columns
    and says which variant the file was judged under."""
    from hyoka.judge import JudgeRun, JudgeSettings
    from hyoka.store import atomic_write_text, manifest_path

    rows = [json.loads(t) for t in CALM2.read_text(encoding="utf-8").splitlines()]
    bare = tmp_path / "jmt-bench" / "model_judgment" / "gpt-4_pair.jsonl"
    bare.parent.mkdir(parents=True)
    drop = ("answer_1", "answer_2")
    bare.write_text(
        "".join(
            json.dumps({k: v for k, v in r.items() if k not in drop}, ensure_ascii=False) + "\n"
            for r in rows
        ),
        encoding="utf-8",
    )
    (tmp_path / "jmt-bench" / "model_answer").mkdir()
    run = JudgeRun(
        kind="mtbench-pairwise", benchmark="jmt-bench", data="x", template="t",
        settings=JudgeSettings(judge="openai/gpt-4"), variant="stability@0000000.v9/none",
    )  # fmt: skip
    atomic_write_text(manifest_path(bare), run.manifest().model_dump_json())
    outcomes, why = with_styles(bare, read_pairs(bare), SHARED_DATA)
    assert all(o.styles is None for o in outcomes)
    assert why is not None
    assert why.startswith("the benchmark it was judged on is not known here: ")
    assert "judged under variant stability@0000000.v9/none, none of this hyoka's" in why


def test_benchmark_page_shows_the_length_adjusted_means_where_answers_lie_beside(
    tmp_path: Path,
) -> None:
    """pfmt's published gpt-4o-mini judgments with the answers beside them: the page's
    length-adjusted column and partial correlation are ``mtbench.length_column`` over the
    same judgments and the answer folder (``hyoka mtbench leaderboard --answers``'s);
    the same judgments copied where no answers lie give the line that says why not."""
    folder = PFMT / "model_judgment" / "gpt-4o-mini_single"
    bench = Bench.load("pfmt-fin", SHARED_DATA)
    judge_set = mt.load_judge_set("s", folder.name, sorted(folder.glob("*.jsonl")), bench)
    answers = mt.find_answers(bench, [judge_set])
    found = mt.length_result(judge_set, answers, resamples=100, seed=0)
    html = mt.category_table(judge_set, found)
    expected = length_column(judge_set.board, [PFMT / "model_answer"], resamples=100, seed=0)
    assert found.column is not None and found.column.fit.to_json() == expected.fit.to_json()
    for model in judge_set.board.models:
        adjusted = expected.adjusted(model.model)
        assert adjusted is not None
        cells = _row(html, "s-length", display_name(model.model, bench))
        assert cells[2] == f"{adjusted.estimate:.2f}"
    assert expected.note.replace("'", "&#x27;") in html
    assert expected.fit.signature.line in html
    copied = tmp_path / "elsewhere" / folder.name
    shutil.copytree(folder, copied)
    alone = mt.load_judge_set("t", copied.name, sorted(copied.glob("*.jsonl")), bench)
    missing = mt.length_result(alone, mt.find_answers(bench, [alone]), resamples=100, seed=0)
    assert missing.column is None and missing.why == mt.NO_ANSWERS
    assert 'id="t-no-length"' in mt.category_table(alone, missing)
