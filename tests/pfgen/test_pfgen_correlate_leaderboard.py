"""``hyoka pfgen correlate --against``: the 49 public pfgen runs against the ELYZA-tasks-100
leaderboard of Shaberi's 24 published judgment files.

The two share one model by name (CohereForAI/c4ai-command-r-plus). The names file
``tests/fixtures/pfgen-elyza-relatives.tsv`` (written by hand, names only) pairs eight more
pfgen models with a relative on the leaderboard: same organisation and family, not the same
checkpoint (Qwen-72B-Chat with Qwen1.5-72B-Chat, shisa-base-7b-v1 with shisa-7b-v1 ...).
It exercises the matching on real scores; its correlation is no finding about pfgen.
Expected values come from the raw files (result.json, Shaberi's rows) and scipy.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from _shared import PFGEN_RESULTS, SHARED_DATA, needs, shaberi_raw_means
from hyoka.cli.main import app
from hyoka.pfgen.board_pairs import read_pfgen_side

needs("scipy")
import scipy.stats  # type: ignore[import-untyped]  # noqa: E402

#: the pfgen side defaults to the published sample in the data directory: the shared one
pytestmark = pytest.mark.usefixtures("hyoka_env")

RELATIVES = Path(__file__).parents[1] / "fixtures" / "pfgen-elyza-relatives.tsv"


def _invoke(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


#: few resamples: the tests compare point estimates and listings, not intervals
FEW = ("--resamples", "50")


@pytest.fixture(scope="module")
def elyza_board(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The leaderboard JSON of the published Shaberi files, as the command writes it."""
    path = tmp_path_factory.mktemp("board") / "elyza.json"
    made = _invoke(
        "mtbench", "leaderboard", "--bench", "elyza-tasks-100", "--format", "json",
        "--data-dir", str(SHARED_DATA), "--output", str(path),
    )  # fmt: skip
    assert made.exit_code == 0, made.output
    assert made.stdout == "" and f"wrote {path}" in made.stderr
    return path


def _pfgen_best() -> dict[str, tuple[float, int]]:
    """org/model (the folder) -> (its best published score, its runs), from result.json."""
    best: dict[str, tuple[float, int]] = {}
    for result in sorted(PFGEN_RESULTS.rglob("result.json")):
        model = str(result.parent.parent.relative_to(PFGEN_RESULTS))
        score = json.loads(result.read_text(encoding="utf-8"))["score"]
        known, runs = best.get(model, (score, 0))
        best[model] = (max(known, score), runs + 1)
    return best


def test_public_pfgen_runs_against_the_elyza_leaderboard_equal_scipy_on_the_same_pairs(
    elyza_board: Path, tmp_path: Path
) -> None:
    args = ["pfgen", "correlate", "--against", str(elyza_board), "--names", str(RELATIVES), *FEW]
    result = _invoke(*args, "--json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    pfgen, elyza = _pfgen_best(), shaberi_raw_means()
    mapping = dict(
        line.split("\t") for line in RELATIVES.read_text(encoding="utf-8").splitlines()[1:]
    )
    expected = {m: mapping.get(m, m) for m in pfgen if mapping.get(m, m) in elyza}
    assert len(expected) == 9 and expected["CohereForAI/c4ai-command-r-plus"] in elyza
    got = {row["model"]: row for row in out["models"]}
    assert {m: row["other_model"] for m, row in got.items()} == expected
    for model, other in expected.items():
        assert got[model]["pfgen"] == pfgen[model][0]
        assert got[model]["other"] == float(elyza[other][0])
        assert got[model]["matched_by"] == ("same name" if model == other else "names file")
    x = [got[m]["pfgen"] for m in sorted(got)]
    y = [got[m]["other"] for m in sorted(got)]
    assert out["n"] == 9
    assert out["pearson"]["estimate"] == pytest.approx(scipy.stats.pearsonr(x, y).statistic)
    assert out["spearman"]["estimate"] == pytest.approx(scipy.stats.spearmanr(x, y).statistic)
    # nothing dropped silently: every model of either side is paired or listed
    assert sorted(out["pfgen_only"]) == sorted(set(pfgen) - set(expected))
    assert sorted(out["other_only"]) == sorted(set(elyza) - set(expected.values()))
    assert out["unused_names"] == [] and out["other"]["left_out"] == []
    assert f"{len(pfgen) - 9} pfgen model(s) not on the leaderboard" in result.stderr
    assert f"{len(elyza) - 9} leaderboard model(s) without a pfgen run" in result.stderr
    # how each side was produced
    other = out["other"]
    assert (other["bench"], other["variant"]) == ("elyza-tasks-100", None)
    assert other["signature"]["fields"]["kind"] == "shaberi-single"
    assert "higher of chat and completion" in out["pfgen"]["rule"]
    # the table form says it too, and the plot shows the same pairs
    needs("matplotlib")
    needs("plotly")
    plot = tmp_path / "pfgen-vs-elyza"
    shown = _invoke(*args, "--plot", str(plot))
    assert shown.exit_code == 0, shown.output
    assert "pfgen-bench vs elyza-tasks-100 (9 models)" in shown.stdout
    assert "signature: hyoka:" in shown.stdout
    page = plot.with_suffix(".html").read_text(encoding="utf-8")
    assert "elyza-tasks-100 overall" in page and "Qwen-72B-Chat" in page
    assert plot.with_suffix(".png").read_bytes()[:4] == b"\x89PNG"


def test_a_model_with_several_runs_takes_its_best_and_a_pfgen_leaderboard_serves_too(
    elyza_board: Path, tmp_path: Path
) -> None:
    side = read_pfgen_side(PFGEN_RESULTS)
    claude = side.models["anthropic/claude-opus-4-20250514"]
    assert (claude.score, claude.runs) == _pfgen_best()["anthropic/claude-opus-4-20250514"]
    assert claude.runs == 2 and "(qa)" in claude.run
    made = _invoke("pfgen", "leaderboard", str(PFGEN_RESULTS), "-f", "json")
    assert made.exit_code == 0, made.output
    board = tmp_path / "pfgen.json"
    board.write_text(made.stdout, encoding="utf-8")
    args = ["--against", str(elyza_board), "--names", str(RELATIVES), "--json", *FEW]
    from_board = _invoke("pfgen", "correlate", str(board), *args)
    from_runs = _invoke("pfgen", "correlate", str(PFGEN_RESULTS), *args)
    assert from_board.exit_code == from_runs.exit_code == 0, from_board.output
    pairs = [
        [(r["model"], r["pfgen"], r["other"]) for r in json.loads(x.stdout)["models"]]
        for x in (from_board, from_runs)
    ]
    assert pairs[0] == pairs[1]


def _error(result: Result) -> str:
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    return str(result.stderr)


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        (["Qwen/Qwen-72B-Chat\tQwen/Qwen1.5-72B-Chat", "Qwen/Qwen-72B-Chat\tgpt-3.5-turbo-0125"],
         "names.tsv:3: pfgen name 'Qwen/Qwen-72B-Chat' is mapped twice (also at "),
        (["Qwen/Qwen-72B-Chat\tQwen/Qwen1.5-72B-Chat",
          "Qwen/Qwen2.5-32B-Instruct\tQwen/Qwen1.5-72B-Chat"],
         "names.tsv:3: other name 'Qwen/Qwen1.5-72B-Chat' is mapped twice"),
        (["Qwen/Qwen-72B-Chat\t"], "names.tsv:2: a names row needs pfgen and other"),
        (["Qwen/Qwen-72B-Chat\tCohereForAI/c4ai-command-r-plus"],
         "names.tsv:2: 'CohereForAI/c4ai-command-r-plus' would pair with both"),
    ],
)  # fmt: skip
def test_a_bad_names_file_is_one_error_naming_file_and_line(
    elyza_board: Path, tmp_path: Path, rows: list[str], message: str
) -> None:
    names = tmp_path / "names.tsv"
    names.write_text("\n".join(["pfgen\tother", *rows]) + "\n", encoding="utf-8")
    found = _error(
        _invoke("pfgen", "correlate", "--against", str(elyza_board), "--names", str(names))
    )
    assert message in found and str(names) in found


