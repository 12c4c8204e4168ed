from hyoka.data.fetch import FetchEvent, FetchReport, FileProblem, fetch, verify
from hyoka.data.manifest import (
    ALL_GROUPS,
    CORE,
    Group,
    Manifest,
    all_manifests,
    manifest,
    manifest_names,
)
from hyoka.data.paths import resolve_data_dir

__all__: list[str] = [
    "ALL_GROUPS",
    "CORE",
    "FetchEvent",
    "FetchReport",
    "FileProblem",
    "Group",
    "Manifest",
    "all_manifests",
    "fetch",
    "manifest",
    "manifest_names",
    "resolve_data_dir",
    "verify",
]
