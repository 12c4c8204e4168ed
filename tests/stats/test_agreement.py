"""``hyoka judge agreement``: seed 001's statistics on a hand-worked example, bad input.

The example: three raters and two methods over six comparisons (two categories), in the
shape of seed 001's experiment. Every expected number below is counted by hand in the
comments; Fleiss' and Cohen's kappa are also checked against statsmodels.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from _shared import needs
from hyoka.cli.main import app
from hyoka.stats import agreement_report
from hyoka.stats.agreement import concordance, robustness
from hyoka.stats.label_files import build_label_table, read_human_labels, read_verdicts
from hyoka.stats.labels import AGREE, DISAGREE, UNKNOWN

needs("statsmodels")
from statsmodels.stats.inter_rater import (  # type: ignore[import-untyped]  # noqa: E402
    cohens_kappa as sm_cohens_kappa,
)
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa  # noqa: E402

ITEMS = ["i1", "i2", "i3", "i4", "i5", "i6"]
CATEGORY = ["writing"] * 3 + ["summary"] * 3
RATERS = {"r1": "AABCAB", "r2": "ABBCAA", "r3": "AABBCB"}
PROB = "AABCAB"
BS1 = ["A", None, "B", "C", None, "B"]  # invalid where its two orders disagreed
# the raw letters of each order; (X first, Y first). Agree iff xy == mirror(yx).
BS1_ORDERS = [("A", "B"), ("A", "A"), ("B", "A"), ("C", "C"), ("B", "B"), ("B", "A")]


def _write_inputs(folder: Path) -> tuple[Path, Path, Path]:
    human = folder / "human.csv"
    rows = ["item,rater,label,category"]
    for rater, letters in RATERS.items():
        rows += [f"{i},{rater},{x},{c}" for i, x, c in zip(ITEMS, letters, CATEGORY, strict=True)]
    human.write_text("\n".join(rows) + "\n", encoding="utf-8")
    prob = folder / "prob.jsonl"
    prob.write_text(
        "".join(
            json.dumps({"item": i, "verdict": v}) + "\n" for i, v in zip(ITEMS, PROB, strict=True)
        ),
        encoding="utf-8",
    )
    bs1 = folder / "bs1.jsonl"
    lines = [
        {"item": i, "verdict": v, "order_xy": xy, "order_yx": yx}
        for i, v, (xy, yx) in zip(ITEMS, BS1, BS1_ORDERS, strict=True)
    ]
    bs1.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return human, prob, bs1


def _agreement(*args: str) -> Any:
    return CliRunner().invoke(app, ["judge", "agreement", *args])


def test_hand_example_through_the_api(tmp_path: Path) -> None:
    human, prob, bs1 = _write_inputs(tmp_path)
    table = build_label_table(
        read_human_labels(human), {"prob": read_verdicts(prob), "bs1": read_verdicts(bs1)}
    )
    # prob: r1 6/6, r2 4/6 (i2, i6 differ), r3 4/6 (i4, i5 differ) -> mean 7/9
    overall, per_rater = concordance(table.human, table.auto["prob"])
    assert per_rater == pytest.approx({"r1": 1.0, "r2": 4 / 6, "r3": 4 / 6})
    assert overall == pytest.approx(7 / 9)
    # bs1: invalid on i2 and i5 is a miss for everyone: r1 4/6, r2 3/6, r3 3/6 -> 5/9
    assert concordance(table.human, table.auto["bs1"])[0] == pytest.approx(5 / 9)
    # orders agree on i1, i3, i4, i6; disagree on i2 (A, A) and i5 (B, B)
    np.testing.assert_array_equal(
        table.orders["bs1"], [AGREE, DISAGREE] + [AGREE] * 2 + [DISAGREE, AGREE]
    )
    assert robustness(table.orders["bs1"]) == pytest.approx(4 / 6)
    assert "prob" not in table.orders  # no order fields: robustness not reported
    assert robustness(np.array([UNKNOWN, AGREE])) == 1.0


def test_hand_example_through_the_command(tmp_path: Path) -> None:
    human, prob, bs1 = _write_inputs(tmp_path)
    args = ["--human", str(human), "--auto", str(prob), "--auto", str(bs1)]
    result = _agreement(*args, "--json", "--resamples", "300")
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["n_items"] == 6 and out["raters"] == ["r1", "r2", "r3"]
    assert out["methods"] == ["prob", "bs1"]
    assert out["concordance"]["prob"]["estimate"] == pytest.approx(7 / 9)
    assert out["concordance"]["bs1"]["estimate"] == pytest.approx(5 / 9)
    assert out["robustness"]["bs1"]["estimate"] == pytest.approx(4 / 6)
    assert out["robustness"]["bs1"]["n"] == 6
    # Fleiss among the raters, and Cohen for every pair of label sets, against statsmodels
    codes = {r: ["ABC".index(x) for x in s] for r, s in RATERS.items()}
    fleiss_table = np.zeros((6, 3))
    for letters in codes.values():
        for item, code in enumerate(letters):
            fleiss_table[item, code] += 1
    assert out["fleiss_kappa"]["estimate"] == pytest.approx(sm_fleiss_kappa(fleiss_table))
    sets = {
        **codes,
        "prob": ["ABC".index(x) for x in PROB],
        "bs1": [3 if v is None else "ABC".index(v) for v in BS1],
    }
    assert len(out["pairs"]) == 10  # 5 label sets
    for pair in out["pairs"]:
        joint = np.zeros((4, 4))
        for a, b in zip(sets[pair["first"]], sets[pair["second"]], strict=True):
            joint[a, b] += 1
        with np.errstate(invalid="ignore", divide="ignore"):
            expected = sm_cohens_kappa(joint, return_results=False)
        assert pair["cohen_kappa"]["estimate"] == pytest.approx(expected), pair
        share = np.mean(np.array(sets[pair["first"]]) == np.array(sets[pair["second"]]))
        assert pair["agreement"]["estimate"] == pytest.approx(share)
    # rows r2's label, columns prob's verdict: i1 AA, i2 BA, i3 BB, i4 CC, i5 AA, i6 AB
    assert out["confusion"]["matrices"]["prob"]["r2"] == [[2, 1, 0, 0], [1, 1, 0, 0], [0, 0, 1, 0]]
    assert out["confusion"]["matrices"]["bs1"]["r1"][0] == [1, 0, 0, 2]  # r1 says A: i1, i2, i5
    # by category: writing r1 3/3, r2 2/3, r3 3/3; summary r1 3/3, r2 2/3, r3 1/3
    writing, summary = out["by_category"]["writing"], out["by_category"]["summary"]
    assert writing["concordance"]["prob"]["estimate"] == pytest.approx(8 / 9)
    assert summary["concordance"]["prob"]["estimate"] == pytest.approx(6 / 9)
    assert writing["n_items"] == summary["n_items"] == 3
    for ci in (out["concordance"]["prob"], out["fleiss_kappa"]):
        assert ci["low"] <= ci["estimate"] <= ci["high"]
    again = json.loads(_agreement(*args, "--json", "--resamples", "300").stdout)
    assert again == out  # seeded bootstrap: the same intervals every time
    table = _agreement(*args)
    assert table.exit_code == 0 and "Fleiss" in table.stdout and "By category" in table.stdout


def test_two_automatic_sets_without_humans(tmp_path: Path) -> None:
    _, prob, bs1 = _write_inputs(tmp_path)
    result = _agreement("--auto", str(prob), "--auto", str(bs1), "--json", "--resamples", "50")
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["raters"] == [] and out["concordance"] == {}
    (pair,) = out["pairs"]
    assert pair["agreement"]["estimate"] == pytest.approx(4 / 6)  # all but the two invalid
    table = agreement_report(
        build_label_table([], {"prob": read_verdicts(prob), "bs1": read_verdicts(bs1)}),
        resamples=50,
    )
    assert table.confusion["bs1"]["prob"] == [[1, 0, 0, 2], [0, 2, 0, 0], [0, 0, 1, 0]]


def _error_of(result: Any) -> str:
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    lines = [ln for ln in result.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return str(lines[0])


@pytest.mark.parametrize(
    ("target", "broken", "needle"),
    [
        ("human", "i4,r2,D,summary", "human.csv:11: label 'D' is not one of A, B, C"),
        ("prob", '{"item": "i9", "verdict": "A"}', "prob.jsonl:7: unknown item id 'i9'"),
        ("prob", '{"item": "i3", "verdict": "AB"}', "prob.jsonl:7: verdict 'AB' is not one of"),
        ("prob", "{not json", "prob.jsonl:7: not valid JSON"),
        ("bs1", '{"item": "i1", "verdict": "A", "order_xy": "X"}', "bs1.jsonl:7: order_xy 'X'"),
        ("human", "i1,r1,A,writing", "human.csv:20: rater 'r1' labels 'i1' twice"),
        ("human", "i1,r4,A,writing", "item 'i2' has no label by rater 'r4'"),
        ("human", "i1,r4,A,summary", "human.csv:20: item 'i1' has category 'summary'"),
    ],
)
def test_bad_input_names_file_and_line(
    tmp_path: Path, target: str, broken: str, needle: str
) -> None:
    human, prob, bs1 = _write_inputs(tmp_path)
    path = {"human": human, "prob": prob, "bs1": bs1}[target]
    if target == "human" and broken.startswith("i4,r2"):
        lines = path.read_text(encoding="utf-8").splitlines()
        lines[10] = broken  # r2's i4 label on line 11
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    else:
        with path.open("a", encoding="utf-8") as handle:
            handle.write(broken + "\n")
    result = _agreement("--human", str(human), "--auto", str(prob), "--auto", str(bs1))
    assert needle in _error_of(result)


def test_missing_verdict_and_bad_combinations(tmp_path: Path) -> None:
    human, prob, bs1 = _write_inputs(tmp_path)
    prob.write_text("\n".join(prob.read_text(encoding="utf-8").splitlines()[:-1]) + "\n")
    message = _error_of(_agreement("--human", str(human), "--auto", str(prob)))
    assert "item 'i6' has no verdict in 'prob'" in message and "human.csv:7" in message
    assert "at least two --auto" in _error_of(_agreement("--auto", str(bs1)))
    assert "exactly two" in _error_of(_agreement("--single", str(tmp_path)))
    other = tmp_path / "x" / "bs1.jsonl"
    other.parent.mkdir()
    other.write_text(bs1.read_text(encoding="utf-8"), encoding="utf-8")
    assert "same name 'bs1'" in _error_of(
        _agreement("--human", str(human), "--auto", str(bs1), "--auto", str(other))
    )
    assert "no such file" in _error_of(
        _agreement("--human", str(tmp_path / "nope.csv"), "--auto", str(bs1))
    )


def test_groups_are_the_resampling_unit(tmp_path: Path) -> None:
    human, prob, _ = _write_inputs(tmp_path)
    lines = human.read_text(encoding="utf-8").splitlines()
    grouped = [lines[0] + ",group"] + [f"{ln},q{1 + (int(ln[1]) - 1) // 3}" for ln in lines[1:]]
    human.write_text("\n".join(grouped) + "\n", encoding="utf-8")
    result = _agreement("--human", str(human), "--auto", str(prob), "--json", "--resamples", "50")
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["n_items"] == 6 and out["n_groups"] == 2
    assert out["concordance"]["prob"]["estimate"] == pytest.approx(7 / 9)
    # resampling two questions: the interval runs between the questions' own rates
    assert out["concordance"]["prob"]["low"] == pytest.approx(6 / 9)
    assert out["concordance"]["prob"]["high"] == pytest.approx(8 / 9)
    grouped[7] = "i1,r2,A,writing,q2"  # r2's label of i1, in another group
    human.write_text("\n".join(grouped) + "\n", encoding="utf-8")
    message = _error_of(_agreement("--human", str(human), "--auto", str(prob)))
    assert "human.csv:8: item 'i1' in group 'q2', but 'q1' at" in message
