"""On-disk cache of built reference indexes, keyed by the SHA-1 of the question file.

Building the indexes of all 50 questions takes seconds; loading them takes milliseconds.
The key is the file's content hash (not its path or time), so editing a question file or
switching data directories can never serve a stale index (the hash is taken by every
process, and an index is built only from bytes that still have it: ``store.read_as_hashed``),
and the engine version is part of the folder name so a change of layout invalidates old
entries wholesale. Each entry is one raw blob of arrays plus a JSON file describing it; both
are written to a temporary name and renamed, blob first, so a killed build never leaves an
entry that looks complete.

An entry is checked, not trusted: bytes that rot on disk keep their size, and a rotted count
walked as it stands scores a run far outside its range. The metadata ends with the SHA-256
of its own bytes, checked whenever it is read, and holds a check of each region of the blob
(the trie, each set's arrays), checked when the region is first read: the trie when the kernel
first walks it (``_CheckedTrie``), the arrays when they are first made (``_MappedIndex``).
So loading still costs nothing up front, and the checks run on the threads that walk, one
question each. A region that fails is a ``DamagedIndexError``: the entry is removed, and the
scorer rebuilds its sets from the question file and walks again (``QuestionScorer``).
Each region's check is three CRC-32C (the kernel's ``checksum``: all 50 tries, 300 MB, in
25 ms on this project's 2-core machine, where SHA-256 takes 175 and zlib's CRC-32 80) and,
for a process without the kernel, its SHA-256. The kernel walks nearly every page of a trie
anyway; the check adds its arithmetic, not the reading.

What the checks cannot judge is judged by what a build can make: the metadata records the
key it was written for and its question, so an entry moved or swapped under another's name
is removed and rebuilt (``_filed_right``); each set's size is a positive count and its
baseline finite, positive and no larger than the most Fluency any answer can reach
(``_sane``: else no entry); each count of answers read lies within its set's size (the
kernel, or ``_index_maker`` for numpy) and each value within its metric's range (the
scorer). A number that fails is a ``DamagedIndexError`` too: removed, rebuilt, walked again.

What each rule catches, and what none does:

- the checks catch rot: bytes that changed on disk since they were written (a flipped bit, a
  torn page), which no one chose; they are no defence against whoever can write the entry,
  who can make the checks again (they are in the same files);
- the ownership rule catches other users: an entry is trusted only as a regular file owned by
  the user and writable by no one else, in a folder that no one else could have filled
  (``store.CacheFolder``: owned by the user or root, and writable by no one else unless
  sticky); anything else counts as absent and is rebuilt in place, or, where it cannot be
  replaced, the question is built in memory (one ``warning:`` line says so). The checks are
  judged on the files as opened (``fstat``), never on a path looked up again;
- neither catches the user's own deliberate edits (an entry they re-signed, with numbers a
  build could make), nor root's: whoever may write as the user may also change hyoka itself.

The cache folder is untrusted (``store.CacheFolder``): entries are read, mapped and written
without following a link, so a link left there is never written through.

The blob holds each set's ``NgramIndex`` arrays (the numpy engine's) and the question's
combined trie (the kernel's, ``ngram_trie``), every array at an aligned offset. It is
memory-mapped, not read: the trie is a ``uint32`` memoryview of the mapping and each set's
arrays become numpy views of it only when first read (``_MappedIndex``), so a process reads
from disk only what it walks, loading costs nothing up front, and scoring with the kernel,
which never reads the ``NgramIndex`` arrays, never imports numpy.
"""

from __future__ import annotations

import hashlib
import mmap
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hyoka.errors import DataError, InputError
from hyoka.pfgen.engine import DamagedIndexError, kernel_module
from hyoka.pfgen.ngram_index import NgramIndex
from hyoka.pfgen.ngram_metrics import fluency_ceiling
from hyoka.pfgen.ngram_trie import QuestionTrie
from hyoka.pfgen.questions import QuestionInfo
from hyoka.pfgen.scorer import ReferenceSet, with_trie
from hyoka.store import CacheFolder, default_cache_dir, json_text, parse_json

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
else:
    from hyoka._lazy_numpy import numpy as np

