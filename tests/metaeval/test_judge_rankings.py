"""``hyoka judge rankings`` and ``hyoka judge curve`` on published judgments: the command's
numbers are the library's on the leaderboard's own draws, its rank correlations are scipy's
on model means recomputed here from the raw lines (plain json), and the curve ends where the
benchmark does, at the leaderboard's separability."""

from __future__ import annotations

import itertools
import json
import lzma
from collections import defaultdict
from pathlib import Path
from typing import Any, get_args

import numpy as np
import pytest
from typer.testing import CliRunner

from _shared import SHARED_DATA, data_mark, needs

scipy_stats = needs("scipy.stats")

from hyoka.cli.main import app  # noqa: E402
from hyoka.judge import BrierTiesChoice  # noqa: E402
from hyoka.mtbench import Bench, IntervalSettings, build_leaderboard, judgment_files  # noqa: E402
from hyoka.mtbench.trials import score_draws  # noqa: E402
from hyoka.stats import BrierTies, ScoreDraws, compare_rankings, separability  # noqa: E402

PFMT = SHARED_DATA / "pfmt-bench-fin-ja"
MINI = PFMT / "model_judgment" / "gpt-4o-mini_single"
FULL = PFMT / "model_judgment" / "gpt-4o_single"
SHABERI = SHARED_DATA / "shaberi-judgments" / "scores.jsonl.xz"
ELYZA = "elyza__ELYZA-tasks-100"
FEW = ["--resamples", "400"]
pfmt_data = data_mark(MINI, FULL)


def _run(*args: str) -> Any:
    result = CliRunner().invoke(
        app, [*args, "--data-dir", str(SHARED_DATA)], env={"COLUMNS": "200"}
    )
    assert result.exit_code == 0, result.output
    return result


def _error(*args: str) -> str:
    result = CliRunner().invoke(app, [*args, "--data-dir", str(SHARED_DATA)])
    assert result.exit_code != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    return lines[0]


def _question_means(folder: Path) -> dict[str, float]:
    """Each model's mean of its question means, from the raw lines (-1: no rating)."""
    means = {}
    for path in sorted(folder.glob("*.jsonl")):
        by_question: dict[Any, list[float]] = defaultdict(list)
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if row["score"] != -1:
                by_question[row["question_id"]].append(float(row["score"]))
        means[path.stem] = float(np.mean([np.mean(v) for v in by_question.values()]))
    return means


def _draws(folder: Path, settings: IntervalSettings) -> ScoreDraws:
    bench = Bench.load("pfmt-fin", SHARED_DATA, questions_only=True)
    return score_draws(build_leaderboard(bench, judgment_files([folder])), settings=settings)


@pfmt_data
def test_two_published_pfmt_judges_are_compared_with_the_librarys_and_scipys_numbers() -> None:
    shown = json.loads(_run("judge", "rankings", "--judgments", str(MINI), "--judgments",
                            str(FULL), "--format", "json", *FEW).stdout)  # fmt: skip
    settings = IntervalSettings(resamples=400)
    mini, full = _draws(MINI, settings), _draws(FULL, settings)
    expected = compare_rankings(mini, full, resamples=400, unit="questions-then-trials")
    # nemotron is shown as pfmt's table shows it; gpt-4o was judged by gpt-4o only
    assert shown["only_in_reference"] == ["gpt-4o"] and shown["only_in_ranking"] == []
    assert len(shown["models"]) == 9 and "nvidia/nemotron-4-340b-instruct" in shown["models"]
    library = expected.to_json()
    for key in ("separability", "reference_separability", "agreement_with_confidence",
                "strict_agreement", "pair_rank_brier", "spearman", "kendall_tau_b"):  # fmt: skip
        assert shown[key] == library[key], key
    assert shown["separability"] == separability(mini)  # the leaderboard's own line
    # the correlations: scipy on the model means recomputed from the raw lines
    own, theirs = _question_means(MINI), _question_means(FULL)
    models = sorted(own)
    x, y = [own[m] for m in models], [theirs[m] for m in models]
    assert shown["spearman"]["estimate"] == pytest.approx(scipy_stats.spearmanr(x, y)[0])
    assert shown["kendall_tau_b"]["estimate"] == pytest.approx(scipy_stats.kendalltau(x, y)[0])
    signature = shown["signature"]["fields"]
    assert (signature["rounds"], signature["seed"], signature["confidence"]) == ("400", "0", "0.95")
    assert signature["unit"] == "questions-then-trials"


