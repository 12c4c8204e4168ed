"""Which two constraints JFBench never composes onto one prompt.

A multi-constraint build (upstream's ``build.py`` with ``--n-constraints`` 2 or more)
draws constraints one by one and throws a draw back when it clashes with one already
chosen: the same class twice, or a pair upstream lists as competing (its
``_competitives.py``, commit c8fed01). Whether a draw is thrown back changes every later
draw of the seeded generator, so the relation must be upstream's exactly; it is a set of
facts about class names, held here as families of names and how they clash.

The relation is symmetric and never holds between a class and itself (the build refuses
that pair on its own). ``clash`` answers it.
"""

from __future__ import annotations

from itertools import product

#: plain-text layouts: bullets, citations, diffs
_TEXT_LAYOUTS = frozenset(
    {"BulletPointsFormatConstraint", "CitationFormatConstraint", "DiffFormatConstraint"}
)
#: data serialisations
_DATA = frozenset(
    {
        "CsvFormatConstraint",
        "JsonFormatConstraint",
        "TsvFormatConstraint",
        "XmlFormatConstraint",
        "YamlFormatConstraint",
    }
)
#: program source
_CODE = frozenset(
    {
        "JavascriptFormatConstraint",
        "NoCodeFenceJavascriptFormatConstraint",
        "PythonFormatConstraint",
        "NoCodeFencePythonFormatConstraint",
        "WithCodeFenceJavascriptFormatConstraint",
        "WithCodeFencePythonFormatConstraint",
    }
)
#: documents in a markup language
_MARKUP = frozenset({"HtmlFormatConstraint", "LatexFormatConstraint"})
#: tables, and those of them not written in Markdown
_OTHER_TABLES = frozenset(
    {"HtmlTableFormatConstraint", "LatexTableFormatConstraint", "MediawikiTableFormatConstraint"}
)
_TABLES = _OTHER_TABLES | {"MarkdownTableFormatConstraint"}
#: Markdown checks (the Markdown table is a table, not one of these)
_MARKDOWN = frozenset(
    {
        "MarkdownClosedFencesConstraint",
        "MarkdownFormatConstraint",
        "MarkdownHeadingJumpsConstraint",
        "MarkdownHeadingsStructureConstraint",
        "MarkdownLinksAndImagesConstraint",
        "MarkdownListStructureConstraint",
        "MarkdownParseableConstraint",
        "MarkdownReferenceLinksConstraint",
        "MarkdownTableStructureConstraint",
        "MarkdownUnconsumedEmphasisMarkersConstraint",
    }
)
#: the judged layouts: headings, sections
_LAYOUT_JUDGED = frozenset({"HeadingStructureConstraint", "SectionStructureConstraint"})
#: one script only
_ONE_SCRIPT = frozenset(
    {
        "HiraganaCharacterConstraint",
        "KatakanaCharacterConstraint",
        "KanjiCharacterConstraint",
        "RomajiCharacterConstraint",
    }
)
_JAPANESE_SCRIPT = _ONE_SCRIPT - {"RomajiCharacterConstraint"}
_WIDTHS = frozenset({"FullWidthCharacterConstraint", "HalfWidthCharacterConstraint"})
_CASES = frozenset({"UppercaseCharacterConstraint", "LowercaseCharacterConstraint"})
#: constraints a response meets only in ASCII letters
_LATIN = _CASES | {
    "CamelcaseNotationConstraint",
    "SnakecaseNotationConstraint",
    "TitlecaseNotationConstraint",
    "RomajiCharacterConstraint",
}
_POSITIVE_MOOD = frozenset({"HappyEmotionalStyleConstraint", "JoyfulEmotionalStyleConstraint"})
_NEGATIVE_MOOD = frozenset({"AngryEmotionalStyleConstraint", "SadEmotionalStyleConstraint"})

#: families whose members exclude one another
_EXCLUSIVE = (
    _DATA,
    _CODE,
    _MARKUP,
    _TABLES,
    _TEXT_LAYOUTS,
    _ONE_SCRIPT,
    _WIDTHS,
    _CASES,
    frozenset({"PastTenseStyleConstraint", "PresentTenseStyleConstraint"}),
    frozenset({"PlainStyleConstraint", "PoliteStyleConstraint"}),
    frozenset({"EasyVocabularyStyleConstraint", "DifficultVocacularyStyleConstraint"}),
)

