"""Maintainer check: hyoka sends ELYZA-tasks-100's judge prompt exactly as upstream builds it.

    hyoka data fetch elyza-tasks-100 --with-published --data-dir DATA_DIR
    python benchmarks/elyza_upstream_prompt.py DATA_DIR

The tests run the ELYZA replay with hyoka's own stand-in prompt file, since upstream's
``evaluation_datasets_config.py`` is code that the project may not carry. This script runs
the same replay (``tests/elyza_replay.py``) with upstream's file: it first checks every
file of the data directory against the manifest (lightblue-tech/japanese_llm_eval @
77dd88f, SHA-256), then re-judges the 24 published models with a server keyed by the
prompts upstream's own ``get_elyza_prompt`` builds and answering the published scores.
It prints how many decidable published scores hyoka reproduced (every prompt byte for
byte as upstream built it) and exits non-zero on any difference.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import tempfile
from pathlib import Path

from hyoka.data import ALL_GROUPS, manifest, verify

TESTS = Path(__file__).resolve().parents[1] / "tests"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data_dir", type=Path, help="a data directory fetched as above")
    data = parser.parse_args().data_dir.resolve()
    report = verify(manifest("elyza-tasks-100"), data, ALL_GROUPS)
    if report.problems:
        for problem in report.problems:
            print(f"error: {data / problem.path}: {problem.detail}", file=sys.stderr)
        return 1
    print(f"{report.checked} files as pinned in {data}")
    sys.path.insert(0, str(TESTS))
    replay = importlib.import_module("elyza_replay")
    models = sorted(path.stem for path in replay.published_judgments(data).glob("*.json"))
    with tempfile.TemporaryDirectory() as work:
        os.environ["HYOKA_DATA_DIR"] = str(data)
        os.environ["HYOKA_CACHE_DIR"] = str(Path(work) / "cache")
        result = replay.rejudge(models, data, Path(work))
    replay.assert_sent_as_upstream(result, 100 * len(models))
    decidable = result.same + len(result.mismatches)
    print(
        f"upstream's prompt, {len(models)} models: the published score on {result.same} of "
        f"{decidable} decidable tasks ({result.undecidable} undecidable, "
        f"{result.unreadable} published None), every prompt byte for byte as upstream's"
    )
    for mismatch in result.mismatches[:20]:
        print(f"  {mismatch}")
    return 0 if not result.mismatches else 1


if __name__ == "__main__":
    raise SystemExit(main())
