"""Style-controlled Bradley–Terry ratings, in the manner of arena-hard-auto.

arena-hard-auto (``show_result.py``, ``utils/add_markdown_info.py``) adds style features
to the Bradley–Terry model and fits them jointly with the strengths, so that a rating
says how good a model is with the style of its answers held equal:

    logit P(first beats second) = β_first − β_second + Σ_k γ_k·z_k

Per answer it counts its length, and with fenced code blocks removed its Markdown headers
(``#`` … ``######`` at a line's start), list items (``1.`` or ``-``/``*``/``+`` at a line's
start) and bold spans (``**…**``, ``__…__``). Per battle the length feature is the
normalised difference (L₁ − L₂)/(L₁ + L₂), and each Markdown kind's density
c/(L + 1) enters as (d₁ − d₂)/(d₁ + d₂ + 1); every feature column is then divided by its
root mean square over the battles (a difference of 0, equal style, stays 0). A column
without variation is left out (there is nothing to control). The controlled ratings are
the β, on the Elo scale as ``bradley_terry`` shows them; the γ say how much the judge
rewards each feature (per root mean square of the feature).

What differs from upstream, and is named in the signature: upstream standardises each
column (minus its mean, over its standard deviation). That is the same where every battle
is listed in both orders, as its games are; where one model is always listed first (X
against Y, a model against the baseline), the mean is that model's usual style lead, and
subtracting it would put the lead back into its rating. Scaled about zero, a battle
listed the other way round (second, first, 1 − share) gives the same ratings. Lengths are
counted in **characters**, not in tiktoken tokens (Japanese is written without spaces,
and a judge reads characters, not one vendor's tokens); the fit is Newton's method to the
maximum of the likelihood (upstream stops L-BFGS after 50 iterations); strengths are on
hyoka's Elo scale with percentile intervals from battles drawn with replacement (seeded),
like ``bradley_terry``; a battle's outcome may be fractional (a probability-averaged
verdict). Where battles belong to groups (the battles of one question, made from single
grades), a draw may weight whole groups instead (``groups``; named in the signature).

Where the features (alone or with the model terms) split every whole win from every whole
loss, the likelihood has no maximum and a fitted value is wherever the iterations stopped
(thousands of Elo points). ``logistic.separating_move`` finds it by its mechanism (the
coefficients keep growing as the ridge shrinks, along a separating direction), per
coefficient, whether or not any feature varied (``stats.separation``, the test every fit
uses): where a strength grows without bound (an unbeaten model too) the controlled ratings
are NaN, shown as ``n/a: no finite maximum (<why>)`` (``rating_text``,
``separation_lines``; why: the models that never lose, else the features); where only a γ does
(a feature only a few battles differ in, all won by the answer with more of it) that γ
alone is n/a and the rest is the fit's limit, which exists. A bootstrap draw without a
maximum is counted, and counts as ±∞ for the numbers that run off in it
(``separation.bounded_percentiles``): a bound those draws reach is n/a (it would be where
those fits stopped), and the count is said. The raw ratings are shown as
``bradley_terry`` makes them (n/a, too, where a model never loses).

Where the models fall into groups that never met, the feature terms do not place one group
against another: the controlled ratings are n/a as ``bradley_terry``'s are (``n/a: not
comparable (...)``, ``stats.connectivity``; anchored, those outside the anchor's group),
the γ are still what the fit gives, and a draw that falls apart counts as unbounded either
way for the ratings it leaves unplaced.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from hyoka.errors import InputError
from hyoka.signature import SIGNATURE_KEY, Signature, SignatureType, only_when_set
from hyoka.stats.bootstrap import (
    DEFAULT_SEED,
    FloatArray,
    Interval,
    draw_weights,
    resampled,
)
from hyoka.stats.bradley_terry import (
    ELO_FACTOR,
    INITIAL_RATING,
    Battles,
    Rating,
    Ratings,
    bradley_terry,
    group_units,
    ranked_ratings,
    to_elo,
)
from hyoka.stats.connectivity import (
    apart_reasons,
    battle_links,
    linked_groups,
    mark_undetermined,
    undetermined,
)
from hyoka.stats.length_control import LENGTH_UNIT, RESAMPLED_GROUP
from hyoka.stats.logistic import fit_logistic, separating_move
from hyoka.stats.ranking_quality import ScoreDraws
from hyoka.stats.separation import (
    NO_MAXIMUM,
    battle_losses,
    bounded_percentiles,
    directions,
    draws_line,
    draws_without_maximum,
    never_lose,
    not_finite,
)

#: the feature groups one may control for (arena-hard's ``--control-features``)
LENGTH, MARKDOWN = "length", "markdown"
STYLE_CONTROLS = (LENGTH, MARKDOWN)
MARKDOWN_KINDS = ("headers", "lists", "bold")
NORMALISATION = "arena-hard-normalised-difference-rms-scaled"
#: battles × resamples per batch of refits (bounds memory)
_BATCH_CELLS = 400_000

#: why a γ alone has no maximum
_GAMMA_SPLITS = "it splits the wins from the losses of the battles where it differs"

_CODE_BLOCK = re.compile(r"```[^`]*```")
_HEADER = re.compile(r"^#{1,6}\s", re.MULTILINE)
_ORDERED = re.compile(r"^\s*\d+\.\s", re.MULTILINE)
_UNORDERED = re.compile(r"^\s*[-*+]\s", re.MULTILINE)
_BOLD = re.compile(r"\*\*[^*\n]+\*\*|__[^_\n]+__")


@dataclass(frozen=True, kw_only=True)
class StyleControlSignature(SignatureType):
    """How style-controlled ratings were made: the features controlled for, their
    normalisation, the length unit, the bootstrap (rounds, confidence, seed) and the
    anchor (``model@rating``; ``centred`` when none, the mean rating at 1000). numpy's
    version is recorded (its seeded draws)."""

    kind: ClassVar[str] = "style-controlled-bt"
    packages: ClassVar[tuple[str, ...]] = ("numpy",)
    features: tuple[str, ...]
    normalisation: str
    length: str
    rounds: int
    confidence: float
    seed: int
    anchor: str
    #: what a bootstrap draw resamples where not battles (``question``: a group's battles)
    resample: str | None = only_when_set()


@dataclass(frozen=True)
class StyleCounts:
    """One answer's length in characters and its Markdown element counts."""

    chars: int
    headers: int
    lists: int
    bold: int

    @classmethod
    def of(cls, text: str) -> StyleCounts:
        """Counted as the module's docstring says: Markdown with code blocks removed."""
        prose = _CODE_BLOCK.sub("", text)
        return cls(
            chars=len(text),
            headers=len(_HEADER.findall(prose)),
            lists=len(_ORDERED.findall(prose)) + len(_UNORDERED.findall(prose)),
            bold=len(_BOLD.findall(prose)),
        )


