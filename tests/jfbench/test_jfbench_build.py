"""JFBench's benchmark built as upstream's ``build.py`` builds it (pfnet-research/jfbench c8fed01).

The golden digests below are the SHA-256 of the canonical identity lines (``Entry.
identity_line``: data id, prompt position, each constraint's name, group, parameters, seed
and whether it reads the prompt) of the benchmark that upstream's own
``get_benchmark_data_with_single_constraint`` built from the shared prompts with seed 42,
read off its constraint objects (the seed each ``ConstraintGroupMixin`` was given). hyoka's
build must give the same lines in the same order. The multi-constraint digests are those of
upstream's ``get_benchmark_data_with_multiple_constraints`` (same prompts, the seed each
constraint was built with read the same way), for the settings named.
"""

from __future__ import annotations

import hashlib

import pytest

from _shared import SHARED_DATA
from hyoka.errors import InputError
from hyoka.jfbench.build import (
    built,
    identity_lines,
    multiple_constraints,
    single_constraint,
    stable_seed,
)
from hyoka.jfbench.catalogue import COLLECTIONS, classes
from hyoka.jfbench.conflicts import clash
from hyoka.jfbench.evaluate import decide, succeeded
from hyoka.jfbench.inputs import PROMPTS_IN_DATA, read_prompts

#: upstream's build, seed 42, every entry (test set: 300 prompts x 174 factories)
UPSTREAM_SINGLE = {
    "test": (52200, "c77cbe48864fdb7cae2850bfe7d3238b6247e472ea7757d232e133b59df0ecab"),
    "train": (41100, "e40fca7c0bf2425a3f5c36719ef9b9c4cdf91b98a6ef8a31b7950efcf49ec3c5"),
}

#: upstream's multi-constraint builds: (set, n_constraints, n_benchmark_data, seed) -> digest
UPSTREAM_MULTI = {
    ("test", 2, 100, 42): "324bd4e247e71ffb83f17521359f5da80962eda0c436aea709b5046d8a02177a",
    ("test", 3, 100, 42): "45af423821a65feb497d7a0d95da9ba67027639e25e97ba34cbdfa91e158aa0a",
    ("test", 5, 100, 42): "dd1b302c7b956d7270a7a3c8f8bbb7553a2430514e6133c38c789bf9766c9a88",
    ("test", 2, 1000, 42): "a45ccdb5c22688d995bfeb8dc0169493d739d0881dac723b1a051b7b93783ed0",
    ("test", 10, 50, 42): "859762f1c03d62c6b31c3edef97b1e1d78f154cb19a134643192ecf90b08431c",
    ("test", 3, 100, 7): "dc6b4f2e65d9f38fa1f0941e8e487da6635eb72430cd5a24250855726a88da99",
    ("train", 2, 100, 42): "98c0f75efaebc86ddea2a0f2bb3e4ac529a9735b03c633a86c1c4959548e9671",
    ("train", 3, 100, 42): "5b4f8045379ce6bfd86cb43201aa74edbfe9dc9f97c363a001e6afa9f6dcf78a",
    ("train", 5, 100, 42): "cdf1e4ee0fbe23f996c587efe611f7831d062c23e7825cf3c90fa01d0133a54d",
    ("train", 2, 1000, 42): "0422429f85ef1d5ed8ae29379e5c739e1e5b8cc4c93d9c894236954d9058fdf1",
    ("train", 10, 50, 42): "3403c06f1a9eec603f046824fe37c0773692d888cde175e89ea269dece15f57c",
    ("train", 3, 100, 7): "4fa07c9dec09eaed2cc4296b38bbfeba5b823a9a36c5186b1f3a4d4fc795a718",
}


@pytest.fixture(scope="module")
def documents() -> list[str]:
    return list(read_prompts(SHARED_DATA / PROMPTS_IN_DATA).documents)


def test_the_shared_prompts_are_upstreams_300() -> None:
    prompts = read_prompts(SHARED_DATA / PROMPTS_IN_DATA)
    assert len(prompts.documents) == 300
    assert prompts.sha256.startswith("10828c6a")
    # the first entry of upstream's seed-42 test build is prompt 106 with its keyword counts
    assert prompts.documents[106].startswith("2つの直線の関係を求めよ")


def test_the_catalogue_counts_upstreams_classes() -> None:
    """166 classes: 123 decided by rules, 43 by a judge; the test set's 174 factories (the
    logic classes wrap ten different constraints) and the training set's 137."""
    found = classes("test")
    assert len(found) == 166
    assert sum(not f.judged for f in found.values()) == 123
    assert sum(f.judged for f in found.values()) == 43
    assert (len(COLLECTIONS["test"].rule_based), len(COLLECTIONS["test"].judged)) == (131, 43)
    assert (len(COLLECTIONS["train"].rule_based), len(COLLECTIONS["train"].judged)) == (94, 43)


def test_stable_seed_reads_the_digest_little_endian() -> None:
    digest = hashlib.sha256(b"ifbench||106||rule||14").digest()
    assert stable_seed("ifbench", "106", "rule", "14") == int.from_bytes(digest[:8], "little")
    assert stable_seed("ifbench", "106", "rule", "14") == 2627650255546979843


@pytest.mark.parametrize("constraint_set", ["test", pytest.param("train", marks=pytest.mark.slow)])
def test_single_constraint_build_equals_upstreams(constraint_set: str) -> None:
    count, digest = UPSTREAM_SINGLE[constraint_set]
    entries = single_constraint(300, constraint_set)  # type: ignore[arg-type]
    assert len(entries) == count
    assert hashlib.sha256(identity_lines(entries).encode()).hexdigest() == digest


