"""How a JFBench summary was produced, in one line: the signature of the ``jfbench`` kind.

``rules``: the counting rule and constraint checks, named by upstream's commit
(``jfbench@c8fed01``): a record succeeds when every verdict in its results is true, as
upstream's ``analyze.py`` counts. ``resamples``, ``confidence``, ``seed``: the bootstrap
over evaluated records.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from hyoka.jfbench.rules import markdown, sentences, words
from hyoka.signature import Signature, SignatureType

KIND = "jfbench"
#: the rule set: upstream's code at the commit hyoka reads it from
RULES = "jfbench@c8fed01"


@dataclass(frozen=True, kw_only=True)
class JfbenchSignature(SignatureType):
    """The signature of a JFBench summary (module docstring)."""

    kind: ClassVar[str] = KIND
    packages: ClassVar[tuple[str, ...]] = (
        *words.PACKAGES,
        *sentences.PACKAGES,
        *markdown.PACKAGES,
    )
    rules: str
    resamples: int
    confidence: float
    seed: int


def jfbench_signature(resamples: int, confidence: float, seed: int) -> Signature:
    """The signature of a summary with these bootstrap settings."""
    return JfbenchSignature(
        rules=RULES, resamples=resamples, confidence=confidence, seed=seed
    ).signature()
