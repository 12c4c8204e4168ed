"""Where benchmark data lives: ``--data-dir``, else ``HYOKA_DATA_DIR``, else the user cache.

One rule for every command, so a user who fetched data once never has to say where again.
"""

from __future__ import annotations

import os
from pathlib import Path

DATA_DIR_ENV = "HYOKA_DATA_DIR"


def resolve_data_dir(explicit: Path | str | None = None) -> Path:
    if explicit is not None:
        return Path(explicit).expanduser()
    from_env = os.environ.get(DATA_DIR_ENV)
    if from_env:
        return Path(from_env).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("hyoka")) / "data"
