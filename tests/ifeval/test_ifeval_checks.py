"""Each M-IFEval-Ja check on small hand-written responses, as upstream's classes decide them.

The expected verdicts come from reading upstream's ``instructions/ja_instructions.py``
(lightblue-tech/M-IFEval 0bc3143): each case names the rule it pins, upstream's quirks
included (a bare ``・`` line swallowing the next, a paragraph index that counts blank
pieces, a trailing newline making an unfinished sentence, Python's ``json`` reading
``NaN``). Word checks use Janome's tokens: ``子猫`` is one token, so ``猫`` is not in it.
"""

from __future__ import annotations

from typing import Any

import pytest

from _shared import needs

needs("langdetect")
needs("janome")
needs("ja_sentence_segmenter")

from hyoka.errors import InputError  # noqa: E402
from hyoka.ifeval import BUILDERS, build, follows, loose_readings  # noqa: E402

#: (instruction id, kwargs, response, expected strict verdict, what it pins)
CASES: list[tuple[str, dict[str, Any], str, bool, str]] = [
    ("ja:keywords:existence", {"keywords": ["猫", "本"]}, "猫と本が好きです。", True, "tokens"),
    ("ja:keywords:existence", {"keywords": ["猫"]}, "子猫が好きです。", False, "whole token"),
    ("ja:keywords:frequency", {"keyword": "アプリ", "frequency": 2, "relation": "以上"},
     "アプリとアプリ", True, "at least"),
    ("ja:keywords:frequency", {"keyword": " アプリ ", "frequency": 2, "relation": "未満"},
     "アプリとアプリ", False, "below; keyword stripped"),
    ("ja:keywords:forbidden_words", {"forbidden_words": ["健康"]}, "健康的な生活", False,
     "健康 is a token of 健康的"),
    ("ja:keywords:forbidden_words", {"forbidden_words": ["健康"]}, "元気な生活", True, "absent"),
    ("ja:keywords:letter_frequency", {"letter": "か", "let_frequency": 3, "let_relation": "以上"},
     "かカか", True, "katakana counts with its hiragana"),
    ("ja:keywords:letter_frequency", {"letter": "か", "let_frequency": 3, "let_relation": "以上"},
     "かが", False, "が is another letter"),
    ("ja:language:response_language", {"language": "fr"},
     "Je suis très content de vous voir aujourd'hui, merci beaucoup.", True, "French"),
    ("ja:language:response_language", {"language": "fr"}, "今日はとても良い天気ですね。", False,
     "Japanese"),
    ("ja:language:response_language", {"language": "fr"}, "1234 !!", True,
     "nothing to read counts as followed"),
    ("ja:length_constraints:number_sentences", {"num_sentences": 3, "relation": "以上"},
     "晴れ。雨！曇り？", True, "full-width ！？ end sentences after normalising"),
    ("ja:length_constraints:number_sentences", {"num_sentences": 2, "relation": "以上"},
     "「晴れ。雨。」と言った。", False, "no split inside 「」"),
    ("ja:length_constraints:number_sentences", {"num_sentences": 3, "relation": "未満"},
     "これは\n猫の\n本です。", True, "a line ending in の runs on: 2 sentences"),
    ("ja:length_constraints:number_paragraphs", {"num_paragraphs": 2}, "一\n***\n二", True,
     "divided by ***"),
    ("ja:length_constraints:number_paragraphs", {"num_paragraphs": 2}, "***\n一\n***\n二\n***",
     True, "empty ends not counted"),
    ("ja:length_constraints:number_paragraphs", {"num_paragraphs": 2}, "一\n***\n***\n二", False,
     "an empty middle fails"),
    ("ja:length_constraints:number_letters", {"num_letters": 5, "relation": "未満"}, "あいうえ",
     True, "code points"),
    ("ja:length_constraints:number_letters", {"num_letters": 5, "relation": "未満"}, "あいうえお",
     False, "five is not below five"),
    ("ja:length_constraints:nth_paragraph_first_word",
     {"num_paragraphs": 2, "nth_paragraph": 2, "first_word": "猫"}, "犬です。\n\n「猫です。」",
     True, "an opening 「 is read past"),
    ("ja:length_constraints:nth_paragraph_first_word",
     {"num_paragraphs": 2, "nth_paragraph": 2, "first_word": "猫"}, "犬\n\n\n\n猫", False,
     "the index counts the blank piece between"),
    ("ja:length_constraints:nth_paragraph_first_word",
     {"num_paragraphs": 2, "nth_paragraph": 1, "first_word": "Cat"}, "Cat\n\nDog", False,
     "the first word is lower-cased, the paragraph is not"),
    ("ja:detectable_content:number_placeholders", {"num_placeholders": 2}, "[名前]と[場所]", True,
     "two"),
    ("ja:detectable_content:number_placeholders", {"num_placeholders": 2}, "[名\n前]と[場所]",
     False, "a placeholder stays on one line"),
    ("ja:detectable_content:postscript", {"postscript_marker": "P.S."}, "本文\np. s. またね", True,
     "P.S. allows a blank after its dots, any case"),
    ("ja:detectable_content:postscript", {"postscript_marker": "P.P.S."}, "本文\nP. P. S. またね",
     False, "P.P.S. (with its last dot) is literal"),
    ("ja:detectable_content:postscript", {"postscript_marker": "追伸"}, "本文\n追伸：またね", True,
     "追伸"),
    ("ja:detectable_format:number_bullet_lists", {"num_bullets": 2}, "・一\n・二", True, "two"),
    ("ja:detectable_format:number_bullet_lists", {"num_bullets": 2}, "・一\n・・二", False,
     "・・ opens no bullet"),
    ("ja:detectable_format:number_bullet_lists", {"num_bullets": 1}, "・\n・一", True,
     "a bare ・ swallows the next line"),
    ("ja:detectable_format:number_numbered_lists", {"num_items": 2}, "1. 一\n2. 二", True, "two"),
    ("ja:detectable_format:number_numbered_lists", {"num_items": 2}, "1.一\n2. 二", False,
     "a blank must follow the dot"),
    ("ja:detectable_format:constrained_response", {}, "答え：はい、そうです。", True, "anywhere"),
    ("ja:detectable_format:constrained_response", {}, "はい", False, "the whole option"),
    ("ja:detectable_format:number_highlighted_sections", {"num_highlights": 2}, "《一》と《二》",
     True, "two"),
    ("ja:detectable_format:number_highlighted_sections", {"num_highlights": 2}, "《 》と《二》",
     False, "a blank one does not count"),
    ("ja:detectable_format:multiple_sections", {"section_spliter": "章", "num_sections": 2},
     "第1章 一\n第２章 二", True, "ASCII or full-width digits"),
    ("ja:detectable_format:multiple_sections", {"section_spliter": "章", "num_sections": 2},
     "第一章 一\n第二章 二", False, "kanji numerals are no digits"),
    ("ja:detectable_format:json_format", {}, '```json\n{"a": 1}\n```', True, "fenced"),
    ("ja:detectable_format:json_format", {}, "{a: 1}", False, "not JSON"),
    ("ja:detectable_format:json_format", {}, "NaN", True, "Python's json reads NaN"),
    ("ja:detectable_format:title", {}, "『題』\n本文", True, "a title"),
    ("ja:detectable_format:title", {}, "『\n』本文", False, "on one line"),
    ("ja:combination:two_responses", {}, "一つ目\n******\n二つ目", True, "two"),
    ("ja:combination:two_responses", {}, "同じ\n******\n同じ ", False, "they must differ"),
    ("ja:combination:two_responses", {}, "一******二******三", False, "three"),
    ("ja:combination:repeat_prompt", {"prompt_to_repeat": "猫について書いて。"},
     " 猫について書いて。猫は可愛い。", True, "starts with the request"),
    ("ja:combination:repeat_prompt", {"prompt_to_repeat": "猫について書いて。"},
     "はい。猫について書いて。", False, "nothing before it"),
    ("ja:startend:end_checker", {"end_phrase": "以上です。"}, "本文。以上です。」\n", True,
     "a closing 」 is read past"),
    ("ja:startend:end_checker", {"end_phrase": "以上です。"}, "以上です。ね", False, "the end"),
    ("ja:startend:sentence_unified_end", {"ending": "です"}, "猫です。「犬だ。」と言ったです。",
     True, "quotations cut out"),
    ("ja:startend:sentence_unified_end", {"ending": "です"}, "猫です。\n", False,
     "the newline after 。 is an unfinished sentence"),
    ("ja:detectable_format:nominal_ending", {"count": 1}, "美しい花。", True, "noun then 。"),
    ("ja:detectable_format:nominal_ending", {"count": 1}, "花が咲く。", False, "verb then 。"),
    ("ja:letters:furigana", {}, "漢字（かんじ）を書（か）く", True, "every run read"),
    ("ja:letters:furigana", {}, "漢字（かんじ）を書く", False, "書 without its reading"),
    ("ja:letters:kansuuji", {}, "三つ", True, "kanji numeral"),
    ("ja:letters:kansuuji", {}, "３つ", False, "a full-width digit is a digit"),
    ("ja:letters:no_katakana", {}, "ひらがなと漢字", True, "none"),
    ("ja:letters:no_katakana", {}, "ひらがなとｶﾅ", False, "half-width katakana"),
    ("ja:letters:katakana_only", {}, "カタカナ・ー、！", True, "punctuation does not count"),
    ("ja:letters:katakana_only", {}, "カタカナと", False, "a hiragana"),
    ("ja:letters:no_hiragana", {}, "カタカナ漢字。", True, "none"),
    ("ja:letters:no_hiragana", {}, "漢字と", False, "と"),
    ("ja:letters:hiragana_only", {}, "ひらがなー、。！ 1", True, "no letter does not count"),
    ("ja:letters:hiragana_only", {}, "ひらがなabc", False, "Latin letters"),
    ("ja:letters:kanji", {"kanji_limit": 2, "relation": "以上"}, "漢字", True, "two"),
    ("ja:letters:kanji", {"kanji_limit": 2, "relation": "以上"}, "漢じ", False, "one"),
    ("ja:punctuation:no_comma", {}, "一つ。", True, "none"),
    ("ja:punctuation:no_comma", {}, "一つ、二つ", False, "、"),
    ("ja:punctuation:no_period", {}, "一つ、二つ", True, "none"),
    ("ja:punctuation:no_period", {}, "一つ。", False, "。"),
    ("ja:startend:quotation", {}, " 「全体」\n", True, "blanks around it aside"),
    ("ja:startend:quotation", {}, "前「全体」", False, "all of it"),
]  # fmt: skip


