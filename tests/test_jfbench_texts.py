"""The prompt text, worded from upstream's source: the evaluator, and upstream's own prompts.

The first tests write a small source tree in upstream's layout with hyoka's own wording
(no upstream prose here) and check what the evaluator reads: strings, f-strings over a
constraint's parameters and ``!r``, sums, joins over a dict's items, a set sorted, a seeded
choice (``random.Random(seed).choice``, upstream's ``_random_instruction``), a wrapped
constraint's text, the frame around the lines; an unseeded draw and an unknown expression
are refused by name.

The last tests need upstream's checkout at c8fed01 in the shared data
(``jfbench/upstream``); their digests are of the prompts upstream's own ``build.py``
built (seed 42), MarkdownFormatConstraint's left out: upstream draws its wording without a
seed, so its own builds differ there from run to run (300 entries a set).
"""

from __future__ import annotations

import hashlib
import json
import random
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from _shared import SHARED_DATA, needs, needs_data
from hyoka.cli.main import app
from hyoka.errors import InputError
from hyoka.jfbench.build import single_constraint, stable_seed
from hyoka.jfbench.catalogue import COLLECTIONS, Factory, classes
from hyoka.jfbench.inputs import PROMPTS_IN_DATA, read_prompts
from hyoka.jfbench.rules import check_of, decidable
from hyoka.jfbench.texts import (
    JUDGE_VOTES,
    Source,
    UnrenderedError,
    UnseededError,
    judge_verdict,
    majority,
    render_prompts,
)
from test_jfbench_rules import CASES, DOC

FRAME = """
class IFBenchPrompt:
    def text(self, constraints, *, train_or_test="train"):
        lines = "\\n".join(f"* {c.instructions(train_or_test=train_or_test)}" for c in constraints)
        return "Q: " + f"{self._prompt}\\nRules:\\n{lines}"
"""
CONSTRAINTS = r"""
class WordsLengthConstraint(ConstraintGroupMixin):
    def __init__(self, minimum: int, maximum: int, *, seed=None) -> None:
        super().__init__(seed=seed)
        self.minimum = minimum
        self.maximum = maximum
        self._tokenizer = Tokenizer()

    def instructions(self, train_or_test: str = "train") -> str:
        templates = [f"between {self.minimum} and {self.maximum} words", "short", "medium"]
        if train_or_test == "train":
            return self._random_instruction(templates)
        if train_or_test == "test":
            return f"use {self.minimum}-{self.maximum} words, {self.maximum - self.minimum} apart"
        raise AssertionError("unknown")


class KeywordIncludedContentConstraint(ConstraintGroupMixin):
    def __init__(self, keywords, *, seed=None) -> None:
        self.keywords = keywords
        self._names = {"b", "a"}

    def instructions(self, train_or_test: str = "train") -> str:
        counted = ", ".join(f"{k} x{v}" for k, v in self.keywords.items())
        return f"say {counted!r}; " + " ".join(sorted(self._names))


class NegationLogicConstraint(ConstraintGroupMixin):
    def instructions(self, train_or_test: str = "train") -> str:
        inner = self.positive_constraint.instructions(train_or_test=train_or_test)
        return f"do not: {inner}"


class MarkdownFormatConstraint(ConstraintGroupMixin):
    def instructions(self, train_or_test: str = "train") -> str:
        return "all of: " + WordsLengthConstraint(minimum=1, maximum=2).instructions()


class NoGreetingOutputConstraint(ConstraintGroupMixin):
    def __init__(self, client, document: str, *, seed=None) -> None:
        self.client = client
        self.document = document.rstrip("\r\n")

    @staticmethod
    def _quoted(text: str) -> str:
        if not text:
            return "(empty)"
        return f"<<{text}>>"

    def _prompt(self, text: str) -> str:
        return f"Task: {self.document}\nAnswer: " + self._quoted(text) + "\nReply True or False."


class PersonNamesCountIfbenchConstraint(ConstraintGroupMixin):
    def __init__(self, minimum_names: int, *, seed=None) -> None:
        self.minimum_names = minimum_names
        self._allowed_names = {"Alice", "Bob", "Carol"}


class ConjunctionCountIfbenchConstraint(ConstraintGroupMixin):
    def __init__(self, minimum_kinds: int, *, seed=None) -> None:
        self._conjunctions: set[str] = {"and", "but", "so"}


class NoCommasConstraint(ConstraintGroupMixin):
    def instructions(self, train_or_test: str = "train") -> str:
        return open("x").read()
"""


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Source:
    root = tmp_path_factory.mktemp("upstream")
    prompts = root / "src" / "jfbench" / "prompts"
    constraints = root / "src" / "jfbench" / "constraints" / "length"
    prompts.mkdir(parents=True)
    constraints.mkdir(parents=True)
    (prompts / "ifbench.py").write_text(textwrap.dedent(FRAME), encoding="utf-8")
    (constraints / "words.py").write_text(CONSTRAINTS, encoding="utf-8")
    return Source.read(root, check=False)