#: Bump when the stored layout or the index semantics change (4: checks in the metadata; an
#: entry of 4 without its ``key`` is one filed under another's name: rebuilt in place).
ENGINE_VERSION = 4
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
#: The checks of a region, by name: the kernel's three CRC-32C, and SHA-256.
FAST_CHECK = "crc32c-3"
PORTABLE_CHECK = "sha256"
#: The last key of the metadata: the SHA-256 of the file's text without it (``_with_check``).
META_CHECK = "check"
_CHECK_TAIL = re.compile(rb', "check": "([0-9a-f]{64})"\}\n\Z')
#: A metadata file larger than this is no entry (one is a few kilobytes).
MAX_META_BYTES = 1 << 20
#: How an entry found damaged failed: its bytes, or its counts of answers.
_ROTTED = "whose bytes are not those it was written with (damaged on disk)"
_COUNTS = "that counts more answers holding an n-gram than its set has"


class IndexCache:
    def __init__(self, root: Path | None = None) -> None:
        self.folder = CacheFolder(root or default_cache_dir(), f"pfgen-index-v{ENGINE_VERSION}")
        self.root = self.folder.path

    @staticmethod
    def _names(sha1: str) -> tuple[str, str]:
        return f"{sha1}.json", f"{sha1}.bin"

    def blob_path(self, sha1: str) -> Path:
        """Where an entry's blob is (for messages: it is read through ``folder``)."""
        return self.root / self._names(sha1)[1]

    def remove(self, sha1: str) -> None:
        """Remove an entry (as far as possible): one found damaged, so that it is rebuilt."""
        self.folder.remove(*self._names(sha1))

    def load_info(self, sha1: str, question_id: str) -> QuestionInfo | None:
        """Only the metadata of question ``question_id``: cheap, for mapping answers to
        questions. ``None`` when there is no entry, or one that holds another question (an
        entry filed under another's name is removed, as a damaged one is)."""
        meta = self._load_meta(sha1)
        if meta is None:
            return None
        try:
            info = QuestionInfo.from_json(meta["question"], str(self.root / self._names(sha1)[0]))
        except (KeyError, TypeError, ValueError, DataError):
            return None
        return self._filed_right(sha1, info, question_id)

    def load(self, sha1: str, question_id: str) -> tuple[QuestionInfo, list[ReferenceSet]] | None:
        """The cached question ``question_id`` and its sets (linked to their trie), or None
        when absent, unreadable or another question's (then rebuilt). The arrays and the
        trie are views of the mapped blob: nothing is read, parsed or checked until used."""
        meta = self._load_meta(sha1)
        if meta is None:
            return None
        meta_name, blob_name = self._names(sha1)
        try:
            blob = self.folder.map(blob_name)
            if blob is None or len(blob) != meta["blob_size"]:
                return None
            info = QuestionInfo.from_json(meta["question"], str(self.root / meta_name))
            if self._filed_right(sha1, info, question_id) is None:
                return None
            damaged = self._damaged(sha1)
            sets = []
            for stored in meta["sets"]:
                num_answers, baseline = stored["num_answers"], stored["baseline"]
                if not (_well_formed(stored["arrays"], len(blob)) and _sane(num_answers, baseline)):
                    return None
                arrays = _arrays_region(blob, stored)
                check = _checker(arrays, stored["check"], damaged)
                maker = _index_maker(blob, stored, check, self._damaged(sha1, _COUNTS))
                index = _MappedIndex(num_answers, maker)
                sets.append(ReferenceSet(stored["name"], index, baseline))
            dtype, offset, rows, stride = meta["trie"]
            if dtype != _TABLE_DTYPE or stride != 2 + len(sets) or rows < 2:
                return None
            if not _fits(len(blob), dtype, offset, rows * stride):
                return None
            table = memoryview(blob)[offset : offset + rows * stride * 4]
            check = _checker(table, meta["trie_check"], damaged)
            sizes = tuple(s.index.num_answers for s in sets)
            return info, with_trie(sets, _CheckedTrie(table, (rows, stride), sizes, check))
        except (OSError, ValueError, KeyError, TypeError, DataError):
            return None

    def store(self, sha1: str, info: QuestionInfo, sets: list[ReferenceSet]) -> None:
        """Blob first, metadata last: an entry without its metadata file does not exist."""
        meta_name, blob_name = self._names(sha1)
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
        start = place(nodes)
        trie = [nodes.dtype.str, start, int(nodes.shape[0]), int(nodes.shape[1])]
        blob = b"".join(chunks)
        for stored in stored_sets:
            stored["check"] = _checks(_arrays_region(blob, stored))
        table = memoryview(blob)[start : start + nodes.nbytes]
        meta = {
            "key": sha1,
            "question": info.to_json(),
            "sets": stored_sets,
            "trie": trie,
            "trie_check": _checks(table),
            "blob_size": offset,
        }
        self.folder.write_file(blob_name, blob)
        self.folder.write_file(meta_name, _with_check(json_text(meta).encode("utf-8")))

    def _load_meta(self, sha1: str) -> dict[str, Any] | None:
        """The entry's metadata, if it is a file the cache folder trusts (``CacheFolder``: a
        regular file of the user's that no one else could have written) whose text has the
        SHA-256 it records, written for this key (an entry filed under another key, moved
        or swapped, is removed)."""
        meta_name = self._names(sha1)[0]
        data = self.folder.read_file(meta_name, MAX_META_BYTES)
        if data is None or _with_check(_without_check(data)) != data:
            return None
        try:
            meta = parse_json(data, str(self.root / meta_name))
        except InputError:
            return None
        if not isinstance(meta, dict):
            return None
        if meta.get("key") != sha1:
            self.remove(sha1)
            return None
        return meta

    def _filed_right(self, sha1: str, info: QuestionInfo, question_id: str) -> QuestionInfo | None:
        """``info``, if it is question ``question_id``'s; else the entry (another question's
        under this one's name) is removed and ``None``."""
        if info.question_id == question_id:
            return info
        self.remove(sha1)
        return None

    def _damaged(self, sha1: str, what: str = _ROTTED) -> Callable[[], DamagedIndexError]:
        """What a region of the entry failing its check when first read raises (``what``
        says how it failed): the entry is removed, so whatever cannot rebuild it now
        (``QuestionScorer`` can) stops with one line, and the next run rebuilds it."""

        def damaged() -> DamagedIndexError:
            self.remove(sha1)
            return DamagedIndexError(
                f"{self.blob_path(sha1)}: an index cache entry {what}; it is removed: run the "
                "command again to rebuild it"
            )

        return damaged