@pfmt_data
def test_a_published_leaderboard_as_reference_gives_only_what_needs_no_draws(
    tmp_path: Path,
) -> None:
    board = tmp_path / "gpt-4o.json"
    _run("mtbench", "leaderboard", "--judgments", str(FULL), "--format", "json", "--output",
         str(board))  # fmt: skip
    text = _run("judge", "rankings", "--judgments", str(MINI), "--reference", str(board),
                *FEW).stdout  # fmt: skip
    assert "| agreement with confidence | n/a | needs the reference's draws" in text
    assert "| separability (reference) | n/a |" in text
    assert "the reference ties" not in text  # no tied pair, no note
    shown = json.loads(_run("judge", "rankings", "--judgments", str(MINI), "--reference",
                            str(board), "--format", "json", *FEW).stdout)  # fmt: skip
    assert shown["agreement_with_confidence"] is None
    # the reference's scores are the leaderboard's headline (its "overall")
    rows = {row["model"]: row["overall"] for row in json.loads(board.read_text())}
    mini = _draws(MINI, IntervalSettings(resamples=400))
    names = [m.replace("nvidia_", "nvidia/") for m in mini.models]
    ranking = ScoreDraws(tuple(names), mini.estimate, mini.draws)
    reference = ScoreDraws.points(list(rows), list(rows.values()))
    expected = compare_rankings(ranking, reference, resamples=400).to_json()
    for key in ("strict_agreement", "pair_rank_brier", "spearman", "kendall_tau_b"):
        assert shown[key] == expected[key], key
    table = tmp_path / "reference.csv"
    table.write_text("model,score\n" + "".join(f"{m},{s}\n" for m, s in rows.items()))
    from_csv = json.loads(_run("judge", "rankings", "--judgments", str(MINI), "--reference",
                               str(table), "--format", "json", *FEW).stdout)  # fmt: skip
    assert from_csv["spearman"] == shown["spearman"]
    as_json = json.loads(_run("judge", "rankings", "--judgments", str(MINI), "--reference",
                              str(table), "--json", *FEW).stdout)  # fmt: skip
    assert as_json == from_csv  # --json: --format json


@pfmt_data
def test_the_curve_ends_at_the_benchmarks_questions_and_the_leaderboards_separability() -> None:
    shown = json.loads(_run("judge", "curve", "--judgments", str(MINI), "--repeats", "3",
                            "--format", "json", *FEW).stdout)  # fmt: skip
    questions = len((PFMT / "question.jsonl").read_text(encoding="utf-8").splitlines())
    points = shown["points"]
    assert shown["questions"] == questions == points[-1]["questions"] == 360
    board = json.loads(_run("mtbench", "leaderboard", "--judgments", str(MINI), "--format",
                            "json", *FEW).stdout)  # fmt: skip
    assert points[-1]["separability"] == board[0]["separability"]["value"]
    assert points[-1]["agreement_with_full"] == 1.0
    values = [p["separability"] for p in points]
    assert values[0] < values[-1]
    assert all(later >= earlier - 0.05 for earlier, later in itertools.pairwise(values))
    assert shown["questions_needed"] is None  # 80% is beyond this benchmark
    text = _run("judge", "curve", "--judgments", str(MINI), "--repeats", "3", *FEW).stdout
    assert "separability ≥ 80% is not reached within the benchmark's 360 questions" in text
    low = json.loads(_run("judge", "curve", "--judgments", str(MINI), "--repeats", "3",
                          "--target", "0.2", "--format", "json", *FEW).stdout)  # fmt: skip
    first = next(p["questions"] for p in low["points"] if p["separability"] >= 0.2)
    assert low["questions_needed"] == first
    as_json = _run("judge", "curve", "--judgments", str(MINI), "--repeats", "3", "--target",
                   "0.2", "--json", *FEW).stdout  # fmt: skip
    assert json.loads(as_json) == low  # --json: --format json


@pfmt_data
def test_bad_input_is_one_error_line_naming_the_file_or_flag(tmp_path: Path) -> None:
    assert "give two rankings" in _error("judge", "rankings", "--judgments", str(MINI))
    assert "--judgments: /nowhere does not exist" in _error(
        "judge", "rankings", "--judgments", "/nowhere", "--judgments", str(MINI)
    )
    table = tmp_path / "reference.csv"
    table.write_text("model,score\ngpt-4,8.1\nclaude-2.1,high\n")
    assert _error("judge", "rankings", "--judgments", str(MINI), "--reference", str(table)) == (
        f"error: {table}:3: score 'high' is not a number"
    )
    other = tmp_path / "other.csv"
    other.write_text("model,score\ngpt-4,8.1\nsomeone-else,7\n")
    assert _error("judge", "rankings", "--judgments", str(MINI), "--reference", str(other)) == (
        f"error: {MINI} and {other} rank 1 model(s) in common; comparing rankings needs at "
        "least three (models are matched by the names the leaderboard shows)"
    )
    assert "--sizes 10,x" in _error("judge", "curve", "--judgments", str(MINI), "--sizes", "10,x")
    assert "question counts must lie between 1 and 360" in _error(
        "judge", "curve", "--judgments", str(MINI), "--sizes", "10,400"
    )
    assert "--scores and --suite go with --judge" in _error(
        "judge", "curve", "--judgments", str(MINI), "--suite", "ELYZA"
    )


