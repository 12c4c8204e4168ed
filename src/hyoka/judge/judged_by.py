"""Which judge answered: the judge whose replies made a judgment file's numbers, as every
page and signature that shows those numbers names it.

A judgment file's lines may name their judge by a label (``--judge-name gpt-4`` writes
``gpt-4`` into FastChat's and Rakuda's ``judge`` field, whatever answered), so a scripted
dry run named ``gpt-4`` would read as GPT-4's grades. What answered is what hyoka's
manifest beside the file records of its run: the judge as asked (``provider/model``), the
digest of a scripted judge's script (``JudgeSettings.script``), and the snapshots the
provider said served the calls (the manifest's ``served_models`` note). A file without
hyoka's manifest (upstream's published judgments) tells only the name its lines give, and
is shown as that: a name, not a model hyoka saw answer.

Every place that shows judged numbers names the judge with this: the report's pages, the
judging commands' summaries (``judged by: ...``), the tables of the leaderboards and
rankings (a row or ranking a script made marked ``(dry run)``), and ``--json`` outputs
(``judged_by``: ``JudgedBy.to_json``, with ``dry_run``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hyoka.judge.engine import SERVED_NOTE, JudgeRun
from hyoka.providers import is_scripted
from hyoka.store import read_manifest


@dataclass(frozen=True)
class JudgedBy:
    """The judge of one judgment file: ``judge`` as asked (``provider/model``), or, where
    ``recorded`` is false, only the name(s) the file's lines give; ``script`` the digest of a
    scripted judge's script; ``served`` the snapshots the provider said served its calls."""

    judge: str
    script: str | None = None
    served: tuple[str, ...] = ()
    recorded: bool = True

    @property
    def dry_run(self) -> bool:
        """Grades read from a script, not a model's judgment (``scripted/PATH``)."""
        return self.recorded and is_scripted(self.judge)

    @property
    def token(self) -> str:
        """The judge as a signature's field holds it: ``provider/model``, with the script's
        digest (``@script-…``) or the served snapshots (``@served-…``) where known."""
        parts = [self.judge]
        if self.script is not None:
            parts.append(f"script-{self.script}")
        if self.served:
            parts.append("served-" + ",".join(self.served))
        return "@".join(parts)

    def to_json(self) -> dict[str, Any]:
        """The judge as a ``--json`` output names it: ``judge`` (as asked, or the names the
        lines give where ``recorded`` is false), the script's digest, the snapshots that
        served, and whether its numbers are a ``dry_run``."""
        return {
            "judge": self.judge,
            "script": self.script,
            "served": list(self.served),
            "recorded": self.recorded,
            "dry_run": self.dry_run,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> JudgedBy:
        """The judge as ``to_json`` wrote it (a leaderboard file's row names it so)."""
        script, served = data.get("script"), data.get("served")
        return cls(
            str(data["judge"]),
            script if isinstance(script, str) else None,
            tuple(map(str, served)) if isinstance(served, list) else (),
            data.get("recorded") is not False,
        )

    @property
    def shown(self) -> str:
        """The judge as a page names it beside its numbers (a dry run said as one)."""
        if not self.recorded:
            return (
                f"{self.judge} (the name the judgments give; no hyoka manifest records which "
                "model answered)"
            )
        text = self.judge
        if self.script is not None:
            text += f", script {self.script}"
        if self.served:
            text += ", served as " + ", ".join(self.served)
        if self.dry_run:
            text += " (dry run: replies read from a script, not a model's judgment)"
        return text


def judged_by(path: Path, names: Iterable[str] = ()) -> JudgedBy:
    """The judge of the judgment file ``path``: the one its hyoka manifest records, else
    ``names`` (what its lines call their judge), marked as only named."""
    manifest = read_manifest(path)
    judge = manifest.identity.get("judge") if manifest is not None else None
    if manifest is not None and isinstance(judge, dict) and isinstance(judge.get("judge"), str):
        script = judge.get("script")
        served = manifest.notes.get(SERVED_NOTE)
        return JudgedBy(
            judge["judge"],
            script if isinstance(script, str) else None,
            tuple(sorted(served)) if isinstance(served, dict) else (),
        )
    named = sorted(set(names))
    return JudgedBy(",".join(named) or "not recorded", recorded=False)


def run_judge(run: JudgeRun) -> JudgedBy:
    """The judge of a judging run as its file's numbers were produced (``Judged.run``):
    the judge asked, its script's digest, the snapshots that served the file's calls (what
    the manifest it leaves records, so ``judged_by`` of the file says the same)."""
    return JudgedBy(run.settings.judge, run.settings.script, run.served)


#: how a row, a table or a ranking whose numbers a script made is marked beside them
DRY_RUN = "dry run"


def any_dry_run(found: Iterable[JudgedBy]) -> bool:
    """Whether any of the judges is a script (its numbers a dry run)."""
    return any(judge.dry_run for judge in found)


def dry_run_title(title: str, found: Iterable[JudgedBy]) -> str:
    """A table's or a chart's title, marked ``(dry run)`` where a script of ``found`` made
    its numbers."""
    return f"{title} ({DRY_RUN})" if any_dry_run(found) else title


def judges_json(found: Iterable[JudgedBy]) -> list[dict[str, Any]]:
    """Several files' judges for a ``--json`` output, each once, in order."""
    return [judge.to_json() for judge in dict.fromkeys(found)]


def judges_shown(found: Iterable[JudgedBy]) -> str:
    """Several files' judges for one line of a page, each once, in order."""
    return "; ".join(dict.fromkeys(judge.shown for judge in found))


def judges_token(found: Iterable[JudgedBy]) -> str:
    """Several files' judges for one signature field, each once, in order."""
    return ";".join(dict.fromkeys(judge.token for judge in found))


def token_dry_run(token: str) -> bool:
    """Whether a signature's judge field (``judges_token``) names a scripted judge."""
    return any(is_scripted(part) for part in token.split(";"))
