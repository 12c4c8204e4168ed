"""Check an upstream evaluation file: rescore its responses and compare every verdict.

An upstream evaluation file (``eval_results_strict.jsonl`` or ``eval_results_loose.jsonl``)
holds, per prompt, the response judged and upstream's verdicts. hyoka rescores each
response under the same mode and compares each instruction's verdict and the prompt's.

Upstream's language check is unseeded, so its verdict on a text near a border was a draw.
For every language verdict hyoka therefore also asks whether the verdict changes with
langdetect's seed (``SEEDS_COMPARED``): a difference on such a verdict is explained by
that draw, and is said so; any other difference is a disagreement of the rules. A seed
list can only show that a verdict depends on the draw, never prove that it does not.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hyoka.errors import InputError
from hyoka.ifeval import language
from hyoka.ifeval.evaluate import MODES, Mode, PromptVerdict, follows
from hyoka.ifeval.inputs import Prompt, PromptSet, PublishedVerdicts, read_evaluation
from hyoka.ifeval.registry import LANGUAGE_ID

#: the seeds each language verdict is drawn with to see whether it depends on the draw
SEEDS_COMPARED: tuple[int, ...] = tuple(range(10))
#: how a prompt-level difference names its "instruction"
PROMPT_LEVEL = "follow_all_instructions"


def mode_of(path: Path) -> Mode:
    """The mode an upstream evaluation file was written in, from its name."""
    for mode in MODES:
        if path.name == f"eval_results_{mode}.jsonl":
            return mode
    raise InputError(
        f"{path}: not named eval_results_strict.jsonl or eval_results_loose.jsonl; "
        "say which with `mode`"
    )


@dataclass(frozen=True)
class Difference:
    """One verdict hyoka decides otherwise than the file."""

    where: str
    instruction_id: str
    published: bool
    ours: bool
    #: whether langdetect's seed changes this verdict (only a language verdict can)
    seed_dependent: bool

    def describe(self) -> str:
        why = " (depends on langdetect's seed)" if self.seed_dependent else ""
        return (
            f"{self.where}: {self.instruction_id}: published {str(self.published).lower()}, "
            f"hyoka {str(self.ours).lower()}{why}"
        )


@dataclass(frozen=True)
class Verification:
    """What rescoring one evaluation file found."""

    path: Path
    mode: Mode
    published: tuple[PublishedVerdicts, ...]
    rescored: tuple[PromptVerdict, ...]
    differences: tuple[Difference, ...]
    #: ``file:line id`` of every language verdict that changes with langdetect's seed
    seed_dependent: tuple[str, ...]
    #: lines whose prompt-level verdict is not the conjunction of their own verdicts
    inconsistent: tuple[str, ...]
    #: the prompts of the set the file has no line for (a run cut short, a line lost)
    absent: tuple[Prompt, ...] = ()

    @property
    def instructions(self) -> int:
        return sum(len(row.ids) for row in self.published)

    @property
    def instructions_agreed(self) -> int:
        return self.instructions - sum(
            1 for d in self.differences if d.instruction_id != PROMPT_LEVEL
        )

    @property
    def prompts_agreed(self) -> int:
        return len(self.published) - sum(
            1 for d in self.differences if d.instruction_id == PROMPT_LEVEL
        )

    @property
    def unexplained(self) -> tuple[Difference, ...]:
        return tuple(d for d in self.differences if not d.seed_dependent)

    @property
    def ok(self) -> bool:
        """Every verdict agrees, or differs only where the seed decides it."""
        return not self.unexplained and not self.inconsistent

    def to_json(self) -> dict[str, Any]:
        """The file, its mode, the prompts and instructions and how many agreed, each
        difference (said, and whether the seed decides it), the seed-dependent verdicts,
        the inconsistent lines, the absent prompts' lines, and whether the file is ``ok``."""
        return {
            "file": str(self.path), "mode": self.mode, "prompts": len(self.published),
            "prompts_agreed": self.prompts_agreed, "instructions": self.instructions,
            "instructions_agreed": self.instructions_agreed,
            "differences": [{"difference": d.describe(), "seed_dependent": d.seed_dependent}
                            for d in self.differences],
            "seed_dependent": list(self.seed_dependent),
            "inconsistent": list(self.inconsistent),
            "absent": [prompt.where for prompt in self.absent], "ok": self.ok,
        }  # fmt: skip


def _depends_on_seed(
    prompt: Prompt, index: int, response: str | None, mode: Mode, seeds: Sequence[int]
) -> bool:
    found = {follows(prompt.instructions(seed)[index], response, mode) for seed in seeds}
    return len(found) > 1


def verify_evaluation(
    path: Path,
    prompts: PromptSet,
    mode: Mode | None = None,
    seed: int | None = language.DEFAULT_SEED,
    seeds: Sequence[int] = SEEDS_COMPARED,
) -> Verification:
    """Rescore ``path``'s responses against ``prompts`` (``mode``: from the file's name
    when not given) and compare every verdict (module docstring)."""
    mode = mode or mode_of(path)
    by_text = prompts.by_text()
    rows = read_evaluation(path)
    rescored: list[PromptVerdict] = []
    differences: list[Difference] = []
    dependent: list[str] = []
    inconsistent = [row.where for row in rows if row.follow_all != all(row.follows)]
    for row in rows:
        prompt = by_text.get(row.prompt)
        if prompt is None:
            raise InputError(f"{row.where}: the prompt is not one of {prompts.path}'s")
        if row.ids != prompt.ids:
            raise InputError(
                f"{row.where}: other instructions than {prompt.where} gives the same prompt"
            )
        ours = tuple(follows(i, row.response, mode) for i in prompt.instructions(seed))
        rescored.append(PromptVerdict(prompt, ours))
        for index, (iid, published, mine) in enumerate(
            zip(row.ids, row.follows, ours, strict=True)
        ):
            varies = iid == LANGUAGE_ID and _depends_on_seed(
                prompt, index, row.response, mode, (*seeds, *([] if seed is None else [seed]))
            )
            if varies:
                dependent.append(f"{row.where} {iid}")
            if published != mine:
                differences.append(Difference(row.where, iid, published, mine, varies))
        if row.follow_all != all(ours):
            explained = all(d.seed_dependent for d in differences if d.where == row.where) and any(
                d.where == row.where for d in differences
            )
            differences.append(
                Difference(row.where, PROMPT_LEVEL, row.follow_all, all(ours), explained)
            )
    return Verification(
        path,
        mode,
        rows,
        tuple(rescored),
        tuple(differences),
        tuple(dependent),
        tuple(inconsistent),
        tuple(p for p in prompts.prompts if p.text not in {row.prompt for row in rows}),
    )
