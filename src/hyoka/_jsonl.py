"""Moved to ``hyoka.store`` (kept only while callers move; removed before release)."""

from hyoka.store.jsonl import (
    append_record,
    drop_partial_tail,
    read_objects,
    read_records,
    read_rows,
)

__all__ = ["append_record", "drop_partial_tail", "read_objects", "read_records", "read_rows"]
