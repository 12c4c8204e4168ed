"""``hyoka judge meta``: every number recomputed here from the raw published lines, by other
code (plain json, scikit-learn, scipy), and every fault counted as the data's SOURCE.md says."""

from __future__ import annotations

import json
import lzma
import re
from collections import Counter, defaultdict
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from _shared import SHARED_DATA, data_mark, needs

sklearn_metrics = needs("sklearn.metrics")
scipy_stats = needs("scipy.stats")

from hyoka.cli.main import app  # noqa: E402
from hyoka.metaeval.judge_meta import (  # noqa: E402
    JudgeMetaSettings,
    JudgeRow,
    judge_meta,
    measure_judges,
    render_judge_meta,
)
from hyoka.metaeval.judge_scores import (  # noqa: E402
    Sources,
    read_pair_tables,
    read_score_table,
    read_single_folders,
)
from hyoka.stats import kendall_tau_b, rank_correlations  # noqa: E402
from hyoka.stats.kappa import quadratic_kappa  # noqa: E402

SHABERI = SHARED_DATA / "shaberi-judgments"
PFMT = SHARED_DATA / "pfmt-bench-fin-ja" / "model_judgment"
VICUNA = SHARED_DATA / "ja-vicuna-qa" / "model_judgment" / "pairwise" / "gpt-4"
FEW = JudgeMetaSettings(resamples=50)


def _row(rows: list[JudgeRow], suite: str, judge: str, template: str = "-") -> JudgeRow:
    return next(r for r in rows if (r.suite, r.judge, r.template) == (suite, judge, template))


# --- the statistics against independent implementations ---------------------------------


def test_quadratic_kappa_equals_scikit_learn() -> None:
    rng = np.random.default_rng(7)
    first = rng.integers(0, 10, 500)
    second = np.clip(first + rng.integers(-2, 3, 500), 0, 9)
    second[:40] = rng.integers(0, 10, 40)
    ours = quadratic_kappa(first, second, 10)
    theirs = sklearn_metrics.cohen_kappa_score(
        first, second, weights="quadratic", labels=list(range(10))
    )
    assert ours == pytest.approx(theirs, abs=1e-12)


def test_rank_correlations_of_each_draw_equal_scipy_on_the_drawn_models() -> None:
    """Two resamples per seed (the fewest an interval takes): its bounds, computed from draw
    counts, are the percentiles of scipy's Spearman and Kendall on the drawn models listed
    out (repeats and ties included)."""
    rng = np.random.default_rng(3)
    x = np.round(rng.normal(size=40), 1)  # ties, as model means have
    y = np.round(x + rng.normal(size=40), 1)
    for seed in range(4):
        draws = np.random.default_rng(seed).integers(0, 40, size=(2, 40))
        two = rank_correlations(x, y, resamples=2, seed=seed)
        for got, correlate in ((two.spearman, scipy_stats.spearmanr),
                               (two.kendall, scipy_stats.kendalltau)):  # fmt: skip
            theirs = [correlate(x[draw], y[draw])[0] for draw in draws]
            assert [got.low, got.high] == pytest.approx(np.quantile(theirs, [0.025, 0.975]))
    full = rank_correlations(x, y, resamples=200)
    assert full.spearman.estimate == pytest.approx(scipy_stats.spearmanr(x, y)[0])
    assert full.kendall.estimate == pytest.approx(kendall_tau_b(x.tolist(), y.tolist()))
    assert full.kendall.low < full.kendall.estimate < full.kendall.high


# --- pfmt-bench-fin-ja: two published judges on the same answers -------------------------