def _rewrite(path: Path, folder: Path, change: Any) -> Path:
    rows = json.loads(path.read_text(encoding="utf-8"))
    change(rows)
    out = folder / f"{change.__name__}.json"
    out.write_text(json.dumps(rows), encoding="utf-8")
    return out


def test_leaderboards_that_cannot_be_correlated_are_refused(
    elyza_board: Path, tmp_path: Path
) -> None:
    against = ["pfgen", "correlate", *FEW, "--against"]
    # only one model by name without a names file
    assert "1 model(s) both here" in _error(_invoke(*against, str(elyza_board)))

    def one_row_of_another_variant(rows: list[dict[str, Any]]) -> None:
        rows[3]["signature"]["fields"]["variant"] = "other.v1"

    mixed = _rewrite(elyza_board, tmp_path, one_row_of_another_variant)
    named = ["--names", str(RELATIVES)]
    found = _error(_invoke(*against, str(mixed), *named))
    assert f"{mixed}: rows judged under different variants (none, other.v1)" in found
    allowed = _invoke(*against, str(mixed), *named, "--mix-variants", "--json")
    assert allowed.exit_code == 0, allowed.output
    out = json.loads(allowed.stdout)
    assert (out["other"]["variant"], out["other"]["variants"]) == (None, [None, "other.v1"])
    assert {row["other_variant"] for row in out["models"]} == {None, "other.v1"}

    def incomplete(rows: list[dict[str, Any]]) -> None:
        rows[2]["complete"] = False

    partial = json.loads(
        _invoke(*against, str(_rewrite(elyza_board, tmp_path, incomplete)), *named, "--json").stdout
    )
    assert partial["other"]["left_out"][0]["why"].startswith("incomplete")
    csv_board = tmp_path / "board.csv"
    csv_board.write_text("Turns,Model,Avg.\n", encoding="utf-8")
    assert "board.csv: give the leaderboard as `hyoka mtbench leaderboard --format json`" in (
        _error(_invoke(*against, str(csv_board)))
    )
    pfgen_board = tmp_path / "pfgen.json"
    pfgen_board.write_text(json.dumps({"runs": []}), encoding="utf-8")
    assert "not a leaderboard as `hyoka mtbench leaderboard" in _error(
        _invoke(*against, str(pfgen_board))
    )
    assert "--names applies to --against only" in _error(
        _invoke("pfgen", "correlate", "--table", "t.csv", *named)
    )
    assert "--against does not take --judge" in _error(
        _invoke(*against, str(elyza_board), "--judge", "j")
    )
