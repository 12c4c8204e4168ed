"""Helpfulness in the compiled kernel against the Python and numpy path, its oracle.

``keywords.helpfulness`` takes the kernel where every rule is a literal; the reference path
(``helpfulness_reference``) takes any rule. Random literal rule trees with every kind of
importance data may hold (in [0, 1]: factors of zero, an ``int``, as ``0`` and ``0.0`` print
differently in result.json, and tiny ones), over answers with the rules' words placed at
the cut boundaries, then
the 50 questions' real rules over a real run: the scores bit for bit, the missed rules as
result.json prints them.
"""

from __future__ import annotations

import json
import math
import struct
from typing import Any

import pytest

from _shared import needs
from hyoka.pfgen import keywords
from hyoka.pfgen.benchmark import PfgenBenchmark
from hyoka.pfgen.keywords import HelpfulnessResult, helpfulness_reference, parse_rules

needs("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import test_pfgen_metrics  # noqa: E402
from test_pfgen_metrics import needs_data, rule_trees  # noqa: E402

#: the real run's answers by question text (a fixture, shared)
run_answers = test_pfgen_metrics.run_answers

pytest.importorskip(
    "hyoka.pfgen._ngram_kernel", reason="the compiled kernel is not built (see setup.py)"
)

WORDS = ("日本", "語", "東京都", "a", "ab", "。", "\ud800", "\U00020bb7", "", "です")
FILLER = st.text(alphabet=st.sampled_from((*"あいう日本語ab。、 ", "\ud800")), max_size=6)
#: Around the discount's knee (100), the longest cut (150) and the window (200).
OFFSETS = (0, 1, 97, 99, 100, 101, 102, 148, 149, 150, 151, 152, 196, 198, 199, 200, 201)
#: Every importance parse_rules takes ([0, 1]: data weighing a keyword otherwise is refused,
#: so no factor is negative, above 1 or NaN): zero, an int (importance 1 gives ``0``), floats.
IMPORTANCES = st.sampled_from((None, 1, 0, 1.0, 0.0, 0.5, 0.3, 0.25, 1e-300))
TREE = rule_trees(st.sampled_from(WORDS), IMPORTANCES)


@st.composite
def answers(draw: st.DrawFn) -> str:
    """Filler up to a boundary offset, a word, and more filler, repeated a few times."""
    pieces = []
    for _ in range(draw(st.integers(1, 3))):
        offset = draw(st.sampled_from(OFFSETS))
        head = draw(FILLER) * 40
        pieces.append(head[:offset].ljust(offset, "・") + draw(st.sampled_from(WORDS)))
    return "".join(pieces) + draw(FILLER)


def printed(results: list[HelpfulnessResult]) -> list[tuple[bytes, str]]:
    """Each score's bits (NaN equals NaN here) and its missed rules as result.json prints them."""
    return [
        (
            struct.pack("<d", r.score),
            json.dumps([list(m) for m in r.missed], ensure_ascii=False),
        )
        for r in results
    ]


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(TREE, max_size=6), st.lists(answers(), min_size=1, max_size=6))
def test_the_kernel_scores_as_the_reference(
    raw_rules: list[dict[str, Any]], texts: list[str]
) -> None:
    rules = parse_rules(raw_rules, "test")
    assert keywords._kernel_spec(rules) is not None  # literals only: the kernel's path
    assert printed(keywords.helpfulness(rules, texts)) == printed(
        helpfulness_reference(rules, texts)
    )


def test_a_regular_expression_keeps_the_reference_path() -> None:
    rules = parse_rules([{"t": "日本"}, {"or": [{"t": "語"}, {"t": "東.都"}]}], "test")
    assert keywords._kernel_spec(rules) is None
    text = "東京都の日本語"
    assert printed(keywords.helpfulness(rules, [text])) == printed(
        helpfulness_reference(rules, [text])
    )


def test_a_factor_of_int_zero_stays_an_int() -> None:
    """``importance: 1`` gives the factor ``0`` (an int), printed ``0`` in result.json."""
    (result,) = keywords.helpfulness(parse_rules([{"t": "無い", "importance": 1}], "t"), ["あ"])
    assert result.missed == [("無い", 0)] and type(result.missed[0][1]) is int
    assert result.score == 0.0 and not math.copysign(1.0, result.score) < 0


@needs_data
def test_every_real_question_scores_alike_on_both_paths(
    benchmark: PfgenBenchmark, run_answers: dict[str, list[str]]
) -> None:
    """The 50 questions' rules over the real run's answers to each, and to every other."""
    others = [a for texts in run_answers.values() for a in texts[::25]]
    compared = 0
    for info in benchmark.questions.values():
        assert keywords._kernel_spec(info.rules) is not None, info.question_id
        texts = run_answers[info.question] + others
        assert printed(keywords.helpfulness(info.rules, texts)) == printed(
            helpfulness_reference(info.rules, texts)
        ), info.question_id
        compared += len(texts)
    assert compared > 50 * 100


def test_a_tree_deeper_than_the_kernel_reads_keeps_the_reference_path() -> None:
    raw: dict[str, Any] = {"t": "日本"}
    for level in range(keywords.KERNEL_RULE_DEPTH):
        raw = {"and" if level % 2 else "or": [raw, {"t": "語"}]}
    rules = parse_rules([raw], "test")
    assert rules[0].depth == keywords.KERNEL_RULE_DEPTH + 1
    assert keywords._kernel_spec(rules) is None
    (inner,) = raw.values()
    shallow = parse_rules([inner[0]], "test")  # one level less: the kernel's
    assert keywords._kernel_spec(shallow) is not None
    texts = ["日本語", "語" * 120 + "日本", ""]
    for these in (rules, shallow):
        assert printed(keywords.helpfulness(these, texts)) == printed(
            helpfulness_reference(these, texts)
        )


def test_the_kernel_reads_only_tuples_str_and_numbers() -> None:
    """What it borrows must stay alive through the call: exact tuples, str and int or
    float only, nothing whose reading runs Python code (a list of parts could be emptied
    by a factor's ``__float__`` mid-call); answers are copied to a tuple of its own."""
    from hyoka.pfgen import _ngram_kernel as kernel

    class Sneaky(float):
        pass

    word = (0, None, "x", ())
    refused: list[tuple[Any, Any]] = [
        ([(word, 0.5)], ["x"]),  # rules in a list
        ((((1, None, None, [word]), 0.5),), ["x"]),  # parts in a list
        (((word, Sneaky(0.5)),), ["x"]),  # a float subclass
        (((word, "0.5"),), ["x"]),
    ]
    for rules, texts in refused:
        with pytest.raises(TypeError, match=r"tuple|int or a float"):
            kernel.helpfulness(rules, texts)
    answers = ["x", "y"]
    scores, missed = kernel.helpfulness(((word, 0),), answers)
    assert scores == [1.0, 0.0] and missed == [[], [("x", 0)]]