def _pfmt_grades(judge: str) -> dict[tuple[str, int, str], float]:
    grades = {}
    for path in sorted((PFMT / f"{judge}_single").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            grades[str(row["question_id"]), row["turn"], row["model"]] = row["score"]
    return grades


@data_mark(PFMT)
def test_pfmt_judges_agree_as_recomputed_from_their_lines() -> None:
    table = read_single_folders([PFMT / "gpt-4o_single", PFMT / "gpt-4o-mini_single"], SHARED_DATA)
    meta = measure_judges(table, settings=FEW)
    row = _row(meta.rows, "pfmt-bench-fin-ja", "gpt-4o-mini", "(all)")
    assert row.reference == "gpt-4o"  # equal overlap: the first by name
    big, mini = _pfmt_grades("gpt-4o"), _pfmt_grades("gpt-4o-mini")
    shared = sorted(k for k in big.keys() & mini.keys() if big[k] >= 0 and mini[k] >= 0)
    a = np.array([big[k] for k in shared])
    b = np.array([mini[k] for k in shared])
    assert row.shared_items == len(shared) == 6477
    assert row.exact is not None and row.kappa is not None
    assert row.exact.estimate == pytest.approx(np.mean(a == b))
    assert row.kappa.estimate == pytest.approx(
        sklearn_metrics.cohen_kappa_score(a, b, weights="quadratic", labels=list(range(11)))
    )
    models = sorted({k[2] for k in shared})
    own = [np.mean([mini[k] for k in shared if k[2] == m]) for m in models]
    ref = [np.mean([big[k] for k in shared if k[2] == m]) for m in models]
    assert row.shared_models == len(models) == 9
    assert row.spearman is not None and row.kendall is not None
    assert row.spearman.estimate == pytest.approx(scipy_stats.spearmanr(own, ref).statistic)
    assert row.kendall.estimate == pytest.approx(scipy_stats.kendalltau(own, ref).statistic)
    reference = _row(meta.rows, "pfmt-bench-fin-ja", "gpt-4o", "(all)")
    assert reference.missing == sum(score == -1 for score in big.values()) == 3


def _templated_grades(judge: str) -> dict[str, dict[tuple[str, int, str], float]]:
    """template -> (question, turn, model) -> score, from the lines' ``judge`` field."""
    grades: dict[str, dict[tuple[str, int, str], float]] = defaultdict(dict)
    for path in sorted((PFMT / f"{judge}_single").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            key = (str(row["question_id"]), row["turn"], row["model"])
            grades[row["judge"][1]][key] = row["score"]
    return grades


@data_mark(PFMT)
def test_pfmt_rows_per_template_compare_grades_made_with_the_same_template() -> None:
    """One row per (judge, template) beside the judge's (all) row, each template's
    agreement recomputed with plain json and scikit-learn on the items both judges graded
    with that template; the templates are those the lines name, every one."""
    table = read_single_folders([PFMT / "gpt-4o_single", PFMT / "gpt-4o-mini_single"], SHARED_DATA)
    meta = measure_judges(table, settings=FEW)
    big, mini = _templated_grades("gpt-4o"), _templated_grades("gpt-4o-mini")
    assert len(mini) == 4 and set(mini) == set(big)  # single-v1, single-math-v1, -multi-turn
    rows = [r for r in meta.rows if r.judge == "gpt-4o-mini"]
    assert [r.template for r in rows] == ["(all)", *sorted(mini)]
    assert [r.breakdown for r in rows] == [False, True, True, True, True]
    for template, grades in mini.items():
        row = _row(meta.rows, "pfmt-bench-fin-ja", "gpt-4o-mini", template)
        theirs = big[template]
        both = grades.keys() & theirs.keys()
        shared = sorted(k for k in both if grades[k] >= 0 and theirs[k] >= 0)
        a = np.array([theirs[k] for k in shared])
        b = np.array([grades[k] for k in shared])
        assert row.judgments == len(grades) and row.shared_items == len(shared) > 0
        assert row.reference == "gpt-4o"
        assert row.exact is not None and row.kappa is not None
        assert row.exact.estimate == pytest.approx(np.mean(a == b))
        assert row.kappa.estimate == pytest.approx(
            sklearn_metrics.cohen_kappa_score(a, b, weights="quadratic", labels=list(range(11)))
        )
    # the (all) row is the sum of its templates' items
    whole = _row(meta.rows, "pfmt-bench-fin-ja", "gpt-4o-mini", "(all)")
    assert whole.shared_items == sum(r.shared_items for r in rows[1:]) == 6477
    # the template is a column of every format, and of the judges page
    assert "| pfmt-bench-fin-ja | gpt-4o-mini | single-math-v1 |" in render_judge_meta(meta, "md")
    flat = json.loads(render_judge_meta(meta, "json"))["rows"]
    assert [r["template"] for r in flat if r["judge"] == "gpt-4o-mini"] == [
        r.template for r in rows
    ]
    assert "gpt-4o-mini,single-math-v1," in render_judge_meta(meta, "csv")


STABILITY = SHARED_DATA / "jmt-bench" / "model_judgment" / "gpt-4_single.jsonl"


@data_mark(STABILITY)
def test_stability_jmt_bench_turns_judged_twice_are_the_repeats() -> None:
    """Stability's published GPT-4 single grades hold turns judged twice (other replies,
    other times): each (model, question, turn) with more than one line is a repeat, its
    grades' spread the judge's variance; counted here with plain json. The file holds rows
    of two variants (their judged prompts show which: ``judged_variant``), each a suite of
    its own, so the counts and the spread are summed over both."""
    lines = [json.loads(t) for t in STABILITY.read_text(encoding="utf-8").splitlines()]
    by_key: dict[tuple[str, str, int], list[float]] = defaultdict(list)
    template: dict[tuple[str, str, int], str] = {}
    for line in lines:
        key = (line["model"], str(line["question_id"]), line["turn"])
        by_key[key].append(line["score"])
        template[key] = line["judge"][1]
    twice = {key: grades for key, grades in by_key.items() if len(grades) > 1}
    meta = measure_judges(read_single_folders([STABILITY], SHARED_DATA), settings=FEW)
    rows = [r for r in meta.rows if r.template == "(all)"]
    assert sorted(r.suite for r in rows) == [
        "jmt-bench (stability@aed16da)", "jmt-bench (stability@aedb44e)"
    ]  # fmt: skip
    assert sum(r.judgments for r in rows) == len(by_key)
    assert len(by_key) + len(twice) == len(lines)
    assert sum(r.repeats or 0 for r in rows) == len(twice) == 4
    assert sum(r.repeats_differing or 0 for r in rows) == 1
    assert sum(len(set(g)) > 1 for g in twice.values()) == 1
    spread = [float(np.std(g, ddof=1)) for g in twice.values()]
    same = [len(set(g)) == 1 for g in twice.values()]
    for row in rows:
        assert row.repeat_sd is not None and row.repeat_agreement is not None
        assert row.repeat_sd.low <= row.repeat_sd.estimate <= row.repeat_sd.high
    # each suite's estimate is a mean over its repeated items: weighted, they are all's
    assert sum(r.repeat_sd.estimate * (r.repeats or 0) for r in rows if r.repeat_sd) == (
        pytest.approx(sum(spread))
    )
    assert sum(
        r.repeat_agreement.estimate * (r.repeats or 0) for r in rows if r.repeat_agreement
    ) == pytest.approx(sum(same))
    for name in set(template.values()):
        parts = [r for r in meta.rows if r.template == name]
        assert sum(p.repeats or 0 for p in parts) == sum(template[key] == name for key in twice)
    assert not any("jmt-bench" in note for note in meta.notes)


@data_mark(PFMT)
def test_a_second_run_of_a_judge_given_beside_the_first_is_its_repeats(tmp_path: Path) -> None:
    """A judge's grades of the same answers in a second folder are repeats of the first
    run's: here gpt-4o-mini's published grades of claude-2.1 again (at other times: the
    same lines again would be a copy), every seventh grade on the scale moved one step, the
    spread recomputed with numpy."""
    again = tmp_path / "pfmt-bench-fin-ja" / "model_judgment" / "gpt-4o-mini_again"
    again.mkdir(parents=True)
    first = [json.loads(t) for t in (PFMT / "gpt-4o-mini_single" / "claude-2.1.jsonl")
             .read_text(encoding="utf-8").splitlines()]  # fmt: skip
    second = [
        {**line, "tstamp": line["tstamp"] + 86400,
         "score": line["score"] - 1 if k % 7 == 0 and line["score"] > 0 else line["score"]}
        for k, line in enumerate(first)
    ]  # fmt: skip
    _write(again / "claude-2.1.jsonl", second)
    meta = measure_judges(
        read_single_folders([PFMT / "gpt-4o-mini_single", again], SHARED_DATA), settings=FEW
    )
    row = _row(meta.rows, "pfmt-bench-fin-ja", "gpt-4o-mini", "(all)")
    pairs = [(a["score"], b["score"]) for a, b in zip(first, second, strict=True)]
    graded = [(a, b) for a, b in pairs if a >= 0 and b >= 0]
    assert row.judgments == 6480 and row.repeats == len(first) == 720
    assert row.repeats_differing == sum(a != b for a, b in pairs) > 90
    assert row.repeat_sd is not None and row.repeat_agreement is not None
    assert row.repeat_sd.estimate == pytest.approx(np.mean([np.std(p, ddof=1) for p in graded]))
    assert row.repeat_agreement.estimate == pytest.approx(np.mean([a == b for a, b in graded]))


@data_mark(PFMT)
def test_no_repeats_leave_the_variance_empty_and_say_why() -> None:
    meta = measure_judges(
        read_single_folders([PFMT / "gpt-4o-mini_single"], SHARED_DATA), settings=FEW
    )
    row = meta.rows[0]
    assert row.repeats == 0 and row.repeat_sd is None and row.repeat_agreement is None
    assert meta.notes == [
        "pfmt-bench-fin-ja, gpt-4o-mini: no variance across repeats: no item was graded twice"
    ]
    text = render_judge_meta(meta, "md")
    assert "Notes (why a cell is empty):" in text
    flat = render_judge_meta(meta, "csv").splitlines()
    header = flat[0].split(",")
    at = header.index("repeat_sd_estimate")
    assert all(line.split(",")[at] == "" for line in flat[1:])


@data_mark(PFMT)
def test_pfmt_length_bias_counts_pairs_of_answers_graded_differently() -> None:
    answers = PFMT.parent / "model_answer"
    lengths = {}
    for path in answers.glob("*.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            for turn, text in enumerate(row["choices"][0]["turns"], start=1):
                lengths[str(row["question_id"]), turn, path.stem] = len(text)
    grades = _pfmt_grades("gpt-4o-mini")
    by_item: dict[tuple[str, int], list[tuple[float, int]]] = defaultdict(list)
    for (question, turn, model), score in grades.items():
        if score >= 0:
            by_item[question, turn].append((score, lengths[question, turn, model]))
    hits = counted = 0
    for graded in by_item.values():
        for i, (s1, l1) in enumerate(graded):
            for s2, l2 in graded[i + 1 :]:
                if s1 != s2 and l1 != l2:
                    counted += 1
                    hits += (s1 > s2) == (l1 > l2)
    table = read_single_folders([PFMT / "gpt-4o-mini_single"], SHARED_DATA)
    row = measure_judges(table, settings=FEW).rows[0]
    assert row.length_comparisons == counted
    assert row.longer_preferred is not None
    assert row.longer_preferred.estimate == pytest.approx(hits / counted)


# --- Japanese Vicuna QA: both orders -----------------------------------------------------


@data_mark(VICUNA)
def test_vicuna_position_bias_and_consistency_equal_a_direct_count() -> None:
    """Counted here from the raw lines, each game once: the README's rule (only the first
    judgment of an item counts outside the repeat cells) makes a game judged again (the
    same question, turn and answers in the same order: two models gave one answer) a
    repeat, not a second game, in position, length and order consistency alike."""
    lines = [
        json.loads(line)
        for path in sorted(VICUNA.glob("*.jsonl"))
        for line in path.read_text(encoding="utf-8").splitlines()
    ]
    first = second = longer = compared = agree = pairs = again = 0
    seen: set[tuple[str, int, str, str]] = set()
    for x in lines:
        games = (
            (x["g1_winner"], "model_1", "model_2", x["answer_1"], x["answer_2"]),
            (x["g2_winner"], "model_2", "model_1", x["answer_2"], x["answer_1"]),
        )
        new = 0
        for winner, shown_first, shown_second, text_first, text_second in games:
            key = (str(x["question_id"]), x.get("turn", 1), text_first, text_second)
            if key in seen:
                again += 1
                continue
            seen.add(key)
            new += 1
            first += winner == shown_first
            second += winner == shown_second
            if winner in (shown_first, shown_second) and len(text_first) != len(text_second):
                compared += 1
                longer += (len(text_first) > len(text_second)) == (winner == shown_first)
        if new and "error" not in (x["g1_winner"], x["g2_winner"]):
            pairs += 1
            agree += x["g1_winner"] == x["g2_winner"]
    meta = measure_judges(None, read_pair_tables([VICUNA]), FEW)
    row = _row(meta.rows, "ja-vicuna-qa", "gpt-4", "(all)")
    # 444, 483 and 480 pairs of orders before the repeats were taken out: the 4 games
    # judged again are the two orders of 2 pairs, one of those games decisive
    assert again == 4 and (first, second) == (443, 483) and pairs == 478
    assert row.decisive_games == first + second
    assert row.first_position is not None
    assert row.first_position.estimate == pytest.approx(first / (first + second))
    assert row.consistency is not None and row.consistency_pairs == pairs
    assert row.consistency.estimate == pytest.approx(agree / pairs)
    assert row.longer_preferred is not None and row.length_comparisons == compared
    assert row.longer_preferred.estimate == pytest.approx(longer / compared)
    # two models gave one answer to one question: that game was judged twice (8 replies)
    assert row.repeats == 4
    templates = {r.template: r.judgments for r in meta.rows}
    assert templates == {"(all)": 960, "pair": 840, "pair-math": 120}


# --- faults: counted and named, never dropped silently -----------------------------------


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def test_missing_and_off_scale_grades_are_named_and_left_out(tmp_path: Path) -> None:
    suite = "yuzuai__rakuda-questions"  # 1-10
    rows = []
    for model in ("m1", "m2", "m3", "m4"):
        for item in range(5):
            base = {"suite": suite, "model": model, "item": str(item)}
            rows.append({**base, "judge": "a", "score": 1 + (item + len(model)) % 10})
            rows.append({**base, "judge": "b", "score": 1 + (item * 2) % 10})
    rows[1]["score"] = None
    rows[3]["score"] = 0
    rows[5]["score"] = 5.5
    table = read_score_table(_write(tmp_path / "grades.jsonl", rows))
    meta = measure_judges(table, settings=FEW)
    b = _row(meta.rows, suite, "b")
    assert (b.missing, b.off_scale, b.off_scale_values) == (1, 2, {"0": 1, "5.5": 1})
    assert b.judgments == 20 and b.shared_items == 17
    assert f"{suite}, b: 1 grade missing (null / no rating)" in meta.faults
    assert f"{suite}, b: 2 grades off the 1-10 scale (0 ×1, 5.5 ×1)" in meta.faults
    text = render_judge_meta(meta, "md")
    assert "2 grades off the 1-10 scale (0 ×1, 5.5 ×1)" in text and "judge-meta" in text


def test_a_second_grade_of_one_item_is_refused_with_one_line(tmp_path: Path) -> None:
    row = {"judge": "a", "suite": "s", "model": "m", "item": "1", "score": 3}
    path = _write(tmp_path / "twice.jsonl", [row, {**row, "score": 4}])
    result = CliRunner().invoke(app, ["judge", "meta", "--scores", str(path)])
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        f"error: {path}: a second grade of (judge='a', suite='s', model='m', item='1'), "
        "objects 1 and 2"
    ]


def test_cli_writes_csv_and_names_an_unknown_reference(tmp_path: Path) -> None:
    rows = [
        {"judge": judge, "suite": "s", "model": f"m{m}", "item": str(i), "score": (m * i) % 5}
        for judge in ("x", "y")
        for m in range(4)
        for i in range(3)
    ]
    path = _write(tmp_path / "g.jsonl", rows)
    out = tmp_path / "judges.csv"
    runner = CliRunner()
    result = runner.invoke(
        app, ["judge", "meta", "--scores", str(path), "-f", "csv", "--output", str(out),
              "--reference", "y", "--resamples", "20"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    header, *lines = out.read_text(encoding="utf-8").splitlines()
    assert header.startswith("source,suite,judge,template,models,judgments,missing")
    assert [line.split(",")[2] for line in lines] == ["x", "y"]
    bad = runner.invoke(app, ["judge", "meta", "--scores", str(path), "--reference", "z"])
    assert bad.exit_code == 1
    assert bad.output.startswith("error: --reference 'z': no such judge; judges: x, y")


# --- the whole Shaberi table ----------------------------------------------------------------


def _source_table() -> list[tuple[str, str, int, int, int]]:
    """SOURCE.md's own table: judge, suite, models, lines, null scores."""
    text = (SHABERI / "SOURCE.md").read_text(encoding="utf-8")
    found = []
    for match in re.finditer(
        r"^\| (\S+) \| (\S+) \| ([\d,]+) \| ([\d,]+) \| ([\d,]+) \|", text, re.M
    ):
        judge, suite, *numbers = match.groups()
        found.append((judge, suite, *(int(n.replace(",", "")) for n in numbers)))
    return found  # type: ignore[return-value]


@pytest.mark.slow
@data_mark(SHABERI, PFMT, VICUNA)
def test_shaberi_faults_and_a_suite_recomputed_from_the_raw_lines() -> None:
    """Every count of SOURCE.md/stats.json, and Rakuda's gpt-4-turbo-preview against
    llama33 recomputed from the inflated lines with plain json, scikit-learn and scipy."""
    sources = Sources(
        scores=(SHABERI / "scores.jsonl.xz",),
        single=(PFMT / "gpt-4o_single", PFMT / "gpt-4o-mini_single"),
        pairwise=(VICUNA,),
        data_dir=SHARED_DATA,
    )
    settings = JudgeMetaSettings(reference=("llmjudge-llama33", "gpt-4o"), resamples=50)
    meta = judge_meta(sources, settings)
    stats = json.loads((SHABERI / "stats.json").read_text(encoding="utf-8"))
    published = _source_table()
    assert len(published) == 28
    for judge, suite, models, lines, nulls in published:
        row = _row(meta.rows, suite, judge)
        assert (row.models, row.judgments, row.missing) == (models, lines, nulls)
        assert row.models == stats["models_per_judge_suite"][f"{judge} | {suite}"]
    shaberi = [r for r in meta.rows if r.suite in {p[1] for p in published}]
    assert sum(r.missing for r in shaberi) == stats["stats"]["score_null"] == 7462
    assert sum(r.judgments for r in shaberi) == stats["stats"]["lines_written"]
    # SOURCE.md: 11 ×5 (athenev2) and 12 ×7 (llama33) on Tengu; 0 on the 1-5/1-10 scales
    # (tulu405 ELYZA ×41, llama33 mt-bench ×23, gpt-4.1 ×5, others ×3); one 5.8
    off: Counter[str] = Counter()
    for r in shaberi:
        off.update(r.off_scale_values)
    assert off == {"11": 5, "12": 7, "0": 41 + 23 + 5 + 3, "5.8": 1}
    assert _row(shaberi, "elyza__ELYZA-tasks-100", "llmjudge-tulu405").off_scale_values == {"0": 41}
    legacy = [r for r in shaberi if r.legacy_models]
    assert sorted((r.judge, r.legacy_models) for r in legacy) == [
        ("gpt-4-turbo-preview", 23), ("llmjudge-athenev2", 23), ("llmjudge-llama33", 23),
        ("llmjudge-tulu405", 23),
    ]  # fmt: skip

    suite, scale = "yuzuai__rakuda-questions", range(1, 11)
    grades: dict[str, dict[tuple[str, str], float]] = {
        "gpt-4-turbo-preview": {},
        "llmjudge-llama33": {},
    }
    with lzma.open(SHABERI / "scores.jsonl.xz", "rt", encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            score = row["score"]
            if row["suite"] == suite and row["judge"] in grades and score in scale:
                grades[row["judge"]][row["model"], row["item"]] = score
    other, ref = grades["gpt-4-turbo-preview"], grades["llmjudge-llama33"]
    shared = sorted(other.keys() & ref.keys())
    a, b = np.array([other[k] for k in shared]), np.array([ref[k] for k in shared])
    ours = _row(meta.rows, suite, "gpt-4-turbo-preview")
    assert ours.reference == "llmjudge-llama33" and ours.shared_items == len(shared)
    assert ours.exact is not None and ours.kappa is not None
    assert ours.exact.estimate == pytest.approx(np.mean(a == b))
    assert ours.kappa.estimate == pytest.approx(
        sklearn_metrics.cohen_kappa_score(a, b, weights="quadratic", labels=list(scale))
    )
    rated = sorted({m for m, _ in shared})
    mean_a = [np.mean([other[k] for k in shared if k[0] == m]) for m in rated]
    mean_b = [np.mean([ref[k] for k in shared if k[0] == m]) for m in rated]
    assert ours.spearman is not None and ours.kendall is not None
    assert ours.spearman.estimate == pytest.approx(scipy_stats.spearmanr(mean_a, mean_b).statistic)
    assert ours.kendall.estimate == pytest.approx(scipy_stats.kendalltau(mean_a, mean_b).statistic)
    assert _row(meta.rows, "pfmt-bench-fin-ja", "gpt-4o-mini", "(all)").reference == "gpt-4o"
    # the table keeps one grade per item (SOURCE.md: its 8 duplicate rows were dropped when
    # it was made): no repeat can show, so the cells are empty and one note says why
    assert all(r.repeats is None and r.repeat_sd is None for r in shaberi)
    judges = sorted({judge for judge, *_ in published})
    assert meta.notes[0] == (
        f"scores ({', '.join(judges)}): no variance across repeats: a table of grades holds "
        "one grade per item (a second is refused), so a repeat cannot show"
    )


# --- the report's judges page ------------------------------------------------------------


@data_mark(PFMT, VICUNA)
def test_judges_page_shows_the_library_numbers(tmp_path: Path) -> None:
    from hyoka.report.judges_page import judges_page

    table = read_single_folders([PFMT / "gpt-4o_single", PFMT / "gpt-4o-mini_single"], SHARED_DATA)
    meta = measure_judges(table, read_pair_tables([VICUNA]), FEW, ["not found: a source"])
    html = judges_page(meta)
    mini = _row(meta.rows, "pfmt-bench-fin-ja", "gpt-4o-mini", "(all)")
    vicuna = _row(meta.rows, "ja-vicuna-qa", "gpt-4", "(all)")
    assert mini.kappa is not None and vicuna.first_position is not None
    for interval in (mini.kappa, mini.spearman, vicuna.first_position, vicuna.consistency):
        assert interval is not None
        assert f"{interval.estimate:.3f} <span" in html
        assert f"[{interval.low:.3f}, {interval.high:.3f}]" in html
    assert "n=926" in html and "n=478" in html and "<svg" in html
    assert "<li>not found: a source</li>" in html
    # one row per template, the template a column; the notes say why cells are empty
    assert "<td>single-math-v1-multi-turn</td>" in html and ">template<" in html
    assert all(f"<li>{note}</li>" in html for note in meta.notes) and meta.notes
    assert str(meta.signature) in html


def test_pairwise_tokens_price_and_games_without_a_verdict(tmp_path: Path) -> None:
    """Token counts where every line has them (hyoka's pair files), priced at the user's
    prices; a game without a verdict is counted, named and left out of the shares."""
    lines = []
    for question in range(4):
        lines.append({
            "question_id": question, "model_1": "a", "model_2": "b", "turn": 1,
            "judge": ["j", "pair-v2"], "g1_winner": "model_1",
            "g2_winner": "error" if question == 0 else "model_1",
            "usage": {"prompt_tokens": 1000, "completion_tokens": 100},
        })  # fmt: skip
    path = _write(tmp_path / "j_pair.jsonl", lines)
    settings = JudgeMetaSettings(resamples=20, price_in=2.5, price_out=10.0)
    meta = measure_judges(None, read_pair_tables([path]), settings)
    (row,) = meta.rows
    assert (row.judgments, row.missing, row.decisive_games, row.consistency_pairs) == (8, 1, 7, 3)
    assert row.tokens_per_100 == pytest.approx(100 * 4 * 1100 / 8)
    assert row.price_per_100 == pytest.approx(100 * 4 * (1000 * 2.5 + 100 * 10.0) / 1e6 / 8)
    assert meta.faults == ["j_pair, j: 1 game without a verdict"]
    assert row.repeats is None and row.longer_preferred is None  # no answers in the lines


def test_human_labels_as_the_reference_across_two_tables(tmp_path: Path) -> None:
    grades: list[dict[str, Any]] = [
        {"judge": "judge", "suite": "elyza__ELYZA-tasks-100", "model": f"m{m}", "item": str(i),
         "score": 1 + (m + i) % 5}
        for m in range(5) for i in range(4)
    ]  # fmt: skip
    human = [{**row, "judge": "human", "score": 1 + (int(row["score"]) % 5)} for row in grades]
    sources = Sources(scores=(_write(tmp_path / "judge.jsonl", grades),
                              _write(tmp_path / "human.jsonl", human)))  # fmt: skip
    meta = judge_meta(sources, JudgeMetaSettings(reference=("human",), resamples=20))
    row = _row(meta.rows, "elyza__ELYZA-tasks-100", "judge")
    assert row.reference == "human" and row.shared_items == 20
    a = np.array([r["score"] for r in grades])
    b = np.array([r["score"] for r in human])
    assert row.kappa is not None
    assert row.kappa.estimate == pytest.approx(
        sklearn_metrics.cohen_kappa_score(a, b, weights="quadratic", labels=[1, 2, 3, 4, 5])
    )


@pytest.mark.parametrize(
    ("bad", "why"),
    [({"score": "5"}, "'score' must be a number or null"),
     ({"model": ""}, "'model' must be a non-empty string"),
     ({"score": True}, "'score' must be a number or null")],
)  # fmt: skip
def test_a_bad_grade_line_is_one_error_naming_file_and_line(
    tmp_path: Path, bad: dict[str, Any], why: str
) -> None:
    row = {"judge": "a", "suite": "s", "model": "m", "item": "1", "score": 3}
    path = _write(tmp_path / "bad.jsonl", [row, {**row, "item": "2", **bad}])
    result = CliRunner().invoke(app, ["judge", "meta", "--scores", str(path)])
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [f"error: {path}:2: {why}"]


def test_a_model_name_from_a_judgment_line_never_reads_outside_model_answer(
    tmp_path: Path,
) -> None:
    """A judgment line naming model ``../../x`` would have read ``<root>/x.jsonl`` as its
    answers: its name is no file name, so its lengths are unknown (NaN), as for a model
    whose answer file is absent; the other model's lengths are read as before."""
    bench = tmp_path / "bench"
    folder = bench / "model_judgment" / "j_single"
    folder.mkdir(parents=True)
    (bench / "model_answer").mkdir()
    grades = [{"question_id": 1, "model": m, "judge": ["j", "p"], "judgment": f"[[{s}]]",
               "score": s, "turn": 1} for m, s in (("m", 7), ("../../x", 3))]  # fmt: skip
    (folder / "all.jsonl").write_text("".join(json.dumps(g) + "\n" for g in grades), "utf-8")
    answer = {"question_id": 1, "model_id": "m", "choices": [{"index": 0, "turns": ["abc"]}]}
    (bench / "model_answer" / "m.jsonl").write_text(json.dumps(answer) + "\n", "utf-8")
    outside = {**answer, "choices": [{"index": 0, "turns": ["outside!"]}]}
    (tmp_path / "x.jsonl").write_text(json.dumps(outside) + "\n", "utf-8")
    table = read_single_folders([folder])
    length = {table.models[m]: n for m, n in zip(table.model, table.length, strict=True)}
    assert length["m"] == 3.0
    assert np.isnan(length["../../x"])


@data_mark(PFMT)
def test_intervals_do_not_depend_on_what_else_is_read(tmp_path: Path) -> None:
    """A table numbers models in the order it first sees them; a third judge's file read
    first, naming the models in reverse order, leaves gpt-4o-mini's intervals as they were
    (the bootstrap draws models numbered by name)."""
    lines = []
    for path in sorted((PFMT / "gpt-4o-mini_single").glob("*.jsonl"), reverse=True):
        first = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
        first["judge"] = ["extra-judge", first["judge"][1]]
        first["tstamp"] += 60  # its own call (the same time and reply would be a copy)
        lines.append(first)
    extra = _write(tmp_path / "extra-judge_single.jsonl", lines)
    settings = JudgeMetaSettings(resamples=50, reference=("gpt-4o",))
    folders = [PFMT / "gpt-4o_single", PFMT / "gpt-4o-mini_single"]
    alone = measure_judges(read_single_folders(folders, SHARED_DATA), settings=settings)
    beside = measure_judges(read_single_folders([extra, *folders], SHARED_DATA), settings=settings)
    ours = _row(alone.rows, "pfmt-bench-fin-ja", "gpt-4o-mini", "(all)")
    theirs = _row(beside.rows, "pfmt-bench-fin-ja", "gpt-4o-mini", "(all)")
    assert ours.shared_items == theirs.shared_items == 6477
    for name in ("exact", "kappa", "spearman", "kendall", "longer_preferred"):
        assert getattr(ours, name) is not None, name
        assert getattr(ours, name) == getattr(theirs, name), name


# --- counting: a game judged twice is one game; grades of any size ----------------------


def test_a_pairwise_game_judged_twice_counts_once_outside_the_repeat_cells(
    tmp_path: Path,
) -> None:
    """The README's rule: only the first judgment of an item counts anywhere but the repeat
    cells. A pair judged again (the same question and answers, both orders) with other
    verdicts is a repeat: position, length and order consistency count its first
    judgment only, and the repeats cell counts both of its games."""
    line = {"question_id": 1, "model_1": "a", "model_2": "b", "turn": 1,
            "judge": ["j", "pair"], "answer_1": "長い答えです", "answer_2": "短い"}  # fmt: skip
    lines = [
        # a (the longer answer) wins in both orders: one game won by the answer shown
        # first, one by the answer shown second, both by the longer; the orders agree
        {**line, "g1_winner": "model_1", "g2_winner": "model_1"},
        # judged again: the answer shown first wins both games (the orders disagree)
        {**line, "g1_winner": "model_1", "g2_winner": "model_2"},
        # another question, one decisive game (b, the shorter, shown second) and a tie
        {**line, "question_id": 2, "g1_winner": "model_2", "g2_winner": "tie"},
    ]
    path = _write(tmp_path / "j_pair.jsonl", lines)
    args = ["judge", "meta", "--pairwise", str(path), "--resamples", "50", "-f", "json"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    (row,) = json.loads(result.stdout)["rows"]
    assert row["judgments"] == 6 and row["repeats"] == 2 and row["repeats_differing"] == 1
    # first judgments only: question 1's two games, question 2's decisive one
    assert row["decisive_games"] == 3
    assert row["first_position"]["estimate"] == pytest.approx(1 / 3)
    assert row["length_comparisons"] == 3
    assert row["longer_preferred"]["estimate"] == pytest.approx(2 / 3)
    # order consistency over the two pairs judged first: question 1 agrees, 2 does not
    assert row["consistency_pairs"] == 2
    assert row["consistency"]["estimate"] == pytest.approx(1 / 2)


def _exact_quadratic_kappa(first: list[float], second: list[float]) -> float:
    """Quadratic-weighted kappa in exact rational arithmetic, weights the squared
    difference of the grades (whole numbers of any size)."""
    pairs = [(Fraction(x), Fraction(y)) for x, y in zip(first, second, strict=True)]
    n = len(pairs)
    observed = sum((x - y) ** 2 for x, y in pairs) / n
    expected = sum((x - y) ** 2 for x, _ in pairs for _, y in pairs) / (n * n)
    return float(1 - observed / expected)


def test_a_grade_of_1e308_is_computed_not_a_traceback(tmp_path: Path) -> None:
    """On a suite of unknown scale every whole number is a grade: one of 1e308 (its
    square and the judge's sum overflow a float) gives the judge's mean and the weighted
    kappa as exact arithmetic gives them, not an OverflowError; on a known scale it is an
    off-scale grade, named in powers of ten."""
    grades: list[dict[str, Any]] = [
        {"judge": judge, "suite": "custom", "model": f"m{m}", "item": str(i),
         "score": 1 + (m * i + (judge == "y") * i) % 7}
        for judge in ("x", "y") for m in range(4) for i in range(5)
    ]  # fmt: skip
    grades[3]["score"] = grades[8]["score"] = 1e308
    path = _write(tmp_path / "huge.jsonl", grades)
    args = ["judge", "meta", "--scores", str(path), "--resamples", "20", "-f", "json"]
    result = CliRunner().invoke(app, [*args, "--reference", "y"])
    assert result.exit_code == 0, result.output
    rows = {row["judge"]: row for row in json.loads(result.stdout)["rows"]}
    x = [float(g["score"]) for g in grades if g["judge"] == "x"]
    y = [float(g["score"]) for g in grades if g["judge"] == "y"]
    assert rows["x"]["mean"] == pytest.approx(float(sum(map(Fraction, x)) / len(x)), rel=1e-12)
    assert rows["x"]["kappa"]["estimate"] == pytest.approx(_exact_quadratic_kappa(x, y))
    assert rows["x"]["exact"]["estimate"] == pytest.approx(
        sum(a == b for a, b in zip(x, y, strict=True)) / len(x)
    )
    table = CliRunner().invoke(app, args[:-2])
    assert table.exit_code == 0, table.output
    assert "| custom | x | - | 4 | 20 | 0 | - | 1e+307 |" in table.output
    as_json = CliRunner().invoke(app, [*args[:-2], "--json", "--reference", "y"])
    assert as_json.exit_code == 0 and as_json.stdout == result.stdout  # --json: -f json
    known = _write(
        tmp_path / "known.jsonl", [{**g, "suite": "elyza__ELYZA-tasks-100"} for g in grades]
    )
    shown = CliRunner().invoke(
        app, ["judge", "meta", "--scores", str(known), "--resamples", "20", "-f", "json"]
    )
    assert shown.exit_code == 0, shown.output
    faults = json.loads(shown.stdout)["faults"]
    assert "elyza__ELYZA-tasks-100, x: 5 grades off the 1-5 scale (1e+308 ×2, 6 ×1, 7 ×2)" in faults


# --- inputs: the same file reached twice is read once; a copy is refused ----------------


def _meta_json(*args: str) -> list[dict[str, Any]]:
    result = CliRunner().invoke(
        app,
        ["judge", "meta", *args, "--resamples", "20", "-f", "json", "--data-dir", str(SHARED_DATA)],
    )
    assert result.exit_code == 0, result.output
    rows: list[dict[str, Any]] = json.loads(result.stdout)["rows"]
    return rows


def _published_lines(path: Path, count: int) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as lines:
        return [json.loads(next(lines)) for _ in range(count)]


@data_mark(PFMT)
@data_mark(VICUNA)
def test_a_file_given_twice_or_with_its_folder_is_read_once(tmp_path: Path) -> None:
    """``--single F --single F``, a folder and a file in it, a link to it: one file, read
    once (its lines were counted as repeats of themselves, the same on every repeat);
    pairwise files and tables of grades likewise. A second run of the judge (its own time
    stamps) still repeats."""
    single = tmp_path / "pfmt-bench-fin-ja" / "model_judgment" / "gpt-4o_single"
    single.mkdir(parents=True)
    graded = _write(single / "claude-2.1.jsonl",
                    _published_lines(PFMT / "gpt-4o_single" / "claude-2.1.jsonl", 12))  # fmt: skip
    (tmp_path / "link.jsonl").symlink_to(graded)
    once = _meta_json("--single", str(single))
    assert once[0]["judgments"] == 12 and once[0]["repeats"] == 0
    for given in ([single, single], [single, graded], [single, tmp_path / "link.jsonl"]):
        assert _meta_json(*(f"--single={path}" for path in given)) == once
    # said once, on one line: the path given again was read once (it was silent)
    told = CliRunner().invoke(app, ["judge", "meta", "--single", str(single), "--single",
                                    str(single), "--resamples", "20", "-f", "json",
                                    "--data-dir", str(SHARED_DATA)])  # fmt: skip
    assert told.exit_code == 0, told.output
    assert told.stderr == f"note: {single}: given again (or within a path given), read once\n"
    pairwise = tmp_path / "ja-vicuna-qa" / "model_judgment" / "pairwise" / "gpt-4"
    pairwise.mkdir(parents=True)
    name = "pairwise:cyberagent--calm2-7b-chat_openai--text-davinci-003.jsonl"
    pairs = _write(pairwise / name, _published_lines(VICUNA / name, 10))
    pair_once = _meta_json("--pairwise", str(pairwise))
    assert pair_once[0]["judgments"] == 20 and pair_once[0]["repeats"] == 0
    for given in ([pairwise, pairwise], [pairwise, pairs]):
        assert _meta_json(*(f"--pairwise={path}" for path in given)) == pair_once
    table = _write(tmp_path / "grades.jsonl", [
        {"judge": "j", "suite": "s", "model": f"m{m}", "item": str(i), "score": 1 + (m + i) % 5}
        for m in range(3) for i in range(4)
    ])  # fmt: skip
    assert _meta_json("--scores", str(table), "--scores", str(table)) == _meta_json(
        "--scores", str(table)
    )
    again = tmp_path / "run2" / "pfmt-bench-fin-ja" / "model_judgment" / "gpt-4o_single"
    again.mkdir(parents=True)
    rerun = [{**line, "tstamp": line["tstamp"] + 3600}
             for line in _published_lines(graded, 12)]  # fmt: skip
    _write(again / "claude-2.1.jsonl", rerun)
    row = _meta_json("--single", str(single), "--single", str(again))[0]
    assert row["template"] == "(all)" and row["judgments"] == 12
    assert (row["repeats"], row["repeats_differing"]) == (12, 0)


@data_mark(PFMT)
@data_mark(VICUNA)
def test_a_copy_of_a_judgment_file_under_another_name_is_one_error(tmp_path: Path) -> None:
    """A copy is the same judgments, not the judge asked again: one line naming both files
    and the line, exit 1, for grades and pairs alike (a file joined to itself too)."""
    graded = _write(tmp_path / "gpt-4o_single.jsonl",
                    _published_lines(PFMT / "gpt-4o_single" / "claude-2.1.jsonl", 6))  # fmt: skip
    copy = tmp_path / "copy" / "gpt-4o_single.jsonl"
    copy.parent.mkdir()
    copy.write_bytes(graded.read_bytes())
    name = "pairwise:cyberagent--calm2-7b-chat_openai--text-davinci-003.jsonl"
    pairs = _write(tmp_path / "pairs.jsonl", _published_lines(VICUNA / name, 4))
    pairs_copy = tmp_path / "copy" / "pairs.jsonl"
    pairs_copy.write_bytes(pairs.read_bytes())
    joined = tmp_path / "joined.jsonl"
    joined.write_bytes(pairs.read_bytes() * 2)
    for flag, first, second, where in (
        ("--single", graded, copy, f"{copy}:1"),
        ("--pairwise", pairs, pairs_copy, f"{pairs_copy}:1"),
        ("--pairwise", joined, joined, f"{joined}:5"),
    ):
        args = ["judge", "meta", flag, str(first), flag, str(second)]
        result = CliRunner().invoke(app, [*args, "--data-dir", str(SHARED_DATA)])
        assert result.exit_code == 1, result.output
        again = [f"note: {second}: given again (or within a path given), read once"]
        assert result.output.strip().splitlines() == [
            *(again if first == second else []),
            f"error: {where}: the same judgment as {first}:1 (a copy of it, not the judge "
            "asked again: each judgment is read once)",
        ]


@pytest.mark.parametrize(
    ("change", "named"),
    [({"question_id": "q1"}, "question_id"), ({"turn": 3}, "turn"), ({"judge": None}, "judge")],
)
def test_judge_meta_reads_pair_lines_as_every_pair_reader_does(
    tmp_path: Path, change: dict[str, Any], named: str
) -> None:
    """A pairwise line is read as the one pair line (``mtbench.PairJudgmentLine``), the
    leaderboard's and the report's: a line they refuse (an id no question file writes, a
    third turn, no judge) is one error naming the file and line, where judge meta's own
    looser line took it and counted its games."""
    line = {"question_id": 1, "model_1": "a", "model_2": "b", "turn": 1,
            "judge": ["j", "pair-v2"], "g1_winner": "model_1", "g2_winner": "model_2"}  # fmt: skip
    path = _write(tmp_path / "j_pair.jsonl", [line, {**line, **change}])
    result = CliRunner().invoke(app, ["judge", "meta", "--pairwise", str(path), "--resamples", "5"])
    assert result.exit_code == 1, result.output
    (message,) = result.output.strip().splitlines()
    assert f"{path}:2" in message and named in message