def _with_check(text: bytes) -> bytes:
    """A JSON object's text (``json_text``) with a last key added, ``"check"``: the SHA-256
    of the text as given. Checked on the bytes read, not on the object parsed from them, so
    that any byte that changes is found."""
    digest = hashlib.sha256(text).hexdigest()
    return text[: -len(b"}\n")] + f', "{META_CHECK}": "{digest}"}}\n'.encode()


def _without_check(data: bytes) -> bytes:
    """The text ``_with_check`` was given, if ``data`` ends as it writes it (else ``b""``)."""
    found = _CHECK_TAIL.search(data)
    return data[: found.start()] + b"}\n" if found else b""


def _checks(region: memoryview | bytes) -> dict[str, str]:
    """A region's checks: its SHA-256 and, where the kernel is built, its three CRC-32C."""
    checks = {PORTABLE_CHECK: hashlib.sha256(region).hexdigest()}
    kernel = kernel_module()
    if kernel is not None:
        checks[FAST_CHECK] = kernel.checksum(region).hex()
    return checks


def _checker(
    region: memoryview, checks: Any, damaged: Callable[[], DamagedIndexError]
) -> Callable[[], None]:
    """What checks ``region`` against ``checks`` and raises ``damaged()`` when it fails."""

    def check() -> None:
        if not _passes(region, checks):
            raise damaged()

    return check


