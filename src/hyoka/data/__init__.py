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
from hyoka.data.paths import DATA_DIR_ENV, fetch_hint, resolve_data_dir

__all__: list[str] = [
    "ALL_GROUPS",
    "CORE",
    "DATA_DIR_ENV",
    "FetchEvent",
    "FetchReport",
    "FileProblem",
    "Group",
    "Manifest",
    "all_manifests",
    "fetch",
    "fetch_hint",
    "manifest",
    "manifest_names",
    "resolve_data_dir",
    "verify",
]
