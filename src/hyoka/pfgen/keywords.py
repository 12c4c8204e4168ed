"""Helpfulness: keyword rules that an answer should satisfy early (pfgen-spec.md §3).

A rule is ``{"t": regex}``, ``{"and": [rules]}`` or ``{"or": [rules]}`` with an optional
``importance`` (default 1) and ``name``. Each rule has an *end*: where, in the answer's first
200 characters, it is first satisfied. Every cut of the answer shorter than a rule's end is
penalised by the factor ``1 - importance``; Helpfulness is the best penalised, length-discounted
cut. Rules are compiled once per question; a bad regular expression is a data error.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from hyoka.errors import DataError
from hyoka.pfgen.engine import RuleNode, kernel_helpfulness, use_kernel

if TYPE_CHECKING:
    import numpy as np
else:
    from hyoka._lazy_numpy import numpy as np

#: Characters of an answer that Helpfulness looks at.
HELPFULNESS_WINDOW = 200
#: Longest cut that still has a non-negative length discount.
_LONGEST_CUT = 150
#: The reference's "not found" position: past any cut.
NOT_FOUND = 9999
#: The deepest rule tree the compiled kernel reads (``_helpfulness.c``'s ``MAX_DEPTH``);
#: deeper ones, which no question has, take the Python path.
KERNEL_RULE_DEPTH = 32
#: Characters that can make a regular expression more than its literal text (without
#: flags, as upstream compiles the rules): a pattern with none of them matches exactly
#: its own characters, so its first match ends where ``str.find`` says (the "t" rules of
#: all 50 questions are such literals).
_REGEX_SYNTAX = frozenset(".^$*+?{}[]\\|()")


@dataclass(frozen=True)
class KeywordRule:
    """One node of a rule tree; ``kind`` is ``"t"``, ``"and"`` or ``"or"``.

    A ``"t"`` rule keeps its regular expression's text (``source``) and compiles it on
    first use (``pattern``): a literal is searched by ``str.find`` and never needs it, and
    compiling the 379 rules of the 50 questions cost each scoring process 20 ms.
    """

    kind: str
    name: str | None
    source: str | None
    parts: tuple[KeywordRule, ...]
    factor: float
    #: the pattern itself when it is a plain literal (no metacharacter): then the first
    #: match of the regex is the first occurrence of the string, found by ``str.find``
    literal: str | None = None

    @cached_property
    def pattern(self) -> re.Pattern[str] | None:
        """The compiled regular expression of a ``"t"`` rule (None for ``and``/``or``)."""
        return None if self.source is None else re.compile(self.source)

    @cached_property
    def depth(self) -> int:
        """Levels of the tree under and including this rule (a "t" rule: 1)."""
        return 1 + max((part.depth for part in self.parts), default=0)

    @cached_property
    def kernel_node(self) -> RuleNode | None:
        """This rule as the compiled kernel reads it (``engine.RuleNode``), or None where it,
        or a part of it, is a regular expression, or where the tree is deeper than
        ``KERNEL_RULE_DEPTH``. Kept on the rule itself, never looked up
        by equality: rules that differ only in ``0`` against ``0.0`` are equal in Python and
        print differently in result.json."""
        if self.kind == "t":
            return None if self.literal is None else (0, self.name, self.literal, ())
        if self.depth > KERNEL_RULE_DEPTH:
            return None
        parts = [part.kernel_node for part in self.parts]
        if any(part is None for part in parts):
            return None
        kind = 1 if self.kind == "and" else 2
        return (kind, self.name, None, tuple(part for part in parts if part is not None))

    def end(self, text: str) -> tuple[int, str]:
        """Where the rule is first satisfied in ``text``, and the name to report if it is not."""
        literal = self.literal
        if literal is not None:
            at = text.find(literal)
            name = self.name if self.name is not None else literal
            return (at + len(literal) if at >= 0 else NOT_FOUND), name
        if self.pattern is not None:
            found = self.pattern.search(text)
            name = self.name if self.name is not None else self.pattern.pattern
            return (found.end() if found else NOT_FOUND), name
        ends = [part.end(text) for part in self.parts]
        pick = max if self.kind == "and" else min
        chosen = pick(ends, key=lambda e: e[0])
        return chosen[0], (self.name if self.name is not None else chosen[1])

    def ends(self, texts: Sequence[str]) -> tuple[list[int], list[str]]:
        """``end`` of every text, rule node by rule node over all the texts at once (what
        ``helpfulness`` runs): the same ends and names, with far fewer Python calls."""
        literal = self.literal
        if literal is not None:
            size, name = len(literal), self.name if self.name is not None else literal
            found = [text.find(literal) for text in texts]
            return [at + size if at >= 0 else NOT_FOUND for at in found], [name] * len(texts)
        if self.pattern is not None:
            pairs = [self.end(text) for text in texts]
            return [end for end, _ in pairs], [name for _, name in pairs]
        columns = [part.ends(texts) for part in self.parts]
        if len(columns) == 1:
            chosen = [0] * len(texts)
        else:  # the first part with the latest ("and") or earliest ("or") end, as max/min pick
            pick = max if self.kind == "and" else min
            rows = zip(*(c[0] for c in columns), strict=True)
            chosen = [pick(range(len(row)), key=row.__getitem__) for row in rows]
        ends = [columns[j][0][i] for i, j in enumerate(chosen)]
        if self.name is not None:
            return ends, [self.name] * len(texts)
        return ends, [columns[j][1][i] for i, j in enumerate(chosen)]


@dataclass(frozen=True)
class HelpfulnessResult:
    """The score and the rules (name, factor) that were missed at the chosen cut."""

    score: float
    missed: list[tuple[str, float]]


def parse_rules(raw: Any, where: str) -> tuple[KeywordRule, ...]:
    """A question's keyword rules; a ``DataError`` naming ``where`` (its file) and the rule
    when one is malformed.

    A rule's ``importance`` (only a top-level rule's counts, as upstream reads it) must lie
    in [0, 1]: its factor ``1 - importance`` then lies in [0, 1] too, and so does every
    Helpfulness. Upstream scores any number, but one above 1 makes the factor negative (a
    missed keyword turns the score's sign) and one below 0 rewards missing it, so a
    Helpfulness below 0 or above 1 that no reader of ``result.json`` can take for a score
    (``pfgen.summary``'s ranges): such data is refused before anything is scored.
    """
    if not isinstance(raw, list):
        raise DataError(f"{where}: 'keywords' must be a list of rules")
    rules = tuple(_parse_rule(item, f"{where}: keyword {i + 1}") for i, item in enumerate(raw))
    for number, (item, rule) in enumerate(zip(raw, rules, strict=True), 1):
        if not 0.0 <= rule.factor <= 1.0:  # NaN too
            raise DataError(
                f"{where}: keyword {number}: 'importance' {item['importance']!r} is outside "
                "[0, 1] (a missed keyword's score is multiplied by 1 - importance; hyoka "
                "scores only weights from 0 to 1)"
            )
    return rules


def _parse_rule(raw: Any, where: str) -> KeywordRule:
    if not isinstance(raw, dict):
        raise DataError(f"{where}: a rule must be an object, got {raw!r}")
    importance = raw.get("importance", 1.0)
    if not isinstance(importance, int | float) or isinstance(importance, bool):
        raise DataError(f"{where}: 'importance' must be a number, got {importance!r}")
    name = raw.get("name")
    if "name" in raw and not isinstance(name, str):
        raise DataError(f"{where}: 'name' must be a string, got {name!r}")
    factor = 1 - importance
    if "t" in raw:
        source = raw["t"]
        plain = isinstance(source, str) and _REGEX_SYNTAX.isdisjoint(source)
        literal = source if plain else None
        if literal is None:  # a literal is always a valid expression: the rest is checked here
            try:
                re.compile(source)
            except (re.error, TypeError) as exc:
                raise DataError(f"{where}: bad regular expression {source!r}: {exc}") from None
        return KeywordRule("t", name, source, (), factor, literal)
    for kind in ("and", "or"):
        if kind in raw:
            parts = raw[kind]
            if not isinstance(parts, list) or not parts:
                raise DataError(f"{where}: '{kind}' must be a non-empty list of rules")
            parsed = tuple(_parse_rule(p, f"{where}.{kind}[{j}]") for j, p in enumerate(parts))
            return KeywordRule(kind, name, None, parsed, factor)
    raise DataError(f"{where}: a rule needs one of 't', 'and' or 'or', got {raw!r}")


def helpfulness(rules: Sequence[KeywordRule], answers: Sequence[str]) -> list[HelpfulnessResult]:
    """Score many answers: in the compiled kernel where every rule is a literal (the rules of
    all 50 questions are) and the kernel engine runs (``engine.use_kernel``), else
    ``helpfulness_reference``. The same floats and missed rules either way
    (``tests/pfgen/test_pfgen_helpfulness_kernel.py``); in C one question's answers of a run take
    tens of microseconds, where the numpy path spends most of a millisecond setting up.
    """
    spec = _kernel_spec(rules)
    if spec is not None and use_kernel():
        scores, missed = kernel_helpfulness(spec, answers)
        return list(map(_result, scores, missed))
    return helpfulness_reference(rules, answers)


def helpfulness_reference(
    rules: Sequence[KeywordRule], answers: Sequence[str]
) -> list[HelpfulnessResult]:
    """Score many answers in Python and numpy, any rule (the oracle of the kernel): each
    rule's ends over all answers at once (``KeywordRule.ends``), the cut arithmetic in numpy.

    Penalties are applied rule by rule in file order, as repeated multiplications, so the
    floats equal the reference's; ties between cuts go to the longest.
    """
    texts = [a[:HELPFULNESS_WINDOW] for a in answers]
    rows, width = len(texts), _LONGEST_CUT + 1
    cuts = np.arange(width, dtype=np.int64)
    values = np.broadcast_to(1 - np.maximum(cuts - 100, 0) / 50, (rows, width)).copy()
    ends = np.empty((len(rules), rows), dtype=np.int64)
    names: list[list[str]] = []
    for r, rule in enumerate(rules):
        rule_ends, rule_names = rule.ends(texts)
        ends[r] = rule_ends
        names.append(rule_names)
        penalised = cuts[None, :] < ends[r][:, None]
        values = np.where(penalised, values * rule.factor, values)
    lengths = np.fromiter((len(t) for t in texts), dtype=np.int64, count=rows)
    values = np.where(cuts[None, :] <= lengths[:, None], values, -np.inf)
    chosen = width - 1 - np.argmax(values[:, ::-1], axis=1)

    scores = values[np.arange(rows), chosen].tolist()
    end_rows: list[list[int]] = ends.tolist()
    by_rule = list(zip(end_rows, names, [rule.factor for rule in rules], strict=True))
    results: list[HelpfulnessResult] = []
    for i, (cut, score) in enumerate(zip(chosen.tolist(), scores, strict=True)):
        missed = [(name[i], factor) for end, name, factor in by_rule if cut < end[i]]
        if cut > 100 and score > 0:
            missed.append((f"{cut - 100}字超過", 1 - max(cut - 100, 0) / 50))
        results.append(HelpfulnessResult(score=score, missed=missed))
    return results


def _kernel_spec(rules: Sequence[KeywordRule]) -> tuple[tuple[RuleNode, float], ...] | None:
    """The rules as the kernel reads them, or None where one cannot be (``kernel_node``)."""
    spec = []
    for rule in rules:
        node = rule.kernel_node
        if node is None:
            return None
        spec.append((node, rule.factor))
    return tuple(spec)


# One per distinct answer of every run: made without the dataclass's ``__init__`` (as
# ``scorer._answer_score``), the same object field for field.
_new = object.__new__


def _result(score: float, missed: list[tuple[str, float]]) -> HelpfulnessResult:
    result = _new(HelpfulnessResult)
    fields = result.__dict__
    fields["score"] = score
    fields["missed"] = missed
    return result
