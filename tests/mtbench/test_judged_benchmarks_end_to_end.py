"""Each judged Japanese benchmark end to end, as a user runs it: answers from the embedded
model (SmolLM2-135M, served over HTTP by the session's llama.cpp server), judged by a
scripted judge, ranked by the leaderboard, re-read by ``mtbench verify`` and shown by
``hyoka report``, all through the command line.

The model's wording decides nothing asserted here: the scripted judge gives one rating
(or verdict) to every prompt, so every number is known in advance; what is checked is that
each step takes the previous step's files as they are written, and that each file says
which benchmark and variant made it. Rakuda's chain (all 40 questions answered, matches
judged, ranked, shown) is ``tests/mtbench/test_rakuda.py`` (answers from a seeded server, and from
the embedded model) and ``tests/report/test_report_benchmarks.py`` (its ranking page).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from _shared import SHARED_DATA, elyza_data
from hyoka.cli.main import app
from hyoka.signature import Signature
from hyoka.store import read_manifest

#: (benchmark, variant, questions answered, the scripted judge's reply, the score it means)
SINGLE = [
    ("jmt-bench", "llm-jp", 2, "評価: [[6]]", 6),
    ("ja-vicuna-qa", None, 2, "[[7]]", 7),
    ("elyza-tasks-100", "shaberi-2025", 2, "講評。\nFINAL SCORE: 4", 4),
]


def _run(*args: str) -> Result:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, f"hyoka {' '.join(args)}\n{result.output}"
    return result


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The shared data, with ELYZA's stand-in judge prompt (upstream's is code, not data)."""
    folder = elyza_data(tmp_path / "data")
    for name in ("jmt-bench", "ja-vicuna-qa"):
        (folder / name).symlink_to(SHARED_DATA / name)
    monkeypatch.setenv("HYOKA_DATA_DIR", str(folder))
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(tmp_path / "cache"))
    return folder


def _judge_script(tmp_path: Path, reply: str) -> str:
    script = tmp_path / "judge.jsonl"
    script.write_text(json.dumps({"reply": reply}, ensure_ascii=False) + "\n", encoding="utf-8")
    return f"scripted/{script}"


@pytest.mark.slow
@pytest.mark.parametrize(("bench", "variant", "limit", "reply", "score"), SINGLE)
def test_generate_judge_rank_verify_report(
    bench: str,
    variant: str | None,
    limit: int,
    reply: str,
    score: int,
    data: Path,
    tmp_path: Path,
    llama_base_url: str,
) -> None:
    chosen = ["--variant", variant] if variant else []
    answers = tmp_path / "answers" / "smollm2.jsonl"
    _run("mtbench", "generate", "--bench", bench, *chosen, "-m", "openai/smollm2",
         "--base-url", llama_base_url, "--limit", str(limit), "--max-tokens", "8",
         "--output", str(answers))  # fmt: skip
    lines = [json.loads(line) for line in answers.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == limit and all(line["model_id"] == "smollm2" for line in lines)

    judged = tmp_path / "judged" / "scripted_single"
    _run("mtbench", "judge", "--bench", bench, *chosen, "-j", _judge_script(tmp_path, reply),
         "--judge-name", "scripted", "-a", str(answers), "--limit", str(limit),
         "--output-dir", str(judged))  # fmt: skip
    (judgment,) = judged.glob("*.jsonl")
    manifest = read_manifest(judgment)
    assert manifest is not None
    signature = Signature.from_json(manifest.signature)
    assert signature is not None and signature.get("bench") == bench
    assert str(signature.get("variant") or "").startswith(variant or "(none)") == bool(variant)

    ranked = _run("mtbench", "leaderboard", "--bench", bench, *chosen, "--judgments",
                  str(judged), "--format", "json")  # fmt: skip
    (row,) = json.loads(ranked.stdout)
    assert row["overall"] == score  # every judged turn got the script's one rating
    assert Signature.from_json(row["signature"]) == signature

    verified = _run("mtbench", "verify", str(judgment))
    assert "reproduced exactly" in verified.stdout

    site = tmp_path / "site"
    _run("report", str(judged.parent), "-o", str(site), "--no-public")
    pages = {p.relative_to(site).as_posix(): p for p in site.rglob("*.html")}
    folder = f"mtbench/{bench}" + (f".{variant}" if variant else "")
    assert f"{folder}/index.html" in pages, sorted(pages)
    index = pages[f"{folder}/index.html"].read_text(encoding="utf-8")
    assert "signature" in index and "smollm2" in index
    assert variant is None or variant in index
    first = pages[f"{folder}/q0001.html"].read_text(encoding="utf-8")
    assert "smollm2" in first and "scripted" in first  # the judged answer, by its judge