def _shaberi_means(*judges: str) -> list[dict[str, float]]:
    """Each judge's mean ELYZA grade per model from the raw table (read once for all):
    whole grades on 1-5 only."""
    grades: dict[str, dict[str, list[float]]] = {judge: defaultdict(list) for judge in judges}
    with lzma.open(SHABERI, "rt", encoding="utf-8") as lines:
        for line in lines:
            row = json.loads(line)
            score = row["score"]
            if (
                row["judge"] in grades
                and row["suite"] == ELYZA
                and score is not None
                and (score == int(score) and 1 <= score <= 5)
            ):
                grades[row["judge"]][row["model"]].append(float(score))
    return [
        {model: float(np.mean(values)) for model, values in grades[judge].items()}
        for judge in judges
    ]


@pytest.mark.slow
@data_mark(SHABERI)
def test_two_judges_of_the_shaberi_table_on_one_suite() -> None:
    shown = json.loads(_run("judge", "rankings", "--judge", "athenev2", "--judge", "llama33",
                            "--suite", "ELYZA", "--format", "json", *FEW).stdout)  # fmt: skip
    own, theirs = _shaberi_means("llmjudge-athenev2", "llmjudge-llama33")
    models = sorted(set(own) & set(theirs))
    assert sorted(shown["models"]) == models and len(models) == 379
    x, y = [own[m] for m in models], [theirs[m] for m in models]
    assert shown["spearman"]["estimate"] == pytest.approx(scipy_stats.spearmanr(x, y)[0])
    assert shown["kendall_tau_b"]["estimate"] == pytest.approx(scipy_stats.kendalltau(x, y)[0])
    assert 0.0 < shown["separability"] < 1.0 and -1.0 <= shown["agreement_with_confidence"] <= 1
    assert shown["notes"]["llmjudge-llama33 on elyza__ELYZA-tasks-100"] == [
        "37 grades missing or off the scale, left out of their models' means"
    ]
    assert shown["signature"]["fields"]["unit"] == "items"


def _upstream_brier(draws: ScoreDraws, reference: dict[str, float]) -> float:
    """arena-hard's notebook ("Forecasting", ``calculate_predictions_and_labels``, scored
    with ``brier_score_loss``), as read from its code: the pairs of
    ``combinations(sorted(models), 2)``; the forecast ``norm(loc=mean(a) - mean(b),
    scale=sqrt(var(a) + var(b))).cdf(0)``; the label ``int(rating[a] < rating[b])``, so a
    pair the reference ties is labelled 0; the mean squared error."""
    column = {model: draws.draws[:, k] for k, model in enumerate(draws.models)}
    errors = []
    for a, b in itertools.combinations(sorted(draws.models), 2):
        spread = float(np.sqrt(column[a].var() + column[b].var()))
        forecast = scipy_stats.norm(loc=column[a].mean() - column[b].mean(), scale=spread).cdf(0)
        label = int(reference[a] < reference[b])
        errors.append((float(forecast) - label) ** 2)
    return float(np.mean(errors))


