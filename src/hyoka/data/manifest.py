"""The pinned lists of files each benchmark needs, shipped inside the package.

Every file is named by its place upstream at one commit and by its size and SHA-256, so a
download can be checked byte for byte and every user scores against the same data. The
manifests are package data rather than code so that re-pinning a benchmark is a data change.

A benchmark's files usually come from one repository at one commit (the manifest's own
``repository`` and ``commit``). Where they do not (Japanese MT-bench: Stability-AI's current
branch, two of its 2023 commits, llm-jp-judge and swallow-evaluation), a file names its own
``repository`` and ``commit``, and is downloaded from there (``Manifest.source``).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Collection
from importlib.resources import files
from pathlib import PurePosixPath
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from hyoka.errors import DataError, HyokaError

#: ``core`` is what scoring needs; ``published`` is optional upstream output (model answers
#: and judgments) that is large and only needed to reproduce the published leaderboards;
#: ``sources`` are upstream's source files hyoka reads (never runs) for the exact texts a
#: protocol sends beyond the core data (JFBench's prompt wording, Shaberi's 2025 ELYZA
#: prompt file), fetched when asked for, so the default path never waits on them.
Group = Literal["core", "published", "sources"]

CORE: frozenset[Group] = frozenset({"core"})
ALL_GROUPS: frozenset[Group] = frozenset({"core", "published", "sources"})
#: the command-line flag that fetches (and requires) each optional group
GROUP_FLAGS: dict[Group, str] = {"published": "--with-published", "sources": "--with-sources"}

_SUFFIX = ".json"
_REPOSITORY = r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$"
_COMMIT = r"^[0-9a-f]{40}$"


class ManifestFile(BaseModel):
    """One file: where it goes in the data directory, where it comes from, what it must be.

    ``repository`` and ``commit`` (both or neither) pin a file that comes from elsewhere
    than its manifest's repository and commit; ``upstream`` is its path there.

    ``derived``: a file upstream does not have, made from ``upstream`` (a file or folder at
    the pinned commit) as the sentence says (a table extracted from thousands of files too
    large to copy). It is verified like any file where present; a fetch downloads nothing
    for it and says so, with this sentence.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    path: str
    upstream: str
    repository: str | None = Field(default=None, pattern=_REPOSITORY)
    commit: str | None = Field(default=None, pattern=_COMMIT)
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    size: int = Field(ge=0)
    group: Group
    derived: str | None = None

    @model_validator(mode="after")
    def _pinned_whole(self) -> ManifestFile:
        # A repository without a commit would follow a moving branch; a commit without a
        # repository would be looked up in the wrong one.
        if (self.repository is None) != (self.commit is None):
            raise ValueError(
                f"{self.path}: a file names both its repository and commit, or neither"
            )
        return self

    @field_validator("path", "upstream")
    @classmethod
    def _relative_and_contained(cls, value: str) -> str:
        # A manifest path must never write outside the data directory, nor fetch outside the
        # pinned tree, even if a manifest is edited by hand.
        parts = PurePosixPath(value).parts
        if not parts or value.startswith("/") or "\\" in value or ".." in parts:
            raise ValueError(f"not a plain relative path: {value!r}")
        return value


class Manifest(BaseModel):
    """A benchmark pinned to one upstream commit (and, file by file, to others)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    title: str
    repository: str = Field(pattern=_REPOSITORY)
    commit: str = Field(pattern=_COMMIT)
    #: upstream's own hash of the pinned data, where its results record one (pfgen-bench's
    #: ``metadata_hash``: SHA-1 over the SHA-1 hex digests of ``data/Q*.json`` in name
    #: order), so a result can be told to have been scored with the pinned release or not
    upstream_data_hash: str | None = Field(default=None, pattern=r"^[0-9a-f]{40}$")
    files: tuple[ManifestFile, ...]
    #: what the benchmark's reader takes from the data directory beyond named files: globs
    #: relative to it (pfgen-bench's scorer reads every ``pfgen-bench/data/Q*.json``), so a
    #: file one matches that the manifest does not pin (a ``Q51.json``) is found by ``verify``
    #: instead of being scored as if it were data
    reads: tuple[str, ...] = ()

    @field_validator("reads")
    @classmethod
    def _globs_contained(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for glob in value:
            ManifestFile._relative_and_contained(glob)
        return value

    def select(self, groups: Collection[Group] = CORE) -> tuple[ManifestFile, ...]:
        """The files of ``groups``, in manifest order."""
        return tuple(f for f in self.files if f.group in groups)

    def source(self, file: ManifestFile) -> tuple[str, str]:
        """The repository and commit ``file`` is pinned to: its own, else the manifest's."""
        if file.repository is not None and file.commit is not None:
            return file.repository, file.commit
        return self.repository, self.commit


def manifest_names() -> tuple[str, ...]:
    """Names of the shipped manifests, sorted; found on disk so adding one needs no code."""
    folder = files("hyoka.data") / "manifests"
    return tuple(
        sorted(
            entry.name.removesuffix(_SUFFIX)
            for entry in folder.iterdir()
            if entry.name.endswith(_SUFFIX)
        )
    )


@functools.cache
def group_of(name: str, path: str) -> Group | None:
    """The group of the file ``path`` (relative to the data directory) in benchmark
    ``name``'s manifest; ``None`` where no manifest pins it."""
    if name not in manifest_names():
        return None
    return next((f.group for f in manifest(name).files if f.path == path), None)


def manifest(name: str) -> Manifest:
    """The manifest called ``name`` (``pfgen``, ``pfmt-fin``, ``mt-bench``)."""
    known = manifest_names()
    if name not in known:
        raise HyokaError(f"unknown benchmark {name!r}; known benchmarks: {', '.join(known)}")
    resource = files("hyoka.data") / "manifests" / f"{name}{_SUFFIX}"
    try:
        loaded = Manifest.model_validate(json.loads(resource.read_text(encoding="utf-8")))
    except ValueError as exc:  # bad JSON or a pydantic ValidationError
        # A broken manifest is a packaging bug, but say which one rather than dump a trace.
        first = str(exc).splitlines()[0]
        raise DataError(f"manifest {name!r} shipped with hyoka is malformed: {first}") from exc
    if loaded.name != name:
        raise DataError(f"manifest file {name}{_SUFFIX} declares name {loaded.name!r}")
    return loaded


def all_manifests() -> tuple[Manifest, ...]:
    """Every shipped manifest, in name order."""
    return tuple(manifest(name) for name in manifest_names())
