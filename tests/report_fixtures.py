"""Inputs for the report tests (no tests here): small crafted pfgen runs and pairwise files.

Answers are written here (not copied from the data): a run whose Q01 answer holds words no
reference answer has, so the explanation must highlight exactly those.
"""

from __future__ import annotations

import json
from pathlib import Path

from _shared import SHARED_DATA

COMMON = "時計の長針と短針が1日に重なる回数は、22回です。"
INVENTED = "ゑゐゑゐ火星"
CRAFTED = COMMON + INVENTED + COMMON
PFMT_JUDGMENTS = SHARED_DATA / "pfmt-bench-fin-ja" / "model_judgment" / "gpt-4o_single"
JUDGED_MODELS = ("gpt-4", "nvidia_nemotron-4-340b-instruct")


def question_text(question_id: str) -> str:
    raw = json.loads((SHARED_DATA / "pfgen-bench" / "data" / f"{question_id}.json").read_text())
    return str(raw["question"])


def write_run(folder: Path, model: str, answers: dict[str, list[str]]) -> Path:
    """A run folder with ``config.json`` and ``trials.jsonl`` (lines sorted as upstream)."""
    folder.mkdir(parents=True, exist_ok=True)
    config = {"model": model, "mode": "chat", "temperature": 1.0}
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
    lines = [
        json.dumps(
            {"question": question_text(q), "answer": a, "timestamp": "t"}, ensure_ascii=False
        )
        for q, texts in answers.items()
        for a in texts
    ]
    (folder / "trials.jsonl").write_text("\n".join(sorted(lines)) + "\n", encoding="utf-8")
    return folder


def crafted_runs(root: Path) -> tuple[Path, Path]:
    q02 = question_text("Q02")
    a = write_run(
        root / "run-a",
        "crafted-a",
        {
            "Q01": [CRAFTED],
            "Q02": [f"{q02}についてはわかりません。", f"{q02}は重要です。"],
        },
    )
    b = write_run(
        root / "run-b",
        "crafted-b",
        {
            "Q01": ["時計の長針と短針は1日に24回重なります。", "わかりません。"],
            "Q02": ["わかりません。", "不明です。"],
        },
    )
    return a, b


def write_fastchat_pairs(path: Path) -> list[tuple[str, str, str, str]]:
    """A FastChat ``*_pair.jsonl``: (model_1, model_2, g1_winner, g2_winner) per line."""
    plan = [
        ("alpha", "beta", "model_1", "model_1"),
        ("alpha", "beta", "model_1", "model_1"),
        ("alpha", "beta", "model_1", "model_2"),  # orders disagree
        ("alpha", "beta", "tie", "tie"),
        ("beta", "gamma", "model_1", "model_1"),
        ("beta", "gamma", "model_2", "model_2"),
        ("alpha", "gamma", "model_1", "model_1"),
        ("alpha", "gamma", "model_1", "error"),  # no letter in one order
    ]
    lines = [
        json.dumps(
            {
                "question_id": n,
                "model_1": m1,
                "model_2": m2,
                "g1_winner": g1,
                "g2_winner": g2,
                "judge": ["judge-x", "pair-v2"],
                "turn": 1,
            }
        )
        for n, (m1, m2, g1, g2) in enumerate(plan)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return plan
