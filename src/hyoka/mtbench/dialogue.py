"""The dialogue as a model sees it, and the clean-up of what the model writes back.

Chat models get their own chat template (the provider applies it to ``Message`` lists).
Base models get the upstream's Japanese dialogue template: the system line
「あなたは優秀なアシスタントです。」, then each turn introduced by ``### ユーザー:`` or
``### アシスタント:`` and separated by a blank line, ending with an open assistant turn.

A base model often goes on to write the user's next turn itself. The injection check
looks for a role marker in the answer: strict (upstream's default) empties the whole
answer, so it scores 0 as "no answer" instead of getting credit for a turn it invented;
lenient cuts the marker and what follows.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from hyoka.providers.types import Message

SYSTEM_MESSAGE = "あなたは優秀なアシスタントです。"
USER_ROLE = "ユーザー"
ASSISTANT_ROLE = "アシスタント"
SEPARATOR = "\n\n### "
#: what a model writes when it starts a turn of its own
ROLE_MARKERS = (f"### {USER_ROLE}", f"### {ASSISTANT_ROLE}")

Injection = Literal["strict", "lenient"]

#: special-token texts that decoders sometimes leave in (removed from every answer)
SPECIAL_TOKENS = (
    "<|im_end|>", "<|im_start|>", "<|endoftext|>", "<|end_of_text|>", "<|begin_of_text|>",
    "<|eot_id|>", "<|start_header_id|>", "<|end_header_id|>", "<|end|>", "<|user|>",
    "<|assistant|>", "<end_of_turn>", "<start_of_turn>", "<eos>", "<bos>", "<pad>",
    "</s>", "<s>", "<unk>",
)  # fmt: skip


def chat_messages(questions: Sequence[str], answers: Sequence[str]) -> tuple[Message, ...]:
    """The chat for the next answer: every question so far, and the answers before it."""
    messages = [Message(role="system", content=SYSTEM_MESSAGE)]
    for index, question in enumerate(questions):
        messages.append(Message(role="user", content=question))
        if index < len(answers):
            messages.append(Message(role="assistant", content=answers[index]))
    return tuple(messages)


def base_prompt(questions: Sequence[str], answers: Sequence[str]) -> str:
    """The same dialogue in the Japanese template, open for the assistant's next turn."""
    text = SYSTEM_MESSAGE + SEPARATOR
    for index, question in enumerate(questions):
        text += f"{USER_ROLE}: {question}{SEPARATOR}"
        if index < len(answers):
            text += f"{ASSISTANT_ROLE}: {answers[index]}{SEPARATOR}"
    return text + f"{ASSISTANT_ROLE}:"


def strip_special_tokens(text: str) -> str:
    for token in SPECIAL_TOKENS:
        text = text.replace(token, "")
    return text


def check_injection(text: str, mode: Injection = "strict") -> tuple[str, bool]:
    """``(answer, injected)``: the answer after the injection check, and whether it fired.

    Fires at the first role marker anywhere in the answer (generation stops there, so in
    upstream's terms the answer "ends with" it): strict returns ``""``, lenient the text
    before the marker, stripped.
    """
    cut = min((i for m in ROLE_MARKERS if (i := text.find(m)) >= 0), default=-1)
    if cut < 0:
        return text, False
    return ("" if mode == "strict" else text[:cut].strip()), True


def clean_answer(text: str, mode: Injection = "strict") -> tuple[str, bool]:
    """Special tokens out, whitespace trimmed, then the injection check."""
    return check_injection(strip_special_tokens(text).strip(), mode)
