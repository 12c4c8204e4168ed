"""Benchmark data: where it lives (``resolve_data_dir``, ``fetch_hint``, ``data_file``), what
is pinned (``manifest``; ``upstream_data_hash`` without the models) and fetching it
(``fetch``, ``verify``).

Names load on first use (``hyoka._faces``): a scorer that only needs the data folder or
the hint to fetch it does not load the download code (urllib, http) nor the manifests'
pydantic models.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hyoka._faces import lazy_face

if TYPE_CHECKING:
    from hyoka.data.fetch import FetchEvent, FetchReport, FileProblem, fetch, verify
    from hyoka.data.manifest import (
        ALL_GROUPS,
        CORE,
        GROUP_FLAGS,
        Group,
        Manifest,
        all_manifests,
        manifest,
        manifest_names,
    )
    from hyoka.data.paths import DATA_DIR_ENV, data_file, fetch_hint, resolve_data_dir
    from hyoka.data.pins import pinned_sha256, upstream_data_hash
    from hyoka.data.python_source import parsed_source

#: Each public name -> (module, name there).
_EXPORTS: dict[str, tuple[str, str]] = {
    "ALL_GROUPS": ("hyoka.data.manifest", "ALL_GROUPS"),
    "CORE": ("hyoka.data.manifest", "CORE"),
    "DATA_DIR_ENV": ("hyoka.data.paths", "DATA_DIR_ENV"),
    "GROUP_FLAGS": ("hyoka.data.manifest", "GROUP_FLAGS"),
    "FetchEvent": ("hyoka.data.fetch", "FetchEvent"),
    "FetchReport": ("hyoka.data.fetch", "FetchReport"),
    "FileProblem": ("hyoka.data.fetch", "FileProblem"),
    "Group": ("hyoka.data.manifest", "Group"),
    "Manifest": ("hyoka.data.manifest", "Manifest"),
    "all_manifests": ("hyoka.data.manifest", "all_manifests"),
    "data_file": ("hyoka.data.paths", "data_file"),
    "fetch": ("hyoka.data.fetch", "fetch"),
    "fetch_hint": ("hyoka.data.paths", "fetch_hint"),
    "manifest": ("hyoka.data.manifest", "manifest"),
    "manifest_names": ("hyoka.data.manifest", "manifest_names"),
    "parsed_source": ("hyoka.data.python_source", "parsed_source"),
    "pinned_sha256": ("hyoka.data.pins", "pinned_sha256"),
    "resolve_data_dir": ("hyoka.data.paths", "resolve_data_dir"),
    "upstream_data_hash": ("hyoka.data.pins", "upstream_data_hash"),
    "verify": ("hyoka.data.fetch", "verify"),
}

__all__: list[str] = [
    "ALL_GROUPS",
    "CORE",
    "DATA_DIR_ENV",
    "GROUP_FLAGS",
    "FetchEvent",
    "FetchReport",
    "FileProblem",
    "Group",
    "Manifest",
    "all_manifests",
    "data_file",
    "fetch",
    "fetch_hint",
    "manifest",
    "manifest_names",
    "parsed_source",
    "pinned_sha256",
    "resolve_data_dir",
    "upstream_data_hash",
    "verify",
]

__getattr__, __dir__ = lazy_face(__name__, _EXPORTS)
