"""The run store: the one place that knows how hyoka's files are named, written and continued.

- ``safe_name``/``path_under``: output paths from data (model ids, judge names) that can
  never leave the chosen root; ``plain_name``: names used as they are (question ids,
  reference-set names), refused where they enter when they are not one plain component.
- ``atomic_write_text``/``atomic_write_bytes``: whole-or-nothing writes that keep the
  replaced file's mode, write through symlinks, refuse read-only files and leave no temp file.
- ``JsonlLog``/``Manifest``: the only resume rule: a log is continued only when the manifest
  beside it matches the run; a file that is not ours is never touched.
- ``writer_lock``: one writer per file (logs, run folders, shards), a bounded wait, and
  one line naming the process that holds it.
- ``read_jsonl``: reading a log with the duplicate rules (identical repeats dropped with a
  warning, conflicting ones refused naming both lines).
- ``owned_folder``/``claim_folder``/``replacing_folder``: folder outputs (``-o``) go only
  into a folder that is empty or marked as hyoka's output of the same kind; a whole output
  is built aside and swapped in.
- ``write_output``/``check_output``: a command's one output file (``--output FILE``) is
  written only where no file exists, it is empty, or hyoka wrote it there and no one has
  changed it since (a hidden record beside it holds the bytes' digest).
- ``read_decompressed``/``decompress_bounded``: every xz, gzip or zstd input inflated as a
  stream within a bound its format sets (a decompression bomb is refused unread).
- ``map_readonly``: a large cache file memory-mapped, read only where it is used.
- ``CacheFolder``: the cache folder, which others may write: its files read, mapped and
  written without following a link below the folder the user named, and trusted only when
  no one else could have written them (``UntrustedCacheError`` where one cannot be replaced).
- ``sha1_files``/``read_as_hashed``: the SHA-1s of large inputs (the question files)
  taken as streams, their bytes read back later only if they still have them;
  ``sha256_file``: one file's SHA-256 as a stream (the data release's pins).
- every reader here opens its file through ``hyoka.store.regular`` (``open_regular``,
  ``read_regular``): only a regular file (a FIFO is never waited on, a device never read),
  within a bound its kind sets (logs and tables 4 GiB, JSON documents 256 MiB, settings
  16 MiB), counted as the bytes arrive; anything else one line naming the file.
- ``append_bytes``: whole appends or none (a full disk leaves the file as it was).
- ``read_json``/``parse_json``/``first_object``/``write_json``/``write_jsonl``: whole JSON
  documents in and out, every problem one ``InputError`` naming the file (and line).
- JSON Lines primitives (``read_objects``, ``read_records``, ``read_rows``, ``append_record``)
  where every problem names its file and line.
- ``read_toml``/``parse_toml``: the TOML settings files (judge templates, rule files,
  reference-set settings), a byte-order mark at the start read past as in the JSON readers.

The logs and manifests (``hyoka.store.log``) validate records with pydantic, whose import
costs about 60 ms; the commands that only read and write plain files (``hyoka pfgen score``)
never use them, so their names are imported on first use (``hyoka._faces``), not here.
"""

from typing import TYPE_CHECKING

from hyoka._faces import lazy_face
from hyoka.store.cache_folder import CacheFolder, UntrustedCacheError
from hyoka.store.compressed import (
    TooLargeError,
    codec_of,
    decompress_bounded,
    read_decompressed,
)
from hyoka.store.digests import HashedFile, read_as_hashed, sha1_files, sha256_file
from hyoka.store.files import (
    WriteError,
    append_bytes,
    atomic_write_bytes,
    atomic_write_text,
    clean_stale_temp_files,
    new_file_mode,
    temp_path_for,
    truncate_to,
)
from hyoka.store.jsonl import (
    append_line,
    append_record,
    first_object,
    json_text,
    parse_json,
    parse_lines,
    parse_object,
    read_bytes,
    read_json,
    read_objects,
    read_records,
    read_rows,
    record_line,
    write_json,
    write_jsonl,
)
from hyoka.store.locks import (
    FileBusyError,
    writer_lock,
    writer_lock_async,
)
from hyoka.store.mapped import map_readonly
from hyoka.store.output_file import check_output, write_output
from hyoka.store.owned import claim_folder, owned_folder, replacing_folder
from hyoka.store.paths import (
    default_cache_dir,
    path_under,
    plain_name,
    safe_name,
    user_cache_root,
)
from hyoka.store.regular import NotReadError, open_regular, read_regular
from hyoka.store.toml_files import parse_toml, read_toml

if TYPE_CHECKING:
    from hyoka.store.log import (
        IN_FLIGHT_NOTE,
        MANIFEST_SUFFIX,
        JsonlLog,
        Manifest,
        OtherRunError,
        manifest_path,
        read_jsonl,
        read_manifest,
        unique_records,
    )

#: the names imported from ``hyoka.store.log`` on first use (``hyoka._faces``)
_FROM_LOG = {
    name: ("hyoka.store.log", name)
    for name in (
        "IN_FLIGHT_NOTE",
        "MANIFEST_SUFFIX",
        "JsonlLog",
        "Manifest",
        "OtherRunError",
        "manifest_path",
        "read_jsonl",
        "read_manifest",
        "unique_records",
    )
}

__getattr__, __dir__ = lazy_face(__name__, _FROM_LOG)

__all__ = [
    "IN_FLIGHT_NOTE",
    "MANIFEST_SUFFIX",
    "CacheFolder",
    "FileBusyError",
    "HashedFile",
    "JsonlLog",
    "Manifest",
    "NotReadError",
    "OtherRunError",
    "TooLargeError",
    "UntrustedCacheError",
    "WriteError",
    "append_bytes",
    "append_line",
    "append_record",
    "atomic_write_bytes",
    "atomic_write_text",
    "check_output",
    "claim_folder",
    "clean_stale_temp_files",
    "codec_of",
    "decompress_bounded",
    "default_cache_dir",
    "first_object",
    "json_text",
    "manifest_path",
    "map_readonly",
    "new_file_mode",
    "open_regular",
    "owned_folder",
    "parse_json",
    "parse_lines",
    "parse_object",
    "parse_toml",
    "path_under",
    "plain_name",
    "read_as_hashed",
    "read_bytes",
    "read_decompressed",
    "read_json",
    "read_jsonl",
    "read_manifest",
    "read_objects",
    "read_records",
    "read_regular",
    "read_rows",
    "read_toml",
    "record_line",
    "replacing_folder",
    "safe_name",
    "sha1_files",
    "sha256_file",
    "temp_path_for",
    "truncate_to",
    "unique_records",
    "user_cache_root",
    "write_json",
    "write_jsonl",
    "write_output",
    "writer_lock",
    "writer_lock_async",
]
