"""JFBench's summary counted as upstream's ``analyze.py`` counts it, with intervals.

``fixtures/jfbench/results.jsonl`` is a hand-made result file in upstream's record format
(a pending record, an empty results object, a model named only by ``model``, a record
with no source, model or readable constraint count, a blank reasoning; its verdicts are
JSON booleans, which hyoka requires: upstream read the file when two of them were 0 and 1,
which its ``bool`` counts as false and true, so its rows stand). The expected rows
are what upstream's ``analyze.py`` (c8fed01) printed for that file:

    ifbench   1  A              8 generated  7 evaluated  1 empty  1 pending  5 ok  2 failed  71.4%
    ifbench   1  org/B          2            2            0        0          1     1         50.0%
    ifbench   2  A              4            4            0        0          1     3         25.0%
    unknown  -1  unknown-model  1            1            0        0          1     0        100.0%
    TOTAL                      15           14            1        1          8     6         57.1%
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hyoka.errors import InputError
from hyoka.jfbench.results import read_records
from hyoka.jfbench.scores import GroupKey, Tally, score, summarize

RESULTS = Path(__file__).parents[1] / "fixtures" / "jfbench" / "results.jsonl"

UPSTREAM = {
    GroupKey("ifbench", 1, "A"): (8, 7, 1, 1, 5, 2, "71.4"),
    GroupKey("ifbench", 1, "org/B"): (2, 2, 0, 0, 1, 1, "50.0"),
    GroupKey("ifbench", 2, "A"): (4, 4, 0, 0, 1, 3, "25.0"),
    GroupKey("unknown", -1, "unknown-model"): (1, 1, 0, 0, 1, 0, "100.0"),
}


def _row(t: Tally) -> tuple[object, ...]:
    return (
        t.generated,
        t.evaluated,
        t.empty_reasoning,
        t.pending,
        t.success,
        t.failure,
        f"{t.success_rate:.1f}",
    )


def test_summary_counts_as_upstreams_analyze() -> None:
    summary = summarize(read_records(RESULTS))
    assert {key: _row(tally) for key, tally in summary.groups.items()} == UPSTREAM
    assert _row(summary.total) == (15, 14, 1, 1, 8, 6, "57.1")
    assert summary.total.total == 16


def test_score_adds_intervals_over_evaluated_records() -> None:
    summary = score(read_records(RESULTS), resamples=200)
    a1 = summary.groups[GroupKey("ifbench", 1, "A")].interval
    assert a1 is not None
    assert a1.estimate == pytest.approx(500 / 7)
    assert 0.0 <= a1.low <= a1.estimate <= a1.high <= 100.0
    assert summary.total.interval is not None
    assert summary.total.interval.estimate == pytest.approx(800 / 14)


def test_constraint_groups_share_constraints_satisfied() -> None:
    shares = summarize(read_records(RESULTS)).constraint_groups
    assert {g: (s.satisfied, s.total) for g, s in shares["A"].items()} == {
        "Character": (5, 7),
        "Format": (2, 3),
        "Notation": (1, 3),
    }
    assert {g: (s.satisfied, s.total) for g, s in shares["org/B"].items()} == {"Character": (1, 2)}


def test_a_bad_record_is_one_error_naming_its_line(tmp_path: Path) -> None:
    bad = tmp_path / "r.jsonl"
    bad.write_text('{"results": {"a": true}}\n{"results": [true]}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"r\.jsonl:2: results is neither an object nor null"):
        read_records(bad)
