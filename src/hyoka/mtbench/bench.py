"""A FastChat-judged benchmark as loaded from the data directory: questions, judge prompts,
references (``Bench.load``).

Everything the benchmark's authors wrote (questions, judge prompts, reference answers) is
data, read at run time from the files ``hyoka data fetch`` pinned. What is code is the
benchmark's *definition* (``hyoka.mtbench.spec.BenchSpec``, one module each under
``hyoka.mtbench.definitions``, found by ``hyoka.mtbench.registry``); this module reads a
definition's files by the rules it names (its question format, prompt file, variant), and
knows no benchmark by name.
"""

from __future__ import annotations

import hashlib
import string
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Protocol

from pydantic import BaseModel

from hyoka.data import fetch_hint, resolve_data_dir
from hyoka.errors import DataError, InputError, MissingDataError
from hyoka.judge import RatingRules, Reask
from hyoka.mtbench.dialogue import DialogueStyle
from hyoka.mtbench.headline import HeadlineRule
from hyoka.mtbench.prompt_formats import JudgePrompt as JudgePrompt  # rakuda reads it here
from hyoka.mtbench.prompt_formats import reask_name
from hyoka.mtbench.question_formats import Question
from hyoka.mtbench.records import AnswerRecord
from hyoka.mtbench.registry import definition, fastchat_bench
from hyoka.mtbench.spec import BenchSpec, GenerationDefaults
from hyoka.mtbench.variant import PinnedFile, Variant
from hyoka.store import read_bytes, read_records, unique_records


class Asked(Protocol):
    """A dialogue as ``generate`` answers it: a ``Question`` or a ``RakudaQuestion``."""

    @property
    def question_id(self) -> int | str: ...

    @property
    def category(self) -> str: ...

    @property
    def turns(self) -> tuple[str, ...]: ...

    @property
    def written_id(self) -> int | str: ...


class Answered(Protocol):
    """An answer line as ``generate`` continues a file: an ``AnswerRecord`` or a
    ``RakudaAnswer``, each with its benchmark's id type."""

    @property
    def question_id(self) -> int | str: ...

    @property
    def written_id(self) -> int | str: ...

    @property
    def model_id(self) -> str: ...


class AnswerSet(Protocol):
    """What ``generate`` needs of a benchmark: its questions, how they are shown and
    sampled, and the line an answer is written as (``Bench``, ``RakudaBench``)."""

    @property
    def spec(self) -> BenchSpec: ...

    @property
    def folder(self) -> Path:
        """The benchmark's folder in the data directory (where upstream's sources are
        read from, where a dialogue style reads them)."""
        ...

    @property
    def variant(self) -> Variant | None: ...

    @property
    def questions(self) -> Sequence[Asked]: ...

    @property
    def wording(self) -> str | None:
        """What worded the questions where their file alone does not
        (``QuestionFormat.wording``): in an answer file's identity and signature."""
        ...

    @property
    def dialogue(self) -> DialogueStyle: ...

    @property
    def generation(self) -> GenerationDefaults: ...

    def answer(self, fields: Mapping[str, object]) -> Answered:
        """The answer line of ``fields`` (upstream's: ``question_id`` as the question file
        gives it, ``answer_id``, ``model_id``, ``choices``, ``tstamp``)."""
        ...

    @property
    def answer_type(self) -> type[BaseModel]:
        """The line type an answer file of this benchmark is read back as."""
        ...


