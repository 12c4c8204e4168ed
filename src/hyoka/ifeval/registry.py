"""Every M-IFEval-Ja instruction id and the check it names, built from its arguments.

The ids are upstream's Japanese registry (``instructions_registry.py``, 33 of them, all in
the published data); ``build`` reads one instruction's ``kwargs`` and returns the check of a
response text. Where upstream, given a missing or out-of-range argument, would draw one
at random (a count below 0, an unknown relation, a ``letter`` that is not one hiragana),
or would fail on an argument its class does not take, the instruction is refused with one
line naming it: a verdict drawn at random cannot be reproduced.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial

from hyoka.errors import InputError
from hyoka.ifeval import japanese, language, rules

#: one instruction's check of a response text
Check = Callable[[str], bool]
#: how a check is built: from the instruction's arguments and the language-detection seed
Builder = Callable[["Arguments", "int | None"], Check]


class Arguments:
    """One instruction's ``kwargs``, each read once by the builder; what is left unread or
    malformed is an ``InputError`` naming ``where``."""

    def __init__(self, kwargs: Mapping[str, object], where: str) -> None:
        self._kwargs = dict(kwargs)
        self.where = where
        self._read: set[str] = set()

    def _bad(self, name: str, why: str) -> InputError:
        value = self._kwargs.get(name)
        return InputError(f"{self.where}: argument {name}={value!r} {why}")

    def _get(self, name: str) -> object:
        self._read.add(name)
        if self._kwargs.get(name) is None:
            raise InputError(
                f"{self.where}: argument {name} is missing (upstream would draw one at random)"
            )
        return self._kwargs[name]

    def count(self, name: str, least: int = 0) -> int:
        value = self._get(name)
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise self._bad(name, f"is not a whole number of at least {least}")
        return value

    def text(self, name: str) -> str:
        value = self._get(name)
        if not isinstance(value, str):
            raise self._bad(name, "is not text")
        return value

    def relation(self, name: str) -> str:
        value = self.text(name)
        if value not in rules.RELATIONS:
            raise self._bad(name, f"is not one of {', '.join(rules.RELATIONS)}")
        return value

    def words(self, name: str) -> tuple[str, ...]:
        value = self._get(name)
        if not isinstance(value, list) or not value or not all(isinstance(w, str) for w in value):
            raise self._bad(name, "is not a list of words")
        return tuple(value)

    def done(self) -> None:
        """Refuse what the builder did not read (upstream's class takes no such argument)."""
        extra = sorted(set(self._kwargs) - self._read)
        if extra:
            raise InputError(f"{self.where}: this instruction takes no argument {extra[0]}")


@dataclass(frozen=True)
class Instruction:
    """One instruction of a prompt: its id, its arguments and the check they make."""

    id: str
    kwargs: Mapping[str, object]
    check: Check

    @property
    def group(self) -> str:
        """The id less its last part (``ja:keywords``), as results are broken down."""
        return group_of(self.id)


def group_of(instruction_id: str) -> str:
    return instruction_id.rpartition(":")[0] or instruction_id


def _plain(check: Check) -> Builder:
    return lambda args, seed: check


def _letter(args: Arguments) -> str:
    letter = args.text("letter")
    if len(letter) != 1 or not "ぁ" <= letter <= "ん":
        raise InputError(
            f"{args.where}: argument letter={letter!r} is not one hiragana "
            "(upstream would draw one at random)"
        )
    return letter


def _nth_paragraph(args: Arguments, seed: int | None) -> Check:
    count = args.count("num_paragraphs")
    nth = args.count("nth_paragraph", least=1)
    if nth > count:
        raise InputError(
            f"{args.where}: argument nth_paragraph={nth} is past num_paragraphs={count}"
        )
    return partial(
        rules.nth_paragraph_first_word, count=count, nth=nth, first_word=args.text("first_word")
    )


#: upstream's Japanese instruction ids and how each check is built
BUILDERS: dict[str, Builder] = {
    "ja:keywords:existence": lambda a, s: partial(
        japanese.has_keywords, keywords=a.words("keywords")
    ),
    "ja:keywords:frequency": lambda a, s: partial(
        japanese.keyword_frequency,
        keyword=a.text("keyword").strip(),
        threshold=a.count("frequency"),
        relation=a.relation("relation"),
    ),
    "ja:keywords:forbidden_words": lambda a, s: partial(
        japanese.has_none_of, forbidden=a.words("forbidden_words")
    ),
    "ja:keywords:letter_frequency": lambda a, s: partial(
        rules.letter_frequency,
        letter=_letter(a),
        threshold=a.count("let_frequency"),
        relation=a.relation("let_relation"),
    ),
    "ja:language:response_language": lambda a, s: partial(
        language.response_language, language=a.text("language"), seed=s
    ),
    "ja:length_constraints:number_sentences": lambda a, s: partial(
        japanese.number_sentences,
        threshold=a.count("num_sentences"),
        relation=a.relation("relation"),
    ),
    "ja:length_constraints:number_paragraphs": lambda a, s: partial(
        rules.divided_paragraphs, count=a.count("num_paragraphs")
    ),
    "ja:length_constraints:number_letters": lambda a, s: partial(
        rules.number_letters, threshold=a.count("num_letters"), relation=a.relation("relation")
    ),
    "ja:length_constraints:nth_paragraph_first_word": _nth_paragraph,
    "ja:detectable_content:number_placeholders": lambda a, s: partial(
        rules.placeholders, minimum=a.count("num_placeholders")
    ),
    "ja:detectable_content:postscript": lambda a, s: partial(
        rules.postscript, marker=a.text("postscript_marker").strip()
    ),
    "ja:detectable_format:number_bullet_lists": lambda a, s: partial(
        rules.bullet_lists, count=a.count("num_bullets")
    ),
    "ja:detectable_format:number_numbered_lists": lambda a, s: partial(
        rules.numbered_lists, count=a.count("num_items")
    ),
    "ja:detectable_format:constrained_response": _plain(rules.constrained_response),
    "ja:detectable_format:number_highlighted_sections": lambda a, s: partial(
        rules.highlighted_sections, minimum=a.count("num_highlights")
    ),
    "ja:detectable_format:multiple_sections": lambda a, s: partial(
        rules.sections,
        marker=a.text("section_spliter").strip(),
        minimum=a.count("num_sections"),
    ),
    "ja:detectable_format:json_format": _plain(rules.json_format),
    "ja:detectable_format:title": _plain(rules.title),
    "ja:combination:two_responses": _plain(rules.two_responses),
    "ja:combination:repeat_prompt": lambda a, s: partial(
        rules.repeat_prompt, prompt=a.text("prompt_to_repeat")
    ),
    "ja:startend:end_checker": lambda a, s: partial(
        rules.end_phrase, phrase=a.text("end_phrase").strip()
    ),
    "ja:startend:sentence_unified_end": lambda a, s: partial(
        rules.unified_ending, ending=a.text("ending")
    ),
    "ja:detectable_format:nominal_ending": lambda a, s: partial(
        japanese.nominal_endings, minimum=a.count("count")
    ),
    "ja:letters:furigana": _plain(rules.furigana),
    "ja:letters:kansuuji": _plain(rules.kansuuji),
    "ja:letters:no_katakana": _plain(rules.no_katakana),
    "ja:letters:katakana_only": _plain(rules.katakana_only),
    "ja:letters:no_hiragana": _plain(rules.no_hiragana),
    "ja:letters:hiragana_only": _plain(rules.hiragana_only),
    "ja:letters:kanji": lambda a, s: partial(
        rules.kanji, threshold=a.count("kanji_limit"), relation=a.relation("relation")
    ),
    "ja:punctuation:no_comma": _plain(rules.no_comma),
    "ja:punctuation:no_period": _plain(rules.no_period),
    "ja:startend:quotation": _plain(rules.quotation),
}

#: the instruction whose verdicts depend on langdetect's seed
LANGUAGE_ID = "ja:language:response_language"


def build(
    instruction_id: str,
    kwargs: Mapping[str, object],
    where: str,
    seed: int | None = language.DEFAULT_SEED,
) -> Instruction:
    """The instruction ``instruction_id`` with ``kwargs``; ``seed``: langdetect's (``None``:
    unseeded, as upstream). An unknown id or a bad argument is an ``InputError`` naming
    ``where``."""
    builder = BUILDERS.get(instruction_id)
    if builder is None:
        raise InputError(f"{where}: unknown instruction {instruction_id!r}")
    args = Arguments(kwargs, f"{where}: {instruction_id}")
    check = builder(args, seed)
    args.done()
    return Instruction(instruction_id, dict(kwargs), check)
