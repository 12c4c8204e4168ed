"""A two-turn benchmark as loaded from the data directory: questions, judge prompts, references.

Everything the benchmark's authors wrote (questions, judge prompts, reference answers) is
data, read at run time from the files ``hyoka data fetch`` pinned. What is code is the
benchmark's *definition* (``BenchSpec``): its categories, which of them are judged against
a reference, the judge prompt names, how ratings are read (``RatingRules``), which rules
score a turn 0 without asking the judge, and the generation settings its authors used.
Definitions: pfmt-bench-fin-ja (``pfmt-fin``), the original MT-bench (``mt-bench``,
FastChat's ``llm_judge``), Japanese MT-bench (``jmt-bench``), whose named variants
(``hyoka.mtbench.variant``) pin which question, prompt and reference files, turns and answer
rules a run uses, Japanese Vicuna QA (``ja-vicuna-qa``) and ELYZA-tasks-100
(``elyza-tasks-100``, single-turn, graded 1-5 as Lightblue's Shaberi v1 grades it); the
engine knows none of them by name.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from types import MappingProxyType
from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from hyoka.data import fetch_hint, resolve_data_dir
from hyoka.errors import DataError, InputError, MissingDataError
from hyoka.judge import (
    ELYZA_V1,
    FASTCHAT,
    PFMT_UPSTREAM,
    VICUNA_JA,
    Method,
    RatingRules,
    VerdictOutput,
)
from hyoka.mtbench.dialogue import (
    ENGLISH_DIALOGUE,
    JAPANESE_DIALOGUE,
    SHABERI_DIALOGUE,
    DialogueStyle,
)
from hyoka.mtbench.prompt_yaml import read_prompt_yaml
from hyoka.mtbench.records import AnswerRecord, KeepsIdType
from hyoka.mtbench.shaberi import SHABERI_FIELDS, fstring_template, shaberi_rows
from hyoka.mtbench.variant import JMT_VARIANTS, PinnedFile, Variant
from hyoka.store import read_bytes, read_records, unique_records

#: A rule that scores a turn 0 without calling the judge: an empty answer ("No answer"),
#: or one fastText says is in the wrong language ("Incorrect language").
ZeroRule = Literal["no-answer", "language"]
#: How upstream computes a model's headline score from its rated turns (-1 left out):
#: ``category-mean``, the mean of the category means (pfmt-bench-fin-ja's
#: ``make_leaderboard.py``); ``turn-mean``, the mean over every rated turn (FastChat's
#: ``show_result.py``). The two differ once a category has fewer rated turns than another.
Headline = Literal["category-mean", "turn-mean"]
#: how upstream's table counts a turn judged more than once in one file (see ``BenchSpec``)
RepeatedTurns = Literal["drop-identical", "every"]
#: Where answers and judgments go under the results folder: ``hyoka``'s tree
#: (``<bench>/model_answer/<model>.jsonl``, ``<bench>/model_judgment/<judge>_single/
#: <model>.jsonl``), or ``upstream``'s, where upstream's own scripts look when the results
#: folder is their ``data/``: the folder named as upstream names the benchmark, and single
#: judgments in one file for every model where upstream writes them so (FastChat's
#: ``<judge>_single.jsonl``). Pairwise judgments are one ``<judge>_pair.jsonl`` in both.
Layout = Literal["hyoka", "upstream"]
#: which model of a pair is ``model_1``: as given (the answering model, then the
#: baseline), or the alphabetically smaller name
PairModels = Literal["given", "sorted"]
LAYOUTS: tuple[Layout, ...] = ("hyoka", "upstream")
#: How the questions file is written: FastChat's ``question.jsonl`` (``question_id``,
#: ``category``, ``turns``), or Shaberi's rows (``Question``, ``output`` = the reference
#: answer, ``eval_aspect`` = the task's own grading criteria; the row's place, from 0, is
#: its id), as ELYZA-tasks-100 is published in Shaberi's judgment files.
QuestionFormat = Literal["fastchat", "shaberi"]


@dataclass(frozen=True)
class JudgePromptNames:
    """Which judge prompt grades which turn: FastChat's naming, shared by both benchmarks.

    Reference categories use the ``*_reference`` prompts; turn 2 uses the name with
    ``multi_turn_suffix`` appended (the prompt that shows the whole dialogue).
    """

    single: str = "single-v1"
    single_reference: str = "single-math-v1"
    pair: str = "pair-v2"
    pair_reference: str = "pair-math-v1"
    multi_turn_suffix: str = "-multi-turn"

    def single_name(self, *, reference: bool, turn: int) -> str:
        return self._turn(self.single_reference if reference else self.single, turn)

    def pair_name(self, *, reference: bool, turn: int) -> str:
        return self._turn(self.pair_reference if reference else self.pair, turn)

    def _turn(self, base: str, turn: int) -> str:
        if turn not in (1, 2):
            raise ValueError(f"turn must be 1 or 2, got {turn}")
        return base if turn == 1 else base + self.multi_turn_suffix

    @property
    def all_names(self) -> tuple[str, ...]:
        return self.names_for(2)

    def names_for(self, turns: int) -> tuple[str, ...]:
        """The prompts a benchmark of ``turns``-turn dialogues needs (no multi-turn
        prompts for single-turn questions)."""
        bases = (self.single, self.single_reference, self.pair, self.pair_reference)
        return tuple(self._turn(b, turn) for b in bases for turn in range(1, turns + 1))


@dataclass(frozen=True)
class GenerationDefaults:
    """The answering settings the benchmark's authors used, as defaults for ``generate``.

    ``temperatures`` by category (categories not listed: ``other_temperature``), the reply
    budget per turn, and the repetition penalty applied to locally run models only
    (``None``: none, the backend's own default).
    """

    temperatures: Mapping[str, float]
    other_temperature: float
    max_tokens: int
    local_repetition_penalty: float | None

    def temperature(self, category: str) -> float:
        return self.temperatures.get(category, self.other_temperature)


def _frozen(mapping: dict[str, float]) -> Mapping[str, float]:
    return MappingProxyType(dict(mapping))


@dataclass(frozen=True)
class BenchSpec:
    """What is fixed about a benchmark: its files, categories, judging and answering rules."""

    name: str
    title: str
    folder: str
    categories: tuple[str, ...]
    #: categories judged against a reference answer (upstream: ``NEED_REF_CATS``)
    reference_categories: frozenset[str]
    reference_file: str
    #: the language answers must be in, unless a question says otherwise (``answer_lang``)
    answer_lang: str = "ja"
    #: how a judge's rating is read, and how often a reply without one is asked again
    rating_rules: RatingRules = PFMT_UPSTREAM
    #: the rules that score a turn 0 without a judge call, in the order they are checked
    zero_rules: tuple[ZeroRule, ...] = ("no-answer", "language")
    #: the rules that decide a pairwise game without a judge call (upstream pfmt checks only
    #: for a missing answer there: the language rule is single grading's)
    pair_zero_rules: tuple[ZeroRule, ...] = ("no-answer",)
    #: how upstream turns a pairwise turn's two games into one verdict: FastChat's
    #: ``show_result.py`` (pfmt-bench-fin-ja uses it as it is) counts two games that
    #: disagree as a tie, which is ``bs2``; its judge calls ask for no log probabilities
    pair_method: Method = "bs2"
    #: how the leaderboard's headline (its "Avg." column) is computed, as upstream does
    headline: Headline = "category-mean"
    #: the lowest and highest score a judged turn can have (the judge's rating range, and
    #: 0 where a rule scores a turn without the judge); every reader of judgment files
    #: (leaderboard, verify, report, judge meta) refuses or counts a score outside it
    scale: tuple[int, int] = (0, 10)
    #: whether upstream's rating rule reads integers only (Shaberi's ``int(reply)``): a
    #: fractional score is then none its judge's reply can have given
    integer_scores: bool = False
    prompt_names: JudgePromptNames = field(default_factory=JudgePromptNames)
    dialogue: DialogueStyle = JAPANESE_DIALOGUE
    generation: GenerationDefaults = field(
        default_factory=lambda: GenerationDefaults(_frozen({}), 0.7, 4096, None)
    )
    #: the name of the benchmark in upstream's folder layout (``data/{bench_name}/...``)
    upstream_name: str = ""
    #: where upstream's layout keeps answer files under that folder (FastChat's
    #: ``model_answer``; Rakuda's jrank: ``answers``)
    upstream_answers: str = "model_answer"
    #: how many user turns each dialogue has (every turn is answered and judged): MT-bench
    #: and pfmt-bench-fin-ja 2, Japanese Vicuna QA 1
    turns: int = 2
    #: where a pairwise judge's reply holds its verdict: FastChat's substring tests in the
    #: fixed order ``[[A]]``, ``[[B]]``, ``[[C]]`` (``fastchat-tokens``: the first *token*
    #: present wins), as FastChat's ``run_judge_pair`` and every fork of it here read it
    #: (pfmt-bench-fin-ja's ``gen_judgment.py``, Stability's, ja-vicuna-qa-benchmark's);
    #: ``verdict-after-reasons`` (the last ``[[X]]``) is hyoka's own reading
    pair_verdict: VerdictOutput = "fastchat-tokens"
    #: which model of a pair is ``model_1`` (assistant A in game 1): the answering model
    #: against the baseline (``given``, FastChat's ``pairwise-baseline``), or the
    #: alphabetically smaller name (``sorted``, ja-vicuna-qa-benchmark's
    #: ``gen_judgment.py``, which forms sorted combinations and keeps those with the baseline)
    pair_models: PairModels = "given"
    #: fields upstream's pair lines carry beside FastChat's (ja-vicuna-qa-benchmark:
    #: ``question``, ``answer_1``, ``answer_2``, ``judge_model``, ``judge_prompt``)
    upstream_pair_fields: bool = False
    question_file: str = "question.jsonl"
    question_format: QuestionFormat = "fastchat"
    #: where the judge prompts are: FastChat's ``judge_prompts.jsonl``, or a Python file of
    #: upstream's whose function ``prompt_function`` returns the prompt as an f-string
    #: (Shaberi's ``evaluation_datasets_config.py``), read with ``ast``, never run
    prompt_file: str = "judge_prompts.jsonl"
    prompt_function: str = ""
    #: whether upstream writes every model's single judgments to one file
    #: (``model_judgment/<judge>_single.jsonl``, FastChat's ``gen_judgment.py``, which its
    #: ``show_result.py`` reads) rather than one file per model in ``<judge>_single/``
    #: (pfmt-bench-fin-ja's, which its ``make_leaderboard.py`` reads)
    upstream_single_file: bool = False
    #: a turn judged more than once in one file: ``drop-identical`` (pfmt-bench-fin-ja's
    #: ``make_leaderboard.py`` drops duplicates; hyoka drops an identical repeat and refuses
    #: two different judgments, as keeping the first would make the number depend on line
    #: order) or ``every`` (FastChat's ``show_result.py`` takes the mean over every line it
    #: reads, so a turn judged twice counts twice, as in Stability's published JMT-bench file)
    repeated_turns: RepeatedTurns = "drop-identical"
    #: whether upstream's table shows ``org_model`` as ``org/model`` (pfmt-bench-fin-ja's
    #: ``make_leaderboard.py`` names its per-model files so and replaces the first ``_``);
    #: FastChat's ``show_result.py`` shows a model id as it is written
    slash_in_model_names: bool = False
    #: the named presets of the benchmark (``--variant``), the first the default; a
    #: benchmark without any reads ``question.jsonl``, ``judge_prompts.jsonl`` and
    #: ``reference_file`` and judges both turns
    variants: tuple[Variant, ...] = ()
    #: whether a model is named by its answer file's name, as FastChat's
    #: ``load_model_answers`` names it (Stability's 2023 answer files hold other
    #: ``model_id``s than their names), rather than by the ``model_id`` inside
    model_from_file_name: bool = False

    def variant(self, name: str | None) -> Variant | None:
        """The variant called ``name`` (``None``: the default); ``None`` for a benchmark
        without variants, which then refuses a name."""
        if not self.variants:
            if name is not None:
                raise InputError(f"--variant: {self.title} has no variants")
            return None
        if name is None:
            return self.variants[0]
        for variant in self.variants:
            if variant.name == name:
                return variant
        known = ", ".join(v.name for v in self.variants)
        raise InputError(f"--variant: {self.title} has no variant {name!r}; choose one of: {known}")

    def signed_variant(self, signed: str) -> Variant | None:
        """The variant that signs itself ``signed`` (``Variant.signed``, as a judgment
        file's manifest records it); ``None`` when none of this hyoka's does (another
        version of it: its files or settings differ)."""
        return next((v for v in self.variants if v.signed() == signed), None)

    def recorded_variant(self, signed: str | None, manifest: Path) -> Variant | None:
        """The variant a judgment file's ``manifest`` records it was judged under (``None``
        for a benchmark without variants), or an ``InputError`` naming the manifest when it
        records none of this hyoka's: its numbers, and its answers' cut, are another
        variant's, never to be read as the default one's."""
        if not self.variants:
            return None
        known = self.signed_variant(signed) if signed else None
        if known is None:
            names = ", ".join(v.name for v in self.variants)
            raise InputError(
                f"{manifest}: judged under variant {signed or '(none)'}, none of this "
                f"hyoka's {self.title} variants ({names}): its numbers are not shown beside "
                "another variant's"
            )
        return known

    def results_folder(self, layout: Layout = "hyoka") -> str:
        """The benchmark's folder under the results folder: hyoka's name, or upstream's."""
        return self.upstream_name if layout == "upstream" else self.name

    def answers_folder(self, layout: Layout = "hyoka") -> str:
        """The folder of answer files under ``results_folder``: ``model_answer``, or
        upstream's own name for it."""
        return self.upstream_answers if layout == "upstream" else "model_answer"

    def single_file(self, layout: Layout = "hyoka") -> bool:
        """Whether single judgments of every model go to one ``<judge>_single.jsonl``."""
        return layout == "upstream" and self.upstream_single_file

    @property
    def checks_language(self) -> bool:
        return "language" in self.zero_rules

    def judge_prompt_name(self, category: str, turn: int, *, pairwise: bool = False) -> str:
        """The judge prompt for ``turn`` of a dialogue in ``category``."""
        reference = category in self.reference_categories
        names = self.prompt_names
        if pairwise:
            return names.pair_name(reference=reference, turn=turn)
        return names.single_name(reference=reference, turn=turn)


_PFMT_TEMPERATURES = {
    "writing": 0.7, "roleplay": 0.7, "extraction": 0.0, "math": 0.0, "coding": 0.0,
    "reasoning": 0.0, "knowledge": 0.7, "idea": 0.7, "translation": 0.7, "ethics": 0.7,
    "trustworthiness": 0.7, "ESGs": 0.7,
}  # fmt: skip
#: FastChat's ``temperature_config`` (``llm_judge/common.py``)
_FASTCHAT_TEMPERATURES = {
    "writing": 0.7, "roleplay": 0.7, "extraction": 0.0, "math": 0.0, "coding": 0.0,
    "reasoning": 0.0, "stem": 0.1, "humanities": 0.1,
}  # fmt: skip

PFMT_FIN = BenchSpec(
    name="pfmt-fin",
    title="pfmt-bench-fin-ja",
    folder="pfmt-bench-fin-ja",
    categories=(
        "writing",
        "roleplay",
        "knowledge",
        "extraction",
        "reasoning",
        "math",
        "coding",
        "idea",
        "translation",
        "ethics",
        "trustworthiness",
        "ESGs",
    ),
    reference_categories=frozenset({"math"}),
    reference_file="reference_answer/gpt-4o+human.jsonl",
    answer_lang="ja",
    rating_rules=PFMT_UPSTREAM,
    zero_rules=("no-answer", "language"),
    dialogue=JAPANESE_DIALOGUE,
    # upstream's temperatures (FastChat's for the shared categories, 0.7 for the rest),
    # 4096 new tokens and a repetition penalty of 1.1 for locally run models
    generation=GenerationDefaults(
        temperatures=_frozen(_PFMT_TEMPERATURES),
        other_temperature=0.7,
        max_tokens=4096,
        local_repetition_penalty=1.1,
    ),
    upstream_name="pfmt_bench_fin_ja",
    slash_in_model_names=True,
)

MT_BENCH = BenchSpec(
    name="mt-bench",
    title="MT-bench",
    folder="mt-bench",
    categories=(
        "writing",
        "roleplay",
        "reasoning",
        "math",
        "coding",
        "extraction",
        "stem",
        "humanities",
    ),
    reference_categories=frozenset({"math", "reasoning", "coding"}),
    reference_file="reference_answer/gpt-4.jsonl",
    answer_lang="en",
    rating_rules=FASTCHAT,
    # FastChat judges every turn, an empty answer included, and checks no language
    zero_rules=(),
    headline="turn-mean",
    pair_zero_rules=(),
    dialogue=ENGLISH_DIALOGUE,
    # FastChat's temperature_config (0.7 elsewhere) and max_new_token 1024; no penalty
    generation=GenerationDefaults(
        temperatures=_frozen(_FASTCHAT_TEMPERATURES),
        other_temperature=0.7,
        max_tokens=1024,
        local_repetition_penalty=None,
    ),
    upstream_name="mt_bench",
    upstream_single_file=True,
    repeated_turns="every",
)

#: MT-bench's FastChat rules (its categories, references, rating, turns and generation)
#: on Stability's Japanese translation; which files and settings a run uses is its variant
JMT_BENCH = replace(
    MT_BENCH,
    name="jmt-bench",
    title="Japanese MT-bench",
    folder="jmt-bench",
    answer_lang="ja",
    dialogue=JAPANESE_DIALOGUE,
    upstream_name="japanese_mt_bench",
    variants=JMT_VARIANTS,
    model_from_file_name=True,
)

#: ja-vicuna-qa-benchmark's ``DEFAULT_TEMPERATURE_MAP`` (``llm_judge/gen_model_answer.py``),
#: used where a model's config sets no temperature
_VICUNA_JA_TEMPERATURES = {
    "writing": 0.7, "roleplay": 0.7, "knowledge": 0.001, "math": 0.001, "coding": 0.001,
    "common-sense": 0.3, "counterfactual": 0.7, "fermi": 0.3, "generic": 0.1,
}  # fmt: skip
#: ja-vicuna-qa-benchmark's ``NEED_REF_CATS`` (``llm_judge/common.py``)
_VICUNA_JA_REFERENCE = frozenset({"math", "reasoning", "coding"})

JA_VICUNA_QA = BenchSpec(
    name="ja-vicuna-qa",
    title="Japanese Vicuna QA",
    folder="ja-vicuna-qa",
    categories=(
        "generic",
        "knowledge",
        "roleplay",
        "common-sense",
        "fermi",
        "counterfactual",
        "coding",
        "math",
        "writing",
    ),
    reference_categories=_VICUNA_JA_REFERENCE,
    reference_file="reference_answer/gpt-4/results.jsonl",
    answer_lang="ja",
    # common.py: the first [[n]], else [[rating:n]], else [[rating: n]], else -1
    rating_rules=VICUNA_JA,
    zero_rules=(),
    pair_zero_rules=(),
    headline="turn-mean",
    prompt_names=JudgePromptNames(
        single="single", single_reference="single-math", pair="pair", pair_reference="pair-math"
    ),
    dialogue=JAPANESE_DIALOGUE,
    # upstream's category temperatures; the reply budget is each model's config upstream
    # (text-davinci-003's: max_tokens 2048), taken here as the default; no penalty
    generation=GenerationDefaults(
        temperatures=_frozen(_VICUNA_JA_TEMPERATURES),
        other_temperature=0.7,
        max_tokens=2048,
        local_repetition_penalty=None,
    ),
    turns=1,
    pair_models="sorted",
    upstream_pair_fields=True,
    upstream_name="jp_bench",
    repeated_turns="every",  # llm_judge/show_result.py: the mean over every line read
)

#: One name for ELYZA's single prompt (it grades every task against its reference answer).
_ELYZA_PROMPT = "elyza-v1"

ELYZA_TASKS_100 = BenchSpec(
    name="elyza-tasks-100",
    title="ELYZA-tasks-100",
    folder="elyza-tasks-100",
    # the tasks have no categories of their own: one column, the mean over the 100 tasks
    categories=("tasks",),
    # every task is graded against its reference answer (正解例), kept in the task's row
    reference_categories=frozenset({"tasks"}),
    reference_file="",
    answer_lang="ja",
    rating_rules=ELYZA_V1,
    zero_rules=(),
    pair_zero_rules=(),
    headline="turn-mean",
    prompt_names=JudgePromptNames(*([_ELYZA_PROMPT] * 4)),
    dialogue=SHABERI_DIALOGUE,
    # Lightblue's llm_functions.py answers at temperature 0 with 2048 tokens
    generation=GenerationDefaults(_frozen({}), 0.0, 2048, None),
    # the prompt's grades 1 (wrong) to 5 (helpful); no rule scores a task 0
    scale=(1, 5),
    integer_scores=True,
    upstream_name="elyza__ELYZA-tasks-100",
    turns=1,
    # any complete Shaberi judgment file carries the 100 tasks unchanged (SOURCE.md)
    question_file="judgments/gpt-4-turbo-preview/gpt-4-turbo-preview.json",
    question_format="shaberi",
    repeated_turns="every",  # Shaberi's results notebook: pandas' mean over every row read
    prompt_file="evaluation_datasets_config.py",
    prompt_function="get_elyza_prompt",
)

BENCHES: dict[str, BenchSpec] = {
    spec.name: spec for spec in (PFMT_FIN, MT_BENCH, JMT_BENCH, JA_VICUNA_QA, ELYZA_TASKS_100)
}

#: Short column names, as in the paper's Table 1 (MT-bench's own are spelled out).
SHORT_NAMES = {
    "writing": "Writ.", "roleplay": "Role.", "knowledge": "Kno.", "extraction": "Ext.",
    "reasoning": "Reas.", "math": "Math", "coding": "Cod.", "idea": "Idea",
    "translation": "Tran.", "ethics": "Eth.", "trustworthiness": "Trust.", "ESGs": "ESGs",
    "stem": "STEM", "humanities": "Hum.",
}  # fmt: skip


def parse_layout(value: str) -> Layout:
    """``--layout``: ``hyoka`` or ``upstream``."""
    for layout in LAYOUTS:
        if value == layout:
            return layout
    raise InputError(f"--layout must be hyoka or upstream, got {value!r}")


def spec_named(name: str) -> BenchSpec | None:
    """The benchmark a results or data folder called ``name`` holds: hyoka's name for it,
    upstream's (``BenchSpec.upstream_name``) or its data folder's; ``None`` for none."""
    for spec in BENCHES.values():
        if name in (spec.name, spec.upstream_name, spec.folder):
            return spec
    return None


def bench_spec(name: str) -> BenchSpec:
    if name not in BENCHES:
        raise InputError(
            f"--bench: unknown benchmark {name!r}; choose one of: {', '.join(BENCHES)}"
        )
    return BENCHES[name]


class Question(KeepsIdType):
    """One dialogue: its user turns (two, or one for single-turn tasks), and for
    translation the language of each answer.

    MT-bench questions may carry ``reference``: short reference answers its authors kept
    beside the question (FastChat judges against ``reference_answer/gpt-4.jsonl``
    instead); they are read and kept, never used for judging.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    category: str
    #: one or two user turns (the benchmark's ``turns`` says how many it has)
    turns: tuple[str, ...] = Field(min_length=1, max_length=2)
    answer_lang: tuple[str, ...] | None = None
    reference: tuple[str, ...] | None = None
    #: the task's own grading criteria (ELYZA-tasks-100's ``eval_aspect``)
    eval_aspect: str | None = None


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
    def variant(self) -> Variant | None: ...

    @property
    def questions(self) -> Sequence[Asked]: ...

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


class JudgePrompt(BaseModel):
    """One line of ``judge_prompts.jsonl`` (FastChat's judge prompt format)."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    name: str
    type: Literal["single", "pairwise"]
    system_prompt: str
    prompt_template: str
    category: str = "general"
    output_format: str = Field(default="[[rating]]")


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
        spec = bench_spec(name)
        chosen = spec.variant(variant)
        folder = resolve_data_dir(data_dir) / spec.folder
        hint = fetch_hint(spec.name, data_dir)
        files = _files(spec, chosen)
        question_file = folder / files[0].path
        if not question_file.is_file():
            raise MissingDataError(f"{spec.title} data not found in {folder}: {hint}")
        question_bytes = _read_pinned(question_file, files[0], hint)
        questions = _load_questions(spec, question_file, question_bytes)
        if questions_only:  # no hashes: a judging run needs all the files
            return cls(spec, folder, questions, {}, {}, variant=chosen)
        prompt_file = folder / files[1].path
        if not prompt_file.is_file():
            raise MissingDataError(f"{prompt_file} not found: {hint}")
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
        return cls(spec, folder, questions, prompts, references, data, prompts_sha256, chosen)

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
    """The judge prompts by name: FastChat's JSONL lines, llm-jp-judge's YAML mapping (each a
    single-grading prompt: llm-jp-judge grades single only), or the one prompt upstream's
    Python builds (Shaberi's ``evaluation_datasets_config.py``, read with ``ast``)."""
    if spec.prompt_function:
        template = fstring_template(path, data, spec.prompt_function, SHABERI_FIELDS)
        prompt = JudgePrompt(
            name=spec.prompt_names.single, type="single", system_prompt="",
            prompt_template=template, output_format="int",
        )  # fmt: skip
        return {prompt.name: prompt}
    if variant is None or variant.prompt_format == "jsonl":
        return {p.name: p for _, p in read_records(path, JudgePrompt, data)}
    prompts: dict[str, JudgePrompt] = {}
    for name, fields in read_prompt_yaml(path, data).items():
        if "prompt_template" not in fields or "system_prompt" not in fields:
            raise DataError(f"{path}: prompt {name!r} lacks its prompt_template or system_prompt")
        prompts[name] = JudgePrompt(
            name=name,
            type="single",
            system_prompt=fields["system_prompt"],
            prompt_template=fields["prompt_template"],
        )
    return prompts


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
    def rows() -> Iterator[tuple[int, Question]]:
        if spec.question_format == "shaberi":
            for number, row in shaberi_rows(path, data):
                yield number, Question(
                    question_id=number - 1, category=spec.categories[0], turns=(row.Question,),
                    reference=(row.output,), eval_aspect=row.eval_aspect,
                )  # fmt: skip
        else:
            yield from read_records(path, Question, data)

    def checked() -> Iterator[tuple[int, Question]]:
        for number, question in rows():
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
