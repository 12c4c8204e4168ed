"""Stage 7: write the selected answers as a benchmark in pfgen-bench's own layout.

``<out>/pfgen-bench/data/`` receives ``Qxx.json`` (question, category, note, keywords and
``answers``: one reference set per generating model) and ``questions.jsonl`` (the sample
answers), so ``hyoka pfgen score --data-dir <out>`` and ``hyoka pfgen generate --data-dir
<out>`` use the new sets as they use the published ones. ``refset-build.json`` beside them
records each stage's settings and per-question summary for provenance.

The data folder must be new, empty or one hyoka published before (``store.claim_folder``,
kind ``refset``): publishing into a folder holding pfgen-bench's own question files would
replace some of them and leave the rest, a benchmark that is neither. Question files are
then written one by one, each atomically, so publishing more questions later adds to it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hyoka.errors import DataError
from hyoka.pfgen import BENCHMARK_FOLDER
from hyoka.refset.pipeline import FINAL_FOLDER, STAGES, done_marker
from hyoka.refset.pool import group_by_set, pool_path, question_file, read_pool
from hyoka.refset.source import QUESTIONS_FILE, BenchmarkSource
from hyoka.store import (
    claim_folder,
    owned_folder,
    parse_json,
    read_json,
    write_json,
    write_jsonl,
)

PROVENANCE_FILE = "refset-build.json"
#: The kind of output a published data folder is marked as (``store.owned_folder``).
REFSET_KIND = "refset"


def check_output(out: Path, flag: str = "OUT") -> None:
    """Refuse, before any stage runs, an output whose data folder is not empty or ours."""
    owned_folder(out / BENCHMARK_FOLDER, REFSET_KIND, flag=flag, legacy=(PROVENANCE_FILE,))


def publish(
    work: Path,
    source: BenchmarkSource,
    out: Path,
    question_ids: Sequence[str] | None = None,
    from_folder: str = FINAL_FOLDER,
    flag: str = "OUT",
) -> list[Path]:
    """Write one question file per question that has a pool; returns the files written.

    ``flag`` names ``out`` in a refusal (``OUT``, or the settings file's ``out``)."""
    check_output(out, flag)
    folder = work / from_folder
    questions = source.select(list(question_ids) if question_ids else None)
    present = [q for q in questions if pool_path(folder, q.question_id).exists()]
    if question_ids and len(present) < len(questions):
        missing = sorted({q.question_id for q in questions} - {q.question_id for q in present})
        raise DataError(f"{folder}: no selected answers for {', '.join(missing)}")
    if not present:
        raise DataError(f"{folder}: no selected answers to publish (run the stages first)")
    target = out / BENCHMARK_FOLDER
    claim_folder(target, REFSET_KIND, flag=flag, legacy=(PROVENANCE_FILE,))
    files: list[Path] = []
    provenance: dict[str, Any] = {"source": str(source.folder), "stages": {}}
    for q in present:
        sets = group_by_set(read_pool(pool_path(folder, q.question_id)))
        if not sets:
            raise DataError(f"{q.question_id}: every answer was filtered out; nothing to publish")
        answers = {name: [r.text for r in records] for name, records in sorted(sets.items())}
        path = question_file(target, q.question_id, ".json")
        body = {**q.meta(), "answers": answers}
        write_json(path, body)
        files.append(path)
        for stage in STAGES.values():
            marker = done_marker(work / stage.folder, q.question_id)
            if marker.exists():
                done = read_json(marker, strict=False)
                settings = parse_json(done["settings"], str(marker), strict=False)
                entry = provenance["stages"].setdefault(
                    stage.name, {"settings": settings, "questions": {}}
                )
                summary = [line for line in done["audit"] if line.get("reason") == "summary"]
                entry["questions"][q.question_id] = summary[0] if summary else {}
    samples = [{"question": q.question, "answer": q.sample_answer} for q in source.questions]
    write_jsonl(target / QUESTIONS_FILE, samples)
    write_json(target / PROVENANCE_FILE, provenance)
    return files
