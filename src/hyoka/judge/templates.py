"""Judge prompt templates as data files: a name, a version, the text and how to read the reply.

Templates are TOML files (the packaged ones live in ``hyoka/judge/templates/``; a user can
point at their own file). Placeholders are ``{identifier}`` and nothing else, filled in one
pass by a regular expression rather than ``str.format``: the text may hold other braces (a
JSON example) untouched, and a field value that itself contains ``{answer}`` is never
substituted again, so an answer cannot smuggle text into another part of the prompt. A
doubled ``{{name}}`` is not a placeholder and stays as written.

Each kind of template says which fields it needs and which it may use; a template that
lacks a required one or names an unknown one is rejected when it is loaded, before any
judge call is made.
"""

from __future__ import annotations

import re
from functools import cached_property
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from hyoka.errors import InputError
from hyoka.providers import Message
from hyoka.store import NotReadError, parse_toml, read_toml

TemplateKind = Literal["single", "pairwise", "criteria"]
OutputFormat = Literal["rating", "verdict", "verdict-after-reasons", "text"]

#: Fields each kind must use, and may use besides.
REQUIRED: dict[str, frozenset[str]] = {
    "single": frozenset({"question", "answer"}),
    "pairwise": frozenset({"question", "answer_a", "answer_b"}),
    "criteria": frozenset({"question"}),
}
OPTIONAL: dict[str, frozenset[str]] = {
    "single": frozenset({"reference"}),
    "pairwise": frozenset({"reference", "criteria"}),
    "criteria": frozenset({"reference"}),
}
#: How the reply of each kind may be read.
OUTPUTS: dict[str, frozenset[str]] = {
    "single": frozenset({"rating"}),
    "pairwise": frozenset({"verdict", "verdict-after-reasons"}),
    "criteria": frozenset({"text"}),
}

_PLACEHOLDER = re.compile(r"(?<!\{)\{([A-Za-z_][A-Za-z0-9_]*)\}(?!\})")
_PACKAGE = "hyoka.judge"
_FOLDER = "templates"


def _placeholders(text: str) -> set[str]:
    return set(_PLACEHOLDER.findall(text))


class JudgeTemplate(BaseModel):
    """One judge prompt: ``system`` (may be empty) and ``user`` text with placeholders."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    version: str
    kind: TemplateKind
    output: OutputFormat
    description: str = ""
    system: str = ""
    user: str
    source: str

    @model_validator(mode="after")
    def _fields_fit_the_kind(self) -> JudgeTemplate:
        used = self.placeholders
        missing = sorted(REQUIRED[self.kind] - used)
        unknown = sorted(used - REQUIRED[self.kind] - OPTIONAL[self.kind])
        if missing:
            raise ValueError(
                f"a {self.kind} template must use "
                + ", ".join("{" + name + "}" for name in missing)
            )
        if unknown:
            allowed = sorted(REQUIRED[self.kind] | OPTIONAL[self.kind])
            raise ValueError(
                "unknown placeholder "
                + ", ".join("{" + name + "}" for name in unknown)
                + f" (a {self.kind} template may use "
                + ", ".join("{" + name + "}" for name in allowed)
                + ")"
            )
        if self.output not in OUTPUTS[self.kind]:
            raise ValueError(
                f"output {self.output!r} does not fit a {self.kind} template "
                f"(use {' or '.join(sorted(OUTPUTS[self.kind]))})"
            )
        if not self.name.strip() or not self.version.strip():
            raise ValueError("name and version must not be empty")
        return self

    @cached_property
    def placeholders(self) -> frozenset[str]:
        """Every field the system and user texts use."""
        return frozenset(_placeholders(self.system) | _placeholders(self.user))

    def require_kind(self, kind: TemplateKind, use: str) -> None:
        """Refuse, before any call, a template written for another protocol."""
        if self.kind != kind:
            raise InputError(
                f"template {self.name!r} ({self.source}) is a {self.kind} template; "
                f"{use} needs a {kind} template"
            )

    def render(self, **fields: str) -> tuple[Message, ...]:
        """The messages to send: the system message (when there is one), then the user's."""
        missing = sorted(self.placeholders - fields.keys())
        if missing:
            raise InputError(
                f"template {self.name!r} ({self.source}) needs "
                + ", ".join("{" + name + "}" for name in missing)
            )

        def fill(text: str) -> str:
            return _PLACEHOLDER.sub(lambda match: fields[match.group(1)], text)

        user = Message(role="user", content=fill(self.user))
        if not self.system:
            return (user,)
        return (Message(role="system", content=fill(self.system)), user)


def _parse(text: str, source: str) -> JudgeTemplate:
    data = parse_toml(text, source)
    data["source"] = source
    try:
        return JudgeTemplate.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(part) for part in error["loc"])
        message = str(error["msg"]).removeprefix("Value error, ")
        raise InputError(
            f"{source}: not a judge template ({where + ': ' if where else ''}{message})"
        ) from None


def _template_files() -> dict[str, Any]:
    folder = resources.files(_PACKAGE).joinpath(_FOLDER)
    return {
        entry.name.removesuffix(".toml"): entry
        for entry in folder.iterdir()
        if entry.name.endswith(".toml")
    }


def packaged_templates() -> list[JudgeTemplate]:
    """Every template shipped with hyoka, by name."""
    files = _template_files()
    return [
        _parse(files[name].read_text(encoding="utf-8"), _source(name)) for name in sorted(files)
    ]


def _source(name: str) -> str:
    return f"{_PACKAGE.replace('.', '/')}/{_FOLDER}/{name}.toml"


def load_template(name_or_path: str) -> JudgeTemplate:
    """A packaged template by name (``pfgen-single``), or a user's ``.toml`` file by path."""
    path = Path(name_or_path)
    if name_or_path.endswith(".toml") or path.parent != Path() or path.is_file():
        try:  # a FIFO is named, not waited on; a device is not read (the store's reader)
            _, text = read_toml(path)
        except NotReadError as exc:
            if exc.refused:
                raise
            raise InputError(f"cannot read the judge template {path}: {exc.reason}") from None
        return _parse(text, str(path))
    files = _template_files()
    if name_or_path not in files:
        known = ", ".join(sorted(files))
        raise InputError(
            f"no judge template named {name_or_path!r} (packaged: {known}; "
            "or give the path of a .toml file)"
        )
    return _parse(files[name_or_path].read_text(encoding="utf-8"), _source(name_or_path))
