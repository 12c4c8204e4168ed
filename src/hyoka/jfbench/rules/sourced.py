"""Rules whose word lists are upstream's data: read from its pinned source, never copied.

Six IFBench constraints check a response against a list upstream wrote into its source
(names a response may use, pronouns, conjunctions, the one sentence to echo, stop words,
verb endings). hyoka reads each list from upstream's source at run time (``texts.Source``:
the constraint's ``__init__`` evaluated, only its plain literals; or one literal assigned
in a module or a method, read with ``ast.literal_eval``) and decides as upstream's
``evaluate`` does. Without the source these constraints are not decided (``check_of``
says so).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from hyoka.data import parsed_source
from hyoka.errors import InputError
from hyoka.jfbench.catalogue import Factory
from hyoka.jfbench.rules.words import _tokenizer, split_words
from hyoka.jfbench.texts import Source
from hyoka.store import read_bytes

Check = Callable[[str], bool]


def _listed(source: Source, factory: Factory, name: str) -> Any:
    """The list ``name`` the constraint's ``__init__`` assigns in ``source``; a source
    without it (not upstream's, edited) cannot decide the constraint: one line naming both."""
    found = source.instance(factory, None).attributes
    if name not in found:
        raise InputError(
            f"{source.root}: constraint {factory.name} reads its list {name} from upstream's "
            f"source; this one (digest {source.digest[:12]}) assigns none in its __init__"
        )
    return found[name]


def names_used(source: Source, factory: Factory, kwargs: Mapping[str, Any]) -> Check:
    """At least ``minimum_names`` of upstream's allowed names appear (case ignored)."""
    names = sorted(_listed(source, factory, "_allowed_names"))
    minimum: int = kwargs["minimum_names"]

    def check(value: str) -> bool:
        found = {n for n in names if re.search(re.escape(n), value, flags=re.IGNORECASE)}
        return len(found) >= minimum

    return check


def pronouns_used(source: Source, factory: Factory, kwargs: Mapping[str, Any]) -> Check:
    """At least ``minimum_pronouns`` of the response's words are upstream's pronouns."""
    pronouns = frozenset(_listed(source, factory, "_pronouns"))
    minimum: int = kwargs["minimum_pronouns"]
    return lambda value: sum(word in pronouns for word in split_words(value)) >= minimum


def conjunction_kinds(source: Source, factory: Factory, kwargs: Mapping[str, Any]) -> Check:
    """At least ``minimum_kinds`` different conjunctions of upstream's list appear (as
    substrings)."""
    conjunctions = frozenset(_listed(source, factory, "_conjunctions"))
    minimum: int = kwargs["minimum_kinds"]
    return lambda value: sum(c in value for c in conjunctions) >= minimum


def echoed(source: Source, factory: Factory, kwargs: Mapping[str, Any]) -> Check:
    """The stripped response is exactly upstream's sentence."""
    del kwargs
    sentence: str = _listed(source, factory, "_exact_text")
    return lambda value: value.strip() == sentence


_CONSTRAINTS = Path("src/jfbench/constraints")
_STOP_WORDS = (_CONSTRAINTS / "ifbench_ratio" / "sentence_words.py", "STOP_WORDS", None)
_VERB_ENDINGS = (
    _CONSTRAINTS / "ifbench_words" / "sequence.py",
    "verb_endings",
    "_looks_like_japanese_verb",
)


def _assigned(source: Source, where: tuple[Path, str, str | None]) -> Any:
    """The literal assigned to ``name`` in a file of upstream's source (at module level,
    or inside the function ``within``)."""
    relative, name, within = where
    tree = parsed_source(source.root / relative, read_bytes(source.root / relative))
    scope: list[ast.stmt] = tree.body
    if within is not None:
        functions = (
            node
            for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef) and node.name == within
        )
        scope = next((f.body for f in functions), [])
    for statement in scope:
        target = value = None
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target, value = statement.targets[0], statement.value
        elif isinstance(statement, ast.AnnAssign):
            target, value = statement.target, statement.value
        if isinstance(target, ast.Name) and target.id == name and value is not None:
            return ast.literal_eval(value)
    raise InputError(f"{relative}: no literal {name} upstream")


def stop_words_below(source: Source, factory: Factory, kwargs: Mapping[str, Any]) -> Check:
    """At most ``max_ratio_percent`` per cent of the response's words are upstream's stop
    words (no words: fails)."""
    del factory
    stop_words = frozenset(_assigned(source, _STOP_WORDS))
    limit: int = kwargs["max_ratio_percent"]

    def check(value: str) -> bool:
        found = split_words(value)
        return bool(found) and sum(w in stop_words for w in found) * 100 / len(found) <= limit

    return check


_VERB_LIKE = ("動詞", "助動詞")
#: a plain form's last kana (the u row, and よ)
_PLAIN_ENDINGS = tuple("うくぐすずつづぬむるぶぷふゆよ")


def starts_with_a_verb(source: Source, factory: Factory, kwargs: Mapping[str, Any]) -> Check:
    """The first word is a verb or an auxiliary to Janome, or ends as upstream's list of
    verb endings or as a plain form does."""
    del factory, kwargs
    endings = tuple(_assigned(source, _VERB_ENDINGS))

    def check(value: str) -> bool:
        found = split_words(value)
        if not found:
            return False
        word = found[0]
        tokens = _tokenizer().tokenize(word)
        if any(t.part_of_speech.split(",")[0] in _VERB_LIKE for t in tokens):
            return True
        return word.endswith(endings) or word.endswith(_PLAIN_ENDINGS)

    return check


SOURCED: dict[str, Callable[[Source, Factory, Mapping[str, Any]], Check]] = {
    "PersonNamesCountIfbenchConstraint": names_used,
    "PronounsCountIfbenchConstraint": pronouns_used,
    "ConjunctionCountIfbenchConstraint": conjunction_kinds,
    "SimpleRepeatIfbenchConstraint": echoed,
    "StopWordsRatioIfbenchConstraint": stop_words_below,
    "StartVerbWordsIfbenchConstraint": starts_with_a_verb,
}
