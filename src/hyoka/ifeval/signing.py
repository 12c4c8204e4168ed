"""How an M-IFEval result was produced, in one line: the signature of the ``m-ifeval`` kind.

``data``: the prompts file, by the first 8 hex digits of its SHA-256 (the pinned upstream
file reads ``m-ifeval-ja@d74fbbd1``), with ``+custom`` when it is not the pinned file (edited
arguments, a cut set: legitimate, and its numbers must say so wherever they go).
``rules``: the checks hyoka reproduces, named by upstream's commit. ``langdetect-seed``:
the seed every language detection draws with (``0``: swallow-evaluation-instruct's rule,
hyoka's default; ``none``: unseeded, as upstream runs, so a verdict near a border may
differ between runs). ``resamples``, ``confidence``, ``seed``: the bootstrap over prompts.
The versions of langdetect, Janome and ja-sentence-segmenter, whose code decides verdicts,
are the neutral ``packages`` field.
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
#: added to the data's name when the prompts are not the pinned file
CUSTOM_DATA = "+custom"
#: the pinned prompts file, as the data manifest lists it
_PINNED_PATH = "m-ifeval-ja/data/ja_input_data.jsonl"


def is_pinned(prompts_sha256: str) -> bool:
    """Whether prompts of that SHA-256 are the pinned upstream file (the data manifest's)."""
    from hyoka.data import manifest

    pinned = {f.sha256 for f in manifest(DATA_NAME).files if f.path == _PINNED_PATH}
    return prompts_sha256 in pinned


def data_id(prompts_sha256: str) -> str:
    """The ``data`` field: the name, 8 hex digits, ``+custom`` unless pinned."""
    custom = "" if is_pinned(prompts_sha256) else CUSTOM_DATA
    return f"{DATA_NAME}@{prompts_sha256[:8]}{custom}"


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
        data=data_id(prompts_sha256),
        rules=RULES,
        langdetect_seed=seed_text(langdetect_seed),
        resamples=resamples,
        confidence=confidence,
        seed=seed,
        prompts=prompts,
    ).signature()
