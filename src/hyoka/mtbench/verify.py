"""``hyoka mtbench verify``: does every score and verdict of a judgment file follow from its
stored replies?

The judge analogue of ``hyoka pfgen verify``: what a leaderboard maintainer runs on a
contributed judgment file, or on upstream's published ones. Every line is re-read as the
benchmark's upstream reads a judge's reply, from the raw reply the line keeps: a single
grading's ``judgment`` by its rating rules (``RatingRules``: the number and its written
type, -1 without one), a pairwise line's ``g1_judgment``/``g2_judgment`` by its verdict
rule (``BenchSpec.pair_verdict``) into ``g1_winner``/``g2_winner`` as FastChat records
them, and hyoka's own ``verdicts`` (``bs1``, ``bs2`` from the two letters; ``prob`` from the
stored mean probabilities). A line a rule decided without the judge (``No answer``,
``Incorrect language``; hyoka's ``rule`` field) must hold what that rule gives, and only
where the benchmark has that rule. The answer is "reproduced exactly" or the first line
that differs (file:line, field, stored and recomputed values); nothing is written.

Which rules: ``--bench``, else the benchmark the file's own hyoka manifest names, else the
benchmark whose data folder holds the file (upstream's published judgments). A file with a
hyoka manifest is read by the rules it was made with, as the manifest records them: its
rating rules (a variant's, such as llm-jp's) and its pairwise verdict rule (a file from
before the rule was recorded read the last ``[[X]]``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hyoka.data import resolve_data_dir
from hyoka.errors import InputError
from hyoka.judge import (
    RATING_RULES,
    RatingRules,
    VerdictOutput,
    combine,
    find_rating,
    parse_verdict,
    prob_verdict,
    rule_verdict,
)
from hyoka.mtbench.bench import BENCHES, BenchSpec, bench_spec
from hyoka.mtbench.records import (
    G1_WINNER,
    G2_WINNER,
    INCORRECT_LANGUAGE,
    NO_ANSWER,
    NO_RATING,
)
from hyoka.store import read_manifest, read_objects

#: the judgment a rule writes, by the rule's name in ``BenchSpec.zero_rules``
RULE_TEXTS = {"no-answer": NO_ANSWER, "language": INCORRECT_LANGUAGE}


@dataclass(frozen=True)
class JudgmentCheck:
    """One file's verdict: how many lines were checked, and the first difference."""

    path: Path
    spec: BenchSpec
    lines: int
    difference: str | None
    rating: RatingRules
    pair_verdict: VerdictOutput

    @property
    def reproduced(self) -> bool:
        return self.difference is None

    @property
    def verdict(self) -> str:
        rules = f"{self.spec.name}: rating {self.rating.name}, verdict {self.pair_verdict}"
        if self.lines == 0:
            return f"{self.path}: empty, no judgment to verify ({rules})"
        if self.difference is None:
            return f"{self.path}: reproduced exactly ({self.lines} lines; {rules})"
        return f"{self.difference} (NOT reproduced; {rules})"


def recorded_bench(path: Path) -> tuple[BenchSpec, str | None] | None:
    """The benchmark ``path``'s hyoka manifest names and the variant it records (as
    ``Variant.signed`` wrote it; ``None``: a benchmark without variants); ``None`` for a
    file without a manifest, or one naming no single-grading benchmark (Rakuda's)."""
    manifest = read_manifest(path)
    if manifest is None:
        return None
    named = manifest.identity.get("benchmark")
    if not isinstance(named, str) or named not in BENCHES:
        return None
    variant = manifest.identity.get("variant")
    return BENCHES[named], variant if isinstance(variant, str) else None


def judgment_spec(path: Path, bench: str | None, data_dir: Path | str | None = None) -> BenchSpec:
    """The benchmark whose rules ``path`` is checked by: ``bench``, else the one its hyoka
    manifest names, else the one whose data folder holds it."""
    if bench is not None:
        return bench_spec(bench)
    recorded = recorded_bench(path)
    if recorded is not None:
        return recorded[0]
    root = resolve_data_dir(data_dir).resolve()
    where = path.resolve()
    for spec in BENCHES.values():
        if where.is_relative_to((root / spec.folder).resolve()):  # a linked folder too
            return spec
    raise InputError(
        f"{path}: no hyoka manifest names its benchmark and it lies in no benchmark's data "
        f"folder: name the rules with --bench ({', '.join(BENCHES)})"
    )


