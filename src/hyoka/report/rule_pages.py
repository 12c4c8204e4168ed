"""Pages for the benchmarks decided by rules: M-IFEval-Ja and JFBench, each from the JSON
its leaderboard writes (``hyoka mtbench leaderboard --bench m-ifeval-ja --format json``,
``... --bench jfbench --judgments RESULTS --format json``; for M-IFEval-Ja also ``hyoka
ifeval score --json``, whose rows are named by the files scored), shown as the file
records it.
Nothing is rescored: the file is the result, and its signature says how it was made.

M-IFEval-Ja's page: per model the strict and loose accuracy at prompt level (every
instruction of a prompt followed) and instruction level (instructions pooled), each with
its bootstrap interval over prompts, then each instruction group's strict and loose share.
JFBench's page: upstream's ``analyze.py`` summary (per prompt source, constraint count and
model: entries evaluated, pending, succeeded, the success rate with its interval), then each
model's share of constraints satisfied per constraint group, and how each result file's
verdicts were made.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hyoka.errors import InputError
from hyoka.judge import token_dry_run
from hyoka.report.html import cell, esc, page, table
from hyoka.signature import SIGNATURE_KEY, Signature
from hyoka.store import read_json

#: a leaderboard's JSON is small: anything larger is not one (and is not read whole)
MAX_BYTES = 20_000_000
#: the signature kinds of the two leaderboards (``hyoka.ifeval``'s, ``hyoka.jfbench``'s)
IFEVAL_KIND = "m-ifeval"
JFBENCH_KIND = "jfbench"
MODES = ("strict", "loose")
#: a result file hyoka did not write (upstream's own) records no more than its verdicts
UNSIGNED = "no signature (not written by hyoka: how its verdicts were made is not recorded)"
LEVELS = (("prompt_level", "prompt"), ("instruction_level", "instruction"))
#: the columns of JFBench's summary table (upstream ``analyze.py``'s)
SUMMARY_HEADERS = [
    "Rank",
    "Model",
    "Source",
    "Constraints",
    "Evaluated",
    "Pending",
    "Succeeded",
    "Success %",
]


@dataclass(frozen=True)
class Board:
    """One leaderboard file: its kind (``IFEVAL_KIND`` or ``JFBENCH_KIND``), its JSON and
    its signature."""

    path: Path
    kind: str
    raw: dict[str, Any]
    signature: Signature

    @property
    def title(self) -> str:
        return str(self.raw.get("bench") or ("JFBench" if self.kind == JFBENCH_KIND else ""))


def read_board(path: Path) -> Board | None:
    """The rule-checked leaderboard ``path`` holds; ``None`` for any other JSON file."""
    try:
        raw = read_json(path, strict=False, max_bytes=MAX_BYTES)
    except InputError:
        return None
    if not isinstance(raw, dict):
        return None
    try:
        signature = Signature.from_json(raw.get(SIGNATURE_KEY), path)
    except InputError:
        return None
    if signature is None:
        return None
    kind = signature.get("kind")
    if kind == IFEVAL_KIND and isinstance(raw.get("models", raw.get("results")), list):
        return Board(path, kind, raw, signature)
    if kind == JFBENCH_KIND and isinstance(raw.get("groups"), list):
        return Board(path, kind, raw, signature)
    return None


def _percent(share: Mapping[str, Any] | None, key: str = "accuracy") -> str:
    if not isinstance(share, Mapping) or share.get(key) is None:
        return "n/a"
    return f"{100 * float(share[key]):.1f}"


def _interval(share: Mapping[str, Any] | None, scale: float = 100.0) -> str:
    if not isinstance(share, Mapping) or share.get("low") is None:
        return ""
    return f'<span class="ci">[{scale * share["low"]:.1f}, {scale * share["high"]:.1f}]</span>'


def _accuracy_cell(share: Mapping[str, Any] | None) -> Any:
    sort = None if not isinstance(share, Mapping) else share.get("accuracy")
    return cell(f"{esc(_percent(share))} {_interval(share)}", sort)


def _signature(board: Board) -> str:
    return f'<p>signature: <code class="signature">{esc(board.signature.line)}</code></p>'


def _named(model: dict[str, Any]) -> dict[str, Any]:
    """A leaderboard row as it is, or a scored file's named by the file it scored."""
    if "model" in model:
        return model
    return {**model, "model": Path(str(model.get("responses", ""))).name}


