"""One line per run, as the leaderboard and the score command show it.

Reads only the top of a ``result.json`` (scores, lengths, config), so it works the same for
our results and for upstream ones.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hyoka.pfgen._pysum import float_sum


@dataclass(frozen=True)
class RunSummary:
    """A run's headline numbers; ``score_sem`` is ``score_std / sqrt(num_trials)``."""

    folder: Path
    model: str
    mode: str
    num_trials: int
    score: float
    score_std: float
    length: float
    length_std: float
    fluency: float
    truthfulness: float
    helpfulness: float

    @property
    def score_sem(self) -> float:
        return self.score_std / math.sqrt(self.num_trials) if self.num_trials > 0 else 0.0

    @classmethod
    def from_result(cls, folder: Path, result: dict[str, Any]) -> RunSummary:
        config = result.get("config") or {}
        scores = result["scores"]
        return cls(
            folder=folder,
            model=_model_name(folder, config),
            mode=str(config.get("mode", "?")),
            num_trials=int(result["num_trials"]),
            score=float(result["score"]),
            score_std=float(result["score_std"]),
            length=float(result["length"]),
            length_std=float(result["length_std"]),
            fluency=float_sum(scores["fluency"].values()),
            truthfulness=float_sum(scores["truthfulness"].values()),
            helpfulness=float(scores["helpfulness"]),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "folder": str(self.folder),
            "model": self.model,
            "mode": self.mode,
            "num_trials": self.num_trials,
            "score": self.score,
            "score_std": self.score_std,
            "score_sem": self.score_sem,
            "length": self.length,
            "length_std": self.length_std,
            "fluency": self.fluency,
            "truthfulness": self.truthfulness,
            "helpfulness": self.helpfulness,
        }


def _model_name(folder: Path, config: dict[str, Any]) -> str:
    """``org/model`` from the upstream layout ``<org>/<model>/<7-hex hash>/``, else the config.

    Upstream configs of API models often name the model without its organisation, while the
    folder layout always carries it, and the public leaderboard shows the folder's name.
    """
    if re.fullmatch(r"[0-9a-f]{7}", folder.name) and folder.parent.parent.name:
        return f"{folder.parent.parent.name}/{folder.parent.name}"
    return str(config.get("model", folder.name))
