"""Rakuda rankings: what ``hyoka mtbench leaderboard --bench rakuda --format json`` writes
(and upstream's ``rankings/*.json``, whose fields it keeps), shown as they are: each
model's median rating and the interval the file records, and the signature hyoka wrote
beside the numbers (upstream's files carry none; the page says so). Nothing is refitted:
the file is the result.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from hyoka.errors import InputError
from hyoka.judge import token_dry_run
from hyoka.report.html import cell, esc, page, table
from hyoka.signature import SIGNATURE_KEY, Signature
from hyoka.store import read_json

#: a ranking is a small file: anything larger is not one (and is not read whole)
MAX_BYTES = 5_000_000


class RankedModel(BaseModel):
    """One row; ``null`` where the fit has no finite maximum (``no_maximum`` saying why)
    or does not place the model against the others (``not_comparable``: groups of models
    that never met)."""

    model_config = ConfigDict(frozen=True, extra="allow")

    model_id: str
    lower: float | None
    median: float | None
    upper: float | None
    no_maximum: str | None = None
    not_comparable: str | None = None

    def number(self, value: float | None) -> str:
        """One decimal, or ``n/a: <why>`` (the file's reasons) where the file has none."""
        if value is not None:
            return f"{value:.1f}"
        why = "; ".join(r for r in (self.not_comparable, self.no_maximum) if r is not None)
        return f"n/a: {why or 'not recorded'}"


class RankingFile(BaseModel):
    """The fields shown; the rest of the file is kept as it is."""

    model_config = ConfigDict(frozen=True, extra="allow")

    ranking: tuple[RankedModel, ...]
    bootstrap_rounds: int | None = None
    seed: int | None = None
    judge: str | None = None


def read_ranking(path: Path) -> RankingFile | None:
    """The ranking ``path`` holds; ``None`` when it holds none (another JSON file)."""
    try:
        raw = read_json(path, strict=False, max_bytes=MAX_BYTES)
    except InputError:
        return None
    if not isinstance(raw, dict) or not isinstance(raw.get("ranking"), list):
        return None
    try:
        return RankingFile.model_validate(raw)
    except ValidationError:
        return None


def ranking_page(path: Path, target: str, ranking: RankingFile) -> str:
    extra = ranking.model_extra or {}
    # why numbers are n/a (``null``): the lines hyoka's ranking writes beside them
    found = extra.get("separation")
    separation: list[object] = found if isinstance(found, list) else []
    signature = Signature.from_json(extra.get(SIGNATURE_KEY), path)
    # best first (upstream's files list the weakest first); a model without a median has
    # no rank
    rows = [
        [
            cell(str(rank), rank) if m.median is not None else cell("n/a"),
            cell(esc(m.model_id), m.model_id),
            cell(esc(m.number(m.median)), m.median),
            cell(
                f'<span class="ci">[{esc(m.number(m.lower))}, {esc(m.number(m.upper))}]</span>',
                m.lower,
            ),
        ]
        for rank, m in enumerate(
            sorted(ranking.ranking, key=lambda m: (m.median is None, -(m.median or 0.0))), 1
        )
    ]
    made = (
        f"{ranking.bootstrap_rounds} bootstrap rounds, seed {ranking.seed}"
        if ranking.bootstrap_rounds is not None
        else "bootstrap rounds not recorded"
    )
    judge = (signature.get("judge") if signature is not None else None) or ranking.judge
    named = (
        f'<p id="judge">Judge: {esc(judge)}'
        + (" (dry run: replies read from a script, not a model's judgment)"
           if token_dry_run(judge) else "")
        + "</p>"
        if judge
        else ""
    )  # fmt: skip
    shown = (
        f'<code class="signature">{esc(signature.line)}</code>'
        if signature is not None
        else "none (not written by hyoka: the file records how it was made no further"
        + (f" than its judge, {esc(ranking.judge)}" if ranking.judge else "")
        + ")"
    )
    body = (
        "<p>Rakuda's ranking as the file records it: Bradley–Terry ratings with the "
        "advantage of the first-shown answer fitted (upstream's <code>make_ranking.py</code>), "
        f"each model's median over the bootstrap and its lower and upper bounds ({made}).</p>"
        + named
        + table(["Rank", "Model", "Median", "Interval"], rows, table_id="ranking")
        + "".join(f'<p class="muted">{esc(str(why))}.</p>' for why in separation)
        + f"<p>signature: {shown}</p>"
    )
    return page(f"Rakuda ranking: {path.name}", body, path=target)
