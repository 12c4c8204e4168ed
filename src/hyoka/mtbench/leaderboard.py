"""The per-category leaderboard from single-grading judgment files (the paper's Table 1).

Per model and category a cell, and overall the headline ("Avg."), each as the benchmark's
upstream script computes them (a rule object, ``mtbench.headline``: the variant's, else
``BenchSpec.headline``; ``--headline`` names another, and the table's signature names the
rule): rule-based zeros (no answer, wrong language) always count; pfmt-bench-fin-ja's
headline is the plain mean of the category means, MT-bench's (FastChat's ``show_result.py``)
the mean over every rated turn, -1 (no rating) left out of both; swallow-evaluation's cells
are means of per-trial means; ja-vicuna-qa-benchmark's means are over every line read, -1
included.
Means are kept as exact fractions and rounded half-up only for display, so a mean of
exactly 8.125 shows as 8.13 (binary floats and Python's ``round`` would give 8.12).

Answers judged in several trials (``hyoka mtbench generate --trials``) count every trial's
rating in these means; each rating is also kept by question, turn and trial, for the
intervals over questions and trials and Swallow's per-trial figure (``mtbench.trials``).

A number is only comparable with the numbers beside it when it was produced the same way
and over the same turns. So a line its benchmark's upstream could not have written is
refused (file:line; ``line_checks``, the checks ``mtbench verify`` applies): a question or
turn the benchmark (its variant) lacks, an id in another JSON type than its question
file's, a prompt name or judged conversation of another turn, a score outside the
benchmark's scale (``BenchSpec.scale``: ELYZA-tasks-100's integers 1 to 5, 0 to 10 for the
others) or no JSON number (``true``), a file whose lines name two judges;
a model without every turn judged is marked incomplete and ranked after the complete ones;
and every row carries the signature of the files it came from (the manifest hyoka writes
beside a judgment file; for other files, what their lines say: the judge's name), so rows
judged another way are flagged.

Shaberi's published judgment files (ELYZA-tasks-100, ``*.json``: one graded task a row)
are read as upstream's results notebook reads them: every row counts, a task repeated in
a file too (pandas' mean over the rows read), and a ``null`` score (no rating) is left out
of the mean; the row says how many of each it has. Shaberi writes no -1: its mean would
count one, so a -1 there is off the scale.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import ClassVar

from hyoka.errors import InputError
from hyoka.judge import JudgedBy, judged_by
from hyoka.mtbench.bench import Bench
from hyoka.mtbench.headline import CATEGORY_MEAN, HeadlineRule, Tally
from hyoka.mtbench.judged_variant import (
    UNKNOWN,
    UNPROVEN,
    Load,
    VariantBenches,
    row_variants,
    signed_variant,
)
from hyoka.mtbench.line_checks import OneJudge, check_line, check_scale
from hyoka.mtbench.records import (
    NO_RATING,
    SingleGradingLine,
    SingleJudgmentLine,
    TrialsJudgmentLine,
)
from hyoka.mtbench.shaberi import shaberi_judge, shaberi_judgments, shaberi_model
from hyoka.signature import Signature, SignatureType, common_signature, only_when_set
from hyoka.store import (
    MANIFEST_SUFFIX,
    manifest_path,
    read_manifest,
    read_records,
    unique_records,
)

_CENT = Decimal("0.01")


def round_half_up(value: Fraction, places: int = 2) -> Decimal:
    """``value`` rounded half away from zero to ``places`` decimals, exactly."""
    scaled = abs(value) * 10**places
    whole = int(scaled + Fraction(1, 2))  # floor(x + 1/2) for x >= 0
    result = Decimal(whole).scaleb(-places)
    return -result if value < 0 else result


def display_name(model: str, bench: Bench) -> str:
    """A model's name as ``bench``'s upstream table shows it: pfmt-bench-fin-ja's file names
    write ``org/model`` as ``org_model`` and its table shows the slash again; FastChat's
    shows the id as written (``mixv3_5btok_7b`` is no organisation). A name that has a
    slash, as Shaberi's files give it, is shown as it is."""
    if "/" in model or not bench.spec.slash_in_model_names:
        return model
    return model.replace("_", "/", 1)


