"""Whether a judgment line is one its benchmark's upstream could have written.

Upstream writes a line per judged turn from the question it judged (FastChat's
``gen_judgment.py`` ``play_a_match_single``/``play_a_match_pair``, and the forks hyoka reads:
pfmt-bench-fin-ja's, Stability's, swallow-evaluation's, ja-vicuna-qa-benchmark's
``MatchPair.play``): the question's id as its question file gives it, a turn the benchmark
judges, the judge prompt FastChat's ``make_judge_single``/``make_judge_pairwise`` picks for
that turn and category (``-math`` for the categories judged against a reference, ``-multi-turn``
for turn 2: ``BenchSpec.judge_prompt_name``) named in ``judge``, and the prompt sent, that
prompt filled with the question's text and the answers. A pair compares two different
models, is judged once a turn (``JudgedOnce``: a copied line or a second verdict is no
other item), and one file is one judge's. A line that breaks any of these was edited, or belongs
to another benchmark or variant, and no number read from it means what its row says.

Every reader of judgment files applies these checks, one definition for all: the
leaderboard and ``mtbench verify`` (single grading), verify and the report's pairwise pages
(FastChat's pair lines), verify and Rakuda's ranking (its matches, ``rakuda.MatchChecks``).
The judged prompt is checked against the prompt itself where the benchmark was loaded with
its judge prompts (``Bench.prompts``) and the line is read under the variant that judged it
(``judged_variant.prompt_fits``: the fixed text and the question's fields, the answers
anything), as ``mtbench verify`` reads each row and pair; else (the leaderboard, which reads
every row under the variant asked for and tells each row's own from its prompts afterwards)
for the text of every question turn up to the judged one.
"""

from __future__ import annotations

import json
from collections.abc import Hashable
from pathlib import Path

from hyoka.errors import DataError, InputError
from hyoka.mtbench.bench import Bench
from hyoka.mtbench.judged_variant import VariantBenches, prompt_fits
from hyoka.mtbench.question_formats import Question
from hyoka.mtbench.records import (
    NO_RATING,
    KeepsIdType,
    PairJudgmentLine,
    SingleJudgmentLine,
)
from hyoka.mtbench.spec import BenchSpec


def _of(bench: Bench) -> str:
    """The benchmark as a message names it: with its variant's name where it has one."""
    title = bench.spec.title
    return title if bench.variant is None else f"{title} variant {bench.variant.name}"


def _elsewhere(bench: Bench, judged: tuple[int | str, int, str] | None = None) -> str:
    """Where a line that does not fit ``bench`` may come from, and what to do about it;
    ``judged`` (question id, turn, judged prompt): the line's, whose variant is then named
    where another of the benchmark's builds that prompt (``judged_under``)."""
    if bench.variant is None:
        return "a judgment file of another benchmark?"
    found = judged_under(bench, *judged) if judged is not None else []
    if found:
        return (
            f"judged under variant {' or '.join(found)}: `variant` {found[0]} reads it, "
            "`mix_variants` ranks rows of several on that one's questions"
        )
    return (
        "judged under another variant? `variant` reads it as the one it was judged under, "
        "`mix_variants` ranks rows of several on this one's questions; or a judgment file "
        "of another benchmark?"
    )


def check_question(
    where: str, line: KeepsIdType, bench: Bench, *, id_type: bool = True
) -> Question:
    """The question ``line`` judges, or an ``InputError`` at ``where``: its id must be one
    of ``bench``'s questions, and (``id_type``) written as its question file writes it
    (``11`` or ``"11"``: upstream copies the id from there)."""
    question = bench.by_id.get(line.question_id)
    if question is None:
        if bench.variant is None:
            what = f"a {bench.spec.title} question"
        else:
            what = f"a question of {_of(bench)}"
        raise InputError(f"{where}: question_id {_json(line.written_id)} is not {what} "
                         f"({_elsewhere(bench)})")  # fmt: skip
    if id_type and not line.same_id_type(question):
        written = "a string" if isinstance(line.written_id, str) else "an integer"
        raise InputError(
            f"{where}: question_id {_json(line.written_id)} is written as {written}, but "
            f"{_of(bench)}'s question file writes {_json(question.written_id)} (upstream "
            f"copies a question's id as its question file gives it; {_elsewhere(bench)})"
        )
    return question


def _json(written: int | str) -> str:
    """An id as its file spells it: ``11`` or ``"11"``."""
    return json.dumps(written, ensure_ascii=False)


def check_turn(where: str, turn: int, bench: Bench) -> None:
    """An ``InputError`` at ``where`` unless ``bench`` (its variant) judges ``turn``."""
    if turn not in bench.turns:
        judged = ", ".join(str(t) for t in bench.turns)
        hint = "" if bench.variant is None else " (a file of another variant?)"
        raise InputError(
            f"{where}: a judgment of turn {turn}, but {_of(bench)} judges turn {judged} only{hint}"
        )