@dataclass(frozen=True)
class Bench:
    """A benchmark's data as loaded from one data directory."""

    spec: BenchSpec
    folder: Path
    questions: tuple[Question, ...]
    prompts: dict[str, JudgePrompt]
    references: dict[int, AnswerRecord]
    #: SHA-256 of the bytes read of the question, judge prompt and reference files, in
    #: that order (``mtbench.judge.bench_hash``), and of the judge prompts alone
    #: (``prompts_version``): each file is read once, by ``load``
    data_sha256: str = ""
    prompts_sha256: str = ""
    #: the named preset the files and rules come from (benchmarks with variants only)
    variant: Variant | None = None
    #: what worded the questions where their file alone does not (JFBench's build)
    wording: str | None = None

    @classmethod
    def load(
        cls,
        name: str = "pfmt-fin",
        data_dir: Path | str | None = None,
        variant: str | None = None,
        *,
        questions_only: bool = False,
    ) -> Bench:
        """The benchmark's files from the data directory; ``questions_only``: its questions
        alone, no judge prompts or references (a leaderboard reads no more)."""
        spec = definition(name)
        if not (questions_only and spec.judging.bench_answers):
            spec = fastchat_bench(name)  # the judged files are FastChat's alone
        chosen = spec.variant(variant)
        folder = resolve_data_dir(data_dir) / spec.folder
        hint = fetch_hint(spec.name, data_dir)
        files = _files(spec, chosen)
        question_file = folder / files[0].path
        if not question_file.is_file():
            raise MissingDataError(f"{spec.title} data not found in {folder}: {hint}")
        question_bytes = _read_pinned(question_file, files[0], hint)
        questions = _load_questions(spec, question_file, question_bytes)
        wording = spec.question_format.wording(question_file)
        if questions_only:  # no hashes: a judging run needs all the files
            return cls(spec, folder, questions, {}, {}, variant=chosen, wording=wording)
        prompt_file = folder / files[1].path
        if not prompt_file.is_file():
            needed = fetch_hint(spec.name, data_dir, file=f"{spec.folder}/{files[1].path}")
            raise MissingDataError(f"{prompt_file} not found: {needed}")
        prompt_bytes = _read_pinned(prompt_file, files[1], hint)
        prompts = _load_prompts(spec, chosen, prompt_file, prompt_bytes)
        missing = [n for n in _needed_prompts(spec, chosen) if n not in prompts]
        if missing:
            raise DataError(
                f"{prompt_file} lacks the judge prompt(s) {', '.join(missing)} that "
                f"{spec.title} needs: {hint}"
            )
        references: dict[int, AnswerRecord] = {}
        reference_bytes = b""
        if files[2].path:  # ELYZA-tasks-100 keeps each task's reference in its row
            reference_file = folder / files[2].path
            if not reference_file.is_file():
                raise MissingDataError(f"{reference_file} not found: {hint}")
            reference_bytes = _read_pinned(reference_file, files[2], hint)
            references = {
                r.question_id: r
                for _, r in read_records(reference_file, AnswerRecord, reference_bytes)
            }
        data = hashlib.sha256(question_bytes + prompt_bytes + reference_bytes).hexdigest()
        prompts_sha256 = hashlib.sha256(prompt_bytes).hexdigest()
        return cls(
            spec, folder, questions, prompts, references, data, prompts_sha256, chosen, wording
        )

    @property
    def turns(self) -> tuple[int, ...]:
        """The turns judged: the variant's (Stability: turn 1 only), else every turn of
        the benchmark's dialogues (``BenchSpec.turns``)."""
        if self.variant is not None:
            return self.variant.turns
        return tuple(range(1, self.spec.turns + 1))

    @property
    def generation(self) -> GenerationDefaults:
        """The answering settings: the variant's temperatures and budget, else the
        benchmark's."""
        variant, own = self.variant, self.spec.generation
        if variant is None or (variant.temperatures is None and variant.max_tokens is None):
            return own
        return GenerationDefaults(
            temperatures=own.temperatures if variant.temperatures is None else variant.temperatures,
            other_temperature=own.other_temperature,
            max_tokens=own.max_tokens if variant.max_tokens is None else variant.max_tokens,
            local_repetition_penalty=own.local_repetition_penalty,
        )

    @property
    def trial_lines(self) -> bool:
        """Whether single judgments are written in swallow-evaluation's shape (one line
        per turn, lists over the trials): its variant's are."""
        return self.variant is not None and self.variant.trial_lines

    @property
    def dialogue(self) -> DialogueStyle:
        """How dialogues are shown to answering models: the variant's, else the benchmark's."""
        if self.variant is not None and self.variant.dialogue is not None:
            return self.variant.dialogue
        return self.spec.dialogue

    @property
    def headline(self) -> HeadlineRule:
        """How upstream's script computes the table (``mtbench.headline``): the variant's
        rule, else the benchmark's."""
        if self.variant is not None and self.variant.headline is not None:
            return self.variant.headline
        return self.spec.headline

    @property
    def rating_rules(self) -> RatingRules:
        """How a rating is read: the variant's rules, else the benchmark's."""
        return self.variant.rating_rules if self.variant is not None else self.spec.rating_rules

    @property
    def reference_path(self) -> Path:
        return self.folder / (
            self.variant.references.path if self.variant is not None else self.spec.reference_file
        )

    @property
    def prompt_path(self) -> Path:
        return self.folder / (
            self.variant.prompts.path if self.variant is not None else self.spec.prompt_file
        )

    @cached_property
    def by_id(self) -> dict[int, Question]:
        """The questions by id, made once per benchmark (every judgment line read looks its
        question up); shared, so never changed by a caller."""
        return {q.question_id: q for q in self.questions}

    def answer(self, fields: Mapping[str, object]) -> AnswerRecord:
        return AnswerRecord.model_validate(fields)

    @property
    def answer_type(self) -> type[AnswerRecord]:
        return AnswerRecord

    def prompt(self, name: str) -> JudgePrompt:
        if name not in self.prompts:
            path = self.prompt_path
            raise DataError(f"{path} has no judge prompt named {name!r}")
        return self.prompts[name]

    def judge_prompt(self, question: Question, turn: int, *, pairwise: bool = False) -> JudgePrompt:
        """The judge prompt that grades ``turn`` of ``question`` (single or pairwise)."""
        return self.prompt(self.spec.judge_prompt_name(question.category, turn, pairwise=pairwise))

    def fill_prompt(self, name: str, question: Question, answers: dict[str, str]) -> str:
        """Judge prompt ``name`` filled in as upstream does (``str.format``): the
        ``question_fields`` and the ``answers`` fields (single and pairwise prompts differ
        only in their answer fields)."""
        return self.prompt(name).prompt_template.format(
            **{**self.question_fields(question), **answers}
        )

    def reask(self, question: Question, answers: dict[str, str]) -> Reask | None:
        """The re-ask prompt of ``question`` filled in but for the judge's reply
        (``rating.Reask``), where the rating rules re-ask (Shaberi since 2025-11);
        ``None`` otherwise."""
        if self.rating_rules.reask is None:
            return None
        template = self.prompt(reask_name(self.spec.prompt_names.single)).prompt_template
        fields = {**self.question_fields(question), **answers}
        parts = ["", ""]
        side = 0
        for text, name, _spec, _conversion in string.Formatter().parse(template):
            parts[side] += text
            if name == "judgment":
                side = 1
            elif name is not None:
                parts[side] += fields[name]
        return Reask(head=parts[0], tail=parts[1])

    def question_fields(self, question: Question) -> dict[str, str]:
        """The judge prompt's fields that do not depend on the answers judged: the
        question's turns, its grading criteria, and in the reference categories the
        reference's turns (what a judged prompt shows of the variant that built it)."""
        fields = {"question": question.turns[0], **numbered("question", question.turns)}
        if question.eval_aspect is not None:
            fields["eval_aspect"] = question.eval_aspect
        if question.category in self.spec.reference_categories:
            for number, turn in enumerate(self._reference(question), start=1):
                fields[f"ref_answer_{number}"] = turn
        return fields

    def _reference(self, question: Question) -> tuple[str, ...]:
        """The reference answer's turns: from the reference file, or, for a benchmark that
        keeps it in the question's row (``reference_file`` empty), from there."""
        if not self.spec.reference_file:
            if question.reference is None:
                raise InputError(
                    f"{self.folder / self.spec.question_file}: no reference answer for "
                    f"question_id {question.question_id}"
                )
            return question.reference
        reference = self.references.get(question.question_id)
        if reference is None:
            raise InputError(
                f"{self.reference_path}: no reference answer for question_id {question.question_id}"
            )
        return reference.turns

    def expected_lang(self, question: Question, turn: int) -> str:
        """The language the answer to ``turn`` (1 or 2) must be in."""
        if question.answer_lang is not None:
            return question.answer_lang[turn - 1]
        return self.spec.answer_lang


