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
    from hyoka.ifeval.registry import BUILDERS, LANGUAGE_ID, Instruction, build
    from hyoka.ifeval.run import score_responses
    from hyoka.ifeval.scores import Accuracy, Scores, score, tally
    from hyoka.ifeval.signing import RULES
    from hyoka.ifeval.verify import (
        SEEDS_COMPARED,
        Verification,
        verify_evaluation,
    )

_NAMES: dict[str, tuple[str, str]] = {
    **{
        name: ("hyoka.ifeval.evaluate", name)
        for name in (
            "MODES",
            "Mode",
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
    **{
        name: ("hyoka.ifeval.registry", name)
        for name in ("BUILDERS", "LANGUAGE_ID", "Instruction", "build")
    },
    "score_responses": ("hyoka.ifeval.run", "score_responses"),
    **{name: ("hyoka.ifeval.scores", name) for name in ("Accuracy", "Scores", "score", "tally")},
    "RULES": ("hyoka.ifeval.signing", "RULES"),
    **{
        name: ("hyoka.ifeval.verify", name)
        for name in (
            "SEEDS_COMPARED",
            "Verification",
            "verify_evaluation",
        )
    },
}

__all__ = [
    "BUILDERS",
    "LANGUAGE_ID",
    "MODES",
    "PROMPTS_IN_DATA",
    "RULES",
    "SEEDS_COMPARED",
    "Accuracy",
    "Instruction",
    "Mode",
    "Prompt",
    "PromptSet",
    "PublishedVerdicts",
    "Scores",
    "Verification",
    "build",
    "files_given",
    "follows",
    "judge_all",
    "judge_prompt",
    "loose_readings",
    "matched",
    "read_evaluation",
    "read_prompts",
    "read_responses",
    "score",
    "score_responses",
    "tally",
    "verify_evaluation",
]

__getattr__, __dir__ = lazy_face(__name__, _NAMES)