def check_prompt_name(
    where: str, name: str, question: Question, turn: int, bench: Bench, *, pairwise: bool
) -> str:
    """The judge prompt's name as FastChat picks it for ``turn`` of ``question``, or an
    ``InputError`` at ``where`` when the line's ``judge`` names another (``name``)."""
    expected = bench.spec.judge_prompt_name(question.category, turn, pairwise=pairwise)
    if name != expected:
        raise InputError(
            f"{where}: judged with prompt {name!r}, but {bench.spec.title} judges turn {turn} "
            f"of question {question.written_id} ({question.category}) with {expected!r}"
        )
    return expected


def check_judged_prompt(
    where: str,
    text: str,
    field: str,
    question: Question,
    turn: int,
    name: str,
    bench: Bench,
    *,
    template: bool,
) -> None:
    """An ``InputError`` at ``where`` unless the judged prompt ``text`` (the line's
    ``field``; empty: none kept, nothing to check) was built for ``turn`` of ``question``:
    with ``template`` where ``bench`` has its prompts, it is ``bench``'s prompt ``name``
    filled with the question's fields; else it holds the text of each question turn up to
    ``turn``."""
    if not text:
        return
    filled = _template(bench, name, question) if template else None
    if filled is not None:
        if not prompt_fits(filled[0], filled[1], text):
            raise InputError(
                f"{where}: the judged prompt ({field}) is not {_of(bench)}'s {name} prompt "
                f"for question {question.written_id} turn {turn} "
                f"({_elsewhere(bench, (question.question_id, turn, text))})"
            )
        return
    if not all(asked in text for asked in question.turns[:turn]):
        raise InputError(
            f"{where}: the judged conversation is not {_of(bench)} question "
            f"{question.written_id} turn {turn} "
            f"({_elsewhere(bench, (question.question_id, turn, text))})"
        )


def judged_under(bench: Bench, question_id: int | str, turn: int, text: str) -> list[str]:
    """The other variants of ``bench``'s benchmark whose judge prompt for ``turn`` of
    question ``question_id`` the judged prompt ``text`` is (``prompt_fits``), in the
    benchmark's order: what a refusal names, so that a number is read under the variant
    it was judged under and never under another. Read only on the way to an error."""
    load = VariantBenches(bench.spec, bench.folder.parent)
    found = []
    for variant in bench.spec.variants:
        other = None if variant == bench.variant else load(variant)
        question = None
        if other is not None and isinstance(question_id, int):  # FastChat's ids are whole
            question = other.by_id.get(question_id)
        if other is None or question is None or turn not in other.turns:
            continue
        try:
            template = other.judge_prompt(question, turn).prompt_template
            known = other.question_fields(question)
        except (DataError, InputError):  # no such prompt, or no reference for the question
            continue
        if prompt_fits(template, known, text):
            found.append(variant.name)
    return found


def _template(bench: Bench, name: str, question: Question) -> tuple[str, dict[str, str]] | None:
    """Prompt ``name``'s template and the question's fields it is filled with; ``None``
    where ``bench`` was loaded without its prompts. A benchmark that has its prompts but not
    this one (Stability's variants have no pairwise prompt) builds no such line."""
    if not bench.prompts:
        return None
    try:
        return bench.prompt(name).prompt_template, bench.question_fields(question)
    except DataError:
        raise InputError(
            f"{bench.prompt_path}: {_of(bench)} has no judge prompt {name!r}, which the line names"
        ) from None


def check_scale(where: str, score: float, spec: BenchSpec, *, unrated: bool = True) -> None:
    """An ``InputError`` at ``where`` unless ``score`` is one the benchmark's rating rules
    can write: on its scale (``BenchSpec.scale``), an integer where they read one
    (``BenchSpec.integer_scores``), or -1 for no rating where the file's writer marks one
    so (``unrated``; Shaberi writes ``null`` instead)."""
    low, high = spec.scale
    if unrated and score == NO_RATING:
        return
    # compared exactly: a huge integer is no float
    if low <= score <= high and (not spec.integer_scores or score == int(score)):
        return
    kind = "the integers" if spec.integer_scores else ""
    rating = ", or -1 for no rating" if unrated else ""
    span = f"{kind} {low} to {high}".strip()
    raise InputError(f"{where}: score {score} is outside the {spec.title} scale ({span}{rating})")