def file_rules(path: Path, spec: BenchSpec) -> tuple[RatingRules, VerdictOutput]:
    """The rating rules and the pairwise verdict rule ``path`` was made with: as its hyoka
    manifest records them, else ``spec``'s (upstream's published files)."""
    manifest = read_manifest(path)
    if manifest is None:
        return spec.rating_rules, spec.pair_verdict
    identity = manifest.identity
    rating = identity.get("rating")
    rules = RATING_RULES.get(rating, spec.rating_rules) if isinstance(rating, str) else None
    verdict = identity.get("verdict")
    recorded: VerdictOutput = (
        "fastchat-tokens" if verdict == "fastchat-tokens" else "verdict-after-reasons"
    )
    return rules or spec.rating_rules, recorded


def verify_judgments(path: Path, spec: BenchSpec) -> JudgmentCheck:
    """Re-read every line of ``path`` by the rules it was made with (``file_rules``); stop
    at the first difference."""
    rating, verdict = file_rules(path, spec)
    lines = 0
    for number, line in read_objects(path):
        lines += 1
        found = _single(line, spec, rating) if "score" in line else _pair(line, spec, verdict)
        if found is None and "score" not in line and "g1_winner" not in line:
            found = ("line", "a single grading (score) or a pair (g1_winner)", "neither")
        if found is not None:
            name, stored, recomputed = found
            difference = f"{path}:{number}: {name} is {stored!r}, the rules give {recomputed!r}"
            return JudgmentCheck(path, spec, lines, difference, rating, verdict)
    return JudgmentCheck(path, spec, lines, None, rating, verdict)


Found = tuple[str, Any, Any] | None


def _same(stored: Any, recomputed: Any) -> bool:
    """Equal, and of the same JSON type (FastChat writes 8, never 8.0)."""
    return type(stored) is type(recomputed) and stored == recomputed


def _single(line: Mapping[str, Any], spec: BenchSpec, rating: RatingRules) -> Found:
    judgment = line.get("judgment")
    stored = line.get("score")
    if isinstance(judgment, list) and isinstance(stored, list):  # swallow-evaluation's trials
        if len(judgment) != len(stored):
            return ("score", stored, f"{len(judgment)} scores, one per judgment")
        for one, score in zip(judgment, stored, strict=True):
            found = _single({"judgment": one, "score": score}, spec, rating)
            if found is not None:
                return found
        return None
    if not isinstance(judgment, str):
        return ("judgment", judgment, "a reply (text)")
    rules = {RULE_TEXTS[rule] for rule in spec.zero_rules}
    if judgment in rules:
        return None if _same(stored, 0) else ("score", stored, 0)
    match = find_rating(judgment, rating)
    expected = NO_RATING if match is None else match.written
    return None if _same(stored, expected) else ("score", stored, expected)


def _pair(line: Mapping[str, Any], spec: BenchSpec, verdict_rule: VerdictOutput) -> Found:
    rule = line.get("rule")
    if isinstance(rule, dict) and rule:
        if "no-answer" not in spec.pair_zero_rules and "language" not in spec.pair_zero_rules:
            return ("rule", rule, f"none ({spec.title} decides no game without the judge)")
        verdict = rule_verdict(rule.get("model_1"), rule.get("model_2"))
        winner = G1_WINNER[verdict]
        for game in ("g1_winner", "g2_winner"):
            if line.get(game) != winner:
                return (game, line.get(game), winner)
        return _methods(line, dict.fromkeys(("bs1", "bs2"), verdict))
    letters: list[str | None] = []
    for game, winners in (("g1", G1_WINNER), ("g2", G2_WINNER)):
        reply = line.get(f"{game}_judgment")
        if not isinstance(reply, str):
            return (f"{game}_judgment", reply, "a reply (text)")
        letter = parse_verdict(reply, verdict_rule)
        letters.append(letter)
        if line.get(f"{game}_winner") != winners[letter]:
            return (f"{game}_winner", line.get(f"{game}_winner"), winners[letter])
    return _methods(line, combine(letters[0], letters[1]))


def _methods(line: Mapping[str, Any], expected: Mapping[str, str | None]) -> Found:
    """hyoka's stored verdicts per method, where the line has them."""
    verdicts = line.get("verdicts")
    if not isinstance(verdicts, dict):
        return None
    for method, verdict in expected.items():
        if method in verdicts and verdicts[method] != verdict:
            return (f"verdicts.{method}", verdicts[method], verdict)
    probabilities = line.get("probabilities")
    if "prob" in verdicts and isinstance(probabilities, dict) and "mean" in probabilities:
        recomputed = prob_verdict(probabilities["mean"])
        if verdicts["prob"] != recomputed:
            return ("verdicts.prob", verdicts["prob"], recomputed)
    return None
