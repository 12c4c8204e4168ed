"""``hyoka refset build``'s settings file: stages 2–7 in one TOML file.

Relative paths are relative to the settings file. Unknown keys are errors (a typo must not
silently fall back to a default), and the sizes are checked against each other before
anything runs.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from hyoka.errors import InputError
from hyoka.refset.executor import Executor


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
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{path}: invalid TOML: {exc}") from None
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
