"""JFBench: PFN's Japanese instruction-following benchmark, built and decided as upstream does.

pfnet-research/jfbench (commit c8fed01) composes constraints onto IFBench's 300 prompts
translated into Japanese: ``catalogue`` holds its constraint collections in upstream's order
(166 classes, 123 decided by rules, 43 by an LLM judge), ``inputs`` reads the prompts,
``build`` reproduces upstream's benchmark entry for entry (which prompt, which constraints,
which seeds, in which order), ``texts`` words each prompt and each judge question from
upstream's source read at run time, ``rules`` decides the rule-based constraints as
upstream's classes decide them, ``evaluate`` gives a built entry's verdicts, ``results``
reads upstream's result files and ``scores`` summarises as upstream's ``analyze.py`` does,
with bootstrap intervals; ``signing`` says how. Upstream's code is MIT and its prompts
ODC-BY 1.0; hyoka reads both and copies neither. This is the package's face: names load on
first use, so importing it pulls in neither Janome nor pysbd.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hyoka._faces import lazy_face

if TYPE_CHECKING:
    from hyoka.jfbench.benchmark import PROMPT_SOURCE, Benchmark, load_benchmark
    from hyoka.jfbench.catalogue import classes
    from hyoka.jfbench.evaluate import decide
    from hyoka.jfbench.inputs import PROMPTS_IN_DATA, Prompts, read_prompts
    from hyoka.jfbench.judged import (
        JUDGE_MAX_TOKENS,
        JUDGE_THINKING,
        UPSTREAM_JUDGE,
        Response,
        failed_calls,
        judge_settings,
        plan_judged,
        task_id,
        verdicts_of,
    )
    from hyoka.jfbench.results import files_of, read_records
    from hyoka.jfbench.scores import Summary, score
    from hyoka.jfbench.signing import RULES as SIGNED_RULES
    from hyoka.jfbench.signing import jfbench_signature
    from hyoka.jfbench.texts import JUDGE_VOTES, build_benchmark

_NAMES: dict[str, tuple[str, str]] = {
    **{
        name: ("hyoka.jfbench.benchmark", name)
        for name in ("PROMPT_SOURCE", "Benchmark", "load_benchmark")
    },
    **{
        name: ("hyoka.jfbench.judged", name)
        for name in (
            "JUDGE_MAX_TOKENS",
            "JUDGE_THINKING",
            "UPSTREAM_JUDGE",
            "Response",
            "failed_calls",
            "judge_settings",
            "plan_judged",
            "task_id",
            "verdicts_of",
        )
    },
    "classes": ("hyoka.jfbench.catalogue", "classes"),
    "decide": ("hyoka.jfbench.evaluate", "decide"),
    **{
        name: ("hyoka.jfbench.inputs", name)
        for name in ("PROMPTS_IN_DATA", "Prompts", "read_prompts")
    },
    **{name: ("hyoka.jfbench.results", name) for name in ("files_of", "read_records")},
    **{name: ("hyoka.jfbench.scores", name) for name in ("Summary", "score")},
    "jfbench_signature": ("hyoka.jfbench.signing", "jfbench_signature"),
    **{name: ("hyoka.jfbench.texts", name) for name in ("JUDGE_VOTES", "build_benchmark")},
    "SIGNED_RULES": ("hyoka.jfbench.signing", "RULES"),
}

__all__ = [
    "JUDGE_MAX_TOKENS",
    "JUDGE_THINKING",
    "JUDGE_VOTES",
    "PROMPTS_IN_DATA",
    "PROMPT_SOURCE",
    "SIGNED_RULES",
    "UPSTREAM_JUDGE",
    "Benchmark",
    "Prompts",
    "Response",
    "Summary",
    "build_benchmark",
    "classes",
    "decide",
    "failed_calls",
    "files_of",
    "jfbench_signature",
    "judge_settings",
    "load_benchmark",
    "plan_judged",
    "read_prompts",
    "read_records",
    "score",
    "task_id",
    "verdicts_of",
]

__getattr__, __dir__ = lazy_face(__name__, _NAMES)