def _counts(styles: Sequence[StyleCounts]) -> FloatArray:
    return np.asarray(
        [(s.chars, s.headers, s.lists, s.bold) for s in styles], dtype=np.float64
    ).reshape(-1, 4)


def style_features(
    first: Sequence[StyleCounts], second: Sequence[StyleCounts], controls: Sequence[str]
) -> tuple[tuple[str, ...], FloatArray]:
    """The scaled feature columns (battles × k) and their names, for ``controls``
    (``length``, ``markdown``); columns without variation are left out."""
    a, b = _counts(first), _counts(second)
    names: list[str] = []
    columns: list[FloatArray] = []
    if LENGTH in controls:
        total = a[:, 0] + b[:, 0]
        safe = np.where(total > 0, total, 1.0)
        names.append(LENGTH)
        columns.append(np.where(total > 0, (a[:, 0] - b[:, 0]) / safe, 0.0))
    if MARKDOWN in controls:
        density_a = a[:, 1:] / (a[:, :1] + 1.0)
        density_b = b[:, 1:] / (b[:, :1] + 1.0)
        difference = (density_a - density_b) / (density_a + density_b + 1.0)
        names.extend(MARKDOWN_KINDS)
        columns.extend(difference[:, k] for k in range(len(MARKDOWN_KINDS)))
    kept_names: list[str] = []
    kept: list[FloatArray] = []
    for name, column in zip(names, columns, strict=True):
        spread = float(np.std(column, ddof=1)) if len(column) > 1 else 0.0
        if spread > 0:
            kept_names.append(name)
            kept.append(column / float(np.sqrt(np.mean(column**2))))
    matrix = np.stack(kept, axis=1) if kept else np.zeros((len(a), 0))
    return tuple(kept_names), matrix


