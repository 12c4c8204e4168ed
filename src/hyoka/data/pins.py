"""The pinned numbers a run needs, read without the manifest models.

Every scored pfgen result says whether its reference data is the pinned release, by
upstream's ``metadata_hash`` in the pfgen manifest; a generation run reading upstream's
source for a system message says whether that file is the pinned one, by its SHA-256
(``pinned_sha256``). Those need a field each, so they are read here as plain JSON: the
manifest models (``manifest``, pydantic) are for fetching and checking files, and a run that
loaded them would pay for what it never uses. A test holds this reading equal to the
models' for every shipped manifest.
"""

from __future__ import annotations

import functools
import re
from importlib.resources import files
from typing import Any

from hyoka.errors import DataError, InputError
from hyoka.store import parse_json

_HASH = re.compile(r"[0-9a-f]{40}")
_SHA256 = re.compile(r"[0-9a-f]{64}")


@functools.cache
def _raw(name: str) -> dict[str, Any]:
    """Manifest ``name`` as plain JSON."""
    resource = files("hyoka.data") / "manifests" / f"{name}.json"
    try:
        value = parse_json(resource.read_text(encoding="utf-8"), f"manifest {name!r}")
    except (OSError, InputError) as exc:
        raise DataError(f"manifest {name!r} shipped with hyoka is unreadable: {exc}") from None
    if not isinstance(value, dict):
        raise DataError(f"manifest {name!r} shipped with hyoka is unreadable: not an object")
    return value


@functools.cache
def upstream_data_hash(name: str) -> str | None:
    """``manifest(name).upstream_data_hash``: upstream's own hash of the pinned data."""
    value = _raw(name).get("upstream_data_hash")
    if value is not None and not (isinstance(value, str) and _HASH.fullmatch(value)):
        raise DataError(f"manifest {name!r} shipped with hyoka has a malformed upstream_data_hash")
    return value


@functools.cache
def pinned_sha256(name: str, path: str) -> str | None:
    """The SHA-256 manifest ``name`` pins for its file ``path`` (relative to the data
    directory, as the manifest writes it); ``None`` where it pins no such file."""
    listed = _raw(name).get("files")
    for entry in listed if isinstance(listed, list) else ():
        if isinstance(entry, dict) and entry.get("path") == path:
            digest = entry.get("sha256")
            if not (isinstance(digest, str) and _SHA256.fullmatch(digest)):
                raise DataError(f"manifest {name!r} shipped with hyoka has a malformed sha256")
            return digest
    return None
