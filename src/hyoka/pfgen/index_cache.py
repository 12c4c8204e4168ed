"""On-disk cache of built reference indexes, keyed by the SHA-1 of the question file.

Building the indexes of all 50 questions takes seconds; loading them takes milliseconds.
The key is the file's content hash (not its path or time), so editing a question file or
switching data directories can never serve a stale index (the hash is taken by every
process, and an index is built only from bytes that still have it: ``store.read_as_hashed``),
and the engine version is part of the folder name so a change of layout invalidates old
entries wholesale. Each entry is one raw blob of arrays plus a JSON file describing it; both
are written to a temporary name and renamed, blob first, so a killed build never leaves an
entry that looks complete.

The blob holds each set's ``NgramIndex`` arrays (the numpy engine's) and the question's
combined trie (the kernel's, ``ngram_trie``), every array at an aligned offset. It is
memory-mapped, not read: the trie is a ``uint32`` memoryview of the mapping and each set's
arrays become numpy views of it only when first read (``_MappedIndex``), so a process reads
from disk only what it walks, loading costs nothing up front, and scoring with the kernel,
which never reads the ``NgramIndex`` arrays, never imports numpy.
"""

from __future__ import annotations

import mmap
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hyoka.errors import DataError, InputError
from hyoka.pfgen.ngram_index import NgramIndex
from hyoka.pfgen.ngram_trie import QuestionTrie
from hyoka.pfgen.questions import QuestionInfo
from hyoka.pfgen.scorer import ReferenceSet, with_trie
from hyoka.store import atomic_write_bytes, default_cache_dir, map_readonly, read_json, write_json

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
else:
    from hyoka._lazy_numpy import numpy as np

#: Bump when the stored layout or the index semantics change.
ENGINE_VERSION = 3
#: Every array of a blob starts at a multiple of this many bytes (aligned loads).
ALIGNMENT = 64
_NATIVE = "<" if sys.byteorder == "little" else ">"
#: How the trie's table is stored: uint32 in this machine's byte order, which the kernel
#: reads as C ``unsigned int`` (a memoryview of format ``I``).
_TABLE_DTYPE = _NATIVE + "u4"
#: The arrays of a set, as ``NgramIndex.to_arrays`` names and types them (numpy's names:
#: byte order, kind, bytes); anything else in an entry makes it no entry (rebuilt), checked
#: at load although the arrays are made later, when first read.
_ARRAY_DTYPES = {"keys": _NATIVE + "u8", "df": _NATIVE + "i4", "num_answers": _NATIVE + "i8"}
_ARRAY_NAME = re.compile(r"(keys|df)_([1-9][0-9]*)|num_answers")


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
        """The cached question and sets (linked to their trie), or None when absent or
        unreadable (then rebuilt). The arrays are views of the mapped blob: nothing is read
        or parsed until used."""
        meta = self._load_meta(sha1)
        if meta is None:
            return None
        try:
            blob = map_readonly(self._paths(sha1)[1])
            if len(blob) != meta["blob_size"]:
                return None
            info = QuestionInfo.from_json(meta["question"], str(self._paths(sha1)[0]))
            sets = []
            for stored in meta["sets"]:
                if not _well_formed(stored["arrays"], len(blob)):
                    return None
                index = _MappedIndex(int(stored["num_answers"]), _index_maker(blob, stored))
                sets.append(ReferenceSet(stored["name"], index, float(stored["baseline"])))
            dtype, offset, rows, stride = meta["trie"]
            if dtype != _TABLE_DTYPE or stride != 2 + len(sets) or rows < 2:
                return None
            if not _fits(len(blob), dtype, offset, rows * stride):
                return None
            table = memoryview(blob)[offset : offset + rows * stride * 4].cast("I", (rows, stride))
            trie = QuestionTrie(table, tuple(s.index.num_answers for s in sets))
            return info, with_trie(sets, trie)
        except (OSError, ValueError, KeyError, TypeError, DataError):
            return None

    def store(self, sha1: str, info: QuestionInfo, sets: list[ReferenceSet]) -> None:
        """Blob first, metadata last: an entry without its metadata file does not exist."""
        meta_path, blob_path = self._paths(sha1)
        chunks: list[bytes] = []
        offset = 0

        def place(value: npt.NDArray[np.generic]) -> int:
            nonlocal offset
            padding = -offset % ALIGNMENT
            data = np.ascontiguousarray(value).tobytes()
            chunks.extend((bytes(padding), data))
            start = offset + padding
            offset = start + len(data)
            return start

        stored_sets = []
        for s in sets:
            layout = []
            for name, value in s.index.to_arrays().items():
                layout.append([name, value.dtype.str, place(value), int(value.size)])
            stored_sets.append(
                {
                    "name": s.name,
                    "baseline": s.baseline,
                    "num_answers": s.index.num_answers,
                    "arrays": layout,
                }
            )
        nodes = _trie_of(sets).nodes  # numpy, whether the trie was built or mapped
        trie = [nodes.dtype.str, place(nodes), int(nodes.shape[0]), int(nodes.shape[1])]
        meta = {"question": info.to_json(), "sets": stored_sets, "trie": trie, "blob_size": offset}
        self.root.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(blob_path, b"".join(chunks))
        write_json(meta_path, meta, indent=None)

    def _load_meta(self, sha1: str) -> dict[str, Any] | None:
        meta_path = self._paths(sha1)[0]
        if not meta_path.is_file():  # absent, or a FIFO whose read would wait for ever
            return None
        try:
            meta = read_json(meta_path, strict=False)
        except InputError:
            return None
        return meta if isinstance(meta, dict) else None


