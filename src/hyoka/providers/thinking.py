"""The answer in a reply that thinks aloud: the one rule every reader of a model's text uses.

Reasoning models write their thinking before the answer, inline (``<think>...</think>``,
as Qwen3, QwQ and DeepSeek-R1 do through a bare chat template) or, when a server parses it
out (vLLM's, SGLang's or llama.cpp server's reasoning parser), in a separate
``reasoning_content`` (or ``reasoning``) field beside the message's ``content``. Only the
answer is judged and scored; the thinking is kept beside it in every record, so nothing
the model wrote is lost.

``strip-think`` (the default) reads a reply as follows. A separate reasoning field is the
thinking, ``content`` the text. A text that opens with ``<think>`` (after whitespace) holds
a block up to the first ``</think>``: the block and the whitespace after it are the
thinking, the rest is the answer (vLLM's ``qwen3`` and ``deepseek_r1`` parsers split at
the first ``</think>`` too). A block never closed (the model ran out of ``max_tokens``
while thinking) leaves no answer: the answer is empty, and ``unclosed`` says why. A
``</think>`` that no ``<think>`` opened is left in the answer: the published pfgen-bench
run of Qwen3-8B (``9d7e974``, thinking disabled) ends 42 of its answers with a stray
``</think>`` after the answer, which a split there would throw away; a model whose
template opens the block in the prompt is read right by its server's reasoning parser.

``keep`` takes the text as the model wrote it, thinking and all (what upstream's scripts
do with ``content``); a separate reasoning field is still kept in the record, never
joined to the text.

No published answer or judgment hyoka replays holds a ``<think>`` block, so either rule
leaves every published number as it is. Signatures name the rule only when it is not
the default (``signed_rule``): a reply without thinking reads the same under both, so
every result written before the rule existed keeps its signature.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Final, Literal

if TYPE_CHECKING:  # the flag's type needs no pydantic: the CLI loads this module alone
    from hyoka.providers.types import GenerationResponse

ThinkingRule = Literal["strip-think", "keep"]
STRIP_THINK: Final = "strip-think"
KEEP: Final = "keep"
#: the rules, the default first
THINKING_RULES: tuple[ThinkingRule, ...] = (STRIP_THINK, KEEP)
DEFAULT_THINKING: ThinkingRule = STRIP_THINK


class ThinkingChoice(StrEnum):
    """The ``--thinking`` flag's values: exactly ``ThinkingRule``'s (a test holds them)."""

    STRIP_THINK = STRIP_THINK
    KEEP = KEEP


OPEN_TAG = "<think>"
CLOSE_TAG = "</think>"


@dataclass(frozen=True)
class Reply:
    """A reply read by a rule: the ``answer`` (what is judged or scored), the ``thinking``
    set aside as written (``None``: there was none), and whether a block was left
    ``unclosed`` (then the answer is empty)."""

    answer: str
    thinking: str | None = None
    unclosed: bool = False


def split_thinking(
    text: str, rule: ThinkingRule = STRIP_THINK, reasoning: str | None = None
) -> Reply:
    """``text`` (and a server's separate ``reasoning``) read by ``rule`` (module docstring).

    Under ``strip-think`` the thinking is the separate reasoning, then the inline block as
    written (with the whitespace after it), so ``thinking + answer`` is the text again
    where there is no separate field.
    """
    separate = reasoning or None
    if rule == KEEP:
        return Reply(text, separate)
    if rule != STRIP_THINK:
        raise ValueError(f"unknown thinking rule {rule!r}; known: {', '.join(THINKING_RULES)}")
    body = text.lstrip()
    if not body.startswith(OPEN_TAG):
        return Reply(text, separate)
    end = body.find(CLOSE_TAG, len(OPEN_TAG))
    if end < 0:
        return Reply("", _joined(separate, text), unclosed=True)
    answer = body[end + len(CLOSE_TAG) :].lstrip()
    return Reply(answer, _joined(separate, text[: len(text) - len(answer)]))


def _joined(separate: str | None, inline: str) -> str:
    return inline if separate is None else f"{separate}\n{inline}"


def reply_of(response: GenerationResponse, rule: ThinkingRule = STRIP_THINK) -> Reply:
    """The first choice of ``response`` read by ``rule``."""
    if not response.choices:
        return Reply("")
    choice = response.choices[0]
    return split_thinking(choice.text, rule, choice.reasoning)


def signed_rule(rule: ThinkingRule) -> ThinkingRule | None:
    """The rule as signatures and identities carry it: ``None`` for the default, so that a
    result without thinking, which both rules read alike, keeps the signature it always
    had; the other rule by name."""
    return None if rule == DEFAULT_THINKING else rule
