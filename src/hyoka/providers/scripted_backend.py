"""A model that replies from a script: dry runs and exact tests, with no model at all.

``scripted/PATH`` answers every request from PATH, a JSON Lines file read once, as
inspect_ai's ``mockllm`` does for its users. A judge's numbers then follow from the script
alone, so a test can assert them exactly (a median of ``[[7]]`` and ``[[9]]`` is 8), and a
user can try a judging setup end to end before paying for a call. Each line is a rule:

- ``{"prompt": TEXT, "reply": ...}``: for a request whose last user message (or raw
  prompt) is exactly TEXT;
- ``{"contains": TEXT, "reply": ...}``: for one that contains TEXT;
- ``{"reply": ...}``: for any other request (the default rule);
- FastChat's judgment records (``{"user_prompt": TEXT, "judgment": REPLY, ...}``) are
  exact rules as they stand, so a published judgment file replays as its own script.

Exact rules come before ``contains`` rules, and those before the default, each in file
order. ``reply`` is a text or a list of texts: the n-th request a rule answers gets its
n-th text, the last one again after that (a script can say "no rating, then ``[[8]]``" to
exercise a retry). ``n`` samples take ``n`` texts in a row. A request no rule answers is a
``ProviderError`` naming the script and the request's start.

Where a request asks for log probabilities, each character of the reply is one token with
log probability 0; a rule's ``"alternatives": {"A": -0.2, "B": -1.8}`` gives the top log
probabilities at every character that is one of those keys (the verdict letter of a
pairwise reply), which is all a verdict-probability reader looks at. Token counts are
characters. The script's SHA-256 is part of the provider's identity, so cached replies of
an edited script are never served again; its first 16 hex digits (``script_pin``) are part
of a judge's settings (``judge.JudgeSettings.script``), so a judgment file graded by one
script is never continued by an edited one. A scripted judge's numbers are a dry run:
every page and signature that shows them names the script (``is_scripted``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from hyoka.errors import InputError
from hyoka.providers.base import Provider
from hyoka.providers.errors import ProviderError
from hyoka.providers.types import (
    Choice,
    GenerationRequest,
    GenerationResponse,
    TokenLogprob,
    TopLogprob,
    Usage,
)
from hyoka.store import read_bytes, read_objects

_SHOWN_PROMPT = 60
#: the provider name of a model that replies from a script
SCRIPTED = "scripted"
#: the hex digits of a script's SHA-256 a judge's settings keep
PIN_DIGITS = 16


def is_scripted(spec: str) -> bool:
    """Whether ``spec`` (``provider/model``) names a scripted model: its replies are read
    from a script, so its numbers are a dry run, not a model's judgment."""
    return spec.partition("/")[0] == SCRIPTED


def pin_of(script: bytes) -> str:
    """The short digest of a script's bytes that a judge's settings keep."""
    return hashlib.sha256(script).hexdigest()[:PIN_DIGITS]


def script_pin(spec: str) -> str | None:
    """What decides the replies of the model ``spec`` names beyond its name, where its name
    does not: for ``scripted/PATH`` the digest of the script (``pin_of``), so an edited
    script is another judge; ``None`` for every other model, and where there is no script
    file (loading the model then says so)."""
    if not is_scripted(spec):
        return None
    path = Path(spec.partition("/")[2]).expanduser()
    return pin_of(read_bytes(path)) if path.is_file() else None


@dataclass
class _Rule:
    where: str
    replies: tuple[str, ...]
    alternatives: tuple[TopLogprob, ...]
    used: int = 0

    def next_reply(self) -> tuple[str, tuple[TopLogprob, ...]]:
        reply = self.replies[min(self.used, len(self.replies) - 1)]
        self.used += 1
        return reply, self.alternatives


def _text(value: Any, where: str, key: str) -> str:
    if not isinstance(value, str):
        raise InputError(f"{where}: {key!r} must be a text")
    return value