def check_line(
    where: str,
    line: SingleJudgmentLine,
    bench: Bench,
    *,
    fastchat: bool = True,
    as_judged: bool = False,
    scale: bool = True,
) -> None:
    """An ``InputError`` at ``where`` unless ``line`` judges a question and turn of
    ``bench`` with the prompt FastChat names for them, its judged prompt that prompt, and a
    score on the scale; ``fastchat=False``: a row of Shaberi's, which keeps no prompt.

    ``as_judged``: ``bench`` is the variant that judged the line (``mtbench verify`` reads
    each row under the variant its manifest or prompts show), so the id is in its question
    file's type and the judged prompt is its prompt itself, where ``bench`` has its prompts.
    Else (the leaderboard reads every row under the variant asked for and tells each row's
    own from its prompts afterwards, ``judged_variant``, which checks the id's type) the
    judged prompt holds the question's text, and the id's type is checked for a benchmark
    of one question file (no variants).

    ``scale=False``: a reader that counts and names the grades off the scale as the
    judge's faults, keeping them out of its numbers (``judge meta``), checks the rest."""
    question = check_question(where, line, bench, id_type=as_judged or bench.variant is None)
    check_turn(where, line.turn, bench)
    if fastchat:
        name = check_prompt_name(where, line.judge[1], question, line.turn, bench,
                                 pairwise=False)  # fmt: skip
        check_judged_prompt(where, line.user_prompt, "user_prompt", question, line.turn, name,
                            bench, template=as_judged)  # fmt: skip
    if scale:
        check_scale(where, line.score, bench.spec)  # Shaberi's null is read as -1


def check_models(where: str, first: str, second: str, names: tuple[str, str]) -> None:
    """An ``InputError`` at ``where`` when a pair's two models (fields ``names``) are one."""
    if first == second:
        raise InputError(
            f"{where}: {names[0]} and {names[1]} are both {first!r}: a pair judgment compares "
            "two different models"
        )


def check_pair(where: str, line: PairJudgmentLine, bench: Bench | None) -> None:
    """An ``InputError`` at ``where`` unless ``line`` compares two different models on a
    question and turn of ``bench`` with the pair prompt FastChat names for them, both
    games' judged prompts that prompt (ja-vicuna-qa-benchmark's lines keep the question
    instead: its text); ``bench`` ``None``: a file of no known benchmark, its models only."""
    check_models(where, line.model_1, line.model_2, ("model_1", "model_2"))
    if bench is None:
        return
    question = check_question(where, line, bench)
    check_turn(where, line.turn, bench)
    name = check_prompt_name(where, line.judge[1], question, line.turn, bench, pairwise=True)
    for field in ("g1_user_prompt", "g2_user_prompt"):
        check_judged_prompt(where, getattr(line, field), field, question, line.turn, name, bench,
                            template=True)  # fmt: skip
    asked = (line.model_extra or {}).get("question")
    if asked is not None and asked != question.turns[0]:
        raise InputError(
            f"{where}: the judged question is not {bench.spec.title} question "
            f"{question.written_id} ({_elsewhere(bench)})"
        )


class OneJudge:
    """One judge a file: upstream writes each judge's judgments to a file of its own
    (``<judge>_single.jsonl``, ``<judge>_single/<model>.jsonl``, ``<judge>_pair.jsonl``), as
    hyoka does; a line naming another judge makes the file's numbers neither judge's."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.first: tuple[int, str] | None = None

    def see(self, number: int, judge: str) -> None:
        if self.first is None:
            self.first = (number, judge)
            return
        line, name = self.first
        if judge != name:
            raise InputError(
                f"{self.path}:{number}: judged by {judge!r}, but line {line} by {name!r}: a "
                "judgment file holds one judge's judgments (upstream names it after its judge)"
            )


class JudgedOnce:
    """Each judgment once a file: upstream judges a pair on a turn (a Rakuda match) once and
    hyoka does too, so a line equal to an earlier one is a copy (a line copied, the file
    joined to itself) and another line of the same pair a second verdict, never another
    item to count; either is an ``InputError`` naming both lines. ``once``: what is judged
    once, for the message (``a pair is judged once a turn``)."""

    def __init__(self, path: Path, once: str) -> None:
        self.path, self.once = path, once
        self.first: dict[Hashable, tuple[int, object]] = {}

    def see(self, number: int, key: Hashable, line: object, label: str) -> None:
        """``line`` (at ``number``) judges ``key`` (``label`` in a message)."""
        if key not in self.first:
            self.first[key] = (number, line)
            return
        earlier, kept = self.first[key]
        if kept == line:
            raise InputError(
                f"{self.path}:{number}: the same judgment as line {earlier} again (a line "
                "copied, or the file joined to itself)"
            )
        raise InputError(
            f"{self.path}:{number}: a second, different judgment of {label} (first at line "
            f"{earlier}): {self.once}"
        )


def pair_label(line: PairJudgmentLine) -> str:
    """A FastChat pair line's pair and turn, as messages name it."""
    return f"{line.model_1} and {line.model_2} question_id {line.question_id} turn {line.turn}"
