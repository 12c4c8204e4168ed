"""The dialogue as a model sees it, and the clean-up of what the model writes back.

Each benchmark has a ``DialogueStyle``. Chat models get their own chat template (the
provider applies it to ``Message`` lists), opened by the system message upstream's
generation script sends: pfmt-bench-fin-ja's 「あなたは優秀なアシスタントです。」 (its
``utils/common.py`` registers it in every conversation template it uses), MT-bench's
(FastChat's ``gen_api_answer.py`` builds each request from the
model's conversation template, for OpenAI's models the ``chatgpt`` one, and sends
``to_openai_api_messages()``: that system message, then the turns; its text is read from
upstream's pinned file, ``conversation_templates``). Base models get a
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
from pathlib import Path
from typing import Literal

from hyoka.mtbench.conversation_templates import (
    FASTCHAT,
    STABILITY,
    SWALLOW,
    AdapterTable,
)
from hyoka.providers import Message

Injection = Literal["strict", "lenient"]
SEPARATOR = "\n\n### "


@dataclass(frozen=True)
class ConversationTemplates:
    """Upstream's choice of system message by the model's name: the conversation template
    its fork of FastChat's adapter table picks (``conversation_templates``), signed
    ``<prefix>-<template>`` (``+custom@<sha>`` of the text sent where upstream's file at
    hand is not the pinned one); ``api_max_tokens`` is the reply budget of its
    ``gen_api_answer.py`` for the names that script sends to the API, where its local
    ``gen_model_answer.py`` has another (Stability's: 1024 against 512).
    ``model_top_p`` and ``model_repetition_penalty``: the decoding its
    ``gen_model_answer.py`` passes to ``generate`` for every other name (jp-stable's
    ``--top-p`` 0.9 and ``--repetition-penalty`` 1.1 defaults)."""

    table: AdapterTable
    prefix: str
    api_max_tokens: int | None = None
    model_top_p: float | None = None
    model_repetition_penalty: float | None = None

    def style(self, style: DialogueStyle, model: str, folder: Path) -> DialogueStyle:
        """``style`` with the system message upstream sends ``model`` (none where its
        template has an empty one), named after the template; read from upstream's file in
        the suite's data ``folder``."""
        template = self.table.template_for(model)
        text, pinned = self.table.system_message(template, folder)
        name = f"{self.prefix}-{template}"
        if not pinned:  # another file's text: the name alone would not say which was sent
            name += f"+custom@{hashlib.sha256(text.encode()).hexdigest()[:8]}"
        return replace(style, system_message=text or None, system_name=name, templates=None)

    def check_source(self, model: str, folder: Path) -> None:
        """Refuse, without reading it, a run of ``model`` whose system message is read from
        an upstream file the suite's data ``folder`` lacks (``AdapterTable.source_of``)."""
        self.table.source_of(self.table.template_for(model), folder)

    def max_tokens(self, model: str, default: int) -> int:
        api = self.table.api_names
        if self.api_max_tokens is None or api is None or model not in api:
            return default
        return self.api_max_tokens

    def through_api(self, model: str) -> bool:
        """Whether upstream answers ``model`` through its API script (its list of names,
        where it has one), not its local ``gen_model_answer.py``."""
        api = self.table.api_names
        return api is not None and model in api

    def top_p(self, model: str) -> float | None:
        return None if self.through_api(model) else self.model_top_p

    def repetition_penalty(self, model: str) -> float | None:
        return None if self.through_api(model) else self.model_repetition_penalty


@dataclass(frozen=True)
class NameDecoding:
    """Upstream's decoding by the model's name where its script routes names itself
    (shisa-ai/shaberi f8cd7a0 ``llm_functions.get_answer``): names opening with one of
    ``hosted_prefixes`` go to a hosted API without a penalty, every other name to a
    vLLM/custom server with ``frequency_penalty``; names in ``long_names`` get
    ``long_max_tokens``; names opening with a key of ``fixed_temperatures`` get its
    temperature for every task. Signed in the answers' signature through what it sets
    (``frequency-penalty``, ``max-tokens``, ``temperatures``)."""

    source: str
    hosted_prefixes: tuple[str, ...]
    frequency_penalty: float
    long_names: frozenset[str]
    long_max_tokens: int
    fixed_temperatures: tuple[tuple[str, float], ...]

    def penalty(self, model: str) -> float | None:
        return None if model.startswith(self.hosted_prefixes) else self.frequency_penalty

    def max_tokens(self, model: str, default: int) -> int:
        return self.long_max_tokens if model in self.long_names else default

    def temperature(self, model: str) -> float | None:
        return next((t for p, t in self.fixed_temperatures if model.startswith(p)), None)

    @property
    def described(self) -> str:
        fixed = ", ".join(f"{p}*: temperature {t:g}" for p, t in self.fixed_temperatures)
        return (
            f"by model name ({self.source}): frequency_penalty {self.frequency_penalty:g} "
            f"unless the name opens with {'/'.join(self.hosted_prefixes)}; "
            f"{len(self.long_names)} thinking models: {self.long_max_tokens} tokens"
            + (f"; {fixed}" if fixed else "")
        )


@dataclass(frozen=True)
class LegacyCompletions:
    """An upstream that answers hosted models through OpenAI's legacy completions
    endpoint: each question alone as the prompt, one temperature, ``top_p`` and budget for
    every question (ja-vicuna-qa-benchmark 128a862's ``gen_gpt3.5_answer.py`` with its
    ``configs/openai--text-davinci-003.json``: prompt template ``{instruction}``,
    temperature 0, top_p 1, 2048 tokens; its frequency and presence penalties of 0 are
    the API's defaults and are not sent)."""

    temperature: float
    top_p: float
    max_tokens: int
    source: str


@dataclass(frozen=True)
class DialogueStyle:
    """How a dialogue is shown to the answering model.

    ``system_message`` opens chat requests (``None``: no system message, the model's own
    default applies); ``system_name`` names it in signatures (where it comes from). Where
    upstream picks the message by the model's name (FastChat's conversation templates),
    ``templates`` does so at run time (``for_model``). Base models get ``system_line`` (if
    any), then the turns; ``line_name`` names that line in signatures. ``completions``:
    the legacy-completions protocol upstream uses for hosted models, where it has one
    (``--template completions``).
    """

    system_message: str | None
    system_line: str
    user_role: str
    assistant_role: str
    system_name: str = "none"
    templates: ConversationTemplates | None = None
    completions: LegacyCompletions | None = None
    line_name: str = "none"
    #: upstream's decoding by the model's name, where its script picks it so
    decoding: NameDecoding | None = None

    @property
    def role_markers(self) -> tuple[str, str]:
        """What a model writes when it starts a turn of its own."""
        return (f"### {self.user_role}", f"### {self.assistant_role}")

    def for_model(self, model: str, folder: Path) -> DialogueStyle:
        """The style ``model``'s requests are made in: upstream's pick for its name where
        upstream picks by name (its text read from the suite's data ``folder``), else this
        one."""
        return self if self.templates is None else self.templates.style(self, model, folder)

    @property
    def described(self) -> str:
        """The system message as listings show it: its name, or how upstream picks it."""
        if self.templates is None:
            if self.decoding is not None:
                return f"{self.system_name}; {self.decoding.described}"
            return self.system_name
        picks = self.templates
        text = f"by model name: {picks.prefix}-<template> ({picks.table.source})"
        if picks.api_max_tokens is not None and picks.table.api_names:
            names = ", ".join(sorted(picks.table.api_names))
            text += f"; {names}: {picks.api_max_tokens} tokens"
        if picks.model_top_p is not None:
            text += f"; other names: top_p {picks.model_top_p:g}"
        if picks.model_repetition_penalty is not None:
            text += f", repetition penalty {picks.model_repetition_penalty:g} (run here)"
        return text

    def max_tokens(self, model: str, default: int) -> int:
        """``model``'s reply budget: upstream's API script's where it has its own, or
        upstream's for the name (``decoding``)."""
        if self.decoding is not None:
            default = self.decoding.max_tokens(model, default)
        return default if self.templates is None else self.templates.max_tokens(model, default)

    def frequency_penalty(self, model: str) -> float | None:
        """The frequency penalty upstream sends ``model`` (``None``: none)."""
        return None if self.decoding is None else self.decoding.penalty(model)

    def temperature(self, model: str) -> float | None:
        """The one temperature upstream sends ``model`` for every question, where it
        fixes one by name (``None``: the categories' own)."""
        return None if self.decoding is None else self.decoding.temperature(model)

    def top_p(self, model: str) -> float | None:
        """``top_p`` upstream decodes ``model`` with (``None``: none sent)."""
        return None if self.templates is None else self.templates.top_p(model)

    def repetition_penalty(self, model: str) -> float | None:
        """The repetition penalty upstream decodes ``model`` with (``None``: none)."""
        return None if self.templates is None else self.templates.repetition_penalty(model)


#: pfmt-bench-fin-ja's: the Japanese system line and roles, for chat and base models alike.
JAPANESE_DIALOGUE = DialogueStyle(
    system_message="あなたは優秀なアシスタントです。",
    system_line="あなたは優秀なアシスタントです。",
    user_role="ユーザー",
    assistant_role="アシスタント",
    system_name="pfmt-upstream",
    line_name="pfmt-upstream",
)
#: MT-bench's: chat models get the system message of the conversation template lm-sys
#: FastChat's adapter table picks for the model's name, as ``gen_api_answer.py`` sends it
#: (``chatgpt``'s for ``gpt-4``, the Vicuna preamble for a name it does not know), read
#: from upstream's pinned ``conversation.py`` when the run starts (``for_model``: no text
#: until then); base models an English transcript of ours.
ENGLISH_DIALOGUE = DialogueStyle(
    system_message=None,
    system_line="",
    user_role="User",
    assistant_role="Assistant",
    system_name="fastchat-<template>",
    templates=ConversationTemplates(FASTCHAT, "fastchat"),
)
#: Stability's Japanese MT-bench (FastChat jp-stable e37eb28): its ``gen_api_answer.py``
#: sends ``gpt-3.5-turbo`` and ``gpt-4`` the ``chatgpt`` message with 1024 tokens; other
#: models get the template jp-stable's table picks and its ``gen_model_answer.py``'s
#: decoding (the variant's 512 tokens, ``top_p`` 0.9, repetition penalty 1.1); base models
#: the Japanese transcript.
STABILITY_DIALOGUE = replace(
    JAPANESE_DIALOGUE,
    system_message=None,
    system_name="stability-fastchat-<template>",
    templates=ConversationTemplates(
        STABILITY, "stability-fastchat", api_max_tokens=1024, model_top_p=0.9,
        model_repetition_penalty=1.1,
    ),
)  # fmt: skip
#: swallow-evaluation's Japanese MT-bench: the template its FastChat fork's table picks
#: (Japanese adapters and templates of its own); base models the Japanese transcript.
SWALLOW_DIALOGUE = replace(
    JAPANESE_DIALOGUE,
    system_message=None,
    system_name="swallow-fastchat-<template>",
    templates=ConversationTemplates(SWALLOW, "swallow-fastchat"),
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

#: Japanese Vicuna QA's (ja-vicuna-qa-benchmark 128a862): no system message (its local
#: models' configs give a prompt template of their own, none a system message), the
#: Japanese roles for base models; hosted models were answered through the legacy
#: completions endpoint, offered as ``--template completions``.
VICUNA_QA_DIALOGUE = replace(
    JAPANESE_DIALOGUE,
    system_message=None,
    system_name="none (ja-vicuna-qa)",
    completions=LegacyCompletions(
        temperature=0.0, top_p=1.0, max_tokens=2048,
        source="ja-vicuna-qa-benchmark gen_gpt3.5_answer.py, text-davinci-003 config",
    ),
)  # fmt: skip

#: Rakuda's (jrank ``gen_api_model_answer.py``): chat models get its Japanese system
#: message where their conversation template has one; base models the Japanese roles.
RAKUDA_DIALOGUE = DialogueStyle(
    system_message="あなたは役立つアシスタントです。日本語で答えてください。",
    system_line="あなたは役立つアシスタントです。日本語で答えてください。",
    user_role="ユーザー",
    assistant_role="アシスタント",
    system_name="rakuda-upstream",
    line_name="rakuda-upstream",
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
    """``style`` with the user's system message for chat requests (``None`` or empty:
    none, as FastChat leaves an empty one out), named ``none`` or ``custom@`` and the first
    8 hex digits of its SHA-256 in signatures: a message given is the user's choice even
    where it equals upstream's text, which upstream may not have picked for the model."""
    if not text:
        return replace(style, system_message=None, system_name="none", templates=None)
    name = f"custom@{hashlib.sha256(text.encode()).hexdigest()[:8]}"
    return replace(style, system_message=text, system_name=name, templates=None)


def as_transcript(style: DialogueStyle) -> DialogueStyle:
    """``style`` as a base model's transcript sends it: no chat system message, the line
    the transcript opens with instead (``system_line``, signed by ``line_name``). The
    system message and its name become that line's, so what is signed and recorded is
    what is sent."""
    line = style.system_line
    return replace(
        style, system_message=line or None, system_name=style.line_name if line else "none",
        templates=None,
    )  # fmt: skip


def with_system_line(style: DialogueStyle, text: str | None) -> DialogueStyle:
    """``style``'s transcript opened by the user's line (``None`` or empty: none), signed
    as ``with_system_message`` signs it."""
    chosen = with_system_message(style, text)
    return replace(chosen, system_line=chosen.system_message or "", line_name=chosen.system_name)


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
