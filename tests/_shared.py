"""Where the tests find the real third-party data: ``../shared/data`` beside the repository."""

from __future__ import annotations

from pathlib import Path

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
PFGEN_RESULTS = SHARED_DATA / "pfgen-bench" / "results"
