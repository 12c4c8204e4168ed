"""Maintainer check: arena-hard's own notebook computes hyoka's ranking statistics.

    python benchmarks/arena_hard_metrics.py MIRROR [--rev bd52a78] [RANKING REFERENCE]
        [--data-dir DIR] [--resamples N]

MIRROR is a git clone (bare or not) of lmarena/arena-hard-auto. Its
``notebook/benchmark_statistics.ipynb`` (removed from the repository later, in favour of a
Colab copy) is taken from ``--rev`` with ``git show``; the cells that define and compute
separability (``get_unique_overlapping_interval_pairs``), agreement with confidence
(``get_overlap`` and an "(With Confidence)" loop), strict agreement (a "(strict)" loop) and
the forecasts behind the pair-rank Brier score (``calculate_predictions_and_labels``, scored
with scikit-learn's ``brier_score_loss`` as the notebook scores them) are written into a
temporary folder and run there with this Python (pandas, scipy and scikit-learn needed), on
the intervals, means, variances and scores of hyoka's rankings of two judgment folders
(default: pfmt-bench-fin-ja's gpt-4o-mini judged against gpt-4o). The project carries none of
upstream's code: the cells are read from the clone each time. It prints upstream's numbers
beside hyoka's and exits 1 when one differs (the notebook's agreement is on its 1, ½, 0
scale: hyoka's is 2·that − 1).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from hyoka.metaeval import judgments_ranking
from hyoka.mtbench import Bench, IntervalSettings
from hyoka.stats.bootstrap import percentiles
from hyoka.stats.ranking_quality import (
    agreement_with_confidence,
    pair_rank_brier,
    separability,
    strict_agreement,
)

NOTEBOOK = "notebook/benchmark_statistics.ipynb"
DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
PFMT = Path("pfmt-bench-fin-ja") / "model_judgment"

#: what the upstream cells are run by: the rankings as the notebook's DataFrames, then
#: each cell as it is, its printed figure read back
_DRIVER = """
import contextlib, io, json, sys
from itertools import combinations
from math import comb
import numpy as np
import pandas as pd
from scipy.stats import norm
from sklearn.metrics import brier_score_loss

data = json.load(open(sys.argv[1]))
cells = json.load(open(sys.argv[2]))
models = data["models"]
arena_hard = pd.DataFrame({"model": models, "lower": data["low"], "upper": data["high"],
                           "score": data["score"]})
elo_subset = pd.DataFrame({"index": models, "rating_q025": data["ref_low"],
                           "rating_q975": data["ref_high"], "rating": data["ref_score"]})
scope = dict(globals())

def run(source):
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(source, scope)
    return printed.getvalue()

run(cells["separability"])
overlap, total = scope["get_unique_overlapping_interval_pairs"](arena_hard)
run(cells["overlap"])
agreement = float(run(cells["agreement"]).rsplit(":", 1)[1])
strict = float(run(cells["strict"]).rsplit(":", 1)[1])
run(cells["forecast"])
pred = {"mean": dict(zip(models, data["mean"])), "var": dict(zip(models, data["var"]))}
true = {"rating": dict(zip(models, data["ref_score"])), "variance": dict.fromkeys(models, 1.0)}
frame = scope["calculate_predictions_and_labels"](models, pred, true)
brier = float(brier_score_loss(frame["label"], frame["p(a<b)"]))
print(json.dumps({"separability": 1 - overlap / total, "agreement": agreement,
                  "strict": strict, "brier": brier}))
"""


def _cells(mirror: Path, rev: str) -> dict[str, str]:
    shown = subprocess.run(
        ["git", "-C", str(mirror), "show", f"{rev}:{NOTEBOOK}"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    if shown.returncode != 0:
        raise SystemExit(f"error: {mirror}: {shown.stderr.strip()}")
    sources = ["".join(c["source"]) for c in json.loads(shown.stdout)["cells"]]

    def first(*needles: str) -> str:
        return next(s for s in sources if all(n in s for n in needles))

    return {
        "separability": first("def get_unique_overlapping_interval_pairs("),
        "overlap": first("def get_overlap("),
        "agreement": first("for model_a, model_b in combinations(list(arena_hard.model)",
                           "(With Confidence)"),
        "strict": first("for model_a, model_b in combinations(list(arena_hard.model)",
                        "(strict)"),
        "forecast": first("def calculate_predictions_and_labels("),
    }  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mirror", type=Path, help="a git clone of lmarena/arena-hard-auto")
    parser.add_argument("ranking", type=Path, nargs="?", default=DATA / PFMT / "gpt-4o-mini_single")
    parser.add_argument("reference", type=Path, nargs="?", default=DATA / PFMT / "gpt-4o_single")
    parser.add_argument("--rev", default="bd52a78", help="the revision to read (bd52a78)")
    parser.add_argument("--bench", default="pfmt-fin")
    parser.add_argument("--data-dir", type=Path, default=DATA)
    parser.add_argument("--resamples", type=int, default=2000)
    args = parser.parse_args()
    settings = IntervalSettings(resamples=args.resamples)
    bench = Bench.load(args.bench, args.data_dir, questions_only=True)
    mine = judgments_ranking(bench, args.ranking, settings).scores
    theirs = judgments_ranking(bench, args.reference, settings).scores
    shared = [m for m in mine.models if m in theirs.models]
    mine, theirs = mine.only(shared), theirs.only(shared)
    (low, high), (ref_low, ref_high) = (
        percentiles(mine.draws, 0.95),
        percentiles(theirs.draws, 0.95),
    )
    data = {
        "models": shared, "low": low.tolist(), "high": high.tolist(),
        "score": mine.estimate.tolist(), "mean": mine.draws.mean(axis=0).tolist(),
        "var": mine.draws.var(axis=0).tolist(), "ref_low": ref_low.tolist(),
        "ref_high": ref_high.tolist(), "ref_score": theirs.estimate.tolist(),
    }  # fmt: skip
    ours = {
        "separability": separability(mine),
        "agreement": (agreement_with_confidence(mine, theirs) + 1) / 2,
        "strict": strict_agreement(mine, theirs),
        "brier": pair_rank_brier(mine, theirs),
    }
    with tempfile.TemporaryDirectory() as work:
        folder = Path(work)
        (folder / "data.json").write_text(json.dumps(data), encoding="utf-8")
        (folder / "cells.json").write_text(json.dumps(_cells(args.mirror, args.rev)), "utf-8")
        (folder / "driver.py").write_text(_DRIVER, encoding="utf-8")
        done = subprocess.run(
            [sys.executable, "driver.py", "data.json", "cells.json"],
            cwd=work, capture_output=True, text=True, timeout=300, check=False,
        )  # fmt: skip
    if done.returncode != 0:
        print(done.stderr, file=sys.stderr)
        return done.returncode
    upstream = json.loads(done.stdout.strip().splitlines()[-1])
    print(f"{args.rev}:{NOTEBOOK} on {args.ranking} against {args.reference}, {len(shared)} models")
    differs = False
    for name, value in upstream.items():
        same = bool(np.isclose(value, ours[name], rtol=0, atol=1e-12))
        differs |= not same
        verdict = "same" if same else "DIFFERS"
        print(f"{name:>13}: upstream {value:.12f}  hyoka {ours[name]:.12f}  {verdict}")
    return 1 if differs else 0


if __name__ == "__main__":
    raise SystemExit(main())