@dataclass(frozen=True)
class StyleControlled:
    """Controlled ratings (``Ratings``, best first), each feature's coefficient γ with
    its interval, every bootstrap round's ratings (rounds × models, ``models`` order) for
    the benchmark-quality statistics, and the signature; ``separated``: the battles'
    likelihood has no maximum (ratings and γ n/a), ``separated_draws``: how many
    bootstrap draws have none (intervals n/a where any)."""

    ratings: Ratings
    coefficients: dict[str, Interval]
    models: tuple[str, ...]
    draws: FloatArray
    signature: Signature
    separated: bool = False
    separated_draws: int = 0
    #: the controls fitted (``LENGTH``, ``MARKDOWN``), as ``held_equal`` words them
    features: tuple[str, ...] = (LENGTH, MARKDOWN)
    #: per feature whose γ grows without bound: in how many draws (-1: in the battles)
    unbounded_coefficients: dict[str, int] = field(default_factory=dict)

    def separation_lines(self) -> list[str]:
        """Why ratings, γ or intervals are n/a, one line each; none where none is."""
        lines = self.ratings.separation_lines("style-controlled ratings")
        if self.separated:
            return lines  # every γ that grows with them is n/a for the same reason
        always = [k for k, draws in self.unbounded_coefficients.items() if draws < 0]
        if always:
            lines.append(
                f"γ {', '.join(always)} n/a: {not_finite(_GAMMA_SPLITS)}; the other numbers "
                "are the fit's limit, which exists"
            )
        for name, draws in self.unbounded_coefficients.items():
            if draws > 0:
                value = self.coefficients[name]
                reached = not math.isfinite(value.low + value.high)
                lines.append(f"γ {name}: " + draws_line(draws, self.ratings.rounds, reached))
        return lines

    def coefficient_text(self, name: str, digits: int = 2) -> str:
        """γ ``name`` with its interval, or why it is n/a (``n/a: no finite maximum
        (...)``; ``(CI n/a: ...)`` where bootstrap draws have none)."""
        value = self.coefficients[name]
        if not math.isfinite(value.estimate):
            reason = self.ratings.no_maximum if self.separated else not_finite(_GAMMA_SPLITS)
            return f"n/a: {reason}"
        if not (math.isfinite(value.low) and math.isfinite(value.high)):
            draws = self.unbounded_coefficients.get(name, 0)
            why = draws_without_maximum(draws, self.ratings.rounds)
            low, high = (
                f"{x:.{digits}f}" if math.isfinite(x) else "n/a" for x in (value.low, value.high)
            )
            return f"{value.estimate:.{digits}f} [{low}, {high}] ({why})"
        return value.format(digits)

    def score_draws(self) -> ScoreDraws:
        """The controlled ratings as a ranking with draws, for ``ranking_quality``."""
        by_model = self.ratings.by_model()
        estimate = np.asarray([by_model[m].rating for m in self.models], dtype=np.float64)
        return ScoreDraws(self.models, estimate, self.draws)

    def to_json(self) -> dict[str, Any]:
        return {
            SIGNATURE_KEY: self.signature.to_json(),
            "length_unit": LENGTH_UNIT,
            "ratings": [r.to_json() for r in self.ratings.ratings],
            "style_coefficients": {k: v.to_json() for k, v in self.coefficients.items()},
            "separated": self.separated,
            "separated_draws": self.separated_draws,
            "apart_draws": self.ratings.apart_draws,
            "separation": self.separation_lines(),
        }


