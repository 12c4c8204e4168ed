"""Model names that move: an alias the provider points at a newer model without notice.

A judge named ``openai/gpt-4o`` is whatever OpenAI serves as ``gpt-4o`` that day; the same
command a month later may be judged by another snapshot. Such a name is not an error (it
is what most people type, and what upstream used), but a run made with it cannot be
repeated, so the user is told once per run, and each judgment keeps the model the provider
said it served (``GenerationResponse.model``: OpenAI's and Anthropic's ``model``, Gemini's
``model_version``), collected by ``served_models``.

Which names move is a rule per provider, kept as data (``MOVING_ALIASES``): a name is a
moving alias when it matches a rule of its provider (``*``: every provider). The rules:

- any provider: a name ending in ``-latest`` (``claude-3-5-sonnet-latest``,
  ``gemini-1.5-pro-latest``, ``chatgpt-4o-latest``);
- OpenAI: a name of OpenAI's own families (``gpt-``, ``chatgpt-``, ``o1``, ``o3`` ...)
  without a snapshot date, which OpenAI writes as ``-YYYY-MM-DD`` (``gpt-4o-2024-08-06``)
  or, for older models, ``-MMDD`` (``gpt-4-0613``, ``gpt-4-1106-preview``): ``gpt-4``,
  ``gpt-4o``, ``gpt-4-turbo``, ``gpt-3.5-turbo-16k`` move. Other names served through the
  OpenAI protocol (a local server's ``Qwen/...``) are not OpenAI's to move.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

#: a snapshot date in an OpenAI name: -YYYY-MM-DD, or -MMDD as a whole part of the name
_OPENAI_DATE = r"-(?:\d{4}-\d{2}-\d{2}|\d{4})(?:-|$)"


@dataclass(frozen=True)
class AliasRule:
    """Names of ``provider`` (``*``: any) matching ``pattern`` move, for the reason ``why``."""

    provider: str
    pattern: re.Pattern[str]
    why: str


MOVING_ALIASES: tuple[AliasRule, ...] = (
    AliasRule("*", re.compile(r"-latest$"), "a -latest name follows the provider's newest model"),
    AliasRule(
        "openai",
        re.compile(rf"^(?:gpt-|chatgpt-|o\d)(?!.*{_OPENAI_DATE})"),
        "OpenAI pins a snapshot by a date in its name, as -2024-08-06 or -0613, and a name "
        "without one follows the newest",
    ),
)


def moving_alias(spec: str) -> str | None:
    """Why the model of ``spec`` (``provider/model``) is a moving alias; ``None`` if no
    rule says it is (a dated snapshot, a local model, a scripted judge)."""
    provider, _sep, model = spec.partition("/")
    for rule in MOVING_ALIASES:
        if rule.provider in ("*", provider) and rule.pattern.search(model):
            return rule.why
    return None


def alias_note(spec: str, served: Mapping[str, int]) -> str | None:
    """The one line a run's user is told about its judge's name (``None``: nothing to
    tell): a moving alias, with the snapshot(s) the provider said served the run's calls
    (``served``: name -> calls, those it named another model than asked), or several
    snapshots behind one name, which means it moved during the run."""
    why = moving_alias(spec)
    if why is None and len(served) < 2:
        return None
    head = f"judge {spec} is a moving alias ({why})" if why else f"judge {spec}"
    if not served:
        return f"{head}: the provider named no snapshot, so no judgment can say which answered"
    if len(served) == 1:
        (name,) = served
        return (
            f"{head}: the provider served {name}, kept in each judgment as served_models; "
            "name that snapshot to repeat this run"
        )
    calls = ", ".join(f"{name} ({count} calls)" for name, count in sorted(served.items()))
    return (
        f"{head}: the provider served {calls}, so the name moved during this run; each "
        "judgment keeps its own in served_models"
    )
