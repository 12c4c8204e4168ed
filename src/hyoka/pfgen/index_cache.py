"""On-disk cache of built reference indexes, keyed by the SHA-1 of the question file.

Building the indexes of all 50 questions takes seconds; loading them takes milliseconds.
The key is the file's content hash (not its path or time), so editing a question file or
switching data directories can never serve a stale index, and the engine version is part of
the folder name so a change of layout invalidates old entries wholesale. Each entry is one
raw blob of arrays plus a JSON file describing it; both are written to a temporary name and
renamed, blob first, so a killed build never leaves an entry that looks complete.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from hyoka.errors import DataError, InputError
from hyoka.pfgen.ngram_index import NgramIndex
from hyoka.pfgen.questions import QuestionInfo
from hyoka.pfgen.scorer import ReferenceSet
from hyoka.store import atomic_write_bytes, default_cache_dir, read_json, write_json

#: Bump when the stored layout or the index semantics change.
ENGINE_VERSION = 2


class IndexCache:
    def __init__(self, root: Path | None = None) -> None:
        self.root = (root or default_cache_dir()) / f"pfgen-index-v{ENGINE_VERSION}"

    def _paths(self, sha1: str) -> tuple[Path, Path]:
        return self.root / f"{sha1}.json", self.root / f"{sha1}.bin"

    def load_info(self, sha1: str) -> QuestionInfo | None:
        """Only the question's metadata: cheap, for mapping answers to questions."""
        meta = self._load_meta(sha1)
        if meta is None:
            return None
        try:
            return QuestionInfo.from_json(meta["question"], str(self._paths(sha1)[0]))
        except (KeyError, TypeError, ValueError, DataError):
            return None

    def load(self, sha1: str) -> tuple[QuestionInfo, list[ReferenceSet]] | None:
        """The cached question and sets, or None when absent or unreadable (then rebuilt).

        The arrays are views into one read of the blob file: no per-array parsing.
        """
        meta = self._load_meta(sha1)
        if meta is None:
            return None
        try:
            blob = self._paths(sha1)[1].read_bytes()
            if len(blob) != meta["blob_size"]:
                return None
            info = QuestionInfo.from_json(meta["question"], str(self._paths(sha1)[0]))
            sets = []
            for stored in meta["sets"]:
                arrays = {
                    name: np.frombuffer(blob, np.dtype(dtype), count, offset)
                    for name, dtype, offset, count in stored["arrays"]
                }
                index = NgramIndex.from_arrays(arrays)
                sets.append(ReferenceSet(stored["name"], index, float(stored["baseline"])))
            return info, sets
        except (OSError, ValueError, KeyError, TypeError, DataError):
            return None

    def store(self, sha1: str, info: QuestionInfo, sets: list[ReferenceSet]) -> None:
        """Blob first, metadata last: an entry without its metadata file does not exist."""
        meta_path, blob_path = self._paths(sha1)
        chunks: list[bytes] = []
        offset = 0
        stored_sets = []
        for s in sets:
            layout = []
            for name, value in s.index.to_arrays().items():
                data = np.ascontiguousarray(value).tobytes()
                layout.append([name, value.dtype.str, offset, int(value.size)])
                chunks.append(data)
                offset += len(data)
            stored_sets.append({"name": s.name, "baseline": s.baseline, "arrays": layout})
        meta = {"question": info.to_json(), "sets": stored_sets, "blob_size": offset}
        self.root.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(blob_path, b"".join(chunks))
        write_json(meta_path, meta, indent=None)

    def _load_meta(self, sha1: str) -> dict[str, Any] | None:
        meta_path = self._paths(sha1)[0]
        try:
            meta = read_json(meta_path, strict=False)
        except InputError:
            return None
        return meta if isinstance(meta, dict) else None
