"""The one pinned number scoring needs, read without the manifest models.

Every scored pfgen result says whether its reference data is the pinned release, by
upstream's ``metadata_hash`` in the pfgen manifest. Scoring needs only that field, so it is
read here as plain JSON: the manifest models (``manifest``, pydantic) are for fetching
and checking files, and a scorer that loaded them would pay for what it never uses. A test
holds this reading equal to the models' for every shipped manifest.
"""

from __future__ import annotations

import functools
import re
from importlib.resources import files

from hyoka.errors import DataError, InputError
from hyoka.store import parse_json

_HASH = re.compile(r"[0-9a-f]{40}")


@functools.cache
def upstream_data_hash(name: str) -> str | None:
    """``manifest(name).upstream_data_hash``: upstream's own hash of the pinned data."""
    resource = files("hyoka.data") / "manifests" / f"{name}.json"
    try:
        value = parse_json(resource.read_text(encoding="utf-8"), f"manifest {name!r}")
        value = value.get("upstream_data_hash")
    except (OSError, InputError, AttributeError) as exc:
        raise DataError(f"manifest {name!r} shipped with hyoka is unreadable: {exc}") from None
    if value is not None and not (isinstance(value, str) and _HASH.fullmatch(value)):
        raise DataError(f"manifest {name!r} shipped with hyoka has a malformed upstream_data_hash")
    return value
