"""The run store: the one place that knows how hyoka's files are named, written and continued.

- ``safe_name``/``path_under``: output paths from data (model ids, judge names) that can
  never leave the chosen root; ``plain_name``: names used as they are (question ids,
  reference-set names), refused where they enter when they are not one plain component.
- ``atomic_write_text``/``atomic_write_bytes``: whole-or-nothing writes that keep the
  replaced file's mode, write through symlinks, refuse read-only files and leave no temp file.
- ``JsonlLog``/``Manifest``: the only resume rule: a log is continued only when the manifest
  beside it matches the run; a file that is not ours is never touched.
- ``read_jsonl``: reading a log with the duplicate rules (identical repeats dropped with a
  warning, conflicting ones refused naming both lines).
- ``owned_folder``/``claim_folder``/``replacing_folder``: folder outputs (``-o``) go only
  into a folder that is empty or marked as hyoka's output of the same kind; a whole output
  is built aside and swapped in.
- JSON Lines primitives (``read_objects``, ``read_records``, ``read_rows``, ``append_record``)
  where every problem names its file and line.
"""

from hyoka.store.files import (
    atomic_write_bytes,
    atomic_write_text,
    clean_stale_temp_files,
    new_file_mode,
    temp_path_for,
)
from hyoka.store.jsonl import (
    append_line,
    append_record,
    drop_partial_tail,
    parse_object,
    read_objects,
    read_records,
    read_rows,
    record_line,
)
from hyoka.store.log import (
    MANIFEST_SUFFIX,
    JsonlLog,
    Manifest,
    check_owned,
    manifest_path,
    read_jsonl,
    read_manifest,
    unique_records,
)
from hyoka.store.owned import OUTPUT_MARKER, claim_folder, owned_folder, replacing_folder
from hyoka.store.paths import is_inside, path_under, plain_name, safe_name

__all__ = [
    "MANIFEST_SUFFIX",
    "OUTPUT_MARKER",
    "JsonlLog",
    "Manifest",
    "append_line",
    "append_record",
    "atomic_write_bytes",
    "atomic_write_text",
    "check_owned",
    "claim_folder",
    "clean_stale_temp_files",
    "drop_partial_tail",
    "is_inside",
    "manifest_path",
    "new_file_mode",
    "owned_folder",
    "parse_object",
    "path_under",
    "plain_name",
    "read_jsonl",
    "read_manifest",
    "read_objects",
    "read_records",
    "read_rows",
    "record_line",
    "replacing_folder",
    "safe_name",
    "temp_path_for",
    "unique_records",
]