def test_every_instruction_id_has_cases_that_pass_and_fail() -> None:
    assert len(BUILDERS) == 33
    for iid in BUILDERS:
        assert {expected for i, _, _, expected, _ in CASES if i == iid} == {True, False}, iid


@pytest.mark.parametrize(
    ("iid", "kwargs", "text", "expected"),
    [case[:4] for case in CASES],
    ids=[f"{case[0].rpartition(':')[2]}-{case[4]}" for case in CASES],
)
def test_check_decides_as_upstream(
    iid: str, kwargs: dict[str, Any], text: str, expected: bool
) -> None:
    assert follows(build(iid, kwargs, "case"), text, "strict") is expected


def test_word_checks_decided_by_the_text_alone_run_no_tokenizer() -> None:
    """A word not in the text is no token's surface, and no more tokens are a word than the
    text holds it: where that decides, Janome (0.05 s a text) is not run, same verdicts."""
    from hyoka.ifeval import japanese

    cases: list[tuple[str, dict[str, object], str, bool]] = [
        ("ja:keywords:existence", {"keywords": ["犬", "猫"]}, "猫の本を読む。", False),
        ("ja:keywords:forbidden_words", {"forbidden_words": ["健康"]}, "元気な暮らし", True),
        ("ja:keywords:frequency", {"keyword": "アプリ", "frequency": 3, "relation": "以上"},
         "アプリとアプリの話", False),
        ("ja:keywords:frequency", {"keyword": "アプリ", "frequency": 3, "relation": "未満"},
         "アプリとアプリの話", True),
        ("ja:detectable_format:nominal_ending", {"count": 2}, "美しい花。「雪。」", False),
    ]  # fmt: skip
    calls = japanese.tokens.cache_info()
    for iid, kwargs, text, expected in cases:
        assert follows(build(iid, kwargs, "case"), text, "strict") is expected, iid
        assert follows(build(iid, kwargs, "case"), text, "loose") is expected, iid
    after = japanese.tokens.cache_info()
    assert after.hits + after.misses == calls.hits + calls.misses