@pfmt_data
def test_pair_rank_brier_scores_reference_ties_as_upstream_and_omit_leaves_them_out(
    tmp_path: Path,
) -> None:
    """Issue 29: a reference that ties claude-2.1 and gpt-4 gives that pair no order.
    arena-hard's notebook labels it "the first name in sorted order is not below", so the
    score hangs on the names (0.520, and 0.263 with claude-2.1 renamed zz-claude): by
    default hyoka scores it so, equal to upstream's rule, and says so in one note;
    ``--brier-ties omit`` leaves the pair out, and the score no longer hangs on names."""
    models = ("claude-2.1", "gpt-4", "plamo-1.0-prime-beta")
    shown, omitted, args = {}, {}, {}
    for name in ("claude-2.1", "zz-claude"):
        folder = tmp_path / name / "gpt-4o-mini_single"
        folder.mkdir(parents=True)
        for model in models:
            text = (MINI / f"{model}.jsonl").read_text(encoding="utf-8")
            if model == "claude-2.1":
                text = text.replace('"model": "claude-2.1"', f'"model": "{name}"')
            (folder / f"{name if model == 'claude-2.1' else model}.jsonl").write_text(text)
        table = tmp_path / name / "reference.csv"
        table.write_text(f"model,score\n{name},8.2\ngpt-4,8.2\nplamo-1.0-prime-beta,7\n")
        args[name] = ["judge", "rankings", "--judgments", str(folder), "--reference", str(table)]
        shown[name] = json.loads(_run(*args[name], "--json", *FEW).stdout)
        omitted[name] = json.loads(_run(*args[name], "--json", "--brier-ties", "omit", *FEW).stdout)
    # the same grades, so the same draws under either name
    draws = _draws(tmp_path / "claude-2.1" / "gpt-4o-mini_single", IntervalSettings(resamples=400))
    for name in ("claude-2.1", "zz-claude"):
        renamed = ScoreDraws(
            tuple(name if m == "claude-2.1" else m for m in draws.models), draws.estimate,
            draws.draws,
        )  # fmt: skip
        reference = {name: 8.2, "gpt-4": 8.2, "plamo-1.0-prime-beta": 7.0}
        assert shown[name]["pair_rank_brier"] == pytest.approx(
            _upstream_brier(renamed, reference), abs=1e-12
        )
        assert shown[name]["pair_rank_brier_tied_pairs"] == 1
        assert omitted[name]["pair_rank_brier_tied_pairs"] == 1
    # upstream's rule: the tied pair's outcome follows the names, not the judge
    assert shown["claude-2.1"]["pair_rank_brier"] == pytest.approx(0.520, abs=5e-4)
    assert shown["zz-claude"]["pair_rank_brier"] == pytest.approx(0.263, abs=5e-4)
    assert omitted["claude-2.1"]["pair_rank_brier"] == omitted["zz-claude"]["pair_rank_brier"]
    brier = {shown[name]["signature"]["fields"]["brier"] for name in shown}
    assert len(brier | {omitted[name]["signature"]["fields"]["brier"] for name in shown}) == 2
    text = _run(*args["claude-2.1"], *FEW).stdout
    assert (
        "0 is perfect, 0.25 a coin; 1 pair(s) the reference ties scored by upstream's rule (the "
        "name that sorts first is not below): their outcome depends on the models' names, not "
        "on the judge; --brier-ties omit leaves them out |"
    ) in text
    column = {model: draws.draws[:, draws.models.index(model)] for model in models}
    # omitted: the two ordered pairs, plamo (7) below each of the other two (8.2)
    errors = []
    for high in ("claude-2.1", "gpt-4"):
        mine, theirs = column[high], column["plamo-1.0-prime-beta"]
        spread = float(np.sqrt(mine.var() + theirs.var()))
        below = scipy_stats.norm.cdf(0.0, mine.mean() - theirs.mean(), spread)  # P(high below)
        errors.append(float(below) ** 2)  # the outcome: not below
    assert omitted["claude-2.1"]["pair_rank_brier"] == pytest.approx(np.mean(errors), abs=1e-12)


def test_pair_rank_brier_on_a_hand_made_reference_with_two_ties() -> None:
    """Four models, the reference tying (b, c) and (a, d): by default both tied pairs are
    labelled 0 in name order, as upstream's cells label them; ``omit`` keeps the other four
    pairs; a reference that ties everything leaves nothing to omit."""
    rng = np.random.default_rng(3)
    models = ("d", "b", "a", "c")  # not in name order: upstream sorts them
    draws = ScoreDraws(models, np.zeros(4), rng.normal([0.2, 0.5, 0.1, 0.9], 0.3, (50, 4)))
    reference = {"a": 2.0, "b": 1.0, "c": 1.0, "d": 2.0}
    points = ScoreDraws.points(list(reference), list(reference.values()))
    upstream = compare_rankings(draws, points, resamples=20)
    assert upstream.brier == pytest.approx(_upstream_brier(draws, reference), abs=1e-12)
    assert upstream.brier_tied_pairs == 2
    omitted = compare_rankings(draws, points, resamples=20, brier_ties="omit")
    column = {model: draws.draws[:, k] for k, model in enumerate(models)}
    errors = [
        (float(scipy_stats.norm.cdf(0.0, column[x].mean() - column[y].mean(),
                                    np.sqrt(column[x].var() + column[y].var())))
         - float(reference[x] < reference[y])) ** 2
        for x, y in itertools.combinations(sorted(models), 2)
        if reference[x] != reference[y]
    ]  # fmt: skip
    assert len(errors) == 4 and omitted.brier == pytest.approx(np.mean(errors), abs=1e-12)
    assert upstream.signature.line != omitted.signature.line
    flat = ScoreDraws.points(list(reference), [1.0] * 4)
    assert np.isnan(compare_rankings(draws, flat, resamples=20, brier_ties="omit").brier)
    assert compare_rankings(draws, flat, resamples=20).brier == pytest.approx(
        _upstream_brier(draws, dict.fromkeys(reference, 1.0)), abs=1e-12
    )


def test_the_brier_ties_choice_spells_the_librarys_rules() -> None:
    assert [member.value for member in BrierTiesChoice] == list(get_args(BrierTies))
