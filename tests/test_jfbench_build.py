"""JFBench's benchmark built as upstream's ``build.py`` builds it (pfnet-research/jfbench c8fed01).

The golden digests below are the SHA-256 of the canonical identity lines (``Entry.
identity_line``: data id, prompt position, each constraint's name, group, parameters, seed
and whether it reads the prompt) of the benchmark that upstream's own
``get_benchmark_data_with_single_constraint`` built from the shared prompts with seed 42,
read off its constraint objects (the seed each ``ConstraintGroupMixin`` was given). hyoka's
build must give the same lines in the same order.
"""

from __future__ import annotations

import hashlib

import pytest

from _shared import SHARED_DATA
from hyoka.jfbench.build import identity_lines, single_constraint, stable_seed
from hyoka.jfbench.catalogue import COLLECTIONS, classes
from hyoka.jfbench.evaluate import decide, succeeded
from hyoka.jfbench.inputs import PROMPTS_IN_DATA, read_prompts

#: upstream's build, seed 42, every entry (test set: 300 prompts x 174 factories)
UPSTREAM_SINGLE = {
    "test": (52200, "c77cbe48864fdb7cae2850bfe7d3238b6247e472ea7757d232e133b59df0ecab"),
    "train": (41100, "e40fca7c0bf2425a3f5c36719ef9b9c4cdf91b98a6ef8a31b7950efcf49ec3c5"),
}


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