def _trie_of(sets: list[ReferenceSet]) -> QuestionTrie:
    """The trie the sets are linked to in their order, else one built from their indexes."""
    links = [s.trie for s in sets]
    first = links[0] if links else None
    if first is not None and all(
        link is not None and link.trie is first.trie and link.column == k
        for k, link in enumerate(links)
    ):
        return first.trie
    return QuestionTrie.build([s.index for s in sets])


def _fits(blob_size: int, dtype: str, offset: int, count: int) -> bool:
    """Whether ``count`` items of ``dtype`` (``<u8``: 8 bytes) from ``offset`` lie inside a
    blob of this size."""
    if not all(type(x) is int and x >= 0 for x in (offset, count)):
        return False
    return offset + count * int(dtype[2:]) <= blob_size


def _well_formed(arrays: Any, blob_size: int) -> bool:
    """Whether a set's array list is what ``store`` writes: ``[name, dtype, offset, count]``
    for ``keys_1..n`` and ``df_1..n`` (and ``num_answers``), each of its type, each once,
    each inside the blob."""
    if not isinstance(arrays, list):
        return False
    levels: dict[str, set[int]] = {"keys": set(), "df": set()}
    names: set[str] = set()
    for entry in arrays:
        if not (isinstance(entry, list) and len(entry) == 4 and isinstance(entry[0], str)):
            return False
        name, dtype, offset, count = entry
        found = _ARRAY_NAME.fullmatch(name)
        kind = "num_answers" if found is None or found.group(1) is None else found.group(1)
        if found is None or name in names or dtype != _ARRAY_DTYPES[kind]:
            return False
        if not _fits(blob_size, dtype, offset, count):
            return False
        names.add(name)
        if kind != "num_answers":
            levels[kind].add(int(found.group(2)))
    expected = set(range(1, len(levels["keys"]) + 1))
    return levels["keys"] == expected and levels["df"] == expected


def _index_maker(blob: mmap.mmap, stored: dict[str, Any]) -> Callable[[], NgramIndex]:
    """What makes a set's ``NgramIndex`` from its arrays in the mapped blob, when needed."""

    def make() -> NgramIndex:
        arrays = {
            name: np.frombuffer(blob, np.dtype(dtype), count, offset)
            for name, dtype, offset, count in stored["arrays"]
        }
        # from the metadata: reading it from the blob would page in its neighbours
        arrays["num_answers"] = np.array([int(stored["num_answers"])], dtype=np.int64)
        return NgramIndex.from_arrays(arrays)

    return make


class _MappedIndex(NgramIndex):
    """A set's ``NgramIndex`` whose arrays are made from the mapped blob when first read.

    Scoring with the kernel walks only the question's trie and never reads them, so such a
    process makes no array and never imports numpy (``hyoka._lazy_numpy``); the numpy
    engine, the explanations and the reference-set builder read them as before. Pickled,
    it is a plain ``NgramIndex`` (a mapping does not cross processes).
    """

    def __init__(self, num_answers: int, make: Callable[[], NgramIndex]) -> None:
        object.__setattr__(self, "num_answers", num_answers)
        object.__setattr__(self, "_make", make)

    def __getattr__(self, name: str) -> Any:  # only for what is not yet set: keys, df
        if name not in ("keys", "df"):
            raise AttributeError(name)
        made = self.__dict__["_make"]()
        object.__setattr__(self, "keys", made.keys)
        object.__setattr__(self, "df", made.df)
        return self.__dict__[name]

    def __reduce__(self) -> tuple[Any, ...]:
        return NgramIndex, (self.keys, self.df, self.num_answers)
