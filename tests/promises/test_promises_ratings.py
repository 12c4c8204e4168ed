"""A rating is read where the judge was asked to write it, never from a citation.

hyoka's generic parser (``judge single``) tries the format its templates state first
(``[[n]]``), then a rating named as one (``評価: 8``), then a bare ``[n]`` only alone on its
line: a ``[n]`` inside a sentence is a citation, a footnote or an index. Upstream's readers
(pfmt-bench-fin-ja, FastChat) keep upstream's rules, which ``test_mtbench_replay.py``
replays exactly.
"""

from __future__ import annotations

import re

import pytest

from hyoka.judge import JudgeTemplate
from hyoka.judge.rating import FASTCHAT, HYOKA, PFMT_UPSTREAM, find_rating, parse_rating
from hyoka.judge.templates import packaged_templates

REPORTED = "回答は出典[2]を正しく引用しており、正確で詳しい。\n評価: 8"


def test_a_citation_before_the_rating_is_not_the_rating() -> None:
    match = find_rating(REPORTED)
    assert match is not None
    assert (match.value, match.form) == (8.0, "rating:n")


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        # footnotes: a reference mark in the text and its note below
        ("東京タワーは1958年に完成した[1]。\n\n[1] 日本電波塔株式会社の資料\n評価: 7", 7.0),
        # an index in quoted code
        ("コードの `a[0]` と `b[3]` は正しい。\nRating: 9", 9.0),
        # several ratings: the last one stated is the judge's word
        ("最初は評価: 6 と考えたが、誤りを見落としていた。\n評価: 4", 4.0),
        ("Score: 3 at first; on reflection\nRating: 5", 5.0),
        # the stated format outranks any other form, wherever the others stand
        ("評価: 3\n出典[9]によれば正しい。\nRating: [[6]]", 6.0),
        # a bare [n] counts only alone on its line, where a verdict stands
        ("説明は正確で、出典[2]にも合う。\n[7]", 7.0),
        ("出典[2]を引用。\n  [ 8 ]  ", 8.0),
        # a rating written with single brackets after its label, as pfgen's prompt misprints
        ("出典[3]あり。Rating: [5]", 5.0),
    ],
)
def test_adversarial_replies_read_the_judges_rating(reply: str, expected: float) -> None:
    assert parse_rating(reply) == expected


@pytest.mark.parametrize(
    "reply",
    [
        "回答は出典[2]を正しく引用しており、正確で詳しい。",  # a citation only: no rating
        "配列 a[0] の値は 3 である。",
        "脚注[1]を参照。\n\n[1] 文献",  # a footnote's own line holds more than the mark
    ],
)
def test_a_reply_with_only_citations_has_no_rating(reply: str) -> None:
    assert parse_rating(reply) is None


def test_upstream_readers_keep_upstreams_first_bracket_rule() -> None:
    # upstream's rules are upstream's: there, the citation is the rating (exactly as the
    # published judgments were scored)
    for rules in (PFMT_UPSTREAM, FASTCHAT):
        assert parse_rating(REPORTED, rules) == 2.0
    assert parse_rating(REPORTED, HYOKA) == 8.0


RATING_TEMPLATES = [t for t in packaged_templates() if t.output == "rating"]


@pytest.mark.parametrize("template", RATING_TEMPLATES, ids=lambda t: t.name)
def test_every_packaged_rating_template_is_read_in_its_stated_format(
    template: JudgeTemplate,
) -> None:
    examples = re.findall(r'"(Rating: \[\[\d+\]\])"', template.user)
    assert examples, f"{template.name} states no rating format"
    for example in examples:
        match = find_rating("説明。出典[1]による。\n" + example)
        assert match is not None and match.form == "[[n]]"
        assert match.value == float(re.sub(r"\D", "", example))
