"""The answers' style behind a pairwise page's style-controlled ratings, where the answers'
texts are at hand.

Two places hold them. A FastChat line may carry its answers itself
(ja-vicuna-qa-benchmark's ``answer_1``/``answer_2``, of turn 1, which hyoka's runs of that
benchmark write too: ``mtbench.PairJudgmentLine.inline_styles``, read by
``pairwise_pages.read_pairs``). Otherwise the answer files
beside the judgment file in FastChat's layout, ``<bench>/model_answer/<model>.jsonl``
next to ``<bench>/model_judgment/`` (``mtbench.model_answer_file``), read as the
benchmark the file is of reads them (``mtbench.load_answers``; the recorded variant's
answer cut applied: the text the judge was shown). A page is given styles only where
every item has both answers; otherwise none, and the reason is said on the page.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from hyoka.errors import HyokaError
from hyoka.judge import PairOutcome
from hyoka.mtbench import Bench, judgment_spec, load_answers, model_answer_file, recorded_bench
from hyoka.stats import StyleCounts
from hyoka.store import first_object, manifest_path

#: hyoka's ``judge pairwise`` records and Rakuda's matches hold no answer texts apart
#: from the prompt: what the page says instead of the controlled columns
NOT_HELD = (
    "the file holds no answers' texts apart from its prompts (hyoka judge pairwise and "
    "hyoka mtbench judge --mode pairwise show the style-controlled ratings in their summaries)"
)


def with_styles(
    path: Path, outcomes: Sequence[PairOutcome], data_dir: Path | None
) -> tuple[list[PairOutcome], str | None]:
    """``outcomes`` with both answers' style on every item, or as given and why not."""
    if all(o.styles is not None for o in outcomes):
        return list(outcomes), None
    first = first_object(path) or {}
    if "g1_winner" not in first:
        return list(outcomes), NOT_HELD
    folder = path.parent.parent / "model_answer"
    if not folder.is_dir():
        return list(outcomes), f"its lines carry no answers and no answer files lie in {folder}"
    try:  # a page without the columns, never a failed report
        bench = _bench(path, data_dir)
    except HyokaError as exc:
        return list(outcomes), f"the benchmark it was judged on is not known here: {exc}"
    try:
        return _beside(outcomes, folder, bench)
    except HyokaError as exc:
        return list(outcomes), f"the answers beside it cannot be read: {exc}"


def _beside(
    outcomes: Sequence[PairOutcome], folder: Path, bench: Bench
) -> tuple[list[PairOutcome], str | None]:
    """The outcomes with the style of the answers in ``folder``, or why not."""
    cut = bench.variant.cut if bench.variant is not None else str
    texts: dict[str, dict[int, tuple[str, ...]]] = {}
    found: list[PairOutcome] = []
    for outcome in outcomes:
        if outcome.styles is not None or outcome.turn is None:
            found.append(outcome)
            continue
        question, turn = outcome.turn
        pair = []
        for model in (outcome.x, outcome.y):
            if model not in texts:
                texts[model] = _answers(folder, model, bench)
            turns = texts[model].get(question, ())
            if len(turns) < turn:
                where = folder / f"{model}.jsonl"
                return list(outcomes), f"no answer of {model} to {question}/{turn} in {where}"
            pair.append(StyleCounts.of(cut(turns[turn - 1])))
        found.append(outcome.styled((pair[0], pair[1])))
    return found, None


def _bench(path: Path, data_dir: Path | None) -> Bench:
    """The benchmark the judgment file is of, under the variant its manifest records (one
    this hyoka does not know is an ``InputError``: its answers' cut may differ); the
    benchmark's default variant for a file without a manifest (FastChat's own)."""
    recorded = recorded_bench(path)
    if recorded is None:
        return Bench.load(judgment_spec(path, None, data_dir).name, data_dir)
    spec, signed = recorded
    variant = spec.recorded_variant(signed, manifest_path(path))
    return Bench.load(spec.name, data_dir, variant.name if variant is not None else None)


def _answers(folder: Path, model: str, bench: Bench) -> dict[int, tuple[str, ...]]:
    """A model's answer turns by question id; none where its file is not there."""
    answer_file = model_answer_file(folder, model)  # a name from data
    if answer_file is None or not answer_file.is_file():
        return {}
    return {qid: record.turns for qid, record in load_answers(answer_file, bench).items()}