def test_the_first_entries_of_the_default_build() -> None:
    """Upstream's README runs ``--n-constraints 1 --constraint-set test --n-benchmark-data 1``:
    the first entry of the shuffled list."""
    first = single_constraint(300, "test", n_benchmark_data=3)
    assert [e.data_id for e in first] == [
        "106-KeywordIncludedContentConstraint",
        "282-ReplacementProcessingConstraint",
        "7-RomajiCharacterConstraint",
    ]
    assert first[0].constraints[0].seed == 2627650255546979843
    assert first[1].constraints[0].factory.document
    assert first[0].constraint_groups == ("Content",)


def test_a_built_entry_is_decided_by_rule_or_left_pending() -> None:
    """The first entries of the default build, answered: a rule decides, a judged one waits."""
    documents = read_prompts(SHARED_DATA / PROMPTS_IN_DATA).documents
    entries = {e.data_id: e for e in single_constraint(300, "test", n_benchmark_data=60)}
    keyword = entries["106-KeywordIncludedContentConstraint"]
    assert decide(keyword, documents, "日本" + "東京" * 10) == {
        "KeywordIncludedContentConstraint": True
    }
    assert succeeded(decide(keyword, documents, "東京")) is False
    replaced = entries["282-ReplacementProcessingConstraint"]
    document = documents[282].rstrip("\r\n")
    assert succeeded(decide(replaced, documents, document[:1] + "###" + document[4:])) is True
    judged = next(e for e in entries.values() if e.constraints[0].factory.judged)
    assert decide(judged, documents, "はい") == {judged.constraints[0].name: None}
    assert succeeded(decide(judged, documents, "はい")) is None


@pytest.mark.parametrize("setting", sorted(UPSTREAM_MULTI))
def test_multi_constraint_build_equals_upstreams(
    setting: tuple[str, int, int, int], documents: list[str]
) -> None:
    constraint_set, n_constraints, n_benchmark_data, seed = setting
    entries = multiple_constraints(
        documents,
        n_constraints,
        n_benchmark_data,
        constraint_set,  # type: ignore[arg-type]
        seed,
    )
    assert len(entries) == n_benchmark_data
    assert {e.n_constraints for e in entries} == {n_constraints}
    assert hashlib.sha256(identity_lines(entries).encode()).hexdigest() == UPSTREAM_MULTI[setting]


def test_the_first_multi_constraint_entries(documents: list[str]) -> None:
    """Upstream's first draws at seed 42: prompt 26 for both sets, a format constraint
    among each entry's (shuffled into place), every constraint with a seed of its own."""
    test = multiple_constraints(documents, 2, 3, "test")
    assert [e.data_id for e in test] == [
        "multi-GreetingOutputConstraint-YamlFormatConstraint",
        "multi-HtmlFormatConstraint-FirstPersonPluralStyleConstraint",
        "multi-HtmlTableFormatConstraint-CamelcaseNotationConstraint",
    ]
    assert [e.prompt for e in test] == [26, 60, 153]
    assert [c.seed for c in test[0].constraints] == [6432084778622665797, 4047939128787533792]
    train = multiple_constraints(documents, 3, 1, "train")[0]
    assert (train.prompt, train.constraint_groups) == (26, ("Style", "Length", "Format"))
    assert all("Format" in e.constraint_groups for e in test)


def test_no_entry_carries_clashing_constraints_or_repeats(documents: list[str]) -> None:
    entries = multiple_constraints(documents, 5, 200, "test")
    for entry in entries:
        names = entry.constraint_types
        assert not any(clash(a, b) for i, a in enumerate(names) for b in names[i + 1 :])
    identities = {(e.prompt, tuple(sorted(e.constraint_types))) for e in entries}
    assert len(identities) == len(entries)


def test_the_clashes_are_upstreams() -> None:
    """Upstream's competitive pairs over its 166 classes: 2,038 ordered pairs clash (166 a
    class with itself); a few of each kind named."""
    names = sorted(classes("test"))
    assert sum(clash(a, b) for a in names for b in names) == 2038
    assert clash("NegationLogicConstraint", "NegationLogicConstraint")
    assert not clash("NegationLogicConstraint", "DoubleNegationLogicConstraint")
    assert clash("SimpleRepeatIfbenchConstraint", "NoCommasConstraint")  # stands alone
    assert clash("KeywordIncludedContentConstraint", "ReasonContentConstraint")  # contents
    assert clash("NoWhitespaceConstraint", "TitlecaseNotationConstraint")  # needs spaces
    assert clash("JsonFormatConstraint", "MarkdownParseableConstraint")  # data vs Markdown
    assert not clash("MarkdownTableFormatConstraint", "MarkdownParseableConstraint")
    assert clash("MarkdownTableFormatConstraint", "MarkdownHeadingJumpsConstraint")
    assert clash("RomajiCharacterConstraint", "HiraganaCharacterConstraint")
    assert clash("RomajiCharacterConstraint", "HalfWidthCharacterConstraint")  # ASCII
    assert clash("FullWidthCharacterConstraint", "NoJapanesePunctuationConstraint")
    assert not clash("HalfWidthCharacterConstraint", "NoJapanesePunctuationConstraint")
    assert clash("UppercaseCharacterConstraint", "XmlFormatConstraint")


def test_a_multi_constraint_build_needs_its_size(documents: list[str]) -> None:
    with pytest.raises(InputError, match="`n_benchmark_data` is needed"):
        built(documents, "test", 42, 2)
    with pytest.raises(InputError, match="at least 2"):
        multiple_constraints(documents, 1, 5)
    with pytest.raises(InputError, match="do not clash after 1000 draws"):
        multiple_constraints(documents, 120, 1)
    assert [e.data_id for e in built(documents, "test", 42, 1, 1)] == [
        "106-KeywordIncludedContentConstraint"
    ]