def ifeval_page(board: Board, target: str) -> str:
    """M-IFEval-Ja's page (module docstring)."""
    # the leaderboard's models, or ``hyoka ifeval score --json``'s results (by file)
    listed = board.raw.get("models", board.raw.get("results")) or []
    models = [_named(m) for m in listed if isinstance(m, dict)]
    headers = ["Rank", "Model"] + [
        f"{mode.title()} {level}" for mode in MODES for _k, level in LEVELS
    ]
    rows = []
    for rank, model in enumerate(models, 1):
        row = [cell(str(rank), rank), cell(esc(model.get("model", "")), str(model.get("model")))]
        for mode in MODES:
            scores = model.get(mode) or {}
            row += [_accuracy_cell(scores.get(key)) for key, _level in LEVELS]
        rows.append(row)
    groups = sorted(
        {g for m in models for mode in MODES for g in ((m.get(mode) or {}).get("groups") or {})}
    )
    group_rows = []
    for model in models:
        for group in groups:
            shares = [((model.get(mode) or {}).get("groups") or {}).get(group) for mode in MODES]
            counted = next((s for s in shares if isinstance(s, Mapping)), {})
            name = str(model.get("model", ""))
            group_rows.append([
                cell(esc(name), name), cell(esc(group), group),
                cell(f"{counted.get('total', '')}", counted.get("total")),
                *(_accuracy_cell(s) for s in shares),
            ])  # fmt: skip
    body = (
        "<p>Accuracy in percent, with 95% bootstrap intervals over prompts. <b>Strict</b>: "
        "the response as written; <b>loose</b>: it also passes without its first or last "
        "line or its asterisks (upstream's <code>evaluation_main.py</code>). <b>Prompt</b> "
        "level: the share of prompts whose every instruction is followed; <b>instruction"
        "</b> level: the share of all instructions followed.</p>"
        + table(headers, rows, table_id="accuracy")
        + "<h2>Per instruction group</h2>"
        + "<p>The share of the group's instructions followed, strict and loose.</p>"
        + table(
            ["Model", "Group", "Instructions", "Strict", "Loose"], group_rows, table_id="groups"
        )
        + _signature(board)
    )
    return page(f"{board.title or 'M-IFEval-Ja'}: {board.path.name}", body, path=target)


def _made(file: Mapping[str, Any], where: Path) -> str:
    """One result file and how its verdicts were made (its judge named a dry run where a
    script gave the replies)."""
    name = f"<li><code>{esc(Path(str(file.get('results'))).name)}</code>: "
    signed = Signature.from_json(file.get("verdicts"), where)
    if signed is None:
        return name + UNSIGNED + "</li>"
    judge = str(signed.get("judge") or "")
    dry = " (dry run: replies read from a script, not a model's judgment)"
    return (
        name
        + f"judged by {esc(judge)}{dry if token_dry_run(judge) else ''}: "
        + f'<code class="signature">{esc(signed.line)}</code></li>'
    )


def jfbench_page(board: Board, target: str) -> str:
    """JFBench's page (module docstring)."""
    raw = board.raw
    summary = [g for g in raw["groups"] if isinstance(g, dict)]
    summary.sort(key=lambda g: (g.get("success_rate") is None, -(g.get("success_rate") or 0.0)))
    rows = []
    for rank, group in enumerate(summary, 1):
        rate = group.get("success_rate")
        shown = "n/a" if rate is None else f"{rate:.1f}"
        interval = _interval(group, 1.0)
        rows.append([
            cell(str(rank), rank), cell(esc(group.get("model", "")), str(group.get("model"))),
            cell(esc(group.get("prompt_source", "")), str(group.get("prompt_source"))),
            cell(str(group.get("n_constraints")), group.get("n_constraints")),
            cell(str(group.get("evaluated")), group.get("evaluated")),
            cell(str(group.get("pending")), group.get("pending")),
            cell(str(group.get("success")), group.get("success")),
            cell(f"{esc(shown)} {interval}", rate),
        ])  # fmt: skip
    shares = raw.get("constraint_groups") or {}
    names = sorted({name for per in shares.values() for name in per})
    group_rows = []
    for model, per in sorted(shares.items()):
        row = [cell(esc(model), model)]
        for name in names:
            share = per.get(name)
            if isinstance(share, Mapping):
                text = f"{100 * share['share']:.1f} ({share['satisfied']}/{share['total']})"
                row.append(cell(esc(text), share["share"]))
            else:
                row.append(cell("–"))
        group_rows.append(row)
    made = "".join(_made(f, board.path) for f in raw.get("files") or () if isinstance(f, dict))
    body = (
        "<p>Upstream's <code>analyze.py</code> summary: per prompt source, number of "
        "constraints and model, the entries evaluated, those pending (a constraint not yet "
        "decided), those that succeeded (every constraint's verdict true) and the success "
        "rate in percent with its 95% bootstrap interval over evaluated entries.</p>"
        + table(SUMMARY_HEADERS, rows, table_id="summary")
        + "<h2>Per constraint group</h2>"
        + "<p>The share of each group's constraints satisfied, in percent (satisfied of "
        "evaluated): rule-based groups such as Format or Notation beside the judged ones "
        "(Style, MetaOutput, Structure, and the judged Content and Processing).</p>"
        + table(["Model", *names], group_rows, table_id="constraint-groups", classes="narrow")
        + (f"<h2>How the verdicts were made</h2><ul>{made}</ul>" if made else "")
        + _signature(board)
    )
    return page(f"{board.title}: {board.path.name}", body, path=target)


def board_page(board: Board, target: str) -> str:
    """The page of a leaderboard file, by its kind."""
    return jfbench_page(board, target) if board.kind == JFBENCH_KIND else ifeval_page(board, target)
