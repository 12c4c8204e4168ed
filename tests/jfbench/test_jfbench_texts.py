"""The prompt text, worded from upstream's source: the evaluator, and upstream's own prompts.

The first tests write a small source tree in upstream's layout with hyoka's own wording
(no upstream prose here) and check what the evaluator reads: strings, f-strings over a
constraint's parameters and ``!r``, sums, joins over a dict's items, a set sorted, a seeded
choice (``random.Random(seed).choice``, upstream's ``_random_instruction``), a wrapped
constraint's text, the frame around the lines; an unseeded draw and an unknown expression
are refused by name.

Upstream's own checkout is no part of the shared data (which holds its data files only), so
the checks on it (every prompt and judge prompt byte for byte as upstream's build made them,
the word-list rules deciding as upstream's classes) are a maintainer's script,
``benchmarks/jfbench_upstream_check.py``; here a checkout that is not upstream's is refused.
"""

from __future__ import annotations

import random
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from _shared import SHARED_DATA
from hyoka.cli.main import app
from hyoka.errors import InputError
from hyoka.jfbench.catalogue import Factory
from hyoka.jfbench.inputs import PROMPTS_IN_DATA
from hyoka.jfbench.rules import check_of, decidable
from hyoka.jfbench.texts import (
    JUDGE_VOTES,
    SOURCE_SHA256,
    Source,
    UnrenderedError,
    UnseededError,
    judge_verdict,
    majority,
    source_digest,
)

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


def test_build_refuses_a_checkout_that_is_not_upstreams(tmp_path: Path) -> None:
    """``--upstream`` is checked before anything is worded: one line naming the folder."""
    root = tmp_path / "checkout"
    (root / "src" / "jfbench" / "constraints").mkdir(parents=True)
    (root / "src" / "jfbench" / "prompts").mkdir()
    (root / "src" / "jfbench" / "prompts" / "ifbench.py").write_text(FRAME, encoding="utf-8")
    result = CliRunner().invoke(
        app,
        ["jfbench", "build", "--prompts", str(SHARED_DATA / PROMPTS_IN_DATA),
         "--upstream", str(root), "--n-benchmark-data", "3", "--json"],
    )  # fmt: skip
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr == (
        f"error: {root}: not upstream's source at c8fed01 (its files' digest is "
        f"{source_digest(root)[:12]}, pinned {SOURCE_SHA256[:12]})\n"
    )
