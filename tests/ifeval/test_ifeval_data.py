"""M-IFEval-Ja's data pinned: upstream's files at 0bc3143, byte for byte the shared copy.

The manifest lists the prompts and the licence (what scoring needs) and, as published
files, all 17 models' responses and evaluation files upstream publishes; the shared copy
holds nine of them, each of which must match its pin.
"""

from __future__ import annotations

from pathlib import Path

from _shared import SHARED_DATA
from hyoka.data import ALL_GROUPS, manifest, verify
from hyoka.ifeval import PROMPTS_IN_DATA

COMMIT = "0bc3143a919eef2f9ec64aa26da8a546086653de"


def _shared_sums() -> dict[str, str]:
    lines = (SHARED_DATA / "m-ifeval-ja" / "SHA256SUMS").read_text("utf-8").splitlines()
    return {path: digest for digest, path in (line.split() for line in lines if line)}


def test_the_manifest_pins_upstreams_files() -> None:
    pinned = manifest("m-ifeval-ja")
    assert (pinned.repository, pinned.commit) == ("lightblue-tech/M-IFEval", COMMIT)
    assert [f.path for f in pinned.select()] == [
        str(PROMPTS_IN_DATA),
        "m-ifeval-ja/LICENSE.txt",
    ]
    published = pinned.select({"published"})
    assert len(published) == 17 * 3
    for f in pinned.files:
        assert f.path == f"m-ifeval-ja/{f.upstream}"
    sums = _shared_sums()
    assert len(sums) == 2 + 9 * 3
    by_upstream = {f.upstream: f.sha256 for f in pinned.files}
    assert {path: by_upstream[path] for path in sums} == sums


def test_the_shared_copy_holds_the_core_and_nine_models_as_pinned() -> None:
    pinned = manifest("m-ifeval-ja")
    assert verify(pinned, SHARED_DATA).ok
    problems = verify(pinned, SHARED_DATA, ALL_GROUPS).problems
    assert {p.kind for p in problems} == {"missing"}
    missing_models = {Path(p.file.upstream).parts[1] for p in problems if p.file is not None}
    assert len(problems) == 8 * 3
    assert len(missing_models) == 8 * 2  # a responses file and a folder of evaluations each
