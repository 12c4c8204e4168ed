"""M-IFEval-Ja: judge-free instruction following in Japanese, decided as upstream decides it.

Typical use::

    from hyoka.ifeval import read_prompts, read_responses, matched, judge_all, score
    prompts = read_prompts(Path("data/ja_input_data.jsonl"))
    responses = matched(prompts.prompts, read_responses(path), path)
    verdicts = judge_all(prompts.prompts, responses)        # {"strict": ..., "loose": ...}
    score(verdicts["strict"]).prompt_level.value

The checks are lightblue-tech/M-IFEval's Japanese instructions (commit 0bc3143), written
from reading them: ``registry`` maps each of the 33 ids to its check, ``rules`` holds
those that read only the text, ``japanese`` those that read Janome's words or
ja-sentence-segmenter's sentences, ``language`` langdetect's verdict with a seed.
``evaluate`` gives strict and loose verdicts, ``scores`` the accuracies with bootstrap
intervals over prompts, ``verify`` compares an upstream evaluation file verdict by verdict,
``signing`` says how a result was produced. This is the package's face: names load on
first use, so importing it pulls in neither Janome nor langdetect.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hyoka._faces import lazy_face

if TYPE_CHECKING:
    from hyoka.ifeval.evaluate import (
        MODES,
        Mode,
        PromptVerdict,
        follows,
        judge_all,
        judge_prompt,
        loose_readings,
    )
    from hyoka.ifeval.inputs import (
        PROMPTS_IN_DATA,
        Prompt,
        PromptSet,
        PublishedVerdicts,
        files_given,
        matched,
        read_evaluation,
        read_prompts,
        read_responses,
    )
    from hyoka.ifeval.language import DEFAULT_SEED as LANGDETECT_SEED
    from hyoka.ifeval.registry import BUILDERS, LANGUAGE_ID, Instruction, build, group_of
    from hyoka.ifeval.run import ScoredResponses, score_responses
    from hyoka.ifeval.scores import Accuracy, Bootstrap, Scores, score, tally
    from hyoka.ifeval.signing import KIND, RULES, IfevalSignature, ifeval_signature
    from hyoka.ifeval.verify import (
        PROMPT_LEVEL,
        SEEDS_COMPARED,
        Difference,
        Verification,
        mode_of,
        verify_evaluation,
    )

_NAMES: dict[str, tuple[str, str]] = {
    **{
        name: ("hyoka.ifeval.evaluate", name)
        for name in (
            "MODES",
            "Mode",
            "PromptVerdict",
            "follows",
            "judge_all",
            "judge_prompt",
            "loose_readings",
        )
    },
    **{
        name: ("hyoka.ifeval.inputs", name)
        for name in (
            "PROMPTS_IN_DATA",
            "Prompt",
            "PromptSet",
            "PublishedVerdicts",
            "files_given",
            "matched",
            "read_evaluation",
            "read_prompts",
            "read_responses",
        )
    },
    "LANGDETECT_SEED": ("hyoka.ifeval.language", "DEFAULT_SEED"),
    **{
        name: ("hyoka.ifeval.registry", name)
        for name in ("BUILDERS", "LANGUAGE_ID", "Instruction", "build", "group_of")
    },
    **{name: ("hyoka.ifeval.run", name) for name in ("ScoredResponses", "score_responses")},
    **{
        name: ("hyoka.ifeval.scores", name)
        for name in ("Accuracy", "Bootstrap", "Scores", "score", "tally")
    },
    **{
        name: ("hyoka.ifeval.signing", name)
        for name in ("KIND", "RULES", "IfevalSignature", "ifeval_signature")
    },
    **{
        name: ("hyoka.ifeval.verify", name)
        for name in (
            "PROMPT_LEVEL",
            "SEEDS_COMPARED",
            "Difference",
            "Verification",
            "mode_of",
            "verify_evaluation",
        )
    },
}

__all__ = [
    "BUILDERS",
    "KIND",
    "LANGDETECT_SEED",
    "LANGUAGE_ID",
    "MODES",
    "PROMPTS_IN_DATA",
    "PROMPT_LEVEL",
    "RULES",
    "SEEDS_COMPARED",
    "Accuracy",
    "Bootstrap",
    "Difference",
    "IfevalSignature",
    "Instruction",
    "Mode",
    "Prompt",
    "PromptSet",
    "PromptVerdict",
    "PublishedVerdicts",
    "ScoredResponses",
    "Scores",
    "Verification",
    "build",
    "files_given",
    "follows",
    "group_of",
    "ifeval_signature",
    "judge_all",
    "judge_prompt",
    "loose_readings",
    "matched",
    "mode_of",
    "read_evaluation",
    "read_prompts",
    "read_responses",
    "score",
    "score_responses",
    "tally",
    "verify_evaluation",
]

__getattr__, __dir__ = lazy_face(__name__, _NAMES)