@dataclass
class ModelScores:
    """One model's scores, summed exactly, by category, turn and trial; its means are
    ``headline``'s (``mtbench.headline``: the rule of the benchmark's own script)."""

    model: str
    categories: tuple[str, ...]
    _tallies: dict[tuple[str, int, int], Tally] = field(default_factory=lambda: defaultdict(Tally))
    judged: int = 0
    unrated: int = 0
    #: rows of a task already judged in the same file, counted again (Shaberi's files)
    repeated: int = 0
    signature: Signature | None = None
    headline: HeadlineRule = CATEGORY_MEAN
    #: every rating by (question, turn, trial), exactly; unrated turns left out
    ratings: dict[tuple[int, int, int], Fraction] = field(default_factory=dict)
    #: the answers judged per dialogue (1 + the highest trial seen)
    trials: int = 1
    #: the judge that answered, per file of the row (``judge.judged_by``), each once
    judges: list[JudgedBy] = field(default_factory=list)

    def add(
        self,
        category: str,
        turn: int,
        score: float,
        question_id: int = 0,
        trial: int = 0,
        *,
        repeat: bool = False,
    ) -> None:
        """One judged turn; ``repeat``: a turn judged before in the same file, counted
        again in the means (as Shaberi's notebook counts every row), not as another turn
        (the intervals take each turn's first rating)."""
        if repeat:
            self.repeated += 1
        else:
            self.judged += 1
        self.trials = max(self.trials, trial + 1)
        cell = self._tallies[category, turn, trial]
        if score == NO_RATING:
            self.unrated += 1
            cell.unrated += 1
            return
        # through str: the float 8.1 means the decimal 8.1, not its binary neighbour
        exact = Fraction(Decimal(str(score)))
        cell.total += exact
        cell.rated += 1
        self.ratings.setdefault((question_id, turn, trial), exact)

    def tally(self, categories: Collection[str], turns: Collection[int]) -> dict[int, Tally]:
        """Per trial, the judged turns of ``categories`` and ``turns`` summed
        (``headline.Tallies``)."""
        found: dict[int, Tally] = {}
        for (category, turn, trial), cell in sorted(self._tallies.items()):
            if category in categories and turn in turns:
                found.setdefault(trial, Tally()).add(cell)
        return found

    def category_mean(self, category: str, turn: int | None = None) -> Fraction | None:
        """The category's cell over ``turn`` (both: ``None``) by the headline rule."""
        return self.headline.cell(self, category, _turns(turn))

    def means(self, turn: int | None = None) -> dict[str, Fraction | None]:
        return {c: self.category_mean(c, turn) for c in self.categories}

    def overall(self, turn: int | None = None) -> Fraction | None:
        """The headline over ``turn`` (both: ``None``) by the benchmark's rule
        (``headline``); ``None`` without a rated turn."""
        return self.headline.overall(self, self.categories, _turns(turn))


def _turns(turn: int | None) -> tuple[int, ...]:
    return (1, 2) if turn is None else (turn,)


