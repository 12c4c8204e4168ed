"""How a benchmark's judge prompt file is written, as objects with one interface.

A definition (or its variant) names its format; ``Bench.load`` asks it for the prompts by
name and never tests which format it is. Three exist: FastChat's ``judge_prompts.jsonl``,
llm-jp-judge's YAML mapping (single-grading prompts only: llm-jp-judge grades single only),
and a function in upstream's Python that returns the prompt as an f-string (Shaberi's
``evaluation_datasets_config.py``), read with ``ast``, never run. A format's ``name`` is
what a variant's signature says of it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from hyoka.errors import DataError
from hyoka.mtbench.prompt_yaml import read_prompt_yaml
from hyoka.mtbench.shaberi import SHABERI_FIELDS, ReaskSource, fstring_template, reask_template
from hyoka.store import read_records


class JudgePrompt(BaseModel):
    """One line of ``judge_prompts.jsonl`` (FastChat's judge prompt format)."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    name: str
    type: Literal["single", "pairwise"]
    system_prompt: str
    prompt_template: str
    category: str = "general"
    output_format: str = Field(default="[[rating]]")


class PromptFormat(Protocol):
    """What the loader asks of a judge prompt file's format."""

    @property
    def name(self) -> str:
        """The format's name, as signatures and listings show it."""
        ...

    def read(self, path: Path, data: bytes, single: str) -> dict[str, JudgePrompt]:
        """The prompts in ``data`` (the bytes of ``path``) by name; ``single``: the name
        of the single-grading prompt, for a format that builds one prompt unnamed."""
        ...


@dataclass(frozen=True)
class FastChatPrompts:
    """FastChat's ``judge_prompts.jsonl``: one ``JudgePrompt`` a line."""

    name: str = "jsonl"

    def read(self, path: Path, data: bytes, single: str) -> dict[str, JudgePrompt]:
        return {p.name: p for _, p in read_records(path, JudgePrompt, data)}


@dataclass(frozen=True)
class LlmJpYaml:
    """llm-jp-judge's YAML mapping of prompt names to ``system_prompt`` and
    ``prompt_template``: single-grading prompts."""

    name: str = "llm-jp-yaml"

    def read(self, path: Path, data: bytes, single: str) -> dict[str, JudgePrompt]:
        prompts: dict[str, JudgePrompt] = {}
        for name, fields in read_prompt_yaml(path, data).items():
            if "prompt_template" not in fields or "system_prompt" not in fields:
                raise DataError(
                    f"{path}: prompt {name!r} lacks its prompt_template or system_prompt"
                )
            prompts[name] = JudgePrompt(
                name=name,
                type="single",
                system_prompt=fields["system_prompt"],
                prompt_template=fields["prompt_template"],
            )
        return prompts


def reask_name(single: str) -> str:
    """The name a format gives the re-ask prompt of its single-grading prompt ``single``."""
    return f"{single}/reask"


@dataclass(frozen=True)
class PythonFString:
    """The one prompt upstream's ``function`` returns as an f-string (Shaberi's), read
    with ``ast``; ``reask``: where the same file builds the second prompt a reply without a
    score is re-asked with (Shaberi since 2025-11), read as ``reask_name(single)``."""

    function: str
    reask: ReaskSource | None = None

    @property
    def name(self) -> str:
        also = "" if self.reask is None else f"+{self.reask.function}"
        return f"python:{self.function}{also}"

    def read(self, path: Path, data: bytes, single: str) -> dict[str, JudgePrompt]:
        template = fstring_template(path, data, self.function, SHABERI_FIELDS)
        prompt = JudgePrompt(
            name=single, type="single", system_prompt="", prompt_template=template,
            output_format="int",
        )  # fmt: skip
        prompts = {prompt.name: prompt}
        if self.reask is not None:
            again = JudgePrompt(
                name=reask_name(single), type="single", system_prompt="",
                prompt_template=reask_template(path, data, self.reask), output_format="int",
            )  # fmt: skip
            prompts[again.name] = again
        return prompts


FASTCHAT_PROMPTS = FastChatPrompts()
LLM_JP_YAML = LlmJpYaml()