def _rule(where: str, line: Mapping[str, Any]) -> tuple[str, str | None, _Rule]:
    """``(kind, key, rule)``: kind ``prompt``, ``contains`` or ``default``."""
    if "judgment" in line and "user_prompt" in line:  # a FastChat judgment record
        reply = _text(line["judgment"], where, "judgment")
        return (
            "prompt",
            _text(line["user_prompt"], where, "user_prompt"),
            _Rule(where, (reply,), ()),
        )
    raw = line.get("reply")
    replies = (raw,) if isinstance(raw, str) else tuple(raw) if isinstance(raw, list) else ()
    if not replies or not all(isinstance(reply, str) for reply in replies):
        raise InputError(f"{where}: 'reply' must be a text or a non-empty list of texts")
    alternatives = line.get("alternatives", {})
    if not isinstance(alternatives, dict) or not all(
        isinstance(v, int | float) and not isinstance(v, bool) and v <= 0
        for v in alternatives.values()
    ):
        raise InputError(f"{where}: 'alternatives' must map tokens to log probabilities <= 0")
    top = tuple(TopLogprob(token=k, logprob=float(v)) for k, v in alternatives.items())
    if "prompt" in line and "contains" in line:
        raise InputError(f"{where}: a rule has 'prompt' or 'contains', not both")
    for kind in ("prompt", "contains"):
        if kind in line:
            return kind, _text(line[kind], where, kind), _Rule(where, replies, top)
    return "default", None, _Rule(where, replies, top)


class ScriptedProvider(Provider):
    """Replies read from a script file (see the module's docstring for its rules)."""

    name: ClassVar[str] = "scripted"
    supports_logprobs: ClassVar[bool] = True
    in_process: ClassVar[bool] = True

    def __init__(self, model: str, *, base_url: str | None = None) -> None:
        if base_url is not None:
            raise ProviderError("scripted/PATH replies from its script and takes no `base_url`")
        super().__init__(model)
        path = Path(model).expanduser()
        if not path.is_file():
            raise ProviderError(f"scripted/{model}: no script file at {path}")
        self.path = path
        script = read_bytes(path)  # hashed and read as the same bytes
        self.sha256 = hashlib.sha256(script).hexdigest()
        self._exact: dict[str, _Rule] = {}
        self._contains: list[tuple[str, _Rule]] = []
        self._default: _Rule | None = None
        for number, line in read_objects(path, script):
            kind, key, rule = _rule(f"{path}:{number}", line)
            if kind == "prompt" and key is not None:
                self._exact.setdefault(key, rule)
            elif kind == "contains" and key is not None:
                self._contains.append((key, rule))
            elif self._default is None:
                self._default = rule
        if not (self._exact or self._contains or self._default):
            raise InputError(f"{path}: a script needs at least one rule")

    def identity(self) -> dict[str, Any]:
        return {**super().identity(), "script_sha256": self.sha256}

    @property
    def replies_pin(self) -> str | None:
        """The script's digest (``script_pin``): what decides this model's replies."""
        return self.sha256[:PIN_DIGITS]

    def _rule_for(self, text: str) -> _Rule:
        rule = self._exact.get(text)
        if rule is None:
            rule = next((r for key, r in self._contains if key in text), self._default)
        if rule is None:
            start = text[:_SHOWN_PROMPT] + ("…" if len(text) > _SHOWN_PROMPT else "")
            raise ProviderError(f"scripted/{self.model}: no rule answers the request {start!r}")
        return rule

    async def generate(self, request: GenerationRequest) -> GenerationResponse:
        self.check_request(request)
        if request.messages is not None:
            users = [m.content for m in request.messages if m.role == "user"]
            text = users[-1] if users else request.messages[-1].content
            prompt_chars = sum(len(m.content) for m in request.messages)
        else:
            text = request.prompt or ""
            prompt_chars = len(text)
        rule = self._rule_for(text)
        choices = []
        for _ in range(request.n):
            reply, alternatives = rule.next_reply()
            logprobs = _char_logprobs(reply, alternatives) if request.params.logprobs else None
            choices.append(Choice(text=reply, finish_reason="stop", logprobs=logprobs))
        completion_chars = sum(len(choice.text) for choice in choices)
        return GenerationResponse(
            choices=tuple(choices),
            usage=Usage(prompt_tokens=prompt_chars, completion_tokens=completion_chars),
            model=self.model,
        )


def _char_logprobs(reply: str, alternatives: tuple[TopLogprob, ...]) -> tuple[TokenLogprob, ...]:
    keyed = {alt.token for alt in alternatives}
    return tuple(
        TokenLogprob(
            token=char,
            logprob=next((a.logprob for a in alternatives if a.token == char), 0.0),
            top=alternatives if char in keyed else (TopLogprob(token=char, logprob=0.0),),
        )
        for char in reply
    )
