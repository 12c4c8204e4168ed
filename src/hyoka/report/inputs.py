"""What the paths given to ``hyoka report`` hold: pfgen runs, single-grading judgment files
(the benchmarks' and ``hyoka judge single``'s), pairwise judgment files, reference-set
stability reports (``hyoka pfgen stability --json``), Rakuda rankings (``hyoka mtbench
leaderboard --bench rakuda --format json``), and the leaderboards of the benchmarks decided
by rules (``--bench m-ifeval-ja`` or ``jfbench``, ``--format json``).
Everything else is skipped with a one-line note.

A file is recognised by its first JSON object, never by its name, so renamed files still
work; a folder is searched recursively. pfgen runs that lie inside the public results
folder are already rows of the leaderboard: they get no run page unless a run folder is
named itself.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from fnmatch import fnmatch
from pathlib import Path

from hyoka.errors import InputError
from hyoka.store import first_object, read_json
from hyoka.store.pfgen_runs import (
    RESULT_FILE,
    TRIAL_GLOB,
    TRIALS_JSONL,
    TRIALS_XZ,
    run_source,
)


@dataclass
class Inputs:
    pfgen_runs: list[Path] = field(default_factory=list)  # trials sources: get run pages
    pfgen_results: list[Path] = field(default_factory=list)  # result-only run folders
    single_sets: dict[Path, list[Path]] = field(default_factory=dict)  # folder -> files
    #: ``hyoka judge single`` judgment files (``kind: single`` records)
    grading_files: list[Path] = field(default_factory=list)
    pair_files: list[Path] = field(default_factory=list)
    #: ``hyoka pfgen stability --json`` outputs
    stability_files: list[Path] = field(default_factory=list)
    #: Rakuda rankings (``hyoka mtbench leaderboard --bench rakuda --format json``)
    ranking_files: list[Path] = field(default_factory=list)
    #: sweep manifests (``hyoka sweep``: its ``sweep.json``), whose matrix leads the index
    sweep_files: list[Path] = field(default_factory=list)
    #: rule-checked leaderboards (``hyoka mtbench leaderboard --bench m-ifeval-ja|jfbench
    #: --format json``)
    board_files: list[Path] = field(default_factory=list)
    #: the folders given (searched for pfgen judge summaries)
    folders: list[Path] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _sniff(path: Path) -> tuple[str, str | None]:
    """``(kind, why)`` from the file's first object: ``pair``, ``single`` (MT-bench),
    ``judge-single`` (``hyoka judge single``), ``trials``, ``answers`` or ``other``, and for
    an unreadable file why."""
    try:
        first = first_object(path)
    except InputError as exc:
        return "other", str(exc)
    if first is None:  # nothing to tell its kind by (a judge run stopped before a line)
        return "other", f"{path}: empty, no judgment or answer in it"
    if "g1_winner" in first or first.get("kind") == "pairwise" or "model1_id" in first:
        return "pair", None
    if {"score", "turn", "judge", "model", "judgment"} <= first.keys():
        return "single", None
    if first.get("kind") == "single" and {"id", "judge", "template"} <= first.keys():
        return "judge-single", None
    if {"question", "answer"} <= first.keys():
        return "trials", None
    if "choices" in first and "model_id" in first:
        return "answers", None
    return "other", None


def _add_file(inputs: Inputs, path: Path) -> None:
    kind, why = _sniff(path)
    if kind == "pair":
        inputs.pair_files.append(path)
    elif kind == "single":
        inputs.single_sets.setdefault(path.parent, []).append(path)
    elif kind == "trials":
        inputs.pfgen_runs.append(path)
    elif kind == "judge-single":
        inputs.grading_files.append(path)
    elif why is not None:
        inputs.notes.append(f"{why} (skipped)")
    elif kind == "other":
        inputs.notes.append(f"{path}: skipped: not a pfgen run or judgment file")


def _is_run_file(name: str) -> bool:
    """A pfgen run folder's own answer files, read with the run: any other file beside
    them (a judgment file copied in) is still looked at, never dropped unsaid."""
    return name in (TRIALS_JSONL, TRIALS_XZ) or fnmatch(name, TRIAL_GLOB)


def _is_stability_file(path: Path) -> bool:
    """Imported here: the stability module loads ``hyoka.stats``, which listing inputs does
    not otherwise need (``hyoka pfgen correlate --plot`` imports this package too)."""
    from hyoka.report.stability_data import sniff_stability_file

    return sniff_stability_file(path)


def _is_sweep_file(path: Path) -> bool:
    """A sweep's manifest, told by its name and ``kind`` (``hyoka.sweep.MANIFEST_KIND``)."""
    from hyoka.sweep import MANIFEST, MANIFEST_KIND

    if path.name != MANIFEST:
        return False
    try:
        found = read_json(path)
    except InputError:
        return False
    return isinstance(found, dict) and found.get("kind") == MANIFEST_KIND


