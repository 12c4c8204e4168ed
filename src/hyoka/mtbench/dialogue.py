"""The dialogue as a model sees it, and the clean-up of what the model writes back.

Each benchmark has a ``DialogueStyle``. Chat models get their own chat template (the
provider applies it to ``Message`` lists), opened by the system message upstream's
generation script sends: pfmt-bench-fin-ja's 「あなたは優秀なアシスタントです。」 (its
``utils/common.py`` registers it in every conversation template it uses), MT-bench's "You
are a helpful assistant." (FastChat's ``gen_api_answer.py`` builds each request from the
model's conversation template, for OpenAI's models the ``chatgpt`` one, and sends
``to_openai_api_messages()``: that system message, then the turns). Base models get a
plain-text transcript: pfmt-bench-fin-ja's Japanese one (the system line
「あなたは優秀なアシスタントです。」, each turn introduced by ``### ユーザー:`` or
``### アシスタント:``), or for MT-bench the same layout in English; turns are separated by
a blank line and the transcript ends with an open assistant turn.

A base model often goes on to write the user's next turn itself. The injection check
looks for a role marker of the style in the answer: strict (upstream's default) empties
the whole answer, so it scores 0 as "no answer" instead of getting credit for a turn it
invented; lenient cuts the marker and what follows.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

from hyoka.providers import Message

Injection = Literal["strict", "lenient"]
SEPARATOR = "\n\n### "


@dataclass(frozen=True)
class DialogueStyle:
    """How a dialogue is shown to the answering model.

    ``system_message`` opens chat requests (``None``: no system message, the model's own
    default applies); ``system_name`` names it in signatures (where it comes from). Base
    models get ``system_line`` (if any), then the turns.
    """

    system_message: str | None
    system_line: str
    user_role: str
    assistant_role: str
    system_name: str = "none"

    @property
    def role_markers(self) -> tuple[str, str]:
        """What a model writes when it starts a turn of its own."""
        return (f"### {self.user_role}", f"### {self.assistant_role}")


#: pfmt-bench-fin-ja's: the Japanese system line and roles, for chat and base models alike.
JAPANESE_DIALOGUE = DialogueStyle(
    system_message="あなたは優秀なアシスタントです。",
    system_line="あなたは優秀なアシスタントです。",
    user_role="ユーザー",
    assistant_role="アシスタント",
    system_name="pfmt-upstream",
)
#: the system message of FastChat's ``chatgpt`` conversation template
FASTCHAT_SYSTEM_MESSAGE = "You are a helpful assistant."
#: MT-bench's: chat models get FastChat's ``chatgpt`` system message, as
#: ``gen_api_answer.py`` sends it; base models an English transcript of ours.
ENGLISH_DIALOGUE = DialogueStyle(
    system_message=FASTCHAT_SYSTEM_MESSAGE,
    system_line="",
    user_role="User",
    assistant_role="Assistant",
    system_name="fastchat-chatgpt",
)
#: Shaberi's (ELYZA-tasks-100): the task alone as one user message, no system message
#: (Lightblue's ``llm_functions.py`` ``get_answer``); base models get the Japanese roles.
SHABERI_DIALOGUE = DialogueStyle(
    system_message=None,
    system_line="",
    user_role="ユーザー",
    assistant_role="アシスタント",
    system_name="none (shaberi)",
)

#: Rakuda's (jrank ``gen_api_model_answer.py``): chat models get its Japanese system
#: message where their conversation template has one; base models the Japanese roles.
RAKUDA_DIALOGUE = DialogueStyle(
    system_message="あなたは役立つアシスタントです。日本語で答えてください。",
    system_line="あなたは役立つアシスタントです。日本語で答えてください。",
    user_role="ユーザー",
    assistant_role="アシスタント",
    system_name="rakuda-upstream",
)

SYSTEM_MESSAGE = JAPANESE_DIALOGUE.system_line
USER_ROLE = JAPANESE_DIALOGUE.user_role
ASSISTANT_ROLE = JAPANESE_DIALOGUE.assistant_role
#: pfmt-bench-fin-ja's role markers
ROLE_MARKERS = JAPANESE_DIALOGUE.role_markers

#: special-token texts that decoders sometimes leave in (removed from every answer)
SPECIAL_TOKENS = (
    "<|im_end|>", "<|im_start|>", "<|endoftext|>", "<|end_of_text|>", "<|begin_of_text|>",
    "<|eot_id|>", "<|start_header_id|>", "<|end_header_id|>", "<|end|>", "<|user|>",
    "<|assistant|>", "<end_of_turn>", "<start_of_turn>", "<eos>", "<bos>", "<pad>",
    "</s>", "<s>", "<unk>",
)  # fmt: skip


def with_system_message(style: DialogueStyle, text: str | None) -> DialogueStyle:
    """``style`` with another system message for chat requests (``None``: none), named
    ``none`` or ``custom@`` and the first 8 hex digits of its SHA-256 in signatures."""
    if text == style.system_message:
        return style
    name = "none" if text is None else f"custom@{hashlib.sha256(text.encode()).hexdigest()[:8]}"
    return replace(style, system_message=text, system_name=name)


def chat_messages(
    questions: Sequence[str], answers: Sequence[str], style: DialogueStyle = JAPANESE_DIALOGUE
) -> tuple[Message, ...]:
    """The chat for the next answer: every question so far, and the answers before it."""
    messages: list[Message] = []
    if style.system_message is not None:
        messages.append(Message(role="system", content=style.system_message))
    for index, question in enumerate(questions):
        messages.append(Message(role="user", content=question))
        if index < len(answers):
            messages.append(Message(role="assistant", content=answers[index]))
    return tuple(messages)


def base_prompt(
    questions: Sequence[str], answers: Sequence[str], style: DialogueStyle = JAPANESE_DIALOGUE
) -> str:
    """The same dialogue as a transcript, open for the assistant's next turn."""
    text = style.system_line + SEPARATOR if style.system_line else SEPARATOR.lstrip("\n")
    for index, question in enumerate(questions):
        text += f"{style.user_role}: {question}{SEPARATOR}"
        if index < len(answers):
            text += f"{style.assistant_role}: {answers[index]}{SEPARATOR}"
    return text + f"{style.assistant_role}:"


def strip_special_tokens(text: str) -> str:
    for token in SPECIAL_TOKENS:
        text = text.replace(token, "")
    return text


def check_injection(
    text: str, mode: Injection = "strict", markers: Sequence[str] = ROLE_MARKERS
) -> tuple[str, bool]:
    """``(answer, injected)``: the answer after the injection check, and whether it fired.

    Fires at the first role marker anywhere in the answer (generation stops there, so in
    upstream's terms the answer "ends with" it): strict returns ``""``, lenient the text
    before the marker, stripped.
    """
    cut = min((i for m in markers if (i := text.find(m)) >= 0), default=-1)
    if cut < 0:
        return text, False
    return ("" if mode == "strict" else text[:cut].strip()), True


def clean_answer(
    text: str, mode: Injection = "strict", markers: Sequence[str] = ROLE_MARKERS
) -> tuple[str, bool]:
    """Special tokens out, whitespace trimmed, then the injection check."""
    return check_injection(strip_special_tokens(text).strip(), mode, markers)
