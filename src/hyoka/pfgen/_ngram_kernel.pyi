"""Types of the compiled kernel (``_ngram_kernel.c``); ``hyoka.pfgen.engine`` is its caller."""

from collections.abc import Iterable, Sequence

from typing_extensions import Buffer

FLUENCY_WINDOW: int
TRUTHFULNESS_WINDOW: int
MAX_NGRAM: int
TRUTHFULNESS_NGRAM: int
TRUTHFULNESS_SATURATION: float

def measure(
    nodes: Buffer,
    stride: int,
    sets: Sequence[tuple[int, int, float]],
    answers: Sequence[str],
    skipped: str,
    fluency_out: Buffer,
    truthfulness_out: Buffer,
) -> int: ...

#: a rule node: (kind 0 literal / 1 and / 2 or, name, literal, parts)
RuleNode = tuple[int, str | None, str | None, tuple["RuleNode", ...]]

def helpfulness(
    rules: tuple[tuple[RuleNode, float], ...], answers: Sequence[str], /
) -> tuple[list[float], list[list[tuple[str, float]]]]: ...
def compensated_sum(values: Iterable[float], /) -> float: ...
def checksum(buffer: Buffer, portable: bool = False) -> bytes: ...
