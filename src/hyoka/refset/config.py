"""Settings files: ``hyoka refset build``'s (stages 2–7) and stage 1's generation file.

Relative paths are relative to the settings file. Unknown keys are errors (a typo must not
silently fall back to a default), and the sizes are checked against each other before
anything runs.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from hyoka.errors import InputError
from hyoka.refset.executor import Executor
from hyoka.refset.generate import GenerateConfig
from hyoka.store import read_toml


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class RulesSection(_Section):
    rules: Path | None = None


class RareSection(_Section):
    n: int = Field(default=5, ge=0, le=20)  # 0: the filter is off


class LengthSection(_Section):
    size: int = Field(default=30_000, ge=1)
    target: int = Field(default=100, ge=1)
    allow_fewer: bool = False


class RepresentativeSection(_Section):
    size: int = Field(default=1_000, ge=1)
    max_n: int = Field(default=10, ge=1, le=10)
    seed: int = 0
    allow_fewer: bool = False


class BuildConfig(_Section):
    work: Path
    out: Path
    benchmark: Path | None = None
    executor: Executor = Executor.LOCAL
    questions: list[str] = Field(default_factory=list)
    normalise: RulesSection = Field(default_factory=RulesSection)
    filter_rules: RulesSection = Field(default_factory=RulesSection, alias="filter-rules")
    filter_rare: RareSection = Field(default_factory=RareSection, alias="filter-rare")
    select_length: LengthSection = Field(default_factory=LengthSection, alias="select-length")
    select_representative: RepresentativeSection = Field(
        default_factory=RepresentativeSection, alias="select-representative"
    )

    def stage_settings(self) -> dict[str, dict[str, Any]]:
        """Each stage's parameters, as the stage commands take them."""
        return {
            "normalise": {"rules": _text(self.normalise.rules)},
            "filter-rules": {"rules": _text(self.filter_rules.rules)},
            "filter-rare": {"n": self.filter_rare.n},
            "select-length": self.select_length.model_dump(),
            "select-representative": self.select_representative.model_dump(),
        }


def _text(path: Path | None) -> str | None:
    return str(path) if path is not None else None


def load_build_config(path: Path) -> BuildConfig:
    raw, _text = read_toml(path)
    try:
        config = BuildConfig.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise InputError(f"{path}: {where}: {first['msg']}") from None
    base = path.parent

    def resolve(p: Path | None) -> Path | None:
        return None if p is None else (p if p.is_absolute() else base / p)

    config = config.model_copy(
        update={
            "work": resolve(config.work),
            "out": resolve(config.out),
            "benchmark": resolve(config.benchmark),
            "normalise": RulesSection(rules=resolve(config.normalise.rules)),
            "filter_rules": RulesSection(rules=resolve(config.filter_rules.rules)),
        }
    )
    if config.select_representative.size > config.select_length.size:
        raise InputError(
            f"{path}: select-representative.size ({config.select_representative.size}) is "
            f"larger than select-length.size ({config.select_length.size})"
        )
    return config


# ---------------------------------------------------------------------------------------
# Stage 1's settings file: what ``hyoka refset plan`` calibrates and estimates, and what
# ``hyoka refset generate`` would run, read from one place so the two cannot drift apart.

#: keys of the generation file that are not ``GenerateConfig`` fields
_FILE_KEYS = frozenset({"work", "benchmark", "questions", "snippets", "plan"})
#: ``GenerateConfig`` fields that hyoka fills in itself and a file must not set
_DERIVED_KEYS = frozenset({"snippets_sha1"})


class PlanSection(_Section):
    """The workers a plan is made for, and how long its calibration runs."""

    workers: int = Field(default=1, ge=1)
    cpus_per_worker: float = Field(default=1.0, ge=0)
    gpus_per_worker: float = Field(default=0.0, ge=0)
    executor: Executor = Executor.LOCAL
    calibration_answers: int = Field(default=20, ge=1)  # per worker


class _FileSection(_Section):
    work: Path
    benchmark: Path | None = None
    questions: list[str] = Field(default_factory=list)
    snippets: Path | None = None
    plan: PlanSection = Field(default_factory=PlanSection)


@dataclass(frozen=True)
class GenerateFile:
    """A generation settings file, read: paths resolved against the file's folder."""

    path: Path
    generation: GenerateConfig
    work: Path
    benchmark: Path | None
    questions: tuple[str, ...]
    snippets: Path | None
    plan: PlanSection

    def served_at(self, base_url: str) -> GenerateFile:
        """These settings with the model served at ``base_url`` (an OpenAI-compatible
        server's URL): the file's ``base_url`` option replaced, as ``--base-url`` gives it,
        where every generation setting stays the file's (where the model answers is not
        what it answers)."""
        options = {**self.generation.options, "base_url": base_url}
        generation = GenerateConfig.model_validate(
            {**self.generation.model_dump(), "options": options}
        )
        return replace(self, generation=generation)


def load_generate_file(path: Path) -> GenerateFile:
    """Read a generation settings file (see ``examples/refset/generate-example.toml``).

    Its top-level keys are ``GenerateConfig``'s fields plus ``work``, ``benchmark``,
    ``questions``, ``snippets`` and a ``[plan]`` table; anything else is an error naming
    the file, because a misspelt key silently left at its default would change the
    answers (or the plan) without a word.
    """
    raw, _text = read_toml(path)
    derived = sorted(_DERIVED_KEYS & raw.keys())
    if derived:
        raise InputError(f"{path}: {derived[0]}: set by hyoka from the snippets file, not here")
    own = {key: value for key, value in raw.items() if key in _FILE_KEYS}
    rest = {key: value for key, value in raw.items() if key not in _FILE_KEYS}
    section = _validate(path, _FileSection, own)
    generation = _validate(path, GenerateConfig, rest)
    base = path.parent

    def resolve(p: Path | None) -> Path | None:
        return None if p is None else base / p  # an absolute p stays itself

    return GenerateFile(
        path=path,
        generation=generation,
        work=base / section.work,
        benchmark=resolve(section.benchmark),
        questions=tuple(section.questions),
        snippets=resolve(section.snippets),
        plan=section.plan,
    )


_Model = TypeVar("_Model", bound=BaseModel)


def _validate(path: Path, model: type[_Model], raw: dict[str, Any]) -> _Model:
    """``model`` from ``raw``, or one line naming the file, the key and what is wrong."""
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top level)"
        message = "unknown key" if first["type"] == "extra_forbidden" else first["msg"]
        message = message.removeprefix("Value error, ")  # pydantic's wording for a validator
        raise InputError(f"{path}: {where}: {message}") from None
