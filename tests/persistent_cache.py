"""A persistent, content-addressed pfgen index cache for the tests.

Building the n-gram indexes of all 50 questions costs about 16 CPU seconds, once per session
when every session starts from an empty folder. The indexes are a pure function of the
question files and of the code that builds them, so the tests keep them between sessions in
``<user cache>/hyoka-tests/<key>/``, where ``key`` hashes exactly those inputs: the bytes of
every file in the data folder and of every module of ``hyoka.pfgen``. Other data, or a
change to the scorer's code, gets another folder, so an index is never served to data or
code it was not built from. One test still builds cold and checks that the persistent entry
holds the same bytes (``test_pfgen_metrics``'s ``test_real_scores_survive_the_index_cache``).

Only the index cache persists: ``session_cache_dir`` is a fresh folder per session (the
response cache of the commands the tests run lives there too), whose
``pfgen-index-v<N>`` entry is a link to the persistent folder. Folders not used for a week
are removed when a session starts. The link is the user's own and the folder is made
0755, as hyoka trusts a cache folder (``store.CacheFolder``: one writable by others is never
used), whatever the umask.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import time
from pathlib import Path

import platformdirs

import hyoka.pfgen
from hyoka.pfgen.index_cache import ENGINE_VERSION, IndexCache

#: A persistent folder not used for this long is removed (seconds).
UNUSED_FOR = 7 * 24 * 3600


def content_key(data: Path) -> str:
    """SHA-256 of the pfgen question files in ``data`` and of ``hyoka.pfgen``'s code."""
    digest = hashlib.sha256(f"engine {ENGINE_VERSION}\n".encode())
    code = Path(hyoka.pfgen.__file__).parent
    for root, label in ((data / "pfgen-bench" / "data", "data"), (code, "code")):
        for path in sorted(root.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                digest.update(f"{label}/{path.relative_to(root).as_posix()}\n".encode())
                digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def persistent_index_dir(data: Path) -> Path:
    """The persistent folder of ``data``'s indexes, touched, with stale siblings removed."""
    base = Path(platformdirs.user_cache_dir("hyoka-tests"))
    folder = base / content_key(data)
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o755)
    os.utime(folder)
    for other in base.iterdir():
        if other != folder and other.is_dir() and time.time() - other.stat().st_mtime > UNUSED_FOR:
            shutil.rmtree(other, ignore_errors=True)
    return folder


def session_cache_dir(fresh: Path, data: Path) -> Path:
    """``fresh`` (an empty folder of this session) with its index cache linked to the
    persistent folder of ``data``: a ``HYOKA_CACHE_DIR`` whose indexes outlive the session."""
    index_root = IndexCache(fresh).root
    index_root.symlink_to(persistent_index_dir(data), target_is_directory=True)
    return fresh