#: pairs of families each member of one excludes each member of the other
_OPPOSED: tuple[tuple[frozenset[str], frozenset[str]], ...] = (
    *(
        (left, right)
        for left, rights in (
            (_DATA, (_CODE, _MARKUP, _TABLES, _TEXT_LAYOUTS, _MARKDOWN)),
            (_CODE, (_MARKUP, _TABLES, _TEXT_LAYOUTS, _MARKDOWN)),
            (_MARKUP, (_TABLES, _TEXT_LAYOUTS, _MARKDOWN)),
            (_TABLES, (_TEXT_LAYOUTS, _LAYOUT_JUDGED)),
            (_OTHER_TABLES, (_MARKDOWN,)),
            (_LAYOUT_JUDGED, (_DATA, _CODE, _MARKUP)),
            (_POSITIVE_MOOD, (_NEGATIVE_MOOD,)),
            (frozenset({"FullWidthCharacterConstraint"}), (_LATIN,)),
            (frozenset({"HalfWidthCharacterConstraint"}), (_JAPANESE_SCRIPT,)),
            (_WIDTHS, (_LATIN,)),
            (_CASES, (_JAPANESE_SCRIPT,)),
            (_LATIN, (_JAPANESE_SCRIPT,)),
            (frozenset({"JapaneseStyleConstraint"}), (_LATIN,)),
            (frozenset({"NoJapaneseStyleConstraint"}), (_ONE_SCRIPT,)),
        )
        for right in rights
    ),
)

#: a response with no whitespace cannot meet these
_NEEDS_WHITESPACE = frozenset(
    {
        "BlankLinesLengthConstraint",
        "CitationFormatConstraint",
        "DiffFormatConstraint",
        "HtmlFormatConstraint",
        "HtmlTableFormatConstraint",
        "IndentFormatConstraint",
        "JavascriptFormatConstraint",
        "LatexTableFormatConstraint",
        "LineIndentFormatIfbenchConstraint",
        "MarkdownHeadingJumpsConstraint",
        "MarkdownHeadingsStructureConstraint",
        "MarkdownListStructureConstraint",
        "MarkdownTableFormatConstraint",
        "MarkdownTableStructureConstraint",
        "MediawikiTableFormatConstraint",
        "NewLinesLengthConstraint",
        "NewlineFormatIfbenchConstraint",
        "NoCodeFenceJavascriptFormatConstraint",
        "NoCodeFencePythonFormatConstraint",
        "ParagraphsLengthConstraint",
        "PythonFormatConstraint",
        "QuoteUnquoteFormatIfbenchConstraint",
        "SectionsLengthConstraint",
        "SubBulletsFormatIfbenchConstraint",
        "TitlecaseNotationConstraint",
        "TsvFormatConstraint",
        "WithCodeFenceJavascriptFormatConstraint",
        "WithCodeFencePythonFormatConstraint",
        "XmlFormatConstraint",
    }
)
_ABOUT_THE_PROMPT = frozenset({"AbstractIncludedContentConstraint", "IntrinsicContentConstraint"})
_AWAY_FROM_THE_PROMPT = frozenset({"IrrevantContentConstraint", "SimpleRepeatIfbenchConstraint"})
#: any two of these clash
_CONTENT = frozenset(
    {
        "AbstractExcludedContentConstraint",
        "AbstractIncludedContentConstraint",
        "IntrinsicContentConstraint",
        "IrrevantContentConstraint",
        "KeywordExcludedContentConstraint",
        "KeywordIncludedContentConstraint",
        "NoReasonContentConstraint",
        "ReasonContentConstraint",
    }
)
#: these clash with every other constraint
_ALONE = frozenset({"ChangeRepeatIfbenchConstraint", "SimpleRepeatIfbenchConstraint"})

_CODE_OR_MARKUP = _CODE | _MARKUP | {"XmlFormatConstraint"}
_UPPERCASE_CLASHES = (
    _CODE | {"HtmlFormatConstraint", "LatexFormatConstraint", "LatexTableFormatConstraint"}
) | {
    "LowercaseCharacterConstraint",
    "MarkdownLinksAndImagesConstraint",
    "MediawikiTableFormatConstraint",
    "XmlFormatConstraint",
}
_FULL_WIDTH_CLASHES = (_CODE | _DATA | _MARKUP | _OTHER_TABLES) | {
    "HalfWidthCharacterConstraint",
    "NoJapanesePunctuationConstraint",
    "DiffFormatConstraint",
    "SentenceDelimiterFormatConstraint",
}