def _files(spec: BenchSpec, variant: Variant | None) -> tuple[PinnedFile, PinnedFile, PinnedFile]:
    """The question, judge prompt and reference files: the variant's, pinned by SHA-256,
    else the benchmark's own names (pinned by its data manifest, not checked here)."""
    if variant is not None:
        return variant.questions, variant.prompts, variant.references
    return (
        PinnedFile(spec.question_file, ""),
        PinnedFile(spec.prompt_file, ""),
        PinnedFile(spec.reference_file, ""),
    )


def _read_pinned(path: Path, pinned: PinnedFile, hint: str) -> bytes:
    """The bytes of ``path``; for a variant's file, only if they are the pinned ones."""
    data = read_bytes(path)
    if pinned.sha256 and hashlib.sha256(data).hexdigest() != pinned.sha256:
        raise DataError(
            f"{path}: SHA-256 differs from the one the variant pins ({pinned.sha256[:12]}...): "
            f"{hint}"
        )
    return data


def _load_prompts(
    spec: BenchSpec, variant: Variant | None, path: Path, data: bytes
) -> dict[str, JudgePrompt]:
    """The judge prompts by name, read by the variant's prompt format, else the
    benchmark's (``prompt_formats``)."""
    fmt = variant.prompt_format if variant is not None else spec.prompt_format
    return fmt.read(path, data, spec.prompt_names.single)


def _needed_prompts(spec: BenchSpec, variant: Variant | None) -> tuple[str, ...]:
    """The judge prompts a run must find: every one of FastChat's names, or, for a
    variant, the single-grading prompts of the turns it judges (Stability's file has
    turn 1's only; pairwise prompts are looked up when a pairwise run asks for them)."""
    if variant is None:
        return spec.prompt_names.names_for(spec.turns)
    names = spec.prompt_names
    return tuple(
        names.single_name(reference=reference, turn=turn)
        for turn in variant.turns
        for reference in (False, True)
    )


def numbered(name: str, turns: Sequence[str]) -> dict[str, str]:
    """``{name}_1``, ``{name}_2`` ... for the turns there are (a one-turn benchmark's
    prompts name only ``_1``)."""
    return {f"{name}_{number}": text for number, text in enumerate(turns, start=1)}


def _load_questions(spec: BenchSpec, path: Path, data: bytes) -> tuple[Question, ...]:
    def checked() -> Iterator[tuple[int, Question]]:
        for number, question in spec.question_format.read(path, data, spec.categories):
            if question.category not in spec.categories:
                raise DataError(f"{path}:{number}: unknown category {question.category!r}")
            if len(question.turns) != spec.turns:
                raise DataError(
                    f"{path}:{number}: {len(question.turns)} turn(s), {spec.title} has {spec.turns}"
                )
            yield number, question

    return tuple(unique_records(path, checked(), key=_question_key))


def _question_key(question: Question) -> tuple[str, int]:
    return ("question_id", question.question_id)