WORDS = Factory("WordsLengthConstraint", "Length", kwargs={"minimum": 10, "maximum": 20})


def test_fstrings_read_the_parameters_and_arithmetic(tree: Source) -> None:
    assert tree.render(WORDS, 7, "test") == "use 10-20 words, 10 apart"


def test_a_training_phrasing_is_random_random_seeded_choice(tree: Source) -> None:
    options = ["between 10 and 20 words", "short", "medium"]
    for seed in (0, 1, 2, 2627650255546979843):
        assert tree.render(WORDS, seed, "train") == random.Random(seed).choice(options)


def test_joins_over_items_repr_and_a_sorted_set(tree: Source) -> None:
    keywords = Factory("KeywordIncludedContentConstraint", "Content", kwargs={"keywords": {"x": 1}})
    assert tree.render(keywords, 1, "test") == "say 'x x1'; a b"


def test_a_wrapped_constraint_is_worded_with_the_same_seed(tree: Source) -> None:
    negation = Factory("NegationLogicConstraint", "Logic", positive=WORDS)
    assert tree.render(negation, 5, "train") == "do not: " + tree.render(WORDS, 5, "train")


def test_the_frame_holds_the_prompt_and_one_line_a_constraint(tree: Source) -> None:
    assert tree.prompt("Why?", ["a", "b"]) == "Q: Why?\nRules:\n* a\n* b"


def test_unseeded_and_unknown_wording_is_refused_by_name(tree: Source) -> None:
    with pytest.raises(UnseededError, match=r"WordsLengthConstraint: .* without a seed"):
        tree.render(Factory("MarkdownFormatConstraint", "Format"), 3, "test")
    with pytest.raises(UnrenderedError, match="NoCommasConstraint: reads open"):
        tree.render(Factory("NoCommasConstraint", "Character"), 3, "test")


def test_a_judge_prompt_reads_the_prompt_and_the_response(tree: Source) -> None:
    judged = Factory("NoGreetingOutputConstraint", "MetaOutput", judged=True, document=True)
    asked = tree.judge_prompt(judged, 1, "Say hi.\n", "Hello")
    assert asked == "Task: Say hi.\nAnswer: <<Hello>>\nReply True or False."
    assert "(empty)" in tree.judge_prompt(judged, 1, "Say hi.", "")


def test_judge_replies_and_votes_are_read_as_upstream_reads_them() -> None:
    assert [judge_verdict(r) for r in ("True", "  True.", "False, because", "true", "")] == [
        True, True, False, False, False,
    ]  # fmt: skip
    assert JUDGE_VOTES == 3
    assert majority([True, True, False]) and not majority([True, False, False])


def test_word_lists_are_read_from_the_source(tree: Source) -> None:
    names = Factory(
        "PersonNamesCountIfbenchConstraint", "IfbenchCount", kwargs={"minimum_names": 2}
    )
    assert check_of(names, "", tree)("alice met BOB") is True
    assert check_of(names, "", tree)("Alice met Dave") is False
    kinds = Factory(
        "ConjunctionCountIfbenchConstraint", "IfbenchCount", kwargs={"minimum_kinds": 2}
    )
    assert check_of(kinds, "", tree)("this and that, but no") is True
    assert check_of(kinds, "", tree)("this and that") is False
    assert decidable(kinds, tree) and not decidable(kinds)
    with pytest.raises(InputError, match="reads its word list from upstream's source"):
        check_of(kinds)


def test_a_checkout_that_is_not_upstreams_is_refused(tmp_path: Path) -> None:
    (tmp_path / "src" / "jfbench" / "prompts").mkdir(parents=True)
    (tmp_path / "src" / "jfbench" / "prompts" / "ifbench.py").write_text("x = 1\n")
    (tmp_path / "src" / "jfbench" / "constraints").mkdir()
    with pytest.raises(InputError, match="not upstream's source at c8fed01"):
        Source.read(tmp_path)


