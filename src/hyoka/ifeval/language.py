"""Which language a response is in: langdetect, as upstream asks it, with a seed.

langdetect draws random n-grams of the text (seven trials from a ``random.Random`` seeded
with its factory's seed) and names the most probable language. Upstream (M-IFEval) never
sets the seed, so each run draws anew and a text near a border can get either answer;
swallow-evaluation-instruct's copy of the checks sets ``DetectorFactory.seed = 0``. hyoka
follows that seeded rule by default (every detection reseeded with the seed, as langdetect
does per detection), and names the seed in the signature; ``seed=None`` is upstream's
unseeded draw, for comparison only. A text with no features to read (no letters) is
counted as in the asked language, as upstream does.

The language profiles load once per process (about 0.3 s) and every detection reads them
through a view that carries its own seed, so several seeds can be compared without loading
them again or touching langdetect's shared factory.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from hyoka.errors import InputError

#: the package whose code decides these verdicts (its version goes into the signature)
PACKAGES = ("langdetect",)
#: the seed of the default rule (swallow-evaluation-instruct's)
DEFAULT_SEED = 0
#: how many seeded detections are kept (``detect``)
_KEPT = 256


@dataclass(frozen=True)
class _SeededProfiles:
    """What langdetect's ``Detector`` reads from its factory: the profiles and the seed."""

    word_lang_prob_map: Any
    langlist: Any
    seed: int | None


@functools.cache
def _profiles() -> tuple[Any, Any]:
    try:
        from langdetect.detector_factory import PROFILES_DIRECTORY, DetectorFactory
    except ImportError:
        raise InputError(
            "M-IFEval's language check needs langdetect: pip install 'hyoka[ifeval]'"
        ) from None
    factory = DetectorFactory()
    factory.load_profile(PROFILES_DIRECTORY)
    return factory.word_lang_prob_map, factory.langlist


def detect(text: str, seed: int | None = DEFAULT_SEED) -> str | None:
    """langdetect's language code for ``text`` (``ja``, ``fr``, ``zh-cn`` ...), drawn with
    ``seed`` (``None``: unseeded, drawn anew each time); ``None`` where langdetect finds
    nothing to read. A seeded answer is a function of the text and the seed, so the last
    few are kept: the strict and the loose verdicts read the same text."""
    if seed is None:
        return _detect(text, None)
    return _detect_seeded(text, seed)


@functools.lru_cache(maxsize=_KEPT)
def _detect_seeded(text: str, seed: int) -> str | None:
    return _detect(text, seed)


def _detect(text: str, seed: int | None) -> str | None:
    from langdetect.detector import Detector
    from langdetect.lang_detect_exception import LangDetectException

    detector = Detector(_SeededProfiles(*_profiles(), seed))
    detector.append(text)
    try:
        return str(detector.detect())
    except LangDetectException:
        return None


def response_language(text: str, language: str, seed: int | None = DEFAULT_SEED) -> bool:
    """The text is in ``language`` (or has nothing langdetect can read)."""
    found = detect(text, seed)
    return found is None or found == language


def seed_dependent(text: str, language: str, seeds: Iterable[int]) -> bool:
    """Whether ``response_language`` decides ``text`` differently under some of ``seeds``."""
    return len({response_language(text, language, seed) for seed in seeds}) > 1
