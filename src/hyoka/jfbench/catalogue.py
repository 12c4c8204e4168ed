"""The constraints JFBench composes onto its prompts, in the order its build draws them.

JFBench (pfnet-research/jfbench, commit c8fed01) builds its benchmark from collections of
constraint factories, one list per collection, and the *order* of those lists is part of
the benchmark: a single-constraint build seeds each constraint by its position, and a
multi-constraint build draws positions from a seeded generator. This module holds that
order and each factory's fixed parameters (facts read from upstream's ``build.py``; the
instruction texts, which are upstream's prose, are not here).

A constraint is named by upstream's class name (the name its results carry); ``group`` is
upstream's group (the camel-cased folder its class lives in: ``Character``,
``IfbenchWords``); ``judged`` says an LLM judge decides it (upstream's "llm-based"
factories) rather than a rule; ``document`` says the prompt's text is handed to it (the
processing constraints check a response against the prompt). A logic constraint wraps
another (``positive``), built with the same seed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

ConstraintSet = Literal["train", "test"]
CONSTRAINT_SETS: tuple[ConstraintSet, ...] = ("train", "test")


@dataclass(frozen=True)
class Factory:
    """One entry of a collection: a constraint class and the parameters it is built with."""

    name: str
    group: str
    judged: bool = False
    kwargs: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    document: bool = False
    positive: Factory | None = None

    def parameters(self) -> dict[str, Any]:
        """The parameters as upstream serialises them (a wrapped constraint as its name and
        parameters; the prompt's text and the judge's client left out)."""
        shown: dict[str, Any] = dict(self.kwargs)
        if self.positive is not None:
            shown["positive_constraint"] = {
                "name": self.positive.name,
                "kwargs": self.positive.parameters(),
            }
        return shown


def _rule(name: str, group: str, *, document: bool = False, **kwargs: Any) -> Factory:
    return Factory(name, group, False, MappingProxyType(kwargs), document)


def _judged(name: str, group: str, *, document: bool = False, **kwargs: Any) -> Factory:
    return Factory(name, group, True, MappingProxyType(kwargs), document)


def _names(group: str, *names: str) -> tuple[Factory, ...]:
    return tuple(_rule(name, group) for name in names)


def _judged_names(group: str, *names: str) -> tuple[Factory, ...]:
    return tuple(_judged(name, group) for name in names)


def _negation(double: bool, positive: Factory) -> Factory:
    name = "DoubleNegationLogicConstraint" if double else "NegationLogicConstraint"
    return Factory(name, "Logic", positive=positive)


_CHARACTER = _names(
    "Character",
    "JapanesePunctuationConstraint",
    "NoCommasConstraint",
    "NoJapanesePunctuationConstraint",
    "NoSuffixWhitespaceConstraint",
    "NoWhitespaceConstraint",
    "FullWidthCharacterConstraint",
    "HalfWidthCharacterConstraint",
    "HiraganaCharacterConstraint",
    "KanjiCharacterConstraint",
    "KatakanaCharacterConstraint",
    "LowercaseCharacterConstraint",
    "RomajiCharacterConstraint",
    "UppercaseCharacterConstraint",
)
_WEEKDAYS = ["月", "火", "水", "木", "金", "土", "日"]
_RULE_CONTENT = (
    _rule("KeywordExcludedContentConstraint", "Content", keywords=_WEEKDAYS),
    _rule("KeywordIncludedContentConstraint", "Content", keywords={"日本": 1, "東京": 10}),
)
_ABOUT_JAPAN = "日本に関する説明"
_JUDGED_CONTENT = (
    _judged("AbstractExcludedContentConstraint", "Content", document=True, content=_ABOUT_JAPAN),
    _judged("AbstractIncludedContentConstraint", "Content", document=True, content=_ABOUT_JAPAN),
    _judged("IntrinsicContentConstraint", "Content", document=True),
    _judged("ReasonContentConstraint", "Content", document=True),
    _judged("IrrevantContentConstraint", "Content", document=True),
    _judged("NoReasonContentConstraint", "Content"),
)
_BULLETS = _rule("BulletPointsFormatConstraint", "Format", starter_token="*_*")
_INDENT = _rule("IndentFormatConstraint", "Format", indent="    ")
_FORMAT = (
    _BULLETS,
    *_names(
        "Format",
        "CitationFormatConstraint",
        "CsvFormatConstraint",
        "HtmlFormatConstraint",
        "HtmlTableFormatConstraint",
        "JavascriptFormatConstraint",
        "JsonFormatConstraint",
        "LatexFormatConstraint",
        "LatexTableFormatConstraint",
        "MarkdownClosedFencesConstraint",
        "MarkdownFormatConstraint",
        "MarkdownHeadingJumpsConstraint",
        "MarkdownHeadingsStructureConstraint",
        "MarkdownLinksAndImagesConstraint",
        "MarkdownListStructureConstraint",
        "MarkdownParseableConstraint",
        "MarkdownReferenceLinksConstraint",
        "MarkdownTableFormatConstraint",
        "MarkdownTableStructureConstraint",
        "MarkdownUnconsumedEmphasisMarkersConstraint",
        "MediawikiTableFormatConstraint",
        "PythonFormatConstraint",
        "TsvFormatConstraint",
        "XmlFormatConstraint",
        "YamlFormatConstraint",
        "DiffFormatConstraint",
    ),
    _INDENT,
    *_names(
        "Format",
        "NoCodeFenceJavascriptFormatConstraint",
        "WithCodeFenceJavascriptFormatConstraint",
        "NoCodeFencePythonFormatConstraint",
        "WithCodeFencePythonFormatConstraint",
    ),
    _rule("SentenceDelimiterFormatConstraint", "Format", delimiter="(これは文末です)"),
)
_CHARACTERS_100_200 = _rule("CharactersLengthConstraint", "Length", min_length=100, max_length=200)
_WORDS_10_20 = _rule("WordsLengthConstraint", "Length", minimum=10, maximum=20)
_LENGTH = (
    _CHARACTERS_100_200,
    _rule("ParagraphsLengthConstraint", "Length", min_paragraphs=7, max_paragraphs=10),
    _rule(
        "SectionsLengthConstraint",
        "Length",
        min_sections=10,
        max_sections=12,
        sections_delimiter="\n\n",
    ),
    _rule("SentencesLengthConstraint", "Length", min_sentences=3, max_sentences=4),
    _WORDS_10_20,
    _rule("NewLinesLengthConstraint", "Length", newlines=3),
    _rule("BlankLinesLengthConstraint", "Length", blank_lines=2),
)
_DECIMALS_5 = _rule("DecimalPlacesNotationConstraint", "Notation", required_decimal_places=5)
_ROUNDING_2 = _rule("RoundingNotationConstraint", "Notation", digits=2)
_PREFIX = _rule("PrefixProcessingConstraint", "Processing", prefix="<これは文頭です>")
_LOGIC = (
    _negation(False, _rule("NoWhitespaceConstraint", "Character")),
    _negation(True, _rule("NoCommasConstraint", "Character")),
    _negation(False, _BULLETS),
    _negation(True, _CHARACTERS_100_200),
    _negation(False, _DECIMALS_5),
    _negation(True, _PREFIX),
    _negation(False, _WORDS_10_20),
    _negation(True, _INDENT),
    _negation(False, _rule("SentenceDelimiterFormatConstraint", "Format", delimiter="。")),
    _negation(True, _ROUNDING_2),
)
_META_OUTPUT = _judged_names(
    "MetaOutput",
    "NoExplanationConstraint",
    "NoGreetingOutputConstraint",
    "NoSelfReferenceConstraint",
    "SelfAttestationConstraint",
    "ExplanationConstraint",
    "GreetingOutputConstraint",
    "NoSelfAttestationConstraint",
    "SelfReferenceConstraint",
)
_NOTATION = (
    _DECIMALS_5,
    _rule("EmailAddressNotationConstraint", "Notation"),
    _rule("GroupingNotationConstraint", "Notation", max_group_size=3),
    *_names(
        "Notation",
        "KanjiNumeralsNotationConstraint",
        "NoKanjiNumeralsNotationConstraint",
        "NoHyphenJpPostalCodeNotationConstraint",
        "NoHyphenPhoneNumberNotationConstraint",
        "WithHyphenJpPostalCodeNotationConstraint",
        "WithHyphenPhoneNumberNotationConstraint",
        "CamelcaseNotationConstraint",
        "CurrencyNotationConstraint",
        "DateNotationConstraint",
        "FuriganaNotationConstraint",
    ),
    _ROUNDING_2,
    *_names(
        "Notation",
        "SnakecaseNotationConstraint",
        "TimeNotationConstraint",
        "TitlecaseNotationConstraint",
        "UnitNotationConstraint",
    ),
    _rule("ZeroPaddingNotationConstraint", "Notation", width=5),
)
_P = "Processing"
_RULE_PROCESSING = (
    _PREFIX,
    _rule("SuffixProcessingConstraint", _P, suffix="<これは文末です>"),
    _rule("ConcatProcessingConstraint", _P, document=True, times=2),
    _rule("DictionarySortProcessingConstraint", _P, document=True),
    _rule("LengthSortProcessingConstraint", _P, document=True),
    _rule("NumberSortProcessingConstraint", _P, document=True),
    _rule("ReplacementProcessingConstraint", _P, document=True, start=1, end=3, keyword="###"),
    _rule("SplitProcessingConstraint", _P, document=True, parts=3),
    _rule("PrefixExtractionProcessingConstraint", _P, document=True, length=3),
    _rule("RangeExtractionProcessingConstraint", _P, document=True, start=1, end=4),
    _rule("SuffixExtractionProcessingConstraint", _P, document=True, length=4),
)
_JUDGED_PROCESSING = (
    _judged("ExtractionProcessingConstraint", _P, document=True, condition="挨拶の言葉"),
    _judged("StatisticsProcessingConstraint", _P, document=True, statistic="含まれる固有名詞の数"),
)
_STRUCTURE = _judged_names("Structure", "HeadingStructureConstraint", "SectionStructureConstraint")
_JUDGED_STYLE = _judged_names(
    "Style",
    "EnglishStyleConstraint",
    "JapaneseStyleConstraint",
    "BritishEnglishStyleConstraint",
    "AmericanEnglishStyleConstraint",
    "PoliteStyleConstraint",
    "PastTenseStyleConstraint",
    "PresentTenseStyleConstraint",
    "FormalToneStyleConstraint",
    "CasualToneStyleConstraint",
    "BusinessToneStyleConstraint",
    "AcademicToneStyleConstraint",
    "NoTypoStyleConstraint",
    "AngryEmotionalStyleConstraint",
    "DifficultVocacularyStyleConstraint",
    "EasyVocabularyStyleConstraint",
    "FirstPersonSingularStyleConstraint",
    "FirstPersonPluralStyleConstraint",
    "HappyEmotionalStyleConstraint",
    "ImpersonalStyleConstraint",
    "JoyfulEmotionalStyleConstraint",
    "NoEnglishStyleConstraint",
    "NoJapaneseStyleConstraint",
    "PlainStyleConstraint",
    "SadEmotionalStyleConstraint",
    "TaigendomeStyleConstraint",
)
_IC, _IF, _IR = "IfbenchCount", "IfbenchFormat", "IfbenchRatio"
_IFBENCH_COUNT = (
    _rule("ConjunctionCountIfbenchConstraint", _IC, minimum_kinds=4),
    _rule("NumbersCountIfbenchConstraint", _IC, expected_count=13),
    _rule("PersonNamesCountIfbenchConstraint", _IC, minimum_names=10),
    _rule("PronounsCountIfbenchConstraint", _IC, minimum_pronouns=22),
    _rule("PunctuationCountIfbenchConstraint", _IC),
    _rule("UniqueWordCountIfbenchConstraint", _IC, minimum_unique=360),
)
_IFBENCH_FORMAT = _names(
    _IF,
    "EmojiFormatIfbenchConstraint",
    "LineIndentFormatIfbenchConstraint",
    "NewlineFormatIfbenchConstraint",
    "OutputTemplateFormatIfbenchConstraint",
    "ParenthesesFormatIfbenchConstraint",
    "QuoteUnquoteFormatIfbenchConstraint",
    "QuotesFormatIfbenchConstraint",
    "SubBulletsFormatIfbenchConstraint",
    "ThesisFormatIfbenchConstraint",
)
_IFBENCH_RATIO = (
    _rule("OverlapRatioIfbenchConstraint", _IR, document=True, target_ratio_percent=72),
    _rule("SentenceBalanceRatioIfbenchConstraint", _IR),
    _rule("SentenceTypeRatioIfbenchConstraint", _IR),
    _rule("SentenceWordsRatioIfbenchConstraint", _IR),
    _rule("StopWordsRatioIfbenchConstraint", _IR, max_ratio_percent=27),
)
_IFBENCH_REPEAT = (
    _rule("ChangeRepeatIfbenchConstraint", "IfbenchRepeat", document=True),
    _rule("SimpleRepeatIfbenchConstraint", "IfbenchRepeat"),
)
_IS, _IW = "IfbenchSentence", "IfbenchWords"
_IFBENCH_SENTENCE = (
    _rule("AlliterationIncrementSentenceIfbenchConstraint", _IS),
    _rule("IncrementSentenceIfbenchConstraint", _IS, increment=3),
    _rule("KeywordSentenceIfbenchConstraint", _IS, sentence_index=7, keyword="AI"),
)
_IFBENCH_WORDS = (
    _rule("ConsonantsWordsIfbenchConstraint", _IW),
    _rule(
        "KeywordsSpecificPositionWordsIfbenchConstraint",
        _IW,
        sentence_index=22,
        word_index=33,
        keyword="AI",
    ),
    _rule("LastFirstWordsIfbenchConstraint", _IW),
    _rule("NoConsecutiveWordsIfbenchConstraint", _IW),
    _rule("OddEvenSyllablesWordsIfbenchConstraint", _IW),
    _rule("PalindromeWordsIfbenchConstraint", _IW, minimum_palindromes=10),
    _rule("ParagraphLastFirstWordsIfbenchConstraint", _IW),
    _rule("PrimeLengthsWordsIfbenchConstraint", _IW),
    _rule("RepeatsWordsIfbenchConstraint", _IW, max_repeats=4),
    _rule("StartVerbWordsIfbenchConstraint", _IW),
    _rule("VowelWordsIfbenchConstraint", _IW),
    _rule(
        "WordsPositionWordsIfbenchConstraint", _IW, word_index=2, from_end_index=2, word="テスト"
    ),
)


@dataclass(frozen=True)
class Collections:
    """One constraint set's collections, by upstream's collection names."""

    collections: Mapping[str, tuple[Factory, ...]]

    #: the order upstream concatenates its rule-based collections in
    RULE_ORDER = (
        "character",
        "rule_content",
        "format",
        "length",
        "logic",
        "notation",
        "rule_processing",
        "rule_style",
        "ifbench_count",
        "ifbench_format",
        "ifbench_ratio",
        "ifbench_repeat",
        "ifbench_sentence",
        "ifbench_words",
    )
    #: and its judged ones
    JUDGED_ORDER = ("llm_content", "meta_output", "llm_processing", "structure", "llm_style")

    @property
    def rule_based(self) -> tuple[Factory, ...]:
        return tuple(f for name in self.RULE_ORDER for f in self.collections[name])

    @property
    def judged(self) -> tuple[Factory, ...]:
        return tuple(f for name in self.JUDGED_ORDER for f in self.collections[name])


_TRAIN: dict[str, tuple[Factory, ...]] = {
    "character": _CHARACTER,
    "rule_content": _RULE_CONTENT,
    "llm_content": _JUDGED_CONTENT,
    "format": _FORMAT,
    "length": _LENGTH,
    "logic": _LOGIC,
    "meta_output": _META_OUTPUT,
    "notation": _NOTATION,
    "rule_processing": _RULE_PROCESSING,
    "llm_processing": _JUDGED_PROCESSING,
    "structure": _STRUCTURE,
    "rule_style": (),
    "llm_style": _JUDGED_STYLE,
    "ifbench_count": (),
    "ifbench_format": (),
    "ifbench_ratio": (),
    "ifbench_repeat": (),
    "ifbench_sentence": (),
    "ifbench_words": (),
}
#: the test set adds IFBench's translated constraints to every training collection
_TEST = {
    **_TRAIN,
    "ifbench_count": _IFBENCH_COUNT,
    "ifbench_format": _IFBENCH_FORMAT,
    "ifbench_ratio": _IFBENCH_RATIO,
    "ifbench_repeat": _IFBENCH_REPEAT,
    "ifbench_sentence": _IFBENCH_SENTENCE,
    "ifbench_words": _IFBENCH_WORDS,
}
COLLECTIONS: Mapping[ConstraintSet, Collections] = MappingProxyType(
    {"train": Collections(MappingProxyType(_TRAIN)), "test": Collections(MappingProxyType(_TEST))}
)


def classes(constraint_set: ConstraintSet = "test") -> dict[str, Factory]:
    """Every constraint class of a set by name (a logic class once, by its first factory)."""
    found: dict[str, Factory] = {}
    sets = COLLECTIONS[constraint_set]
    for factory in (*sets.rule_based, *sets.judged):
        found.setdefault(factory.name, factory)
    return found
