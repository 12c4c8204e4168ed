"""Response files scored, as ``hyoka ifeval score`` scores them: each file's responses
matched to the prompts, every instruction decided strictly and loosely, and the strict and
loose accuracies with bootstrap intervals over prompts, under one signature.

The command line only reads its flags, calls ``score_responses`` and prints what it hands
back (``ScoredResponses.to_json`` is its ``--json``).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hyoka.errors import HyokaWarning
from hyoka.ifeval.evaluate import MODES, Mode, judge_all
from hyoka.ifeval.inputs import PromptSet, matched, read_responses
from hyoka.ifeval.language import DEFAULT_SEED as LANGDETECT_SEED
from hyoka.ifeval.scores import Bootstrap, Scores, score
from hyoka.ifeval.signing import data_id, ifeval_signature, is_pinned
from hyoka.signature import Signature
from hyoka.stats import DEFAULT_RESAMPLES, DEFAULT_SEED


@dataclass(frozen=True)
class ScoredResponses:
    """Each response file's scores by mode (``results``) and how they were produced."""

    signature: Signature
    results: list[tuple[Path, dict[Mode, Scores]]]

    def to_json(self) -> dict[str, Any]:
        """The signature, then per file its strict and loose scores."""
        return {
            "signature": self.signature.to_json(),
            "results": [
                {"responses": str(path), **{m: s.to_json() for m, s in scored.items()}}
                for path, scored in self.results
            ],
        }


def score_responses(
    responses: Sequence[Path],
    prompts: PromptSet,
    *,
    langdetect_seed: int | None = LANGDETECT_SEED,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    limit: int | None = None,
) -> ScoredResponses:
    """Score every file of ``responses`` against ``prompts``: strict and loose verdicts
    (a language verdict drawn with ``langdetect_seed``; ``None``: unseeded, as upstream),
    accuracies with intervals from ``resamples`` draws seeded with ``seed``; ``limit``: the
    first N prompts only (a trial's answers; the signature says how many)."""
    if not is_pinned(prompts.sha256):
        warnings.warn(
            f"{prompts.path} is not the pinned M-IFEval-Ja prompts file: its scores are "
            f"signed data:{data_id(prompts.sha256)}",
            HyokaWarning,
            stacklevel=2,
        )
    draws = Bootstrap(resamples=resamples, seed=seed)
    scored = prompts.prompts[:limit] if limit else prompts.prompts
    shown = len(scored) if len(scored) < len(prompts.prompts) else None
    signature = ifeval_signature(
        prompts.sha256, langdetect_seed, resamples, draws.confidence, seed, shown
    )
    results = []
    for path in responses:
        answered = matched(scored, read_responses(path, prompts.by_key()), path)
        verdicts = judge_all(scored, answered, seed=langdetect_seed)
        results.append((path, {mode: score(verdicts[mode], draws) for mode in MODES}))
    return ScoredResponses(signature, results)
