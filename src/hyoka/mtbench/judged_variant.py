"""Which variant of a benchmark judged a line, read from the judged prompt the line keeps.

A judgment file hyoka writes names its variant in its manifest. A file without one
(upstream's published judgments, or hyoka's copied without their manifests) says it only
through what was judged: FastChat's lines keep the judge's user message (``user_prompt``),
a variant's judge prompt for the line's question and turn filled with that variant's
question text (and reference answer) and the answers judged. A line is *built* by a
variant when its user message is that prompt, whatever the answers (``prompt_fits``).

A model's row in a file is a variant's when every line of it that keeps a user message is
built by that variant. Variants that build the same messages (llm-jp's two reference sets,
on questions without a reference) all remain candidates, in the benchmark's order. Where
no line keeps a user message nothing proves the variant (``None``); where no variant of
this hyoka builds them (other files, or one model's lines of two variants), the row has
none (``()``). The readers (leaderboard, report, ``mtbench verify``) never rank such a row
as a variant it is not shown to be (``signed_variant``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from string import Formatter

from hyoka.errors import DataError, InputError
from hyoka.mtbench.bench import Bench
from hyoka.mtbench.records import SingleJudgmentLine
from hyoka.mtbench.spec import BenchSpec
from hyoka.mtbench.variant import Variant

#: a row's variant where no line keeps its judged prompt and no manifest names it
UNPROVEN = "unproven"
#: a row's variant where its judged prompts are no variant's of this hyoka
UNKNOWN = "unknown"

#: a variant's benchmark, loaded with its prompts and references; ``None`` where its files
#: are missing or not the pinned ones (it then builds no line)
Load = Callable[[Variant], Bench | None]


def prompt_fits(template: str, known: Mapping[str, str], text: str) -> bool:
    """Whether ``text`` is ``template`` (``str.format``'s syntax) with the ``known``
    fields filled in and anything at all at its other fields (the answers judged)."""
    formatter = Formatter()
    pieces = [""]  # the fixed text between the fields that may hold anything
    for literal, name, spec, conversion in formatter.parse(template):
        pieces[-1] += literal
        if name is None:
            continue
        if name in known:
            value = formatter.convert_field(known[name], conversion)
            pieces[-1] += formatter.format_field(value, spec or "")
        else:
            pieces.append("")
    if len(pieces) == 1:
        return text == pieces[0]
    first, *middle, last = pieces
    end = len(text) - len(last)
    if end < len(first) or not text.startswith(first) or not text.endswith(last):
        return False
    at = len(first)
    for piece in middle:  # each fixed piece at its first place: any later one fits no better
        found = text.find(piece, at, end)
        if found < 0:
            return False
        at = found + len(piece)
    return True


def builds(bench: Bench, line: SingleJudgmentLine) -> bool:
    """Whether ``bench``'s variant builds ``line``'s judged prompt: its question and turn
    are ones it judges, the id is written as its question file writes it (upstream copies
    it from there), and the user message is its prompt for them, whatever the answers."""
    question = bench.by_id.get(line.question_id)
    if question is None or line.turn not in bench.turns or not line.same_id_type(question):
        return False
    try:
        template = bench.judge_prompt(question, line.turn).prompt_template
        known = bench.question_fields(question)
    except (DataError, InputError):  # no such prompt, or no reference for the question
        return False
    return prompt_fits(template, known, line.user_prompt)


def row_variants(
    spec: BenchSpec, lines: Iterable[SingleJudgmentLine], load: Load
) -> dict[str, tuple[Variant, ...] | None]:
    """Each model's candidates: the variants of ``spec`` that build every judged prompt
    of its lines, in ``spec``'s order; where none of its lines keeps one, the variant its
    judgments are taken to be when they record none (``BenchSpec.unsigned_variant``: the
    protocol the benchmark had before it had variants), else ``None``."""
    taken = None if spec.unsigned_variant is None else spec.variant(spec.unsigned_variant)
    unsigned = None if taken is None else (taken,)
    found: dict[str, tuple[Variant, ...] | None] = {}
    benches = {variant.name: load(variant) for variant in spec.variants}
    for line in lines:
        left = found.setdefault(line.model, None)
        if not line.user_prompt:
            continue
        if left is None:
            left = spec.variants
        found[line.model] = tuple(
            v for v in left if (bench := benches[v.name]) is not None and builds(bench, line)
        )
    return {model: unsigned if left is None else left for model, left in found.items()}


def signed_variant(candidates: tuple[Variant, ...] | None, asked: Variant | None) -> str:
    """The variant a row is signed with: the one asked for where it is a candidate, else
    the first candidate; ``UNPROVEN`` or ``UNKNOWN`` where there is none."""
    if candidates is None:
        return UNPROVEN
    if not candidates:
        return UNKNOWN
    return (asked if asked in candidates else candidates[0]).signed()


class VariantBenches:
    """Each variant of a benchmark loaded once from one data directory (``Load``)."""

    def __init__(self, spec: BenchSpec, data_dir: Path | str | None) -> None:
        self.spec = spec
        self.data_dir = data_dir
        self._loaded: dict[str, Bench | None] = {}

    def __call__(self, variant: Variant) -> Bench | None:
        name = variant.name
        if name not in self._loaded:
            try:
                self._loaded[name] = Bench.load(self.spec.name, self.data_dir, name)
            except DataError:  # missing, or not the pinned bytes: it builds no line
                self._loaded[name] = None
        return self._loaded[name]
