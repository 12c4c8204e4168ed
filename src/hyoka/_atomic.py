"""Moved to ``hyoka.store`` (kept only while callers move; removed before release)."""

from hyoka.store.files import atomic_write_bytes, atomic_write_text

__all__ = ["atomic_write_bytes", "atomic_write_text"]
