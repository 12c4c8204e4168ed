"""Output paths built from data: sanitised names that can never leave the chosen root.

A model id inside an answer file, a ``--judge-name`` or a question id is data, and data may
say ``../../../../victim/important``. Every path hyoka writes is built from a root the user
chose and components passed through ``safe_name``, and ``path_under`` checks the result is
still inside the root after resolving, so a name can change where inside the root a file
goes, never whether it is inside.
"""

from __future__ import annotations

import hashlib
import os
import re
import unicodedata
from pathlib import Path

from hyoka.errors import InputError

#: Bytes a file name may take here (255 on common file systems), less room for the suffixes
#: hyoka adds (``.jsonl``, ``.manifest.json``, temp-file decorations).
MAX_NAME_BYTES = 160

_UNSAFE = re.compile(r"[\x00-\x1f\x7f/\\:*?\"<>|]")


def safe_name(text: str, *, what: str = "name") -> str:
    """``text`` as one path component: separators and control characters become ``_``,
    leading dots are dropped (no ``..``, no hidden files), and an over-long name is cut and
    given a short hash of the whole so distinct long names stay distinct."""
    cleaned = _UNSAFE.sub("_", unicodedata.normalize("NFC", text)).strip().lstrip(".")
    if not cleaned or set(cleaned) == {"_"}:
        raise InputError(f"{what} {text!r} cannot be used as a file name")
    encoded = cleaned.encode("utf-8", errors="replace")
    if len(encoded) > MAX_NAME_BYTES:
        digest = hashlib.sha256(text.encode("utf-8", errors="surrogatepass")).hexdigest()[:12]
        head = encoded[: MAX_NAME_BYTES - 13].decode("utf-8", errors="ignore")
        cleaned = f"{head}-{digest}"
    return cleaned


def plain_name(text: str, *, what: str = "name") -> str:
    """``text`` itself, if it is one path component as it is (``safe_name`` keeps it), else
    ``InputError`` naming ``what``.

    For names that identify things across files and runs (question ids, reference-set
    names): two of them must never share a file, and a run must find its files again by
    the name, so they are checked where they enter (a flag, a line of a file), not
    rewritten on the way to a path.
    """
    try:
        unchanged = safe_name(text, what=what) == text
    except InputError:
        unchanged = False
    if not unchanged:
        raise InputError(
            f"{what} {text!r} cannot be used as a file name: it must not start with '.', "
            "begin or end with a space, or hold '/', '\\', control characters or :*?\"<>|, "
            f"and is at most {MAX_NAME_BYTES} bytes"
        )
    return text


def path_under(root: Path, *parts: str, what: str = "name", suffix: str = "") -> Path:
    """``root`` joined with each part made safe; ``InputError`` if it would lie outside.

    ``suffix`` (``.jsonl``, ``_pair.jsonl``) is added to the last part after it is made safe
    (and cut, when too long), so the suffix always survives whatever the name says.
    """
    names = [safe_name(part, what=what) for part in parts]
    names[-1] += suffix
    path = root.joinpath(*names)
    if not is_inside(path, root):
        raise InputError(f"{what} {'/'.join(parts)!r} would write outside {root}")
    return path


def is_inside(path: Path, root: Path) -> bool:
    """Whether ``path`` stays inside ``root`` once both are resolved (symlinks followed)."""
    resolved_root = root.resolve()
    return path.resolve().is_relative_to(resolved_root)


#: The variable that moves hyoka's caches (responses, the pfgen index) elsewhere.
CACHE_DIR_ENV = "HYOKA_CACHE_DIR"


def user_cache_root() -> Path:
    """The platform's user cache folder for hyoka (``~/.cache/hyoka`` on Linux): the one
    place its default locations for caches and fetched data are derived from."""
    import platformdirs  # imported here: only a command that needs a default pays for it

    return Path(platformdirs.user_cache_dir("hyoka"))


def default_cache_dir() -> Path:
    """``HYOKA_CACHE_DIR``, else the platform's user cache folder for hyoka."""
    explicit = os.environ.get(CACHE_DIR_ENV)
    return Path(explicit) if explicit else user_cache_root()
