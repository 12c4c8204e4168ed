"""Re-judging the published ELYZA-tasks-100 answers (``elyza_replay.py`` says how), from
``../shared/data`` and hyoka's stand-in prompt file: every decidable published score, and
every prompt sent byte for byte as the prompt file's ``get_elyza_prompt`` builds it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from _shared import SHARED_DATA, elyza_data
from elyza_replay import Replay, assert_sent_as_upstream, published_judgments, rejudge


def _rejudge(models: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Replay:
    data = elyza_data(tmp_path / "data")
    monkeypatch.setenv("HYOKA_DATA_DIR", str(data))
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(tmp_path / "cache"))
    work = tmp_path / "work"
    work.mkdir()
    return rejudge(models, data, work)


def test_one_model_with_an_unreadable_reply(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Qwen1.5-32B-Chat: 100 tasks, one published ``None`` (recorded as -1)."""
    replay = _rejudge(["Qwen__Qwen1.5-32B-Chat"], tmp_path, monkeypatch)
    assert not replay.mismatches, replay.mismatches
    assert replay.same + replay.undecidable == 100
    assert replay.unreadable == 1
    assert_sent_as_upstream(replay, 100)


@pytest.mark.slow
def test_published_scores_of_all_24_models(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """All 24 published models, 2,400 tasks: every decidable score equal."""
    models = sorted(path.stem for path in published_judgments(SHARED_DATA).glob("*.json"))
    assert len(models) == 24
    replay = _rejudge(models, tmp_path, monkeypatch)
    assert not replay.mismatches, replay.mismatches[:10]
    assert (replay.same, replay.undecidable) == (2385, 15)
    assert replay.unreadable == 3
    assert_sent_as_upstream(replay, 2400)
