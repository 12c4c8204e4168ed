"""hyoka (評価): measure how well language models write Japanese.

The public API is re-exported here; everything else is internal and may change. The names
load on first use (PEP 562), so ``import hyoka`` (and the ``hyoka --help`` that needs only
the version) stays cheap: numpy, pydantic and the providers load when a name that needs
them is first touched.

- pfgen-bench: ``PfgenBenchmark``, ``score_run``, ``verify_run``
- judging: ``load_template``, ``JudgeSettings``, ``plan_single``, ``plan_pairs``, ``run_judging``
- two-turn benchmarks: ``Bench``, ``build_leaderboard``
- models: ``load_provider``, ``ModelClient``, ``connect``
- files and provenance: ``Signature``, ``JsonlLog``, ``Manifest``
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

#: public name -> the package face that defines it
_EXPORTS: dict[str, str] = {
    "PfgenBenchmark": "hyoka.pfgen",
    "score_run": "hyoka.pfgen",
    "verify_run": "hyoka.pfgen",
    "load_template": "hyoka.judge",
    "JudgeSettings": "hyoka.judge",
    "plan_single": "hyoka.judge",
    "plan_pairs": "hyoka.judge",
    "run_judging": "hyoka.judge",
    "Bench": "hyoka.mtbench",
    "build_leaderboard": "hyoka.mtbench",
    "load_provider": "hyoka.providers",
    "ModelClient": "hyoka.providers",
    "connect": "hyoka.providers",
    "Signature": "hyoka.signature",
    "JsonlLog": "hyoka.store",
    "Manifest": "hyoka.store",
}

__all__ = ["__version__", *_EXPORTS]


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'hyoka' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
