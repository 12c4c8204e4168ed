"""``hyoka mtbench verify``: is a judgment file sound, and does every score and verdict
follow from its stored replies?

The judge analogue of ``hyoka pfgen verify``: what a leaderboard maintainer runs on a
contributed judgment file, or on upstream's published ones. A file passes only when it is
a file its benchmark's readers take whole and every number in it is what the rules read in
the reply it keeps:

- **Sound**: every line has the shape upstream writes (``SingleGradingLine``,
  ``PairJudgmentLine``, ``RakudaPairLine``: a score is a JSON number, never ``true``; a
  line of trials holds at least one; an id an integer or one as text); every line is one
  its benchmark's upstream could have written, checked as every reader of such files
  checks it (``line_checks``; Rakuda's ``rakuda.MatchChecks``): a question of the
  benchmark (its variant's) with its id in the question file's JSON type, a turn it
  judges, the prompt FastChat names for that turn and category, the judged prompt that
  prompt for that question (here against the prompt itself), a score on the scale, two
  different models in a pair, one judge a file; and no judgment is there twice. A line
  equal to an earlier one is a copy (a file joined to itself); two different judgments of
  one turn, pair or match are refused where the leaderboard refuses them, and wherever a
  hyoka manifest says hyoka wrote the file (it judges each once). Upstream's files whose
  tables count every line (FastChat's ``show_result.py``: Stability's published file
  judges four turns twice) keep their repeats, counted and said.
- **Reproduced**: every line is re-read as the benchmark's upstream reads a judge's reply:
  a single grading's ``judgment`` by its rating rules (``RatingRules``: the number and
  its written type, -1 without one), a pairwise line's ``g1_judgment``/``g2_judgment`` by
  its verdict rule (``BenchSpec.pair_verdict``) into ``g1_winner``/``g2_winner`` as
  FastChat records them, and hyoka's own ``verdicts`` (``bs1``, ``bs2`` from the two
  letters; ``prob`` from the stored mean probabilities); a Rakuda match's ``judgment`` by
  its last digit. A line a rule decided without the judge (``No answer``, ``Incorrect
  language``; hyoka's ``rule`` field) must hold what that rule gives, and only where the
  file was judged with that rule.

The answer is "reproduced exactly", the first line that is not sound or differs
(file:line, field, stored and recomputed values), or "cannot be verified" for a file that
keeps no judge replies (scores only: Shaberi's files) or a line without a field upstream
writes on every line (``records.SINGLE_FIELDS`` ...: a judged prompt, a reply or a time
stripped, so what it held is not checked); nothing is written.

Which rules: ``--bench``, else the benchmark the file's own hyoka manifest names, else the
benchmark whose data folder holds the file (upstream's published judgments); Rakuda's
files are also told by their lines. A file with a hyoka manifest is read by every rule the
manifest records: its rating rules (a variant's, such as llm-jp's), its pairwise verdict
rule (a file from before the rule was recorded read the last ``[[X]]``), the rules that
decided without the judge, its variant, and how the judge's thinking was read (its
``thinking``: under ``strip-think``, the default, a rating inside a ``<think>`` block is
none). A file without one is read as upstream reads it: each reply whole, and for a
benchmark with variants each model's rows by the variant their judged prompts show
(``judged_variant``).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, NamedTuple, TypeVar

from pydantic import BaseModel

from hyoka.data import resolve_data_dir
from hyoka.errors import DataError, InputError, MissingDataError
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
from hyoka.mtbench.bench import Bench
from hyoka.mtbench.constraint_checked import verify_constraints
from hyoka.mtbench.judged_variant import VariantBenches, row_variants
from hyoka.mtbench.leaderboard import fastchat_lines, fastchat_records, judgment_lines
from hyoka.mtbench.line_checks import (
    JudgedOnce,
    OneJudge,
    check_line,
    check_pair,
    check_scale,
    pair_label,
)
from hyoka.mtbench.rakuda import (
    RAKUDA_FIELDS,
    VERDICT_RULE,
    MatchChecks,
    RakudaBench,
    RakudaPairLine,
    read_verdict,
)
from hyoka.mtbench.rakuda import SPEC as RAKUDA_SPEC
from hyoka.mtbench.records import (
    G1_WINNER,
    G2_WINNER,
    INCORRECT_LANGUAGE,
    NO_ANSWER,
    NO_RATING,
    PAIR_FIELDS,
    SINGLE_FIELDS,
    VICUNA_PAIR_FIELDS,
    PairJudgmentLine,
    SingleJudgmentLine,
    TrialsJudgmentLine,
    absent_fields,
)
from hyoka.mtbench.registry import (
    definition,
    definitions,
    fastchat_bench,
    fastchat_benches,
    names,
)
from hyoka.mtbench.rule_checked import rule_verification
from hyoka.mtbench.spec import (
    CONSTRAINT_CHECKED,
    DRAWN_MATCHES,
    RULE_CHECKED,
    BenchSpec,
    JudgingProtocol,
)
from hyoka.mtbench.variant import Variant
from hyoka.providers import KEEP, STRIP_THINK, THINKING_RULES, ThinkingRule, split_thinking
from hyoka.store import (
    Manifest,
    first_object,
    manifest_path,
    read_manifest,
    read_objects,
    read_records,
)

#: the judgment a rule writes, by the rule's name in ``BenchSpec.zero_rules``
RULE_TEXTS = {"no-answer": NO_ANSWER, "language": INCORRECT_LANGUAGE}
#: why a Shaberi file cannot be verified
SHABERI_SCORES_ONLY = "Shaberi's files keep each grade, not the judge's reply it was read from"
NO_REPLIES = "its lines keep no judge reply (scores only)"
#: why an empty file cannot be verified (a judge run stopped before its first line)
EMPTY = "empty, no judgment in it"


@dataclass(frozen=True)
class JudgmentCheck:
    """One file's verdict: how many lines were read, the first line that is not sound or
    differs (``difference``), or why the file cannot be verified, and the rules read by."""

    path: Path
    spec: BenchSpec
    lines: int
    difference: str | None
    #: the rules the file was read by, as the verdict names them
    rules: str
    #: why nothing could be recomputed (the file keeps no judge replies); ``None``: it could
    unverifiable: str | None = None
    #: whether ``difference`` is a line no reader takes (rather than a number that differs)
    unsound: bool = False
    #: verdicts that differ only where an unseeded draw decides (langdetect's, upstream
    #: M-IFEval's): the file is reproduced, but not exactly
    drawn: int = 0

    @property
    def reproduced(self) -> bool:
        """Whether every number was recomputed and agreed; an empty file has none, so it
        is not (nothing was shown to be right: it cannot be verified)."""
        return self.difference is None and self.unverifiable is None and self.lines > 0

    @property
    def verdict(self) -> str:
        if self.difference is not None:
            why = "NOT reproduced: not a sound judgment file" if self.unsound else "NOT reproduced"
            return f"{self.difference} ({why}; {self.rules})"
        if self.lines == 0:
            return f"{self.path}: cannot be verified: {EMPTY} ({self.rules})"
        if self.unverifiable is not None:
            return f"{self.path}: cannot be verified: {self.unverifiable} ({self.rules})"
        if self.drawn:
            return (
                f"{self.path}: reproduced except {self.drawn} verdict(s) langdetect's unseeded "
                f"draw decides ({self.lines} lines; {self.rules})"
            )
        return f"{self.path}: reproduced exactly ({self.lines} lines; {self.rules})"


def recorded_bench(path: Path) -> tuple[BenchSpec, str | None] | None:
    """The benchmark ``path``'s hyoka manifest names and the variant it records (as
    ``Variant.signed`` wrote it; ``None``: a benchmark without variants); ``None`` for a
    file without a manifest, or one naming no single-grading benchmark (Rakuda's)."""
    manifest = read_manifest(path)
    if manifest is None:
        return None
    named = manifest.identity.get("benchmark")
    spec = fastchat_benches().get(named) if isinstance(named, str) else None
    if spec is None:
        return None
    variant = manifest.identity.get("variant")
    return spec, variant if isinstance(variant, str) else None


def judgment_spec(path: Path, bench: str | None, data_dir: Path | str | None = None) -> BenchSpec:
    """The benchmark whose rules ``path`` is checked by: ``bench``, else the one its hyoka
    manifest names, else the one whose data folder holds it."""
    if bench is not None:
        return fastchat_bench(bench)
    recorded = recorded_bench(path)
    if recorded is not None:
        return recorded[0]
    root = resolve_data_dir(data_dir).resolve()
    where = path.resolve()
    for spec in fastchat_benches().values():
        if where.is_relative_to((root / spec.folder).resolve()):  # a linked folder too
            return spec
    raise InputError(
        f"{path}: no hyoka manifest names its benchmark and it lies in no benchmark's data "
        f"folder: name the rules with `bench` ({', '.join(names())})"
    )


def file_rules(manifest: Manifest | None, spec: BenchSpec) -> tuple[RatingRules, VerdictOutput]:
    """The rating rules and the pairwise verdict rule a file was made with: as its hyoka
    ``manifest`` records them (read once by the caller), else ``spec``'s (upstream's
    published files)."""
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


class Benches:
    """The benchmarks one run of ``verify`` reads, each (and each variant) loaded once from
    one data directory, however many files are checked."""

    def __init__(self, data_dir: Path | str | None) -> None:
        self.data_dir = data_dir
        self._questions: dict[tuple[str, str | None], Bench] = {}
        self._judged: dict[tuple[str, str | None], Bench] = {}
        self._variants: dict[str, VariantBenches] = {}
        self._rakuda: RakudaBench | None = None
        #: each judgment's first file in this run (``_Across``; Rakuda's ``MatchChecks``)
        self.judged_in: dict[Hashable, _Across] = {}
        self.matches: dict[tuple[str, ...], MatchChecks] = {}

    def questions(self, spec: BenchSpec, variant: str | None = None) -> Bench:
        """The benchmark's questions (its variant's), what a line must judge."""
        key = (spec.name, variant)
        if key not in self._questions:
            self._questions[key] = Bench.load(
                spec.name, self.data_dir, variant, questions_only=True
            )
        return self._questions[key]

    def judged(self, spec: BenchSpec, variant: str | None = None) -> Bench:
        """The benchmark (its variant) with its judge prompts and references, what a
        judged prompt is checked against (``line_checks``); its questions alone where those
        files are not at hand (a ``MissingDataError`` where the questions are not)."""
        key = (spec.name, variant)
        if key not in self._judged:
            try:
                self._judged[key] = Bench.load(spec.name, self.data_dir, variant)
            except DataError:
                self._judged[key] = self.questions(spec, variant)
        return self._judged[key]

    def rakuda(self) -> RakudaBench:
        """Rakuda's questions and prompt (a ``MissingDataError`` where they are not here)."""
        if self._rakuda is None:
            self._rakuda = RakudaBench.load(self.data_dir)
        return self._rakuda

    def variants(self, spec: BenchSpec) -> VariantBenches:
        """Its variants whole (prompts and references: what builds a judged prompt)."""
        if spec.name not in self._variants:
            self._variants[spec.name] = VariantBenches(spec, self.data_dir)
        return self._variants[spec.name]


def verify_file(
    path: Path,
    bench: str | None,
    data_dir: Path | str | None = None,
    benches: Benches | None = None,
) -> JudgmentCheck:
    """``path`` checked by the rules of ``bench`` (else those its manifest, its data folder
    or, for Rakuda, its lines name); ``benches``: what earlier files of the run loaded."""
    manifest = read_manifest(path)
    named = None if manifest is None else manifest.identity.get("benchmark")
    loaded = benches or Benches(data_dir)
    spec = definition_of(bench, named)
    verifier = None if spec is None else _VERIFIERS.get(spec.judging)
    if spec is not None and verifier is not None:
        return verifier(path, spec, loaded, data_dir)
    if bench is None and named is None and _first_fields(path) & {"model1_id", "winner"}:
        return verify_rakuda(path, loaded)  # Rakuda's lines say what they are
    spec = judgment_spec(path, bench, data_dir)
    return verify_judgments(path, spec, data_dir, loaded)


def _by_constraints(
    path: Path, spec: BenchSpec, _loaded: Benches, data_dir: Path | str | None
) -> JudgmentCheck:
    checked = verify_constraints(path, spec, data_dir)
    return JudgmentCheck(path, spec, checked.records, checked.difference, checked.rules)


#: how a file of each judging protocol but FastChat's is checked (FastChat's: by the rules
#: of the benchmark and variant the file itself names, ``judgment_spec``); a new protocol
#: adds its verifier here, not a branch in ``verify_file``
_VERIFIERS: Mapping[
    JudgingProtocol, Callable[[Path, BenchSpec, Benches, Path | str | None], JudgmentCheck]
] = MappingProxyType({
    DRAWN_MATCHES: lambda path, _spec, loaded, _data_dir: verify_rakuda(path, loaded),
    RULE_CHECKED: lambda path, spec, _loaded, data_dir: verify_by_rules(path, spec, data_dir),
    CONSTRAINT_CHECKED: _by_constraints,
})  # fmt: skip


def verify_by_rules(path: Path, spec: BenchSpec, data_dir: Path | str | None) -> JudgmentCheck:
    """Upstream's evaluation file of a rule-checked benchmark, every verdict decided again
    by the rules: reproduced when each agrees or differs only where langdetect's seed
    decides it (upstream draws unseeded); the first other difference otherwise."""
    from hyoka.ifeval import RULES  # the face loads its checks on first use

    checked = rule_verification(path, spec, data_dir)
    drawn = len(checked.differences) - len(checked.unexplained)
    rules = (
        f"{spec.name} {checked.mode} rules ({RULES}), {checked.instructions_agreed}/"
        f"{checked.instructions} instruction verdicts agree, {drawn} differ by langdetect's "
        "seed alone"
    )
    if checked.absent:
        rules += (
            f"; {len(checked.absent)} of the {len(checked.absent) + len(checked.published)} "
            f"prompts absent (the first: {checked.absent[0].where})"
        )
    difference = next((d.describe() for d in checked.unexplained), None)
    if difference is None and checked.inconsistent:
        difference = (
            f"{checked.inconsistent[0]}: follow_all_instructions is not every instruction's verdict"
        )
    return JudgmentCheck(path, spec, len(checked.published), difference, rules, drawn=drawn)


def definition_of(bench: str | None, named: object) -> BenchSpec | None:
    """The definition ``--bench`` names (an unknown name is the registry's one error
    line), else the one a file's manifest names, if any."""
    if bench is not None:
        return definition(bench)
    return definitions().get(named) if isinstance(named, str) else None


def _first_fields(path: Path) -> set[str]:
    if is_shaberi_path(path):
        return set()
    first = first_object(path)
    return set(first) if first is not None else set()


def is_shaberi_path(path: Path) -> bool:
    return path.suffix == ".json"


def verify_judgments(
    path: Path,
    spec: BenchSpec,
    data_dir: Path | str | None = None,
    benches: Benches | None = None,
) -> JudgmentCheck:
    """Every line of ``path`` checked and re-read by the rules it was made with; the
    verdict at the first line that is not sound, else at the first that differs."""
    loaded = benches or Benches(data_dir)
    if spec.question_format.is_judgment_file(path):
        return _verify_singles(path, spec, loaded)
    first = first_object(path)
    if first is not None and "g1_winner" in first:
        return _verify_pairs(path, spec, loaded)
    return _verify_singles(path, spec, loaded)


def _thinking(path: Path, manifest: Manifest | None) -> ThinkingRule:
    """How the judge's replies are read: as the manifest records it (``strip-think`` by
    default), whole for a file without one (upstream reads a reply whole)."""
    if manifest is None:
        return KEEP
    judge = manifest.identity.get("judge")
    recorded = judge.get("thinking") if isinstance(judge, dict) else None
    if recorded is None:
        return STRIP_THINK
    for rule in THINKING_RULES:
        if recorded == rule:
            return rule
    raise InputError(
        f"{manifest_path(path)}: the judge's thinking was read by {recorded!r}, a rule this "
        f"hyoka does not know ({', '.join(THINKING_RULES)})"
    )


def _zero_rules(manifest: Manifest | None, default: Sequence[str]) -> frozenset[str]:
    """The judgments rules wrote without the judge: those of the rules the manifest
    records, else the benchmark's."""
    recorded = None if manifest is None else manifest.identity.get("rules")
    names = recorded if isinstance(recorded, list) else default
    return frozenset(RULE_TEXTS[name] for name in names if name in RULE_TEXTS)


class _MadeWith(NamedTuple):
    """How a judgment file was made, read once from the manifest beside it (``None``:
    upstream's file, its benchmark's rules): the rating and verdict rules, how replies are
    read, the judgments rules wrote, and the notes its verdict starts with."""

    manifest: Manifest | None
    rating: RatingRules
    verdict: VerdictOutput
    thinking: ThinkingRule
    zeros: frozenset[str]
    notes: list[str]


def _made_with(path: Path, spec: BenchSpec, zero_rules: Sequence[str]) -> _MadeWith:
    """The one reading of a file's manifest that single and pairwise checks share
    (``zero_rules``: the benchmark's rules for that protocol, where no manifest says)."""
    manifest = read_manifest(path)
    rating, verdict = file_rules(manifest, spec)
    thinking = _thinking(path, manifest)
    notes = [] if manifest is None else [f"thinking {thinking}"]
    return _MadeWith(manifest, rating, verdict, thinking, _zero_rules(manifest, zero_rules), notes)


class _UnsoundError(Exception):
    """A line no reader of the file takes: the verdict names it."""


T = TypeVar("T", bound=BaseModel)


class _Once:
    """Each judgment once: a copy of an earlier line is never sound (unless ``copies``:
    lines that keep no time or reply, Shaberi's rows, cannot tell a copy from a second
    grading); another judgment of the same key is where ``repeats`` allows it (counted),
    else refused with ``why``."""

    def __init__(self, path: Path, *, repeats: bool, why: str, copies: bool = False) -> None:
        self.path, self.repeats, self.why, self.copies = path, repeats, why, copies
        self.first: dict[Hashable, tuple[int, BaseModel]] = {}
        self.repeated = 0

    def see(self, number: int, key: Hashable, line: BaseModel, label: str) -> None:
        if key not in self.first:
            self.first[key] = (number, line)
            return
        earlier, kept = self.first[key]
        if earlier == number:  # another trial of the same line
            return
        if kept == line and not self.copies:
            raise _UnsoundError(
                f"{self.path}:{number}: the same judgment as line {earlier} again (a line "
                "copied, or the file joined to itself)"
            )
        if not self.repeats:
            raise _UnsoundError(
                f"{self.path}:{number}: a second, different judgment of {label} (first at "
                f"line {earlier}): {self.why}"
            )
        self.repeated += 1


class _Across:
    """Each judgment in one file of the run: a judgment (its judge's, of its benchmark)
    already in an earlier file, or in the same file given twice, is there twice, as the
    leaderboard refuses it (a file joined with a part of itself, or a pair's lines again
    with its models swapped, both orders one pair)."""

    def __init__(self, path: Path, benches: Benches) -> None:
        self.path, self.seen = path, benches.judged_in

    def see(self, number: int, key: Hashable, label: str) -> None:
        other = self.seen.setdefault(key, self)
        if other is not self:
            twice = ", given twice" if other.path == self.path else ""
            raise _UnsoundError(
                f"{self.path}:{number}: {label} judged twice (also in {other.path}{twice})"
            )


def _records(path: Path, kind: type[T]) -> Iterator[tuple[int, T]]:
    try:
        yield from read_records(path, kind)
    except InputError as exc:  # a line of another shape: the file is not sound
        raise _UnsoundError(str(exc)) from None


Found = tuple[str, Any, Any] | None


def _same(stored: Any, recomputed: Any) -> bool:
    """Equal, and of the same JSON type (FastChat writes 8, never 8.0)."""
    return type(stored) is type(recomputed) and stored == recomputed


def _differs(path: Path, number: int, found: Found) -> str | None:
    if found is None:
        return None
    name, stored, recomputed = found
    return f"{path}:{number}: {name} is {stored!r}, the rules give {recomputed!r}"


def _rules_text(spec: BenchSpec, rating: str, verdict: str, notes: Sequence[str]) -> str:
    return f"{spec.name}: rating {rating}, verdict {verdict}" + "".join(f", {n}" for n in notes)


def _repeated_note(count: int) -> list[str]:
    if not count:
        return []
    return [f"{count} turn{'s' if count > 1 else ''} judged again, each counted as upstream "
            "counts them"]  # fmt: skip


# --- single grading --------------------------------------------------------------------


@dataclass(frozen=True)
class _RowRules:
    """How one model's rows of a file are checked: the benchmark (its variant) its lines
    must fit, and the rating rules its replies are read by."""

    #: ``None`` where the benchmark's data is not there (only the scale is checked)
    bench: Bench | None
    rating: RatingRules


def _verify_singles(path: Path, spec: BenchSpec, benches: Benches) -> JudgmentCheck:
    manifest, rating, verdict, thinking, zeros, notes = _made_with(path, spec, spec.zero_rules)
    shaberi = spec.question_format.is_judgment_file(path)
    once = _Once(
        path,
        repeats=manifest is None and spec.repeated_turns == "every",
        why="the leaderboard keeps one judgment a turn" if manifest is None else
        "hyoka judges each turn once",
        copies=shaberi,
    )  # fmt: skip
    numbers: set[int] = set()
    replies = False
    difference: str | None = None
    absent: str | None = None
    judges = OneJudge(path)
    across = _Across(path, benches)
    rating_name = rating.name
    try:
        rows: dict[str, _RowRules] = {}
        default = _RowRules(None, rating)
        try:
            if manifest is None and spec.variants and not shaberi:
                rows, told = _rows_by_variant(path, spec, benches)
                notes += told
                named = sorted({row.rating.name for row in rows.values()})
                rating_name = ", ".join(named) or rating.name
            else:
                bench = _manifest_bench(path, spec, manifest, benches)
                if manifest is not None and bench.variant is not None:
                    notes.append(f"variant {bench.variant.name}")
                default = _RowRules(bench, rating)
        except MissingDataError as exc:  # everything else is still checked, and it says so
            notes.append(f"questions and turns not checked: {exc}")
            if shaberi:  # its rows are told by the tasks' text
                text = _rules_text(spec, rating_name, verdict, notes)
                return JudgmentCheck(path, spec, _count(path), None, text, SHABERI_SCORES_ONLY)
        for number, written, singles in _single_records(path, default.bench if shaberi else None):
            numbers.add(number)
            if absent is None and written is not None:
                absent = _absent(number, absent_fields(written, SINGLE_FIELDS))
            for line in singles:
                row = rows.get(line.model, default)
                try:
                    if row.bench is None:
                        check_scale(f"{path}:{number}", line.score, spec)
                    else:
                        check_line(f"{path}:{number}", line, row.bench, fastchat=not shaberi,
                                   as_judged=True)  # fmt: skip
                    judges.see(number, line.judge[0])
                except InputError as exc:
                    raise _UnsoundError(str(exc)) from None
                label = f"{line.model} question_id {line.question_id} turn {line.turn}" + (
                    "" if line.trial is None else f" trial {line.trial}"
                )
                key = (line.model, line.question_id, line.turn, line.trial)
                once.see(number, key, line, label)
                across.see(number, (spec.name, line.judge[0], *key), label)
                replies = replies or bool(line.judgment)
                if difference is None and not shaberi:
                    found = _single(line, row.rating, zeros, thinking)
                    difference = _differs(path, number, found)
    except _UnsoundError as exc:
        text = _rules_text(spec, rating_name, verdict, notes)
        return JudgmentCheck(path, spec, len(numbers), str(exc), text, unsound=True)
    text = _rules_text(spec, rating_name, verdict, notes + _repeated_note(once.repeated))
    unverifiable = SHABERI_SCORES_ONLY if shaberi else absent or (None if replies else NO_REPLIES)
    if unverifiable is not None and numbers:
        return JudgmentCheck(path, spec, len(numbers), None, text, unverifiable)
    return JudgmentCheck(path, spec, len(numbers), difference, text)


def _absent(number: int, fields: Sequence[str]) -> str | None:
    """Why a file whose line ``number`` lacks ``fields`` cannot be verified (``None``: it
    lacks none): upstream writes each on every line, and what is not kept is not checked."""
    if not fields:
        return None
    plural = "s" if len(fields) > 1 else ""
    return (
        f"line {number} lacks {', '.join(fields)}, {'fields' if plural else 'a field'} "
        "upstream writes on every line"
    )


def _count(path: Path) -> int:
    return sum(1 for _ in read_objects(path))


def _single_lines(path: Path, shaberi: Bench | None) -> Iterator[tuple[int, SingleJudgmentLine]]:
    """The file's judgments as the leaderboard reads them: FastChat's lines, or with
    ``shaberi``'s tasks (its rows are told by their text) Shaberi's rows."""
    try:
        yield from fastchat_lines(path) if shaberi is None else judgment_lines(path, shaberi)
    except InputError as exc:
        raise _UnsoundError(str(exc)) from None


Written = SingleJudgmentLine | TrialsJudgmentLine


def _single_records(
    path: Path, shaberi: Bench | None
) -> Iterator[tuple[int, Written | None, list[SingleJudgmentLine]]]:
    """Each line as written (``None``: a Shaberi row, not FastChat's shape) and as the
    judgments the leaderboard reads from it (``_single_lines``)."""
    try:
        if shaberi is None:
            yield from fastchat_records(path)
        else:
            for number, line in judgment_lines(path, shaberi):
                yield number, None, [line]
    except InputError as exc:
        raise _UnsoundError(str(exc)) from None


def _manifest_bench(
    path: Path, spec: BenchSpec, manifest: Manifest | None, benches: Benches
) -> Bench:
    """The benchmark the lines must fit: under the variant the manifest records (one this
    hyoka does not know is an error naming the manifest), else the one a file without a
    record of its variant was made under (``unsigned_variant``: upstream's own files), else
    the benchmark's own."""
    variant = spec.unsigned_variant if manifest is None else None
    if manifest is not None and spec.variants and manifest.identity.get("benchmark") == spec.name:
        signed = manifest.identity.get("variant")
        known = spec.recorded_variant(signed if isinstance(signed, str) else None,
                                      manifest_path(path))  # fmt: skip
        variant = None if known is None else known.name
    return benches.judged(spec, variant)


def _rows_by_variant(
    path: Path, spec: BenchSpec, benches: Benches
) -> tuple[dict[str, _RowRules], list[str]]:
    """For a file without a manifest of a benchmark with variants: each model's rows by
    the variant its judged prompts show, read by that variant's rating rules; a row none
    shows by the first variant whose questions and turns fit it, read by the benchmark's
    rules. And how the verdict says so."""
    lines = [line for _, line in _single_lines(path, None)]
    load = benches.variants(spec)
    found = row_variants(spec, lines, load)
    by_model: dict[str, _RowRules] = {}
    shown: dict[str, int] = {}
    unproven = 0
    for model, candidates in found.items():
        own = [line for line in lines if line.model == model]
        if candidates:
            bench = load(candidates[0])
            assert bench is not None  # a candidate built the lines
            by_model[model] = _RowRules(bench, bench.rating_rules)
            shown[candidates[0].name] = shown.get(candidates[0].name, 0) + 1
            continue
        unproven += 1  # its prompts are none a variant builds: their questions and turns
        fitting = [b for v in spec.variants if (b := _questions(benches, spec, v)) is not None
                   and _fit(b, own)]  # fmt: skip
        bench = fitting[0] if fitting else benches.questions(spec)
        by_model[model] = _RowRules(bench, spec.rating_rules)
    parts = [f"{name} ({n} model{'s' if n > 1 else ''})" for name, n in shown.items()]
    told = []
    if parts:
        plural = "s" if len(parts) > 1 else ""
        told.append(f"variant{plural} {', '.join(parts)} read from the judged prompts")
    if unproven:
        told.append(
            f"{unproven} model{'s' if unproven > 1 else ''} of no variant its judged prompts "
            "show (the leaderboard ranks them only with --mix-variants)"
        )
    return by_model, told


def _questions(benches: Benches, spec: BenchSpec, variant: Variant) -> Bench | None:
    """``variant``'s questions; ``None`` where its files are missing or not the pinned ones."""
    try:
        return benches.questions(spec, variant.name)
    except DataError:
        return None


def _fit(bench: Bench, lines: Sequence[SingleJudgmentLine]) -> bool:
    try:
        for line in lines:
            check_line("", line, bench, as_judged=True)
    except InputError:
        return False
    return True


def _single(
    line: SingleJudgmentLine, rating: RatingRules, zeros: frozenset[str], thinking: ThinkingRule
) -> Found:
    stored = line.score
    if line.judgment in zeros:
        return None if _same(stored, 0) else ("score", stored, 0)
    match = find_rating(split_thinking(line.judgment, thinking).answer, rating)
    expected = NO_RATING if match is None else match.written
    return None if _same(stored, expected) else ("score", stored, expected)


# --- pairwise ----------------------------------------------------------------------------


def _verify_pairs(path: Path, spec: BenchSpec, benches: Benches) -> JudgmentCheck:
    _, rating, verdict_rule, thinking, zeros, notes = _made_with(path, spec, spec.pair_zero_rules)
    fields = VICUNA_PAIR_FIELDS if spec.upstream_pair_fields else PAIR_FIELDS
    across = _Across(path, benches)
    replies = False
    difference: str | None = None
    absent: str | None = None
    candidates, told = pair_benches(path, spec, benches)
    try:
        lines = checked_pairs(path, candidates, told)
    except InputError as exc:
        text = _rules_text(spec, rating.name, verdict_rule, notes)
        return JudgmentCheck(path, spec, 0, str(exc), text, unsound=True)
    text = _rules_text(spec, rating.name, verdict_rule, notes + told)
    try:
        for number, line in lines:
            key = (line.question_id, line.turn, line.models)  # each once: checked_pairs
            across.see(number, (spec.name, line.judge[0], *key), pair_label(line))
            absent = absent or _absent(number, absent_fields(line, fields))
            replies = replies or bool(line.g1_judgment or line.g2_judgment)
            if difference is None:
                found = _pair(line, spec, zeros, verdict_rule, thinking)
                difference = _differs(path, number, found)
    except _UnsoundError as exc:
        return JudgmentCheck(path, spec, len(lines), str(exc), text, unsound=True)
    unverifiable = absent or (None if replies else NO_REPLIES)
    if lines and unverifiable is not None:
        return JudgmentCheck(path, spec, len(lines), None, text, unverifiable)
    return JudgmentCheck(path, spec, len(lines), difference, text)


PairLines = list[tuple[int, PairJudgmentLine]]


def pair_benches(
    path: Path, spec: BenchSpec | None, benches: Benches
) -> tuple[list[Bench | None], list[str]]:
    """What the lines of the FastChat pair file ``path`` are checked against
    (``checked_pairs``): ``spec`` under the variant its manifest records (one this hyoka
    lacks is an ``InputError`` naming the manifest), else, for a benchmark with variants,
    each variant whose files are here, in the benchmark's order; ``None`` (the models and
    the judge only) for a file of no known benchmark, or where its data is missing, which
    the notes say."""
    if spec is None:
        return [None], []
    manifest = read_manifest(path)
    try:
        if manifest is None and spec.variants:
            load = benches.variants(spec)
            found = [bench for variant in spec.variants if (bench := load(variant)) is not None]
            if found:
                return list(found), []
        return [_manifest_bench(path, spec, manifest, benches)], []
    except MissingDataError as exc:
        return [None], [f"questions and turns not checked: {exc}"]


def checked_pairs(path: Path, candidates: Sequence[Bench | None], notes: list[str]) -> PairLines:
    """Every line of the FastChat pair file ``path``, each checked as every reader checks
    it (``line_checks.check_pair``: two models, a question and turn of the benchmark, its
    pair prompt and the prompts judged; one judge a file; each pair once a turn,
    ``line_checks.JudgedOnce``: a copy or a second verdict is no other item) against the first of
    ``candidates`` (``pair_benches``) that every line fits, which ``notes`` gains where
    there were several; an ``InputError`` names the first line the first candidate
    refuses."""
    lines = list(read_records(path, PairJudgmentLine))
    failed: InputError | None = None
    for bench in candidates:
        try:
            _check_pairs(path, lines, bench)
        except InputError as exc:
            failed = failed or exc
            continue
        if len(candidates) > 1 and bench is not None and bench.variant is not None:
            notes.append(f"variant {bench.variant.name}, the first whose questions and "
                         "prompts every line fits")  # fmt: skip
        return lines
    assert failed is not None  # every candidate refused a line
    raise failed


def _check_pairs(path: Path, lines: PairLines, bench: Bench | None) -> None:
    judges = OneJudge(path)
    once = JudgedOnce(path, "a pair is judged once a turn")
    for number, line in lines:
        check_pair(f"{path}:{number}", line, bench)
        judges.see(number, line.judge[0])
        once.see(number, (line.question_id, line.turn, line.models), line, pair_label(line))


def _pair(
    line: PairJudgmentLine,
    spec: BenchSpec,
    zeros: frozenset[str],
    verdict_rule: VerdictOutput,
    thinking: ThinkingRule,
) -> Found:
    rule = line.rule
    if rule:
        if not zeros:
            return ("rule", rule, f"none ({spec.title} decides no game without the judge)")
        verdict = rule_verdict(rule.get("model_1"), rule.get("model_2"))
        winner = G1_WINNER[verdict]
        for game in ("g1_winner", "g2_winner"):
            if getattr(line, game) != winner:
                return (game, getattr(line, game), winner)
        return _methods(line, dict.fromkeys(("bs1", "bs2"), verdict))
    letters: list[str | None] = []
    for game, winners, reply, stored in (
        ("g1", G1_WINNER, line.g1_judgment, line.g1_winner),
        ("g2", G2_WINNER, line.g2_judgment, line.g2_winner),
    ):
        letter = parse_verdict(split_thinking(reply, thinking).answer, verdict_rule)
        letters.append(letter)
        if stored != winners[letter]:
            return (f"{game}_winner", stored, winners[letter])
    return _methods(line, combine(letters[0], letters[1]))


def _methods(line: PairJudgmentLine, expected: Mapping[str, str | None]) -> Found:
    """hyoka's stored verdicts per method, where the line has them."""
    verdicts = line.verdicts
    if not verdicts:
        return None
    for method, verdict in expected.items():
        if method in verdicts and verdicts[method] != verdict:
            return (f"verdicts.{method}", verdicts[method], verdict)
    probabilities = line.probabilities
    if "prob" in verdicts and probabilities is not None and "mean" in probabilities:
        recomputed = prob_verdict(probabilities["mean"])
        if verdicts["prob"] != recomputed:
            return ("verdicts.prob", verdicts["prob"], recomputed)
    return None


# --- Rakuda ------------------------------------------------------------------------------


def verify_rakuda(path: Path, benches: Benches | None = None) -> JudgmentCheck:
    """A Rakuda pair file: every line checked as the ranking checks it
    (``rakuda.MatchChecks``: two models, a Rakuda question, each match once), its
    ``winner`` the last digit of its reply (``read_verdict``) under the manifest's thinking
    rule."""
    manifest = read_manifest(path)
    thinking = _thinking(path, manifest)
    notes = "" if manifest is None else f", thinking {thinking}"
    loaded = benches or Benches(None)
    try:
        bench: RakudaBench | None = loaded.rakuda()
    except MissingDataError as exc:
        bench = None
        notes += f", questions not checked: {exc}"
    text = f"{RAKUDA_SPEC.name}: verdict {VERDICT_RULE}{notes}"
    checks = MatchChecks(path, bench, loaded.matches, by_judge=True)
    numbers = 0
    replies = False
    difference: str | None = None
    absent: str | None = None
    try:
        for number, line in _records(path, RakudaPairLine):
            numbers += 1
            try:
                checks.check(number, line)
            except InputError as exc:
                raise _UnsoundError(str(exc)) from None
            absent = absent or _absent(number, absent_fields(line, RAKUDA_FIELDS))
            replies = replies or bool(line.judgment)
            recomputed = read_verdict(split_thinking(line.judgment, thinking).answer)
            if difference is None and not _same(line.winner, recomputed):
                difference = _differs(path, number, ("winner", line.winner, recomputed))
    except _UnsoundError as exc:
        return JudgmentCheck(path, RAKUDA_SPEC, numbers, str(exc), text, unsound=True)
    unverifiable = absent or (None if replies else NO_REPLIES)
    if numbers and unverifiable is not None:
        return JudgmentCheck(path, RAKUDA_SPEC, numbers, None, text, unverifiable)
    return JudgmentCheck(path, RAKUDA_SPEC, numbers, difference, text)
