"""How an M-IFEval result was produced, in one line: the signature of the ``m-ifeval`` kind.

``data``: the prompts file, by the first 8 hex digits of its SHA-256 (the pinned upstream
file reads ``m-ifeval-ja@d74fbbd1``). ``rules``: the checks hyoka reproduces, named by
upstream's commit. ``langdetect-seed``: the seed every language detection draws with
(``0``: swallow-evaluation-instruct's rule, hyoka's default; ``none``: unseeded, as
upstream runs, so a verdict near a border may differ between runs). ``resamples``,
``confidence``, ``seed``: the bootstrap over prompts. The versions of langdetect, Janome
and ja-sentence-segmenter, whose code decides verdicts, are the neutral ``packages`` field.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from hyoka.ifeval import japanese, language
from hyoka.signature import Signature, SignatureType, only_when_set

KIND = "m-ifeval"
#: the rule set: upstream's Japanese checks at the commit hyoka reads them from
RULES = "m-ifeval@0bc3143"
#: the data name the ``data`` field carries
DATA_NAME = "m-ifeval-ja"


def seed_text(seed: int | None) -> str:
    """The ``langdetect-seed`` field's value for ``seed``."""
    return "none" if seed is None else str(seed)


@dataclass(frozen=True, kw_only=True)
class IfevalSignature(SignatureType):
    """The signature of M-IFEval verdicts and accuracies (module docstring)."""

    kind: ClassVar[str] = KIND
    packages: ClassVar[tuple[str, ...]] = (*language.PACKAGES, *japanese.PACKAGES)
    data: str
    rules: str
    langdetect_seed: str
    resamples: int
    confidence: float
    seed: int
    #: how many of the prompts were scored, where not all (the first N: a ``--limit`` trial)
    prompts: int | None = only_when_set()


def ifeval_signature(
    prompts_sha256: str,
    langdetect_seed: int | None,
    resamples: int,
    confidence: float,
    seed: int,
    prompts: int | None = None,
) -> Signature:
    """The signature of results scored against prompts of that SHA-256 with these settings
    (``prompts``: the first N of them only)."""
    return IfevalSignature(
        data=f"{DATA_NAME}@{prompts_sha256[:8]}",
        rules=RULES,
        langdetect_seed=seed_text(langdetect_seed),
        resamples=resamples,
        confidence=confidence,
        seed=seed,
        prompts=prompts,
    ).signature()