@dataclass(frozen=True)
class Leaderboard:
    bench: Bench
    models: tuple[ModelScores, ...]
    expected_turns: int
    #: every judgment the table was built from, each once, in file order (the report's
    #: per-question pages show them without reading the files again)
    lines: tuple[SingleJudgmentLine, ...] = ()
    #: the rule every row's cells and "Avg." are computed by, signed in the table's signature
    headline: HeadlineRule = CATEGORY_MEAN

    def ranked(self, turn: int | None = None) -> list[ModelScores]:
        """Best overall first (ties by name), as upstream sorts; incomplete rows after all
        complete ones (their means are over other turns, not comparable)."""

        def key(m: ModelScores) -> tuple[bool, Fraction, str]:
            return (not self.complete(m), -(m.overall(turn) or Fraction(-10)), m.model)

        return sorted(self.models, key=key)

    def complete(self, model: ModelScores) -> bool:
        return model.judged == self.expected(model)

    def expected(self, model: ModelScores) -> int:
        """The turns ``model``'s row needs judged: every judged turn of every trial."""
        return self.expected_turns * model.trials

    def incomplete(self) -> list[ModelScores]:
        return [m for m in self.models if not self.complete(m)]

    @property
    def signature(self) -> Signature | None:
        """The signature most rows share: what the table's numbers mean."""
        return common_signature(m.signature for m in self.models)

    def differences(self, model: ModelScores) -> list[str]:
        """How ``model``'s row was produced differently from most rows (what changes numbers)."""
        common = self.signature
        if model.signature is None or common is None:
            return []
        return model.signature.differences(common)