UPSTREAM = SHARED_DATA / "jfbench" / "upstream"
#: upstream's seed-42 test build: its first 300 prompts (no MarkdownFormat among them), and
#: every prompt but MarkdownFormatConstraint's (51,900 of 52,200; train: 40,800 of 41,100)
FIRST_300 = "89c982abfa4eae3aa59d66a6dc449dc48059d914bbb8cb4d3786b8f1351b0d9e"
ALL_SEEDED = {
    "test": "f244eb3a96081e242a08eaa16abc8ffeee576f318df60558f9ece0ab229cf94f",
    "train": "7bb5d75359dac82d009341e2043c69e76aef311e84d6d6a30510bf4a18166621",
}


def _digest(texts: list[str | None]) -> str:
    digest = hashlib.sha256()
    for text in texts:
        if text is not None:
            digest.update(text.encode() + b"\0")
    return digest.hexdigest()


def test_upstreams_first_prompts_byte_for_byte() -> None:
    source = Source.read(needs_data(UPSTREAM))
    documents = read_prompts(SHARED_DATA / PROMPTS_IN_DATA).documents
    entries = single_constraint(len(documents), "test", n_benchmark_data=300)
    assert _digest(render_prompts(source, entries, documents)) == FIRST_300


@pytest.mark.slow
@pytest.mark.parametrize("constraint_set", ["test", "train"])
def test_every_seeded_prompt_byte_for_byte(constraint_set: str) -> None:
    source = Source.read(needs_data(UPSTREAM))
    documents = read_prompts(SHARED_DATA / PROMPTS_IN_DATA).documents
    entries = single_constraint(len(documents), constraint_set)  # type: ignore[arg-type]
    texts = render_prompts(source, entries, documents)
    unseeded = {e.constraints[0].name for e, t in zip(entries, texts, strict=True) if t is None}
    assert unseeded == {"MarkdownFormatConstraint"}
    assert sum(t is None for t in texts) == 300
    assert _digest(texts) == ALL_SEEDED[constraint_set]


def test_build_with_upstream_words_each_prompt() -> None:
    upstream = needs_data(UPSTREAM)
    result = CliRunner().invoke(
        app,
        ["jfbench", "build", "--prompts", str(SHARED_DATA / PROMPTS_IN_DATA),
         "--upstream", str(upstream), "--n-benchmark-data", "3", "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)
    assert (shown["rendered"], shown["unseeded"]) == (3, 0)


#: upstream's ``_prompt`` of each of the 43 judged constraints of the test set, built as its
#: single-constraint build builds them on prompts 0, 106 and 299, about two responses
JUDGE_PROMPTS = "6ffb0eb95b8ff3ac05c374049c8fc9953e4a927b82a9358ccce9ff5eeca02ee3"
RESPONSES = ("こんにちは。今日は晴れです。\n", "Hello, world! 'quoted' {braces}")


def test_every_judge_prompt_byte_for_byte() -> None:
    source = Source.read(needs_data(UPSTREAM))
    documents = read_prompts(SHARED_DATA / PROMPTS_IN_DATA).documents
    asked = [
        source.judge_prompt(f, stable_seed("ifbench", str(p), "llm", str(i)), documents[p], r)
        for p in (0, 106, 299)
        for i, f in enumerate(COLLECTIONS["test"].judged)
        for r in RESPONSES
    ]
    assert len(asked) == 258
    assert _digest(list(asked)) == JUDGE_PROMPTS


SOURCED_NAMES = (
    "PersonNamesCountIfbenchConstraint",
    "PronounsCountIfbenchConstraint",
    "ConjunctionCountIfbenchConstraint",
    "SimpleRepeatIfbenchConstraint",
)


def test_rules_with_upstreams_word_lists_decide_as_upstream() -> None:
    """The hand-written cases of test_jfbench_rules for these four, and responses made of
    upstream's own lists (ten allowed names pass, nine fail; the sentence echoed passes),
    each verdict as upstream's code gave it."""
    needs("janome")
    source = Source.read(needs_data(UPSTREAM))
    tests = classes("test")
    cases = [c for c in CASES if c[0] in SOURCED_NAMES]
    names = sorted(source.instance(tests[SOURCED_NAMES[0]], None).attributes["_allowed_names"])
    sentence = source.instance(tests[SOURCED_NAMES[3]], None).attributes["_exact_text"]
    cases += [
        (SOURCED_NAMES[0], " ".join(names[:10]), True),
        (SOURCED_NAMES[0], " ".join(names[:9]), False),
        (SOURCED_NAMES[3], f"  {sentence}\n", True),
    ]
    differing = [
        (name, response)
        for name, response, upstream in cases
        if check_of(tests[name], DOC, source)(response) is not upstream
    ]
    assert differing == []