def test_a_blank_response_follows_nothing_even_a_ban() -> None:
    no_comma = build("ja:punctuation:no_comma", {}, "case")
    assert follows(no_comma, "", "strict") is False
    assert follows(no_comma, " \n", "loose") is False
    assert follows(no_comma, None, "loose") is False
    assert follows(no_comma, "ok", "strict") is True


def test_loose_reads_eight_versions_in_upstream_order() -> None:
    assert loose_readings("*a*\nb\n*c*") == (
        "*a*\nb\n*c*",
        "a\nb\nc",
        "b\n*c*",
        "*a*\nb",
        "b",
        "b\nc",
        "a\nb",
        "b",
    )
    quotation = build("ja:startend:quotation", {}, "case")
    framed = "以下が答えです。\n「全体」"
    assert follows(quotation, framed, "strict") is False
    assert follows(quotation, framed, "loose") is True  # the first line removed
    bold = build("ja:startend:end_checker", {"end_phrase": "以上です。"}, "case")
    assert follows(bold, "本文。**以上です。**", "strict") is False
    assert follows(bold, "本文。**以上です。**", "loose") is True  # * removed


@pytest.mark.parametrize(
    ("iid", "kwargs", "message"),
    [
        ("ja:detectable_format:number_bullet_lists", {}, "argument num_bullets is missing"),
        ("ja:detectable_format:number_bullet_lists", {"num_bullets": -1}, "num_bullets=-1"),
        ("ja:letters:kanji", {"kanji_limit": 3, "relation": "より多い"}, "relation='より多い'"),
        ("ja:keywords:letter_frequency",
         {"letter": "カ", "let_frequency": 1, "let_relation": "以上"}, "not one hiragana"),
        ("ja:length_constraints:nth_paragraph_first_word",
         {"num_paragraphs": 2, "nth_paragraph": 3, "first_word": "猫"}, "past num_paragraphs"),
        ("ja:punctuation:no_comma", {"language": "ja"}, "takes no argument language"),
        ("ja:keywords:key_sentences", {}, "unknown instruction"),
    ],
)  # fmt: skip
def test_arguments_upstream_would_draw_at_random_are_refused(
    iid: str, kwargs: dict[str, Any], message: str
) -> None:
    with pytest.raises(InputError, match=message) as caught:
        build(iid, kwargs, "prompts.jsonl:7")
    assert str(caught.value).startswith("prompts.jsonl:7: ")
