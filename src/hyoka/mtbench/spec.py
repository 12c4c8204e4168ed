"""What a benchmark *is*, as one value: ``BenchSpec`` and the parts it is made of.

A definition (one module under ``hyoka.mtbench.definitions``, found by
``hyoka.mtbench.registry``) is one ``BenchSpec``: its data (the folder ``hyoka data fetch``
fills from the manifest of the same name, and the files in it), its question format (an
object: ``hyoka.mtbench.question_formats``), its generation protocol (``dialogue``: the
system message and how turns are shown; ``generation``: temperatures per category, token
budget, local repetition penalty; ``turns``), its judging protocol (``judging``; judge prompt
names, rating rules, zero rules, pairwise rules), its scale, headline and columns, its file
layouts (hyoka's and upstream's), the rules verify holds a file to, and its named variants.
Everything its authors wrote (questions, judge prompts, references) stays data.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Literal

from hyoka.errors import InputError
from hyoka.judge import PFMT_UPSTREAM, Method, RatingRules, VerdictOutput
from hyoka.mtbench.dialogue import JAPANESE_DIALOGUE, DialogueStyle
from hyoka.mtbench.headline import CATEGORY_MEAN, HeadlineRule
from hyoka.mtbench.prompt_formats import FASTCHAT_PROMPTS, PromptFormat
from hyoka.mtbench.question_formats import FASTCHAT_QUESTIONS, QuestionFormat
from hyoka.mtbench.variant import Variant

#: A rule that scores a turn 0 without calling the judge: an empty answer ("No answer"),
#: or one fastText says is in the wrong language ("Incorrect language").
ZeroRule = Literal["no-answer", "language"]
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


def frozen(mapping: dict[str, float]) -> Mapping[str, float]:
    return MappingProxyType(dict(mapping))


@dataclass(frozen=True)
class JudgingProtocol:
    """How a benchmark's answers are judged and ranked: the commands hand a definition to
    the code of its protocol, never test its name.

    ``fastchat``: FastChat's ``llm_judge`` and its forks (single grades per turn, or two
    games against a baseline per turn; ``Bench``, ``mtbench.judge``, the leaderboard);
    ``drawn-matches``: matches drawn over ordered model pairs, each judged once in its order,
    ranked by Bradley-Terry with a home advantage (Rakuda's jrank; ``mtbench.rakuda``);
    ``rule-checked``: no judge, each answer's instructions decided by rules (M-IFEval's
    checks, strict and loose; ``mtbench.rule_checked``, which calls ``hyoka.ifeval``);
    ``constraint-checked``: each answer's constraints decided by rules and, where its
    authors ask a judge, by three judge votes, ranked by the share of answers meeting every
    one (JFBench; ``mtbench.constraint_checked``, which calls ``hyoka.jfbench``).
    """

    name: str
    #: the ``--mode`` values it takes
    modes: tuple[str, ...]
    #: what its one-line listing says
    summary: str
    #: whether its questions are read by ``Bench`` and answered into FastChat's answer
    #: files (``generate``), though judged by other code (M-IFEval's rules)
    bench_answers: bool = False
    #: whether a benchmark's one-line listing names it (FastChat's, which most benchmarks
    #: follow, goes unsaid)
    listed: bool = True

    def listing(self) -> str:
        """What a benchmark's one-line listing (``--bench`` help) says of its protocol."""
        return f"; {self.summary}" if self.listed else ""


FASTCHAT_JUDGING = JudgingProtocol(
    "fastchat",
    ("single", "pairwise"),
    "single grades or pairs against a baseline, per turn",
    listed=False,
)
DRAWN_MATCHES = JudgingProtocol(
    "drawn-matches",
    ("pairwise",),
    "pairwise matches drawn over model pairs, ranked by Bradley-Terry",
)
RULE_CHECKED = JudgingProtocol(
    "rule-checked",
    ("strict", "loose"),
    "no judge: instructions decided by rules, strict and loose accuracy",
    bench_answers=True,
)
CONSTRAINT_CHECKED = JudgingProtocol(
    "constraint-checked",
    ("single",),
    "each constraint decided by its rule or by an LLM judge's three votes; success rate",
    bench_answers=True,
)

#: where the judgments a benchmark's authors published lie in its data folder, unless
#: the definition says otherwise (pfmt-bench-fin-ja's, which the paper's Table 1 is from)
PUBLISHED_JUDGMENTS = "model_judgment/gpt-4o-mini_single"


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
    #: how upstream's script computes the table from the judgments (an object,
    #: ``mtbench.headline``: a category's cell, the headline "Avg.", a pair's count in a
    #: win rate), signed in the table's signature; a variant may carry its own
    headline: HeadlineRule = CATEGORY_MEAN
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
        default_factory=lambda: GenerationDefaults(frozen({}), 0.7, 4096, None)
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
    #: how the questions file is written (an object: ``question_formats``)
    question_format: QuestionFormat = FASTCHAT_QUESTIONS
    #: where the judge prompts are (FastChat's ``judge_prompts.jsonl``, or a Python file of
    #: upstream's, Shaberi's ``evaluation_datasets_config.py``), and how that file is written
    #: (an object: ``prompt_formats``; a variant names its own)
    prompt_file: str = "judge_prompts.jsonl"
    prompt_format: PromptFormat = FASTCHAT_PROMPTS
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
    #: the variant a judgment whose manifest records none was judged under: the protocol
    #: the benchmark had before it had variants (ELYZA-tasks-100: ``lightblue-2024``);
    #: ``None``: such a judgment is refused, its protocol unknown
    unsigned_variant: str | None = None
    #: how answers are judged and ranked (an object: ``JudgingProtocol``)
    judging: JudgingProtocol = FASTCHAT_JUDGING
    #: the published judgments under ``folder`` that ``mtbench leaderboard`` reads when
    #: given no ``--judgments``
    published_judgments: str = PUBLISHED_JUDGMENTS
    #: short column names for categories, as the leaderboard, report and radar show them
    #: (a category not listed is shown as it is named)
    column_names: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    #: where the benchmark stands in listings (``--bench`` choices, errors, help): lower
    #: first, then by name
    listing_order: int = 1000
    #: whether a model is named by its answer file's name, as FastChat's
    #: ``load_model_answers`` names it (Stability's 2023 answer files hold other
    #: ``model_id``s than their names), rather than by the ``model_id`` inside
    model_from_file_name: bool = False

    def variant(self, name: str | None) -> Variant | None:
        """The variant called ``name`` (``None``: the default); ``None`` for a benchmark
        without variants, which then refuses a name."""
        if not self.variants:
            if name is not None:
                raise InputError(f"`variant`: {self.title} has no variants")
            return None
        if name is None:
            return self.variants[0]
        for variant in self.variants:
            if variant.name == name:
                return variant
        known = ", ".join(v.name for v in self.variants)
        raise InputError(f"`variant`: {self.title} has no variant {name!r}; choose one of: {known}")

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
        if not signed and self.unsigned_variant is not None:
            return self.variant(self.unsigned_variant)
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

    def column(self, category: str) -> str:
        """The category's column name in tables and charts."""
        return self.column_names.get(category, category)

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


def parse_layout(value: str) -> Layout:
    """``--layout``: ``hyoka`` or ``upstream``."""
    for layout in LAYOUTS:
        if value == layout:
            return layout
    raise InputError(f"`layout` must be hyoka or upstream, got {value!r}")
