"""Stage 7: write the selected answers as a benchmark in pfgen-bench's own layout.

``<out>/pfgen-bench/data/`` receives ``Qxx.json`` (question, category, note, keywords and
``answers``: one reference set per generating model) and ``questions.jsonl`` (the sample
answers), so ``hyoka pfgen score --data-dir <out>`` and ``hyoka pfgen generate --data-dir
<out>`` use the new sets as they use the published ones. ``refset-build.json`` beside them
records each stage's settings and per-question summary for provenance.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hyoka.errors import DataError
from hyoka.pfgen import BENCHMARK_FOLDER
from hyoka.refset.pipeline import DONE_SUFFIX, FINAL_FOLDER, STAGES
from hyoka.refset.pool import group_by_set, pool_path, read_pool
from hyoka.refset.source import QUESTIONS_FILE, BenchmarkSource
from hyoka.store import parse_json, read_json, write_json, write_jsonl

PROVENANCE_FILE = "refset-build.json"


def publish(
    work: Path,
    source: BenchmarkSource,
    out: Path,
    question_ids: Sequence[str] | None = None,
    from_folder: str = FINAL_FOLDER,
) -> list[Path]:
    """Write one question file per question that has a pool; returns the files written."""
    folder = work / from_folder
    questions = source.select(list(question_ids) if question_ids else None)
    present = [q for q in questions if pool_path(folder, q.question_id).exists()]
    if question_ids and len(present) < len(questions):
        missing = sorted({q.question_id for q in questions} - {q.question_id for q in present})
        raise DataError(f"{folder}: no selected answers for {', '.join(missing)}")
    if not present:
        raise DataError(f"{folder}: no selected answers to publish (run the stages first)")
    target = out / BENCHMARK_FOLDER
    target.mkdir(parents=True, exist_ok=True)
    files: list[Path] = []
    provenance: dict[str, Any] = {"source": str(source.folder), "stages": {}}
    for q in present:
        sets = group_by_set(read_pool(pool_path(folder, q.question_id)))
        if not sets:
            raise DataError(f"{q.question_id}: every answer was filtered out; nothing to publish")
        answers = {name: [r.text for r in records] for name, records in sorted(sets.items())}
        path = target / f"{q.question_id}.json"
        body = {**q.meta(), "answers": answers}
        write_json(path, body)
        files.append(path)
        for stage in STAGES.values():
            marker = work / stage.folder / f"{q.question_id}{DONE_SUFFIX}"
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
