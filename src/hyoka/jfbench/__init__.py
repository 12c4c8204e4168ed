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
    from hyoka.jfbench.build import (
        DEFAULT_SEED,
        Entry,
        single_constraint,
        stable_seed,
        summary_of,
    )
    from hyoka.jfbench.catalogue import (
        COLLECTIONS,
        CONSTRAINT_SETS,
        ConstraintSet,
        Factory,
        classes,
    )
    from hyoka.jfbench.evaluate import decide, succeeded
    from hyoka.jfbench.inputs import PROMPTS_IN_DATA, Prompts, read_prompts
    from hyoka.jfbench.judged import (
        JUDGE_MAX_TOKENS,
        JUDGE_TEMPERATURE,
        UPSTREAM_JUDGE,
        Response,
        judge_settings,
        plan_judged,
        task_id,
        verdicts_of,
    )
    from hyoka.jfbench.results import files_of, read_records
    from hyoka.jfbench.rules import RULES, check_of, missing_rules
    from hyoka.jfbench.scores import Summary, score, summarize
    from hyoka.jfbench.signing import KIND, jfbench_signature
    from hyoka.jfbench.signing import RULES as SIGNED_RULES
    from hyoka.jfbench.texts import (
        Source,
        build_benchmark,
        judge_verdict,
        majority,
        render_prompts,
    )

_NAMES: dict[str, tuple[str, str]] = {
    **{
        name: ("hyoka.jfbench.benchmark", name)
        for name in ("PROMPT_SOURCE", "Benchmark", "load_benchmark")
    },
    **{
        name: ("hyoka.jfbench.judged", name)
        for name in (
            "JUDGE_MAX_TOKENS",
            "JUDGE_TEMPERATURE",
            "UPSTREAM_JUDGE",
            "Response",
            "judge_settings",
            "plan_judged",
            "task_id",
            "verdicts_of",
        )
    },
    **{
        name: ("hyoka.jfbench.build", name)
        for name in ("DEFAULT_SEED", "Entry", "single_constraint", "stable_seed", "summary_of")
    },
    **{
        name: ("hyoka.jfbench.catalogue", name)
        for name in ("COLLECTIONS", "CONSTRAINT_SETS", "ConstraintSet", "Factory", "classes")
    },
    **{name: ("hyoka.jfbench.evaluate", name) for name in ("decide", "succeeded")},
    **{
        name: ("hyoka.jfbench.inputs", name)
        for name in ("PROMPTS_IN_DATA", "Prompts", "read_prompts")
    },
    **{name: ("hyoka.jfbench.results", name) for name in ("files_of", "read_records")},
    **{name: ("hyoka.jfbench.rules", name) for name in ("RULES", "check_of", "missing_rules")},
    **{name: ("hyoka.jfbench.scores", name) for name in ("Summary", "score", "summarize")},
    **{name: ("hyoka.jfbench.signing", name) for name in ("KIND", "jfbench_signature")},
    "SIGNED_RULES": ("hyoka.jfbench.signing", "RULES"),
    **{
        name: ("hyoka.jfbench.texts", name)
        for name in ("Source", "build_benchmark", "judge_verdict", "majority", "render_prompts")
    },
}

__all__ = [
    "COLLECTIONS",
    "CONSTRAINT_SETS",
    "DEFAULT_SEED",
    "JUDGE_MAX_TOKENS",
    "JUDGE_TEMPERATURE",
    "KIND",
    "PROMPTS_IN_DATA",
    "PROMPT_SOURCE",
    "RULES",
    "SIGNED_RULES",
    "UPSTREAM_JUDGE",
    "Benchmark",
    "ConstraintSet",
    "Entry",
    "Factory",
    "Prompts",
    "Response",
    "Source",
    "Summary",
    "build_benchmark",
    "check_of",
    "classes",
    "decide",
    "files_of",
    "jfbench_signature",
    "judge_settings",
    "judge_verdict",
    "load_benchmark",
    "majority",
    "missing_rules",
    "plan_judged",
    "read_prompts",
    "read_records",
    "render_prompts",
    "score",
    "single_constraint",
    "stable_seed",
    "succeeded",
    "summarize",
    "summary_of",
    "task_id",
    "verdicts_of",
]

__getattr__, __dir__ = lazy_face(__name__, _NAMES)