def _design(battles: Battles, features: FloatArray) -> FloatArray:
    """+1 for the first model, −1 for the second, the first model's column dropped (its
    strength is 0: the scale's free offset), then the feature columns."""
    n, m = len(battles), len(battles.models)
    incidence = np.zeros((n, m))
    rows = np.arange(n)
    incidence[rows, battles.first] = 1.0
    incidence[rows, battles.second] = -1.0
    return np.concatenate([incidence[:, 1:], features], axis=1)


def style_controlled_bradley_terry(
    battles: Battles,
    first_styles: Sequence[StyleCounts],
    second_styles: Sequence[StyleCounts],
    *,
    controls: Sequence[str] = (LENGTH, MARKDOWN),
    rounds: int = 1000,
    seed: int = DEFAULT_SEED,
    confidence: float = 0.95,
    anchor: str | None = None,
    anchor_rating: float = INITIAL_RATING,
    groups: Sequence[str] | None = None,
    group_unit: str = RESAMPLED_GROUP,
) -> StyleControlled:
    """Ratings with the style features of ``controls`` fitted jointly (see the module's
    docstring); ``first_styles[k]``/``second_styles[k]`` describe battle k's two answers.
    With ``groups`` (battle k's group: its ``group_unit``, a question) each bootstrap draw
    weights whole groups, drawn with replacement, instead of single battles."""
    if len(battles) == 0:
        raise InputError("Bradley–Terry: no battles to rate")
    if not len(first_styles) == len(second_styles) == len(battles):
        raise InputError("style control needs both answers' style for every battle")
    unknown = sorted(set(controls) - {LENGTH, MARKDOWN})
    if unknown or not controls:
        raise InputError(f"style control: controls are {LENGTH!r} and {MARKDOWN!r}")
    if anchor is not None and anchor not in battles.models:
        raise InputError(f"`anchor`: {anchor!r} is not among the rated models")
    if rounds < 1:
        raise InputError("bootstrap rounds must be at least 1")
    if not 0.0 < confidence < 1.0:
        raise InputError("confidence must lie strictly between 0 and 1")
    names, features = style_features(first_styles, second_styles, controls)
    design = _design(battles, features)
    models = battles.models
    m, n = len(models), len(battles)

    k = len(names)

    position = None if anchor is None else models.index(anchor)
    every = np.ones((1, m), dtype=bool)

    def fitted(weights: FloatArray) -> FloatArray:
        """Per weighting: the Elo ratings and the feature coefficients, then the way each
        runs off where the weighting's likelihood has no maximum (``directions``), then
        the ratings its groups leave unplaced (``connectivity.undetermined``)."""
        beta = fit_logistic(design, battles.share, weights)
        move = separating_move(design, battles.share, weights, beta)
        zero = np.zeros((len(beta), 1))
        strengths = np.concatenate([zero, beta[:, : m - 1]], axis=1)
        elo = to_elo(strengths, models, anchor, anchor_rating)
        # the ratings' move in log-strength units: the strengths' less the centre's (anchor's)
        moving = np.concatenate([zero, move[:, : m - 1]], axis=1)
        shift = to_elo(moving, models, anchor, 0.0) - to_elo(zero * moving, models, anchor, 0.0)
        runaway = directions(np.concatenate([shift / ELO_FACTOR, move[:, m - 1 :]], axis=1))
        links = battle_links(m, battles.first, battles.second, weights)
        apart = undetermined(linked_groups(links), every, position)
        return np.concatenate([elo, beta[:, m - 1 :], runaway, apart], axis=1)

    point = fitted(np.ones((1, n)))[0]
    unit, units = (np.arange(n), n) if groups is None else group_units(groups, n)
    rng = np.random.default_rng(seed)
    cells = max(1, _BATCH_CELLS * units // (n * max(1, design.shape[1])))
    draws = resampled(
        lambda picks: fitted(draw_weights(picks, units)[:, unit]),
        units, rounds, rng, batch_cells=cells,
    )  # fmt: skip
    unplaced_in = draws[:, 2 * (m + k) :] > 0
    runaway, draws = draws[:, m + k : 2 * (m + k)], draws[:, : m + k]
    separated = bool(point[m + k : m + k + m].any())
    grows = point[m + k + m : 2 * (m + k)] != 0
    grows_in = (runaway[:, m:] != 0).sum(axis=0)
    point = point[: m + k]
    groups_of = linked_groups(battle_links(m, battles.first, battles.second, np.ones((1, n))))
    apart = apart_reasons(models, groups_of[0], position)
    unplaced = np.asarray([reason is not None for reason in apart])
    # counted where the fit places the rating: the others are n/a whatever a draw says
    unplaced_in &= ~unplaced
    runaway[:, :m][:, unplaced] = 0.0
    separated_draws = int(runaway[:, :m].any(axis=1).sum())
    apart_draws = int(unplaced_in.any(axis=1).sum())
    # the γ are placed in every draw: only the ratings are marked
    unplaced_cells = np.concatenate([unplaced_in, np.zeros((rounds, k), dtype=bool)], axis=1)
    low, high = bounded_percentiles(draws, mark_undetermined(runaway, unplaced_cells), confidence)
    gone = np.concatenate([np.full(m, separated) | unplaced, grows])
    point[gone] = math.nan  # and no interval about a number that does not exist
    low[gone], high[gone] = math.nan, math.nan
    endless = {
        name: -1 if grows[j] else int(grows_in[j])
        for j, name in enumerate(names)
        if grows[j] or grows_in[j]
    }
    reason = not_finite(_why_no_maximum(battles)) if separated else None
    rated, unplaced_models = ranked_ratings(
        battles, (point[:m], low[:m], high[:m]), reason, apart, separated_draws, apart_draws,
        rounds,
    )  # fmt: skip
    coefficients = {
        name: Interval(
            float(point[m + k]), float(low[m + k]), float(high[m + k]), confidence, rounds
        )
        for k, name in enumerate(names)
    }
    held = tuple(c for c in (LENGTH, MARKDOWN) if c in controls)
    signature = StyleControlSignature(
        features=held,
        normalisation=NORMALISATION,
        length=LENGTH_UNIT,
        rounds=rounds,
        confidence=confidence,
        seed=seed,
        anchor=f"{anchor}@{anchor_rating:g}" if anchor is not None else "centred",
        resample=None if groups is None else group_unit,
    ).signature()
    return StyleControlled(
        ratings=Ratings(
            rated,
            rounds,
            confidence,
            anchor,
            seed,
            reason,
            separated_draws,
            not_comparable=unplaced_models,
            apart_draws=apart_draws,
        ),
        coefficients=coefficients,
        models=models,
        draws=draws[:, :m],
        signature=signature,
        separated=separated,
        separated_draws=separated_draws,
        unbounded_coefficients=endless,
        features=held,
    )


def _why_no_maximum(battles: Battles) -> str:
    """Why the controlled fit has no maximum: the models that never lose (the raw fit has
    none either), else the style features, which split the wins from the losses."""
    lost_to = battle_losses(len(battles.models), battles.first, battles.second, battles.share)
    return never_lose(battles.models, lost_to) or (
        "the style features, with the model terms, split every whole win from every whole loss"
    )


def held_equal(features: Sequence[str]) -> str:
    """What the controlled ratings hold equal, in words: ``length and Markdown (headers,
    lists, bold)`` for both controls, one of them for one (``--control-features``)."""
    words = {LENGTH: "length", MARKDOWN: "Markdown (headers, lists, bold)"}
    return " and ".join(words[feature] for feature in features)


def rating_text(rating: Rating) -> str:
    """``1064.0 [927.9, 1190.2]``; ``n/a: no finite maximum (<why>)`` where the fit has no
    maximum, ``n/a: not comparable (<why>)`` where it does not place the model against the
    others; ``1064.0 [927.9, n/a] (<why>)`` where bootstrap draws without one (or that
    fall apart) reach a bound."""
    why = rating.reason or NO_MAXIMUM
    if not math.isfinite(rating.rating):
        return f"n/a: {why}"
    if not (math.isfinite(rating.low) and math.isfinite(rating.high)):
        low, high = (f"{x:.1f}" if math.isfinite(x) else "n/a" for x in (rating.low, rating.high))
        return f"{rating.rating:.1f} [{low}, {high}] ({why})"
    return f"{rating.rating:.1f} [{rating.low:.1f}, {rating.high:.1f}]"


@dataclass(frozen=True)
class StyledBattle:
    """One battle and both answers' style: ``first`` took ``share`` of the win from
    ``second`` (fractional for a probability-averaged verdict); ``group``: the question it
    belongs to, where the bootstrap should draw questions, not battles."""

    first: str
    second: str
    share: float
    first_style: StyleCounts
    second_style: StyleCounts
    group: str | None = None


@dataclass(frozen=True)
class RawAndControlled:
    """The raw Bradley–Terry ratings and the style-controlled ones of the same battles,
    fitted with the same rounds and seed: shown side by side, never one instead of the
    other."""

    raw: Ratings
    controlled: StyleControlled

    def rows(self) -> list[tuple[Rating, Rating]]:
        """Per model, best raw rating first: its raw and its controlled rating."""
        controlled = self.controlled.ratings.by_model()
        return [(raw, controlled[raw.model]) for raw in self.raw.ratings]

    def coefficients_line(self) -> str:
        """``γ length 0.412 [0.20, 0.61], headers …``: how much the judge rewards each
        feature (per root mean square of the feature over the battles); ``none varied``
        where no feature varied."""
        found = self.controlled
        shown = ", ".join(f"{name} {found.coefficient_text(name)}" for name in found.coefficients)
        return f"style coefficients γ: {shown or 'none (no feature varied)'}"

    def separation_lines(self) -> list[str]:
        """Why raw or controlled numbers are n/a (``raw: ...``, then the controlled fit's
        lines), one line each; none where none is."""
        raw = [f"raw: {line}" for line in self.raw.separation_lines()]
        return raw + self.controlled.separation_lines()

    def to_json(self) -> dict[str, Any]:
        return {
            "raw": [r.to_json() for r in self.raw.ratings],
            "raw_separation": self.raw.separation_lines(),
            "style_controlled": self.controlled.to_json(),
        }


def rate_with_style(
    battles: Sequence[StyledBattle],
    *,
    controls: Sequence[str] = (LENGTH, MARKDOWN),
    rounds: int = 1000,
    seed: int = DEFAULT_SEED,
    confidence: float = 0.95,
) -> RawAndControlled:
    """``bradley_terry`` and ``style_controlled_bradley_terry`` of the same battles (the
    same rounds, seed and confidence; centred at 1000). Where the battles carry groups
    (all or none), both bootstraps draw whole groups (``RESAMPLED_GROUP``)."""
    plain = Battles.of((b.first, b.second, b.share) for b in battles)
    grouped = [b.group for b in battles if b.group is not None]
    if grouped and len(grouped) != len(battles):
        raise InputError("style control: either every battle has a group or none has")
    groups = grouped or None
    raw = bradley_terry(plain, rounds=rounds, seed=seed, confidence=confidence, groups=groups)
    controlled = style_controlled_bradley_terry(
        plain,
        [b.first_style for b in battles],
        [b.second_style for b in battles],
        controls=controls,
        rounds=rounds,
        seed=seed,
        confidence=confidence,
        groups=groups,
        group_unit=RESAMPLED_GROUP,
    )
    return RawAndControlled(raw, controlled)
