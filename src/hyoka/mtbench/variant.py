"""Named, versioned presets of one benchmark: which files, which turns, which rules.

Japanese MT-bench exists in several question versions, reference answers and judge-prompt
families, and the tools that publish its numbers each combine them their own way (the
data's ``SOURCE.md`` tables). A ``Variant`` names one such combination and pins each file
by its SHA-256, not by its name: files of one name differ between commits (Stability's
``question.jsonl`` is not a subset of its ``question_full.jsonl``), and files of different
names are the same bytes (llm-jp's ``gpt-4-v1.jsonl`` is Stability's
``model_answer/gpt-4.jsonl``). A variant's ``version`` is raised whenever a setting of it
changes, so a number signed ``stability.v1`` always means the same protocol.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from hyoka.judge import FASTCHAT, RatingRules
from hyoka.mtbench.dialogue import DialogueStyle
from hyoka.mtbench.headline import HeadlineRule
from hyoka.mtbench.prompt_formats import FASTCHAT_PROMPTS, PromptFormat


@dataclass(frozen=True)
class PinnedFile:
    """A data file by its path under the benchmark's folder and the SHA-256 it must have."""

    path: str
    sha256: str

    @property
    def shown(self) -> str:
        """``path@sha256[:8]``; ``none`` for no file (ELYZA's references are in its rows),
        and the path alone for a file the variant leaves to its data manifest to pin."""
        if not self.path:
            return "none"
        return f"{self.path}@{self.sha256[:8]}" if self.sha256 else f"{self.path} (manifest's)"


@dataclass(frozen=True)
class Variant:
    """One way a benchmark is run upstream: its files, judged turns and answer rules.

    ``turns``: the turns judged (Stability judges turn 1 only); ``trials``: how many
    answers to each dialogue a run generates and judges (Swallow: 5); ``answer_cut``: the
    characters of each turn's answer kept before judging (``None``: all);
    ``rating_rules``: how a rating is read. ``used_by`` says who runs it, for the listing.
    """

    name: str
    version: int
    used_by: str
    questions: PinnedFile
    prompts: PinnedFile
    references: PinnedFile
    turns: tuple[int, ...] = (1, 2)
    trials: int = 1
    answer_cut: int | None = None
    rating_rules: RatingRules = FASTCHAT
    #: the judge model upstream used (its reference file is named after it)
    judge: str = "gpt-4"
    #: how the judge prompt file is written: FastChat's JSONL, or llm-jp-judge's YAML
    prompt_format: PromptFormat = FASTCHAT_PROMPTS
    #: how upstream's generation shows the dialogue (its system message, fixed or picked
    #: by the model's name: Stability's and Swallow's FastChat forks pick each model's
    #: conversation template, ``DialogueStyle.templates``); ``None``: the benchmark's
    dialogue: DialogueStyle | None = None
    #: upstream's generation temperatures by category (others 0.7) and token budget per
    #: turn, where they differ from the benchmark's (``None``: the benchmark's)
    temperatures: Mapping[str, float] | None = None
    max_tokens: int | None = None
    #: judgments written as swallow-evaluation's FastChat fork writes them: one line per
    #: turn, its ``score``/``judgment``/``user_prompt`` lists over the trials (a file
    #: format: it changes no number)
    trial_lines: bool = False
    #: how upstream's script of this variant computes the table (``mtbench.headline``;
    #: ``None``: the benchmark's rule), signed in the table's signature, not the variant's:
    #: it changes no judgment
    headline: HeadlineRule | None = None

    @property
    def label(self) -> str:
        """The variant's name and version, as signatures carry it: ``stability.v1``."""
        return f"{self.name}.v{self.version}"

    def settings(self) -> dict[str, str]:
        """Every setting that changes numbers, by name, for listings and signatures."""
        return {
            "questions": self.questions.shown,
            "prompts": self.prompts.shown,
            "references": self.references.shown,
            "turns": "+".join(str(t) for t in self.turns),
            "trials": str(self.trials),
            "answer_cut": "none" if self.answer_cut is None else str(self.answer_cut),
            "rating": self.rating_rules.name,
            "judge": self.judge,
            "prompt_format": self.prompt_format.name,
            "system": "benchmark's" if self.dialogue is None else self.dialogue.described,
            "temperatures": "benchmark's"
            if self.temperatures is None
            else ",".join(f"{c}={t:g}" for c, t in self.temperatures.items()),
            "max_tokens": "benchmark's" if self.max_tokens is None else str(self.max_tokens),
            "headline": "benchmark's" if self.headline is None else self.headline.name,
        }

    def signed(self) -> str:
        """One token for the signature: the label and every setting that changes numbers
        beyond the data hash the signature carries anyway."""
        s = self.settings()
        return (
            f"{self.label}/turns-{s['turns']}/trials-{s['trials']}/cut-{s['answer_cut']}/"
            f"q-{self.questions.sha256[:8]}/p-{self.prompts.sha256[:8]}/"
            f"r-{self.references.sha256[:8]}"
        )

    def answers_alike(self, other: Variant) -> bool:
        """Whether answers made under ``other`` are answers of this variant too: the same
        questions asked the same way (system message, temperatures, budget). References,
        prompts and rules are the judge's: llm-jp's answers are llm-jp@gpt-4-v1's."""
        return (
            self.questions.sha256 == other.questions.sha256
            and self.dialogue == other.dialogue
            and self.temperatures == other.temperatures
            and self.max_tokens == other.max_tokens
        )

    def cut(self, text: str) -> str:
        """An answer turn as the judge sees it: its first ``answer_cut`` characters."""
        return text if self.answer_cut is None else text[: self.answer_cut]