def _is_ranking_file(path: Path) -> bool:
    from hyoka.report.ranking_pages import read_ranking

    return read_ranking(path) is not None


def _is_board_file(path: Path) -> bool:
    from hyoka.report.rule_pages import read_board

    return read_board(path) is not None


def discover(paths: list[Path], public_dir: Path | None) -> Inputs:
    inputs = Inputs()
    public = public_dir.resolve() if public_dir is not None and public_dir.is_dir() else None
    for path in paths:
        if not os.path.lexists(path):
            raise InputError(f"{path}: no such file or folder")
        if path.is_file():
            if path.name == RESULT_FILE:
                inputs.pfgen_results.append(path.parent)
            elif path.name.endswith(".jsonl.xz"):
                inputs.pfgen_runs.append(path)
            elif path.suffix == ".jsonl":
                _add_file(inputs, path)
            elif path.suffix == ".json" and _is_sweep_file(path):
                inputs.sweep_files.append(path)
            elif path.suffix == ".json" and _is_stability_file(path):
                inputs.stability_files.append(path)
            elif path.suffix == ".json" and _is_ranking_file(path):
                inputs.ranking_files.append(path)
            elif path.suffix == ".json" and _is_board_file(path):
                inputs.board_files.append(path)
            else:
                raise InputError(
                    f"{path}: not a run, a judgment file, a stability report "
                    "(`hyoka pfgen stability --json`), a Rakuda ranking, a sweep manifest, "
                    "a JFBench or M-IFEval-Ja leaderboard (`hyoka mtbench leaderboard "
                    "--format json`, `hyoka ifeval score --json`) or a folder of them"
                )
            continue
        inputs.folders.append(path)
        named_run = run_source(path)
        if named_run is not None:  # a run named itself gets its page, even a public one
            inputs.pfgen_runs.append(named_run)
        inside_public = public is not None and path.resolve().is_relative_to(public)
        for top, dirnames, filenames in os.walk(path):
            dirnames.sort()
            folder = Path(top)
            source = run_source(folder)
            is_run = source is not None or RESULT_FILE in filenames
            if is_run and not inside_public and not (folder == path and named_run is not None):
                if source is not None:
                    inputs.pfgen_runs.append(source)
                else:
                    inputs.pfgen_results.append(folder)
            for name in sorted(filenames):
                if is_run and _is_run_file(name):  # read as the run, not one by one
                    continue
                if name.endswith(".jsonl"):
                    _add_file(inputs, folder / name)
                elif name.endswith(".json") and _is_sweep_file(folder / name):
                    inputs.sweep_files.append(folder / name)
                elif name.endswith(".json") and _is_stability_file(folder / name):
                    inputs.stability_files.append(folder / name)
                elif name.endswith(".json") and _is_ranking_file(folder / name):
                    inputs.ranking_files.append(folder / name)
                elif name.endswith(".json") and _is_board_file(folder / name):
                    inputs.board_files.append(folder / name)
    return _once(inputs)


def _unique(paths: list[Path]) -> list[Path]:
    """``paths`` without the repeats of one file or folder under another spelling."""
    seen: set[Path] = set()
    kept = []
    for path in paths:
        if path.resolve() not in seen:
            seen.add(path.resolve())
            kept.append(path)
    return kept


def _once(inputs: Inputs) -> Inputs:
    """Every input once, however often it was named (``RUN`` and ``./RUN/``, a folder and a
    file in it): a run given twice is one row, never compared with itself."""
    singles: dict[Path, list[Path]] = {}
    folder_of: dict[Path, Path] = {}
    for folder, files in inputs.single_sets.items():
        key = folder_of.setdefault(folder.resolve(), folder)
        singles[key] = _unique(singles.get(key, []) + files)
    return Inputs(
        pfgen_runs=_unique(inputs.pfgen_runs),
        pfgen_results=_unique(inputs.pfgen_results),
        single_sets=singles,
        grading_files=_unique(inputs.grading_files),
        pair_files=_unique(inputs.pair_files),
        stability_files=_unique(inputs.stability_files),
        ranking_files=_unique(inputs.ranking_files),
        sweep_files=_unique(inputs.sweep_files),
        board_files=_unique(inputs.board_files),
        folders=_unique(inputs.folders),
        notes=list(dict.fromkeys(inputs.notes)),
    )
