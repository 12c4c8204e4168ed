"""The rule-based constraints, each decided as upstream's class decides it.

``RULES`` maps upstream's class name to a builder that takes the constraint's parameters
and the prompt's text and returns the check of a response. ``SOURCED`` holds the six
whose word lists are upstream's data, decided only with its source at hand; with the two
logic classes (decided by the constraint they wrap) that is all 123 of upstream's
rule-based classes. A name absent from both is judged by an LLM (``catalogue``'s
``judged``) or not upstream's: such a constraint is reported by name, never guessed
(``missing_rules`` lists any rule-based class left undecided: none).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from hyoka.errors import InputError
from hyoka.jfbench.catalogue import ConstraintSet, Factory, classes
from hyoka.jfbench.rules import (
    character,
    citation,
    formats,
    ifbench,
    markdown,
    markdown_quality,
    markup,
    notation,
    phonetics,
    sentences,
    tables,
    text,
    words,
)
from hyoka.jfbench.rules.sourced import SOURCED as SOURCED
from hyoka.jfbench.texts import Source

Check = Callable[[str], bool]
Builder = Callable[[Mapping[str, Any], str], Check]


def _fixed(check: Check) -> Builder:
    return lambda kwargs, document: check


RULES: dict[str, Builder] = {
    # character
    "JapanesePunctuationConstraint": _fixed(character.japanese_punctuation),
    "NoJapanesePunctuationConstraint": _fixed(character.no_japanese_punctuation),
    "NoCommasConstraint": _fixed(character.no_commas),
    "NoWhitespaceConstraint": _fixed(character.no_whitespace),
    "NoSuffixWhitespaceConstraint": _fixed(character.no_suffix_whitespace),
    "UppercaseCharacterConstraint": _fixed(character.uppercase),
    "LowercaseCharacterConstraint": _fixed(character.lowercase),
    "HiraganaCharacterConstraint": _fixed(character.hiragana),
    "KatakanaCharacterConstraint": _fixed(character.katakana),
    "KanjiCharacterConstraint": _fixed(character.kanji),
    "FullWidthCharacterConstraint": _fixed(character.full_width),
    "HalfWidthCharacterConstraint": _fixed(character.half_width),
    "RomajiCharacterConstraint": _fixed(character.romaji),
    # content
    "KeywordExcludedContentConstraint": lambda k, d: text.keywords_excluded(k["keywords"]),
    "KeywordIncludedContentConstraint": lambda k, d: text.keywords_included(k["keywords"]),
    # format
    "JsonFormatConstraint": _fixed(formats.json_format),
    "CsvFormatConstraint": _fixed(formats.csv_format),
    "TsvFormatConstraint": _fixed(formats.tsv_format),
    "XmlFormatConstraint": _fixed(formats.xml_format),
    "YamlFormatConstraint": _fixed(formats.yaml_format),
    "MarkdownParseableConstraint": _fixed(markdown.parseable),
    "MarkdownClosedFencesConstraint": _fixed(markdown.closed_fences),
    "MarkdownHeadingJumpsConstraint": _fixed(markdown.no_heading_jumps),
    "MarkdownHeadingsStructureConstraint": _fixed(markdown.headings_structure),
    "MarkdownTableStructureConstraint": _fixed(markdown.table_structure),
    "MarkdownLinksAndImagesConstraint": _fixed(markdown_quality.links_and_images),
    "MarkdownReferenceLinksConstraint": _fixed(markdown_quality.reference_links),
    "MarkdownListStructureConstraint": _fixed(markdown_quality.list_structure),
    "MarkdownUnconsumedEmphasisMarkersConstraint": _fixed(markdown_quality.emphasis_markers),
    "MarkdownFormatConstraint": _fixed(markdown_quality.markdown_format),
    "MarkdownTableFormatConstraint": _fixed(tables.markdown_table),
    "HtmlTableFormatConstraint": _fixed(tables.html_table),
    "LatexTableFormatConstraint": _fixed(tables.latex_table),
    "MediawikiTableFormatConstraint": _fixed(tables.mediawiki_table),
    "JavascriptFormatConstraint": _fixed(markup.javascript),
    "NoCodeFenceJavascriptFormatConstraint": _fixed(markup.javascript_without_fence),
    "WithCodeFenceJavascriptFormatConstraint": _fixed(markup.javascript_with_fence),
    "HtmlFormatConstraint": _fixed(markup.html),
    "LatexFormatConstraint": _fixed(markup.latex),
    "PythonFormatConstraint": _fixed(formats.python_format),
    "NoCodeFencePythonFormatConstraint": _fixed(formats.python_without_fence),
    "WithCodeFencePythonFormatConstraint": _fixed(formats.python_with_fence),
    "DiffFormatConstraint": _fixed(formats.diff_format),
    "CitationFormatConstraint": _fixed(citation.citations),
    "BulletPointsFormatConstraint": lambda k, d: formats.bullet_points(k["starter_token"]),
    "IndentFormatConstraint": lambda k, d: formats.indent(k["indent"]),
    "SentenceDelimiterFormatConstraint": lambda k, d: sentences.delimited(k["delimiter"]),
    # ifbench
    "ParenthesesFormatIfbenchConstraint": _fixed(ifbench.nested_brackets),
    "QuoteUnquoteFormatIfbenchConstraint": _fixed(ifbench.quote_then_explanation),
    "QuotesFormatIfbenchConstraint": _fixed(ifbench.nested_quotes),
    "LineIndentFormatIfbenchConstraint": _fixed(ifbench.increasing_indent),
    "PunctuationCountIfbenchConstraint": _fixed(ifbench.all_punctuation),
    "NumbersCountIfbenchConstraint": lambda k, d: ifbench.numbers_exactly(k["expected_count"]),
    "EmojiFormatIfbenchConstraint": _fixed(ifbench.emoji_endings),
    "ThesisFormatIfbenchConstraint": _fixed(ifbench.thesis_sections),
    "OutputTemplateFormatIfbenchConstraint": _fixed(ifbench.answer_template),
    "KeywordSentenceIfbenchConstraint": lambda k, d: ifbench.keyword_in_sentence(
        k["sentence_index"], k["keyword"]
    ),
    "IncrementSentenceIfbenchConstraint": lambda k, d: ifbench.words_increase_by(k["increment"]),
    "NoConsecutiveWordsIfbenchConstraint": _fixed(ifbench.no_consecutive_initials),
    "LastFirstWordsIfbenchConstraint": _fixed(ifbench.chained_sentences),
    "ParagraphLastFirstWordsIfbenchConstraint": _fixed(ifbench.paragraphs_start_as_they_end),
    "RepeatsWordsIfbenchConstraint": lambda k, d: ifbench.repeats_below(k["max_repeats"]),
    "KeywordsSpecificPositionWordsIfbenchConstraint": lambda k, d: ifbench.keyword_at(
        k["sentence_index"], k["word_index"], k["keyword"]
    ),
    "WordsPositionWordsIfbenchConstraint": lambda k, d: ifbench.word_at_both_ends(
        k["word_index"], k["from_end_index"], k["word"]
    ),
    "PrimeLengthsWordsIfbenchConstraint": _fixed(ifbench.prime_lengths),
    "NewlineFormatIfbenchConstraint": _fixed(words.one_word_a_line),
    "SubBulletsFormatIfbenchConstraint": _fixed(ifbench.sub_bullets),
    "SentenceBalanceRatioIfbenchConstraint": _fixed(ifbench.balanced_sentence_kinds),
    "SentenceTypeRatioIfbenchConstraint": _fixed(ifbench.two_statements_a_question),
    "SentenceWordsRatioIfbenchConstraint": _fixed(ifbench.three_even_sentences),
    "OverlapRatioIfbenchConstraint": lambda k, d: ifbench.trigram_overlap(
        d, k["target_ratio_percent"]
    ),
    "ChangeRepeatIfbenchConstraint": lambda k, d: ifbench.first_word_changed(d),
    "UniqueWordCountIfbenchConstraint": lambda k, d: words.unique_words_at_least(
        k["minimum_unique"]
    ),
    "ConsonantsWordsIfbenchConstraint": _fixed(phonetics.every_word_emphasised),
    "OddEvenSyllablesWordsIfbenchConstraint": _fixed(phonetics.alternating_syllables),
    "PalindromeWordsIfbenchConstraint": lambda k, d: phonetics.palindromes_at_least(
        k["minimum_palindromes"]
    ),
    "VowelWordsIfbenchConstraint": _fixed(phonetics.at_most_three_vowels),
    "AlliterationIncrementSentenceIfbenchConstraint": _fixed(phonetics.alliteration_grows),
    # length
    "CharactersLengthConstraint": lambda k, d: text.characters(k["min_length"], k["max_length"]),
    "NewLinesLengthConstraint": lambda k, d: text.newlines(k["newlines"]),
    "BlankLinesLengthConstraint": lambda k, d: text.blank_lines(k["blank_lines"]),
    "ParagraphsLengthConstraint": lambda k, d: text.paragraphs(
        k["min_paragraphs"], k["max_paragraphs"]
    ),
    "SectionsLengthConstraint": lambda k, d: text.sections(
        k["min_sections"], k["max_sections"], k.get("sections_delimiter", "\n\n")
    ),
    "WordsLengthConstraint": lambda k, d: words.tokens_between(k["minimum"], k["maximum"]),
    "SentencesLengthConstraint": lambda k, d: sentences.sentences_between(
        k["min_sentences"], k["max_sentences"]
    ),
    # notation
    "CamelcaseNotationConstraint": _fixed(notation.camelcase),
    "CurrencyNotationConstraint": _fixed(notation.currency),
    "DateNotationConstraint": _fixed(notation.date),
    "FuriganaNotationConstraint": _fixed(notation.furigana),
    "SnakecaseNotationConstraint": _fixed(notation.snakecase),
    "TimeNotationConstraint": _fixed(notation.time),
    "TitlecaseNotationConstraint": _fixed(notation.titlecase),
    "UnitNotationConstraint": _fixed(notation.unit),
    "ZeroPaddingNotationConstraint": lambda k, d: notation.zero_padding(k["width"]),
    "DecimalPlacesNotationConstraint": lambda k, d: notation.decimal_places(
        k["required_decimal_places"]
    ),
    "RoundingNotationConstraint": lambda k, d: notation.rounding(k["digits"]),
    "GroupingNotationConstraint": lambda k, d: notation.grouping(k["max_group_size"]),
    "KanjiNumeralsNotationConstraint": _fixed(notation.kanji_numerals),
    "NoKanjiNumeralsNotationConstraint": _fixed(notation.no_kanji_numerals),
    "NoHyphenPhoneNumberNotationConstraint": _fixed(notation.phone_number(hyphens=False)),
    "WithHyphenPhoneNumberNotationConstraint": _fixed(notation.phone_number(hyphens=True)),
    "NoHyphenJpPostalCodeNotationConstraint": _fixed(notation.postal_code(hyphens=False)),
    "WithHyphenJpPostalCodeNotationConstraint": _fixed(notation.postal_code(hyphens=True)),
    "EmailAddressNotationConstraint": _fixed(notation.email_address),
    # processing
    "PrefixProcessingConstraint": lambda k, d: text.prefix(k["prefix"]),
    "SuffixProcessingConstraint": lambda k, d: text.suffix(k["suffix"]),
    "ConcatProcessingConstraint": lambda k, d: text.concatenated(d, k["times"]),
    "PrefixExtractionProcessingConstraint": lambda k, d: text.first_characters(d, k["length"]),
    "SuffixExtractionProcessingConstraint": lambda k, d: text.last_characters(d, k["length"]),
    "RangeExtractionProcessingConstraint": lambda k, d: text.character_range(
        d, k["start"], k["end"]
    ),
    "ReplacementProcessingConstraint": lambda k, d: text.replaced(
        d, k["start"], k["end"], k["keyword"]
    ),
    "SplitProcessingConstraint": lambda k, d: text.split(d, k["parts"]),
    "DictionarySortProcessingConstraint": lambda k, d: sentences.sorted_by_text(d),
    "LengthSortProcessingConstraint": lambda k, d: sentences.sorted_by_length(d),
    "NumberSortProcessingConstraint": lambda k, d: sentences.sorted_by_numbers(d),
}


def check_of(factory: Factory, document: str = "", source: Source | None = None) -> Check:
    """The check of one constraint (a logic constraint's by its wrapped one's); the few
    whose word lists are upstream's data need its ``source``."""
    if factory.positive is not None:
        positive = check_of(factory.positive, document, source)
        if factory.name == "NegationLogicConstraint":
            return lambda value: not positive(value)
        return positive  # DoubleNegationLogicConstraint: the wrapped constraint holds
    builder = RULES.get(factory.name)
    if builder is not None:
        return builder(factory.kwargs, document)
    listed = SOURCED.get(factory.name)
    if listed is not None:
        if source is None:
            raise InputError(
                f"constraint {factory.name} reads its word list from upstream's source: "
                "name upstream's checkout"
            )
        return listed(source, factory, factory.kwargs)
    kind = "judged by an LLM" if factory.judged else "not decided by hyoka yet"
    raise InputError(f"constraint {factory.name} is {kind}")


def decidable(factory: Factory, source: Source | None = None) -> bool:
    """Whether hyoka decides this constraint by rule (with ``source``, if given)."""
    target = factory.positive if factory.positive is not None else factory
    return target.name in RULES or (source is not None and target.name in SOURCED)


def missing_rules(constraint_set: ConstraintSet = "test") -> list[str]:
    """The rule-based classes of a set hyoka does not decide yet, by name."""
    return sorted(
        name
        for name, factory in classes(constraint_set).items()
        if not factory.judged
        and factory.positive is None
        and name not in RULES
        and name not in SOURCED
    )
