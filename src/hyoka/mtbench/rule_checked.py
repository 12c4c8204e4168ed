"""The rule-checked protocol (``spec.RULE_CHECKED``): a benchmark answered like any other
and then decided by rules, no judge. Its leaderboard scores each answer file with
``hyoka.ifeval`` (strict and loose, per prompt and per instruction) and its verify rescores
upstream's evaluation files; ``mtbench.run`` and ``mtbench.verify`` come here by the
definition's protocol, never by its name.

An answer file is upstream's (``ja_input_response_data_<model>.jsonl``, ``prompt`` and
``response`` a line, the model named by the file, ``__`` for ``/``) or hyoka's
(``<model>.jsonl`` from ``hyoka mtbench generate``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from hyoka.data import data_file, resolve_data_dir
from hyoka.errors import InputError
from hyoka.mtbench.spec import BenchSpec
from hyoka.printable import table_text
from hyoka.signature import SIGNATURE_KEY, Signature
from hyoka.store import read_manifest

if TYPE_CHECKING:
    from hyoka.ifeval import Mode, PromptSet, Scores, Verification

#: how upstream's ``get_responses.py`` names a model's response file
RESPONSE_PREFIX = "ja_input_response_data_"
#: the leaderboard's columns: (mode, level) in the order shown
COLUMNS: tuple[tuple[Mode, Literal["prompt", "instruction"]], ...] = (
    ("strict", "prompt"),
    ("strict", "instruction"),
    ("loose", "prompt"),
    ("loose", "instruction"),
)
HEADER = ("Rank", "Model", "Strict prompt", "Strict inst.", "Loose prompt", "Loose inst.")


def model_of(path: Path) -> str:
    """The model a response file is of: by upstream's name (its prefix left out and its
    ``__`` read as ``/``), else the ``model_id`` of hyoka's manifest beside it. Any other
    file (an evaluation file, answers without their manifest) is one ``InputError``: whose
    answers it holds is not known, and a row named by a guess would rank a wrong model."""
    if path.name.startswith(RESPONSE_PREFIX):
        return path.stem.removeprefix(RESPONSE_PREFIX).replace("__", "/")
    manifest = read_manifest(path)
    model = None if manifest is None else manifest.identity.get("model_id")
    if not isinstance(model, str):
        raise InputError(
            f"{path}: neither upstream's {RESPONSE_PREFIX}<model>.jsonl nor a hyoka answer "
            "file (its manifest naming model_id): whose answers these are is not known"
        )
    return model


def models_of(paths: Sequence[Path]) -> list[str]:
    """Each file's model (``model_of``); one model answered in two files is an
    ``InputError`` naming both (which to rank cannot be guessed)."""
    seen: dict[str, Path] = {}
    for path in paths:
        model = model_of(path)
        if model in seen:
            raise InputError(
                f"{path}: answers of {model!r} again (also {seen[model]}); give one file a model"
            )
        seen[model] = path
    return list(seen)


def prompts_of(spec: BenchSpec, data_dir: Path | str | None) -> PromptSet:
    """The definition's prompts, every instruction checked (``hyoka.ifeval.read_prompts``)."""
    from hyoka.ifeval import read_prompts

    relative = Path(spec.folder) / spec.question_file
    return read_prompts(data_file(relative, spec.name, f"{spec.title} data", data_dir))


@dataclass(frozen=True)
class RuleRow:
    """One model's strict and loose scores, from one answer file."""

    model: str
    path: Path
    scores: dict[Mode, Scores]

    def cell(self, mode: Mode, level: str) -> float:
        scores = self.scores[mode]
        return (scores.prompt_level if level == "prompt" else scores.instruction_level).value


@dataclass(frozen=True)
class RuleBoard:
    """Models ranked by strict prompt-level accuracy (the share of prompts whose every
    instruction is followed as written), with the strict instruction-level accuracy (the
    share of instructions followed) and both again loosely (a response also passes without
    its first or last line, or its asterisks), as upstream's ``evaluation_main.py`` reports
    them; bootstrap intervals over prompts in the JSON; one signature."""

    title: str
    rows: tuple[RuleRow, ...]
    signature: Signature

    def render(self, fmt: Literal["md", "csv", "plain"] = "plain") -> str:
        """The table (accuracies in percent, one decimal) and the signature line."""
        rows = [
            [str(number), row.model, *(f"{100 * row.cell(m, lv):.1f}" for m, lv in COLUMNS)]
            for number, row in enumerate(self.rows, start=1)
        ]
        notes = [f"{self.title}: accuracy in %; signature: {self.signature.line}"]
        return table_text(HEADER, rows, notes, fmt)

    def to_json(self) -> dict[str, Any]:
        """Per model (ranked) its file and both modes' scores, and the signature."""
        return {
            "bench": self.title,
            "models": [
                {"model": row.model, "answers": str(row.path),
                 **{mode: s.to_json() for mode, s in row.scores.items()}}
                for row in self.rows
            ],
            SIGNATURE_KEY: self.signature.to_json(),
        }  # fmt: skip


def rule_leaderboard(
    spec: BenchSpec,
    answers: Sequence[Path] | None,
    *,
    data_dir: Path | str | None = None,
    resamples: int = 2000,
    seed: int = 0,
) -> RuleBoard:
    """Score ``answers`` (files or folders; default: the responses upstream published in
    the data folder) by the rules and rank them."""
    from hyoka.ifeval import files_given, score_responses

    prompts = prompts_of(spec, data_dir)
    folder = resolve_data_dir(data_dir) / spec.folder / spec.published_judgments
    given = list(answers or ()) or [folder]
    files = files_given(
        given, "*.jsonl", ".jsonl answer file", but=prompts.path, named="`judgments` "
    )
    models = models_of(files)
    scored = score_responses(files, prompts, resamples=resamples, seed=seed)
    rows = [
        RuleRow(model, path, dict(scores))
        for model, (path, scores) in zip(models, scored.results, strict=True)
    ]
    rows.sort(key=lambda row: (-row.cell("strict", "prompt"), row.model))
    return RuleBoard(spec.title, tuple(rows), scored.signature)


def rule_verification(path: Path, spec: BenchSpec, data_dir: Path | str | None) -> Verification:
    """Upstream's evaluation file ``path`` rescored verdict by verdict (``hyoka.ifeval``)."""
    from hyoka.ifeval import verify_evaluation

    return verify_evaluation(path, prompts_of(spec, data_dir))