def _passes(region: memoryview, checks: Any) -> bool:
    """Whether ``region`` has the checks recorded for it: the kernel's where both are
    there, else SHA-256."""
    if not isinstance(checks, dict):
        return False
    kernel = kernel_module()
    if kernel is not None and isinstance(checks.get(FAST_CHECK), str):
        return bool(kernel.checksum(region).hex() == checks[FAST_CHECK])
    expected = checks.get(PORTABLE_CHECK)
    return isinstance(expected, str) and hashlib.sha256(region).hexdigest() == expected


def _arrays_region(blob: mmap.mmap | bytes, stored: dict[str, Any]) -> memoryview:
    """The bytes from a stored set's first array to the end of its last (``_well_formed``
    arrays)."""
    arrays = stored["arrays"]
    start = min(offset for _, _, offset, _ in arrays)
    end = max(offset + count * int(dtype[2:]) for _, dtype, offset, count in arrays)
    return memoryview(blob)[start:end]


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


def _sane(num_answers: Any, baseline: Any) -> bool:
    """Whether a set's size and Fluency baseline are numbers a build can make: a positive
    count, and a finite positive baseline no larger than the most Fluency (at baseline 1)
    any answer can reach against that many answers (``fluency_ceiling``). A baseline of
    1e308 would make every Fluency 0 silently, inside its range."""
    if type(num_answers) is not int or num_answers < 1 or type(baseline) is not float:
        return False
    return 0.0 < baseline <= fluency_ceiling(num_answers, 1.0)


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


def _index_maker(
    blob: mmap.mmap,
    stored: dict[str, Any],
    check: Callable[[], None],
    damaged: Callable[[], DamagedIndexError],
) -> Callable[[], NgramIndex]:
    """What makes a set's ``NgramIndex`` from its arrays in the mapped blob, when needed,
    once they pass ``check`` and every count of answers lies in [1, the set's size] (as
    the kernel checks each count it reads: the numpy engine reads them all)."""

    def make() -> NgramIndex:
        check()
        arrays = {
            name: np.frombuffer(blob, np.dtype(dtype), count, offset)
            for name, dtype, offset, count in stored["arrays"]
        }
        size = int(stored["num_answers"])
        counts = [a for name, a in arrays.items() if name.startswith("df_") and a.size]
        if any(int(a.min()) < 1 or int(a.max()) > size for a in counts):
            raise damaged()
        # from the metadata: reading it from the blob would page in its neighbours
        arrays["num_answers"] = np.array([size], dtype=np.int64)
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


class _CheckedTrie(QuestionTrie):
    """A question's trie in the mapped blob, its bytes checked when its table is first read
    (the kernel's walk, or ``nodes``), and only then made a ``uint32`` view (the kernel
    reads it as C ``unsigned int``, with no numpy in the process). A trie loaded and never
    walked is never read."""

    def __init__(
        self,
        region: memoryview,
        shape: tuple[int, int],
        num_answers: tuple[int, ...],
        check: Callable[[], None],
    ) -> None:
        object.__setattr__(self, "num_answers", num_answers)
        object.__setattr__(self, "_unchecked", (region, shape, check))

    def __getattr__(self, name: str) -> Any:  # only for what is not yet set: table
        if name != "table":
            raise AttributeError(name)
        region, shape, check = self.__dict__["_unchecked"]
        check()
        object.__setattr__(self, "table", region.cast("I", shape))
        return self.__dict__["table"]