def judgment_files(
    paths: list[Path], *, shaberi: bool = False, flag: str = "`judgments`"
) -> list[Path]:
    """The ``*.jsonl`` files of the given folders (or the files themselves), sorted;
    ``shaberi``: Shaberi's ``*.json`` judgment files too; ``flag``: what a missing path
    or an empty folder is said of."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found += sorted(path.glob("*.jsonl"))
            if shaberi:  # not the manifests hyoka keeps beside its own files
                found += sorted(
                    p for p in path.glob("*.json") if not p.name.endswith(MANIFEST_SUFFIX)
                )
        elif path.exists():  # a file; one that is no regular file the store refuses, naming it
            found.append(path)
        else:
            raise InputError(f"{flag}: {path} does not exist")
    if not found:
        shown = ", ".join(str(p) for p in paths)
        kinds = "*.jsonl or *.json" if shaberi else "*.jsonl"
        raise InputError(f"{flag}: no {kinds} judgment files in {shown}")
    return found


@dataclass(frozen=True, kw_only=True)
class FastChatSingleSignature(SignatureType):
    """How a single-grading file without a hyoka manifest (FastChat's, the published
    judgments) was made, as far as its lines say: the benchmark and the judge's name (and
    the variant asked for, where the benchmark has variants).
    A kind of its own: hyoka's ``mtbench-single`` signs every setting, which such a file
    does not record."""

    kind: ClassVar[str] = "fastchat-single"
    bench: str
    judge: str
    variant: str | None = only_when_set()


@dataclass(frozen=True, kw_only=True)
class ShaberiSingleSignature(SignatureType):
    """How a Shaberi judgment file was made, as far as it says: the benchmark and the judge
    (its folder's name, as upstream names it). A kind of its own: the file records neither
    the prompt version nor any setting, and its mean counts every row (repeats too)."""

    kind: ClassVar[str] = "shaberi-single"
    bench: str
    judge: str


def is_shaberi_file(path: Path, bench: Bench) -> bool:
    """Whether ``path`` is one of Shaberi's judgment files (``*.json``) of ``bench``."""
    return bench.spec.question_format.is_judgment_file(path)


def file_signature(
    path: Path, bench: Bench, lines: list[SingleJudgmentLine], variant: str | None = None
) -> Signature:
    """The signature hyoka stored beside ``path`` (an older format migrated); for a file
    without one, ``FastChatSingleSignature`` (``ShaberiSingleSignature`` for Shaberi's),
    signed with ``variant``, the variant its lines show (``row_signatures``; by default the
    one asked for)."""
    if is_shaberi_file(path, bench):
        judge = shaberi_judge(path, bench.spec.upstream_name)
        return ShaberiSingleSignature(bench=bench.spec.name, judge=judge).signature()
    manifest = read_manifest(path)
    stored = None
    if manifest is not None:
        stored = Signature.from_json(manifest.signature, manifest_path(path))
    if stored is not None:
        return stored
    judges = sorted({line.judge[0] for line in lines})
    if variant is None and bench.variant is not None:
        variant = bench.variant.signed()
    return FastChatSingleSignature(
        bench=bench.spec.name, judge=",".join(judges), variant=variant
    ).signature()


def row_signatures(
    path: Path, bench: Bench, lines: list[SingleJudgmentLine], load: Load
) -> dict[str, Signature]:
    """Each model's signature from ``path`` (``file_signature``): a file without a
    manifest records no variant, so each of its rows is signed with the variant its
    judged prompts show (``judged_variant``; ``UNPROVEN`` where they show none)."""
    models = dict.fromkeys(line.model for line in lines)
    if bench.variant is None or is_shaberi_file(path, bench) or read_manifest(path) is not None:
        return dict.fromkeys(models, file_signature(path, bench, lines))
    found = row_variants(bench.spec, lines, load)
    return {
        model: file_signature(path, bench, lines, signed_variant(found[model], bench.variant))
        for model in models
    }


def fastchat_records(
    path: Path,
) -> Iterator[tuple[int, SingleJudgmentLine | TrialsJudgmentLine, list[SingleJudgmentLine]]]:
    """Each line of ``path`` as read (its fields as written) and as FastChat lines: itself,
    or one per trial of a line of swallow-evaluation's (lists over the trials)."""
    for number, line in read_records(path, SingleGradingLine):
        try:
            singles = line.per_trial()
        except ValueError as exc:
            raise InputError(f"{path}:{number}: {exc}") from None
        yield number, line.root, singles


def fastchat_lines(path: Path) -> Iterator[tuple[int, SingleJudgmentLine]]:
    """Each line of ``path`` as FastChat lines (``fastchat_records``), each with its line
    number."""
    for number, _line, singles in fastchat_records(path):
        for single in singles:
            yield number, single


def _shaberi_lines(path: Path, bench: Bench) -> Iterator[tuple[int, SingleJudgmentLine]]:
    """Shaberi's rows as judgment lines: the task found by its text (a file may repeat a
    row, which shifts the rest), ``null`` as no rating."""
    tasks = {q.turns[0]: q.question_id for q in bench.questions}
    model = shaberi_model(path)
    # the file records no prompt name: the line says where it came from instead
    judge = (shaberi_judge(path, bench.spec.upstream_name), "shaberi")
    for number, row in shaberi_judgments(path):
        task = tasks.get(row.Question)
        if task is None:
            raise InputError(
                f"{path}:{number}: the Question is not one of {bench.spec.title}'s tasks "
                "(a Shaberi file of another benchmark?)"
            )
        if row.score is not None:  # Shaberi writes null where it read no grade, never -1
            check_scale(f"{path}:{number}", row.score, bench.spec, unrated=False)
        score = NO_RATING if row.score is None else row.score
        yield (
            number,
            SingleJudgmentLine(
                question_id=task, model=model, judge=judge, judgment="", score=score, turn=1
            ),
        )


def judgment_lines(path: Path, bench: Bench) -> Iterator[tuple[int, SingleJudgmentLine]]:
    """The judgments of ``path`` with their line numbers, as read, not yet checked: one per
    line of FastChat's, one per trial of swallow-evaluation's, one per row of Shaberi's."""
    return _shaberi_lines(path, bench) if is_shaberi_file(path, bench) else fastchat_lines(path)


def _checked_lines(path: Path, bench: Bench) -> Iterator[tuple[int, SingleJudgmentLine]]:
    """The judgments of ``path``, each line checked as ``mtbench verify`` checks it
    (``line_checks``: its question, turn, prompt and score; one judge a file)."""
    fastchat = not is_shaberi_file(path, bench)
    judges = OneJudge(path)
    for number, line in judgment_lines(path, bench):
        check_line(f"{path}:{number}", line, bench, fastchat=fastchat)
        judges.see(number, line.judge[0])
        yield number, line


def _line_key(line: SingleJudgmentLine) -> tuple[str, int, int, int]:
    return (line.model, line.question_id, line.turn, line.trial or 0)


def file_judgments(path: Path, bench: Bench) -> list[SingleJudgmentLine]:
    """The judgments of one file as the table counts them, every line checked
    (``check_line``): every line (upstream's mean counts every line it reads: Shaberi's,
    FastChat's ``show_result.py``), or, where upstream drops duplicates
    (pfmt-bench-fin-ja's), an identical repeat dropped and two different ones refused."""
    checked = _checked_lines(path, bench)
    if bench.spec.repeated_turns == "every":
        return [line for _, line in checked]
    return list(unique_records(path, checked, _line_key))


def build_leaderboard(
    bench: Bench,
    files: list[Path],
    *,
    mix_variants: bool = False,
    models: Mapping[Path, Collection[str]] | None = None,
    headline: HeadlineRule | None = None,
) -> Leaderboard:
    """Read every judgment; an ``InputError`` at the first line that cannot be right.

    A turn judged more than once within a file is counted as the benchmark's upstream
    counts it (``BenchSpec.repeated_turns``): every line again (FastChat's
    ``show_result.py``, Shaberi's notebook), each repeat marked on its row; or an identical
    line dropped with a warning and two different lines an error naming both. Across files,
    a turn judged twice is an error naming both files. Rows judged under different variants
    of the benchmark (or under another than ``bench``'s, or under none that their files
    show: ``row_signatures``) are refused unless ``mix_variants``: then each row keeps its
    variant in its signature, and rows unlike most are marked with it. ``models``: the
    models whose rows to read from a file (the others' lines are left out); by default all.
    ``headline``: the rule its cells and "Avg." are computed by (``mtbench.headline``); by
    default the benchmark's own (``Bench.headline``: its variant's, else its definition's)."""
    rule = headline or bench.headline
    questions = bench.by_id
    scores: dict[str, ModelScores] = {}
    seen: dict[tuple[str, int, int, int], Path] = {}
    every: list[SingleJudgmentLine] = []
    variants: dict[str, dict[object, Path]] = defaultdict(dict)
    load = VariantBenches(bench.spec, bench.folder.parent)
    judged: dict[Path, set[str]] = {}  # the models each file's lines judge
    for path in files:
        lines = file_judgments(path, bench)
        judged[path] = {line.model for line in lines}
        if models is not None and path in models:
            kept = models[path]
            lines = [line for line in lines if line.model in kept]
        every.extend(lines)
        signatures = row_signatures(path, bench, lines, load)
        judge = judged_by(path, {line.judge[0] for line in lines})
        in_file: set[tuple[str, int, int, int]] = set()
        for line in lines:
            key = _line_key(line)
            repeat = key in in_file
            in_file.add(key)
            if key in seen and not repeat:
                trial = "" if line.trial is None else f" trial {line.trial}"
                raise InputError(
                    f"{path}: {line.model} question_id {line.question_id} turn {line.turn}"
                    f"{trial} judged twice (also in {seen[key]})"
                )
            seen[key] = path
            if line.model not in scores:
                scores[line.model] = ModelScores(line.model, bench.spec.categories, headline=rule)
            row = scores[line.model]
            if judge not in row.judges:
                row.judges.append(judge)
            signature = signatures[line.model]
            variants[line.model].setdefault(signature.get("variant"), path)
            if row.signature is None:
                row.signature = signature
            elif row.signature.get("mixed") is None and row.signature.differences(signature):
                # one model judged in files made two ways: its row is neither
                row.signature = row.signature.with_field("mixed", True)
            category = questions[line.question_id].category
            row.add(
                category, line.turn, line.score, line.question_id, line.trial or 0,
                repeat=repeat,
            )  # fmt: skip
    if not any(row.judged for row in scores.values()):
        shown = ", ".join(str(path) for path in judged)
        raise InputError(f"nothing to rank: no judgment in {shown}")
    for model, path in unjudged_models(bench, judged, scores, models).items():
        # named but without a line: its row says so (0 of N turns), never left out
        scores[model] = ModelScores(model, bench.spec.categories, headline=rule)
        if read_manifest(path) is not None:
            scores[model].signature = file_signature(path, bench, [])
            scores[model].judges.append(judged_by(path))
    if not mix_variants:
        _refuse_mixed_variants(bench, variants)
    expected = len(bench.turns) * len(questions)
    return Leaderboard(bench, tuple(scores.values()), expected, tuple(every), rule)


def _named_models(path: Path, bench: Bench, judged: Mapping[Path, set[str]]) -> list[str]:
    """The models ``path`` was made to judge, as far as something other than its lines says:
    its hyoka manifest (a per-model file records its model; FastChat's one file for every
    model records none), Shaberi's file name, or for a file without a line the per-model
    layout (``<judge>_single/<model>.jsonl``, or a folder whose every other file judges
    just the model its name names). ``judged``: the models each file's lines judge."""
    manifest = read_manifest(path)
    if manifest is not None:
        recorded = manifest.identity.get("models")
        return [m for m in recorded if isinstance(m, str)] if isinstance(recorded, list) else []
    if is_shaberi_file(path, bench):
        return [shaberi_model(path)]
    if judged[path]:
        return []
    beside = [(other, found) for other, found in judged.items() if found]
    beside = [(other, found) for other, found in beside if other.parent == path.parent]
    per_model = all(found == {other.stem} for other, found in beside)
    if path.parent.name.endswith("_single") or (beside and per_model):
        return [path.stem]
    return []


def unjudged_models(
    bench: Bench,
    judged: Mapping[Path, set[str]],
    rows: Collection[str],
    models: Mapping[Path, Collection[str]] | None = None,
) -> dict[str, Path]:
    """The models a file was made to judge (``_named_models``) that no file judged, each
    with the file that names it: rows of none of their turns, to be listed (incomplete),
    never silently left out. ``judged``: every file read, with the models its lines judge;
    ``rows``: the models judged; ``models``: the models to read of a file. A file without
    a line that names no model is an ``InputError`` naming it (nothing says whose it is)."""
    named: dict[str, Path] = {}
    for path in judged:
        found = _named_models(path, bench, judged)
        if not found and not judged[path]:
            raise InputError(
                f"{path}: empty, no judgment in it, and nothing names the model it was to "
                "judge (no hyoka manifest beside it, not in a <judge>_single/<model>.jsonl "
                "folder)"
            )
        kept = models.get(path) if models is not None else None
        for model in found:
            if model not in rows and (kept is None or model in kept):
                named.setdefault(model, path)
    return named


#: what a refused row may do instead
_MIX = "`mix_variants` to rank them anyway, each row marked with its variant"


def _refuse_mixed_variants(bench: Bench, rows: Mapping[str, Mapping[object, Path]]) -> None:
    """One clear line naming the file when a row was judged under another variant than
    the one asked for, or under none its file shows (each file of a row is looked at):
    numbers of different variants are not on one scale."""
    if bench.variant is None:
        return
    asked = bench.variant.signed()
    title = bench.spec.title
    for model, seen in rows.items():
        for theirs, path in seen.items():
            if theirs is None or theirs == asked:
                continue
            if theirs == UNPROVEN:
                raise InputError(
                    f"{path}: nothing shows which {title} variant judged {model} (no hyoka "
                    f"manifest beside the file, no judged prompt in its lines): not ranked "
                    f"as {bench.variant.name} ({_MIX})"
                )
            if theirs == UNKNOWN:
                raise InputError(
                    f"{path}: {model}'s judged prompts are those of none of this hyoka's "
                    f"{title} variants (other files, or lines of two variants): not ranked "
                    f"as {bench.variant.name} ({_MIX})"
                )
            raise InputError(
                f"{path}: {model} was judged under variant {theirs}, not {asked}: numbers "
                f"of different variants are not ranked together (`variant` to choose its "
                f"variant, or {_MIX})"
            )
