"""The pfgen-bench many-shot prompts, exactly as the public leaderboard's runs were made.

For a question and a trial, the other 49 questions are ordered by a SHA-1 of the seed, the
trial and their text, and the first ``num_examples`` become the examples; each mode wraps
them in its own fixed Japanese instruction (pfgen-spec.md §1). Any change to a character
here changes every prompt, so the tests pin these texts.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hyoka.pfgen.choices import Mode
from hyoka.pfgen.protocol import PROTOCOL
from hyoka.providers import GenerationRequest, Message, SamplingParams

if TYPE_CHECKING:
    from hyoka.pfgen.benchmark import SampleAnswer

__all__ = ["Mode", "PfgenPrompt", "build_prompt", "clean_answer", "stops_for", "trial_seed"]


EXAMPLES_HEADER = "## 回答例\n"
QA_INSTRUCTION = "例と同様の文体及び文字数で、質問に1行で答えてください。\n\n"
CHAT_INSTRUCTION = "例と同様の文体及び文字数で、ユーザの質問に1行で答えてください。\n\n"
QUESTION_HEADER = "\n\n## 質問\n"
QUESTION_STOP = "Q:"
COMPLETION_STOP = "\n\n"


def stops_for(mode: Mode) -> list[str]:
    """The stop strings of a mode, in the order upstream writes them to config.json."""
    return [QUESTION_STOP, COMPLETION_STOP] if mode is Mode.COMPLETION else [QUESTION_STOP]


def select_examples(
    samples: Sequence[SampleAnswer], question: str, trial: int, num_examples: int, seed: str = ""
) -> list[SampleAnswer]:
    """The examples of one (question, trial): the others, ordered by a seeded SHA-1."""
    others = [s for s in samples if s.question != question]
    others.sort(key=lambda s: hashlib.sha1(f"{seed}::{trial}::{s.question}".encode()).hexdigest())
    return others[:num_examples]


def examples_block(examples: Sequence[SampleAnswer]) -> str:
    return "".join(f"Q: {e.question}\nA: {e.answer}\n\n" for e in examples).strip()


@dataclass(frozen=True)
class PfgenPrompt:
    """One prompt: ``text`` for completion/qa modes, ``system`` + ``text`` for chat."""

    mode: Mode
    question: str
    text: str
    system: str | None = None

    def to_request(self, params: SamplingParams) -> GenerationRequest:
        if self.mode is Mode.COMPLETION:
            return GenerationRequest(prompt=self.text, params=params)
        messages = [Message(role="user", content=self.text)]
        if self.system is not None:
            messages.insert(0, Message(role="system", content=self.system))
        return GenerationRequest(messages=tuple(messages), params=params)


def build_prompt(
    samples: Sequence[SampleAnswer],
    question: str,
    mode: Mode,
    trial: int,
    *,
    num_examples: int = PROTOCOL.num_examples,
    seed: str = "",
    prefix: str = "",
) -> PfgenPrompt:
    examples = examples_block(select_examples(samples, question, trial, num_examples, seed))
    asked = f"Q: {question}".strip()
    if mode is Mode.CHAT:
        system = prefix + (CHAT_INSTRUCTION + EXAMPLES_HEADER + examples).strip()
        return PfgenPrompt(mode, question, asked, system)
    if mode is Mode.QA:
        instruction = (QA_INSTRUCTION + EXAMPLES_HEADER + examples).strip()
        return PfgenPrompt(mode, question, prefix + instruction + QUESTION_HEADER + asked)
    shots = (EXAMPLES_HEADER + examples).strip()
    return PfgenPrompt(mode, question, prefix + shots + "\n\n" + asked + "\nA:")


def trial_seed(trial: int, seed: str = "") -> int:
    """The sampling seed of a trial (pfgen-spec.md §1)."""
    return int(hashlib.sha1(f"{seed}::{trial}".encode()).hexdigest(), 16) % 2**31


def clean_answer(text: str, mode: Mode, stops: Sequence[str]) -> str:
    """Strip, drop a trailing stop string, and in chat/qa keep what follows a first "A:"."""
    answer = text.strip()
    for stop in stops:
        if stop.strip() and answer.endswith(stop.strip()):
            answer = answer[: -len(stop.strip())].strip()
    if mode is not Mode.COMPLETION and "A:" in answer:
        answer = answer.split("A:", 1)[1].strip()
    return answer
