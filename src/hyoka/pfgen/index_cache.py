"""On-disk cache of built reference indexes, keyed by the SHA-1 of the question file.

Building the indexes of all 50 questions takes seconds; loading them takes milliseconds.
The key is the file's content hash (not its path or time), so editing a question file or
switching data directories can never serve a stale index, and the engine version is part of
the folder name so a change of layout invalidates old entries wholesale. Entries are written
to a temporary name and renamed, so a killed build never leaves a half-written entry.
"""

from __future__ import annotations

import json
import os
import tempfile
import zipfile
from pathlib import Path
from collections.abc import Callable
from typing import Any, BinaryIO

import numpy as np
import numpy.typing as npt

from hyoka.pfgen.ngram_index import NgramIndex
from hyoka.pfgen.questions import QuestionInfo
from hyoka.pfgen.scorer import ReferenceSet

#: Bump when the stored layout or the index semantics change.
ENGINE_VERSION = 1


def default_cache_dir() -> Path:
    """``HYOKA_CACHE_DIR``, else the platform's user cache folder for hyoka."""
    explicit = os.environ.get("HYOKA_CACHE_DIR")
    if explicit:
        return Path(explicit)
    import platformdirs

    return Path(platformdirs.user_cache_dir("hyoka"))


class IndexCache:
    def __init__(self, root: Path | None = None) -> None:
        self.root = (root or default_cache_dir()) / f"pfgen-index-v{ENGINE_VERSION}"

    def _paths(self, sha1: str) -> tuple[Path, Path]:
        return self.root / f"{sha1}.json", self.root / f"{sha1}.npz"

    def load_info(self, sha1: str) -> QuestionInfo | None:
        """Only the question's metadata: cheap, for mapping answers to questions."""
        meta = self._load_meta(sha1)
        if meta is None:
            return None
        try:
            return QuestionInfo.from_json(meta["question"], str(self._paths(sha1)[0]))
        except (KeyError, TypeError, ValueError):
            return None

    def load(self, sha1: str) -> tuple[QuestionInfo, list[ReferenceSet]] | None:
        """The cached question and sets, or None when absent or unreadable (then rebuilt)."""
        meta = self._load_meta(sha1)
        if meta is None:
            return None
        try:
            with np.load(self._paths(sha1)[1], allow_pickle=False) as stored:
                arrays = {name: stored[name] for name in stored.files}
            info = QuestionInfo.from_json(meta["question"], str(self._paths(sha1)[0]))
            sets = []
            pairs = zip(meta["sets"], meta["baselines"], strict=True)
            for i, (name, baseline) in enumerate(pairs):
                prefix = f"s{i}_"
                own = {k[len(prefix) :]: v for k, v in arrays.items() if k.startswith(prefix)}
                sets.append(ReferenceSet(name, NgramIndex.from_arrays(own), float(baseline)))
            return info, sets
        except (OSError, ValueError, KeyError, TypeError, zipfile.BadZipFile):
            return None

    def store(self, sha1: str, info: QuestionInfo, sets: list[ReferenceSet]) -> None:
        """Arrays first, metadata last: an entry without its metadata file does not exist."""
        meta_path, arrays_path = self._paths(sha1)
        arrays: dict[str, npt.NDArray[Any]] = {}
        for i, s in enumerate(sets):
            for name, value in s.index.to_arrays().items():
                arrays[f"s{i}_{name}"] = value
        meta = {
            "question": info.to_json(),
            "sets": [s.name for s in sets],
            "baselines": [s.baseline for s in sets],
        }
        self.root.mkdir(parents=True, exist_ok=True)
        _atomic_write(arrays_path, lambda handle: np.savez(handle, **arrays))
        text = json.dumps(meta, ensure_ascii=False).encode("utf-8")
        _atomic_write(meta_path, lambda handle: handle.write(text))

    def _load_meta(self, sha1: str) -> dict[str, Any] | None:
        meta_path = self._paths(sha1)[0]
        try:
            meta = json.loads(meta_path.read_bytes().decode("utf-8"))
        except (OSError, ValueError):
            return None
        return meta if isinstance(meta, dict) else None


def _atomic_write(path: Path, write: Callable[[BinaryIO], object]) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            write(handle)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
