"""Pages of ``hyoka judge single`` judgment files, beside the benchmarks' single-grading
pages: answers graded against references by a judge, as the command graded them.

One page per file. Each model the items name (and all of them together, where there are
several) gets the mean grade, the graded count and the failures (items that never got a
rating, score -1: left out of the mean and counted), as ``judge.summarise`` computes them:
the numbers ``hyoka judge single`` prints. Then the signature the file's manifest records
(a file without one says so), and every item's grade, its repeats and the judge's replies
(packed, as the benchmarks' question pages pack the reasoning).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from hyoka.errors import InputError
from hyoka.judge import JudgedBy, JudgmentRecord, SingleSummary, judged_by, summarise
from hyoka.report.html import Cell, cell, esc, packed, page, table
from hyoka.signature import Signature
from hyoka.store import manifest_path, read_manifest, read_records

#: the row of every item together, shown where the items name several models
ALL = "all"
#: the model column of items that name none
UNNAMED = "–"


@dataclass(frozen=True)
class Grading:
    """The single judgments of one file and the signature its manifest records."""

    path: Path
    records: tuple[JudgmentRecord, ...]
    signature: Signature | None
    #: the judge that answered (``judge.judged_by``): the page names it, a script's
    #: grades said to be a dry run
    judge: JudgedBy | None = None

    @property
    def name(self) -> str:
        """The file's name where its grades are listed, marked where a script made them."""
        dry = self.judge is not None and self.judge.dry_run
        return self.path.name + (" (dry run)" if dry else "")

    @property
    def judges(self) -> list[str]:
        return list(dict.fromkeys(r.judge.judge for r in self.records))

    def summaries(self) -> dict[str, SingleSummary]:
        """Model -> ``judge.summarise`` over its items, and ``all`` where there are several
        models."""
        models = list(dict.fromkeys(model_of(r) for r in self.records))
        found = {m: summarise(r for r in self.records if model_of(r) == m) for m in models}
        if len(models) > 1:
            found[ALL] = summarise(self.records)
        return found


def model_of(record: JudgmentRecord) -> str:
    return record.models[0] if record.models else UNNAMED


def read_grading(path: Path) -> Grading:
    """Every single judgment in ``path`` (an ``InputError`` naming file and line for a line
    that is not one), with the signature of the manifest beside it."""
    records = tuple(r for _, r in read_records(path, JudgmentRecord) if r.kind == "single")
    if not records:
        raise InputError(f"{path}: no single judgments")
    manifest = read_manifest(path)
    signature = None
    if manifest is not None:
        signature = Signature.from_json(manifest.signature, manifest_path(path))
    judges = dict.fromkeys(r.judge.judge for r in records)
    return Grading(path, records, signature, judged_by(path, judges))


def _mean(summary: SingleSummary) -> Cell:
    if summary.mean is None:
        return cell("n/a", None, "no item got a rating")
    return cell(f"{summary.mean:.3f}", summary.mean)


def _grade(record: JudgmentRecord) -> Cell:
    if record.failed:
        return cell('<span class="zero">no rating</span>', -1, "no reply held a rating")
    return cell(f"{record.score:g}", float(record.score))


def grading_page(grading: Grading, path: str) -> str:
    """The page of one file at ``path``."""
    summaries = grading.summaries()
    rows = [
        [cell(esc(name), name), _mean(s), cell(str(s.n), s.n), cell(str(s.failures), s.failures)]
        for name, s in summaries.items()
    ]
    signature = "none (no hyoka manifest beside the file)"
    if grading.signature is not None:
        signature = grading.signature.line
    payload: dict[str, str] = {}
    items = []
    for number, record in enumerate(grading.records):
        replies = []
        for k, reply in enumerate(record.replies, 1):
            target = f"r{number}n{k}"
            replies.append(
                f"<details><summary>reply {k}</summary>"
                f'<div class="judgment" id="{target}">…</div></details>'
            )
            payload[target] = esc(reply)
        repeats = ", ".join(f"{s:g}" for s in record.scores)
        model = model_of(record)
        items.append(
            [cell(esc(record.id), record.id), cell(esc(model), model), _grade(record),
             cell(esc(repeats), repeats), cell("".join(replies), classes="text")]
        )  # fmt: skip
    body = (
        f"<p>{len(grading.records)} graded items, judged by "
        f"{esc(grading.judge.shown if grading.judge else ', '.join(grading.judges))} "
        "(<code>hyoka judge single</code>). Means of the "
        "rated items; items without a rating (-1) are left out and counted as failures.</p>"
        + table(["Model", "Mean", "Graded", "Failures"], rows, table_id="grades")
        + f'<p>signature: <code class="signature">{esc(signature)}</code></p>'
        + "<h2>Items</h2>"
        + table(["Item", "Model", "Grade", "Repeats", "Judge's replies"], items, table_id="items")
        + packed("payload", payload)
    )
    return page(f"Single grading: {grading.name}", body, path=path)
