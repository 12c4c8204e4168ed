"""Strict and loose verdicts: does a response follow each instruction of its prompt?

Strict reads the response as written. Loose (IFEval's upper bound) accepts an instruction
when any of eight readings follows it, in upstream's order: the response; with every ``*``
removed; with its first line removed; its last line; both; and each of those three with
``*`` removed (lines split at ``\\n``, the shortened ones stripped). A reading that is empty
or blank never follows anything; nor does a response that is not text.

Checks are pure functions of the text (langdetect reseeded per detection), so a text seen
twice (two readings alike, strict and loose) is checked once per instruction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from hyoka.ifeval import language
from hyoka.ifeval.inputs import Prompt
from hyoka.ifeval.registry import Instruction

Mode = Literal["strict", "loose"]
MODES: tuple[Mode, ...] = ("strict", "loose")


def loose_readings(response: str) -> tuple[str, ...]:
    """The eight readings loose mode tries, in upstream's order (module docstring)."""
    lines = response.split("\n")
    first_off = "\n".join(lines[1:]).strip()
    last_off = "\n".join(lines[:-1]).strip()
    both_off = "\n".join(lines[1:-1]).strip()
    shortened = (first_off, last_off, both_off)
    return (
        response,
        response.replace("*", ""),
        *shortened,
        *(text.replace("*", "") for text in shortened),
    )


def readings(response: str | None, mode: Mode) -> tuple[str, ...]:
    """The texts ``mode`` tries, each once, blank ones left out (they follow nothing)."""
    if response is None:
        return ()
    texts = (response,) if mode == "strict" else loose_readings(response)
    return tuple(t for t in dict.fromkeys(texts) if t.strip())


def follows(instruction: Instruction, response: str | None, mode: Mode) -> bool:
    """Whether ``response`` follows ``instruction`` in ``mode``."""
    return any(instruction.check(text) for text in readings(response, mode))


@dataclass(frozen=True)
class PromptVerdict:
    """One prompt's verdicts: one per instruction, in the prompt's order."""

    prompt: Prompt
    follows: tuple[bool, ...]

    @property
    def ids(self) -> tuple[str, ...]:
        return self.prompt.ids

    @property
    def all(self) -> bool:
        """The prompt-level verdict: every instruction followed."""
        return all(self.follows)


def judge_prompt(
    prompt: Prompt, response: str | None, mode: Mode, seed: int | None = language.DEFAULT_SEED
) -> PromptVerdict:
    """``prompt``'s verdicts on ``response``."""
    return PromptVerdict(
        prompt, tuple(follows(i, response, mode) for i in prompt.instructions(seed))
    )


def judge_all(
    prompts: Sequence[Prompt],
    responses: Sequence[str | None],
    modes: Sequence[Mode] = MODES,
    seed: int | None = language.DEFAULT_SEED,
) -> dict[Mode, tuple[PromptVerdict, ...]]:
    """Every prompt's verdicts on its response (``responses`` in the prompts' order), for
    each of ``modes``; a prompt's modes are judged together, so the texts they share are
    read once (``japanese.tokens`` keeps the last few)."""
    found: dict[Mode, list[PromptVerdict]] = {mode: [] for mode in modes}
    for prompt, response in zip(prompts, responses, strict=True):
        for mode in modes:
            found[mode].append(judge_prompt(prompt, response, mode, seed))
    return {mode: tuple(verdicts) for mode, verdicts in found.items()}