#: single pairs, each written (one, those it clashes with)
_NAMED: tuple[tuple[str, frozenset[str]], ...] = (
    ("MarkdownTableFormatConstraint", frozenset(
        {"MarkdownFormatConstraint", "MarkdownHeadingJumpsConstraint",
         "MarkdownHeadingsStructureConstraint"}
    )),
    ("KanjiNumeralsNotationConstraint", frozenset({"NoKanjiNumeralsNotationConstraint"})),
    ("NoHyphenJpPostalCodeNotationConstraint",
     frozenset({"WithHyphenJpPostalCodeNotationConstraint"})),
    ("NoHyphenPhoneNumberNotationConstraint",
     frozenset({"WithHyphenPhoneNumberNotationConstraint"})),
    ("JapanesePunctuationConstraint", frozenset(
        {"NoJapanesePunctuationConstraint", "CsvFormatConstraint", "JsonFormatConstraint",
         "NoJapaneseStyleConstraint", "EnglishStyleConstraint"}
    )),
    ("NoCommasConstraint", frozenset({"CsvFormatConstraint", "JsonFormatConstraint"})),
    ("NoJapaneseStyleConstraint", frozenset(
        {"KanjiNumeralsNotationConstraint", "FuriganaNotationConstraint",
         "JapaneseStyleConstraint"}
    )),
    ("ReasonContentConstraint", frozenset({"NoExplanationConstraint"})),
    ("NoSelfReferenceConstraint",
     frozenset({"SelfAttestationConstraint", "SelfReferenceConstraint"})),
    ("ExplanationConstraint", frozenset({"NoExplanationConstraint"})),
    ("GreetingOutputConstraint", frozenset({"NoGreetingOutputConstraint"})),
    ("SelfAttestationConstraint", frozenset({"NoSelfAttestationConstraint"})),
    ("NoCodeFenceJavascriptFormatConstraint",
     frozenset({"WithCodeFenceJavascriptFormatConstraint"})),
    ("NoCodeFencePythonFormatConstraint", frozenset({"WithCodeFencePythonFormatConstraint"})),
    ("CasualToneStyleConstraint", frozenset(
        {"AcademicToneStyleConstraint", "BusinessToneStyleConstraint",
         "FormalToneStyleConstraint", "PoliteStyleConstraint"}
    )),
    ("ImpersonalStyleConstraint", frozenset(
        {"FirstPersonPluralStyleConstraint", "FirstPersonSingularStyleConstraint"}
    )),
    ("UppercaseCharacterConstraint", _UPPERCASE_CLASHES),
    ("FullWidthCharacterConstraint", _FULL_WIDTH_CLASHES),
    ("CamelcaseNotationConstraint",
     frozenset({"LowercaseCharacterConstraint", "UppercaseCharacterConstraint"})),
    ("TitlecaseNotationConstraint",
     frozenset({"LowercaseCharacterConstraint", "UppercaseCharacterConstraint"})),
    ("SnakecaseNotationConstraint", frozenset({"UppercaseCharacterConstraint"})),
    ("EnglishStyleConstraint", _JAPANESE_SCRIPT | {"JapaneseStyleConstraint"}),
    ("RomajiCharacterConstraint",
     _CODE_OR_MARKUP | {"EnglishStyleConstraint", "JapaneseStyleConstraint"}),
    *((script, _CODE_OR_MARKUP) for script in sorted(_JAPANESE_SCRIPT)),
    ("IrrevantContentConstraint", _ABOUT_THE_PROMPT),
    ("JapaneseStyleConstraint", frozenset(
        {"BritishEnglishStyleConstraint", "AmericanEnglishStyleConstraint"}
    )),
    ("NoEnglishStyleConstraint", frozenset(
        {"EnglishStyleConstraint", "BritishEnglishStyleConstraint",
         "AmericanEnglishStyleConstraint"}
    )),
    ("BritishEnglishStyleConstraint", frozenset({"AmericanEnglishStyleConstraint"})),
)  # fmt: skip


def _pairs() -> frozenset[frozenset[str]]:
    found: set[frozenset[str]] = set()
    for family in _EXCLUSIVE:
        found.update(frozenset(p) for p in product(family, family))
    for left, right in _OPPOSED:
        found.update(frozenset(p) for p in product(left, right))
    for one, others in _NAMED:
        found.update(frozenset((one, other)) for other in others)
    found.update(frozenset(p) for p in product(_NEEDS_WHITESPACE, {"NoWhitespaceConstraint"}))
    found.update(frozenset(p) for p in product(_ABOUT_THE_PROMPT, _AWAY_FROM_THE_PROMPT))
    found.update(frozenset(p) for p in product(_CONTENT, _CONTENT))
    return frozenset(pair for pair in found if len(pair) == 2)


_CLASHING = _pairs()


def clash(left: str, right: str) -> bool:
    """Whether upstream's build keeps two constraint classes (by name) apart: the same class,
    a class that stands alone (the repeat constraints), or a listed pair."""
    if left == right or left in _ALONE or right in _ALONE:
        return True
    return frozenset((left, right)) in _CLASHING
