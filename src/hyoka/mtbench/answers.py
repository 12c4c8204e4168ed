"""Loading answer files, refusing what would silently give wrong scores.

Every problem is reported once, naming the file and line: a dialogue the benchmark does not
have (usually an answer file of another benchmark), a dialogue answered twice differently,
a missing turn, two models mixed in one file.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path

from hyoka.errors import DataError, HyokaWarning, InputError
from hyoka.mtbench.bench import AnswerSet, Bench
from hyoka.mtbench.records import AnswerChoice, AnswerRecord
from hyoka.mtbench.spec import Layout
from hyoka.providers import (
    DEFAULT_THINKING,
    EMBEDDED_MODEL,
    ThinkingRule,
    parse_model_string,
    split_thinking,
)
from hyoka.signature import Signature
from hyoka.store import (
    manifest_path,
    path_under,
    plain_name,
    read_manifest,
    read_records,
    unique_records,
)

#: the name answer files give the embedded model: the model it is
_DISPLAY_NAMES = {EMBEDDED_MODEL: "HuggingFaceTB/SmolLM2-135M-Instruct"}


def _checked(path: Path, bench: Bench) -> Iterator[tuple[int, AnswerRecord]]:
    """Each line with its number, once it is known to be an answer of ``bench``'s, with
    the turns it judges (at most the benchmark's), by the same model as the lines before it."""
    known = bench.by_id
    needed = max(bench.turns)  # Stability's variants judge turn 1: its answers hold one
    model_id: str | None = None
    choices: int | None = None  # every dialogue answered as many times (trials)
    for number, record in read_records(path, AnswerRecord):
        where = f"{path}:{number}"
        if record.question_id not in known:
            raise InputError(f"{where}: {_unknown_question(record, bench)}")
        for choice in record.choices:
            turns = len(choice.turns)
            if turns < needed or turns > bench.spec.turns:
                expected = (
                    str(needed) if needed == bench.spec.turns else f"{needed} to {bench.spec.turns}"
                )
                raise InputError(
                    f"{where}: question_id {record.question_id} has {turns} turn(s)"
                    + (f" in choice {choice.index}" if len(record.choices) > 1 else "")
                    + f", expected {expected}"
                )
        if choices is None:
            choices = len(record.choices)
        elif len(record.choices) != choices:
            raise InputError(
                f"{where}: question_id {record.question_id} has {len(record.choices)} "
                f"choice(s), {choices} earlier in the file (one trial count per answer file)"
            )
        if model_id is None:
            model_id = record.model_id
        elif record.model_id != model_id:
            raise InputError(
                f"{where}: model_id {record.model_id!r} differs from {model_id!r} earlier "
                "in the file (one model per answer file)"
            )
        yield number, record


def check_made_under(path: Path, bench: Bench) -> None:
    """Refuse answers whose manifest records another variant than ``bench``'s, unless
    that variant asks the same questions the same way (``Variant.answers_alike``): judged
    under another one they would be graded on questions or a protocol they were not made
    by (swallow's question v4 under llm-jp's v3). A file without a hyoka manifest (a
    published one) says nothing and is checked line by line (``_unknown_question``).

    Answers to questions worded apart from their file (JFBench's build,
    ``Bench.wording``) are refused when made from other words, and warned of when their
    file does not say which (``_check_wording``)."""
    _check_wording(path, bench)
    if bench.variant is None:
        return
    manifest = read_manifest(path)
    if manifest is None or not manifest.kind.startswith("answers/") or not manifest.signature:
        return
    signature = Signature.from_json(manifest.signature, manifest_path(path))
    made = None if signature is None else signature.get("variant")
    if made is None:
        return
    label = made.split("/", 1)[0]
    known = {variant.label: variant for variant in bench.spec.variants}
    variant = known.get(label)
    if variant is not None and variant.answers_alike(bench.variant):
        return
    if variant is None:
        why = "a variant this hyoka does not have"
    elif variant.questions.sha256 != bench.variant.questions.sha256:
        why = "other questions"
    else:
        why = "the same questions asked another way (system message, temperatures or budget)"
    advice = "" if variant is None else f"; `variant` {variant.name} judges them as made"
    raise InputError(
        f"{path}: answers made under variant {label} (its manifest), not "
        f"{bench.variant.label} as asked: {why}{advice}"
    )


def _check_wording(path: Path, bench: Bench) -> None:
    """Refuse answers whose manifest records other words than ``bench``'s (``data``: the
    prompts' and the source's digests), naming both: judged here they would be scored
    against prompts the model never saw. A file that records none is read with a
    warning."""
    if bench.wording is None:
        return
    manifest = read_manifest(path)
    made = None if manifest is None else manifest.identity.get("data")
    if made is None:
        warnings.warn(
            f"{path}: does not record the words its questions were asked in (no `data` in a "
            f"hyoka manifest); taken as {bench.wording}",
            HyokaWarning,
            stacklevel=3,
        )
    elif made != bench.wording:
        raise InputError(
            f"{path}: answers to questions worded as {made} (its manifest), not as "
            f"{bench.wording} here: generate them again from this data folder, or judge "
            "them with the data they were made from"
        )


def _unknown_question(record: AnswerRecord, bench: Bench) -> str:
    """Why ``record`` is refused: its question is none of ``bench``'s (its variant's), and
    the other variants whose questions hold it with the turns it answers, where there are
    any (``--variant`` reads the file under one of them, never under this one)."""
    title = bench.spec.title
    if bench.variant is None:
        return (
            f"question_id {record.question_id} is not a {title} question (an answer file of "
            "another benchmark?)"
        )
    turns = {len(choice.turns) for choice in record.choices}
    found = []
    for variant in bench.spec.variants:
        if variant == bench.variant:
            continue
        try:
            other = Bench.load(bench.spec.name, bench.folder.parent, variant.name,
                               questions_only=True)  # fmt: skip
        except DataError:  # its files missing or not the pinned ones
            continue
        fits = all(max(other.turns) <= count <= bench.spec.turns for count in turns)
        if record.question_id in other.by_id and fits:
            found.append(variant.name)
    shown = f"question_id {record.question_id} is not a question of {title} variant"
    if not found:
        return f"{shown} {bench.variant.name} (an answer file of another benchmark?)"
    several = len(found) > 1
    return (
        f"{shown} {bench.variant.name}; variant{'s' if several else ''} {', '.join(found)} "
        f"ask{'' if several else 's'} it with the turns answered here: `variant` names the "
        "one these answers were generated under (no manifest beside the file names it)"
    )


def answer_model_id(model: str, name: str | None = None) -> str:
    """Upstream's model id for ``PROVIDER/MODEL`` (or ``--name``): the model's name with
    ``/`` written as ``_``."""
    if name:
        return name.replace("/", "_")
    _provider, bare = parse_model_string(model)
    return _DISPLAY_NAMES.get(model, bare).replace("/", "_")


def answer_file(root: Path, bench: AnswerSet, model_id: str, layout: Layout = "hyoka") -> Path:
    """``<root>/<bench>/model_answer/<model id>.jsonl`` (``<bench>``: hyoka's name for the
    benchmark, or upstream's for the ``upstream`` layout, with upstream's answer folder:
    Rakuda's ``rakuda_v2/answers``), from sanitised names only."""
    spec = bench.spec
    folder = path_under(
        root, spec.results_folder(layout), spec.answers_folder(layout), what="`bench`"
    )
    return path_under(folder, model_id, what="model id", suffix=".jsonl")


def model_answer_file(folder: Path, model: str) -> Path | None:
    """``<folder>/<model>.jsonl`` of a model named by a judgment line (data), or ``None``
    where the name is no plain file name (``../x``, ``a/b``): such a model's answers are
    not found, never read from outside ``folder`` or from another model's file. A plain
    name is one component, so the path is inside ``folder`` as written; a file the user
    linked there (to answers elsewhere) is read, as ``path_under``, which resolves links,
    would refuse."""
    try:
        return folder / f"{plain_name(model, what='model')}.jsonl"
    except InputError:
        return None


def load_answers(
    path: Path,
    bench: Bench,
    *,
    complete: bool = False,
    thinking: ThinkingRule = DEFAULT_THINKING,
) -> dict[int, AnswerRecord]:
    """The answers in ``path`` by question id, each turn read by ``thinking``
    (``answer_only``).

    A dialogue answered twice with the same record (a line written again) is kept once,
    with a warning, as every hyoka log reads it (``hyoka.store.unique_records``); two
    different answers to one dialogue are an error naming both lines. ``complete`` also
    requires every dialogue of the benchmark to be answered (for judging: a partial file
    would rank the model on a different set of questions).
    """
    check_made_under(path, bench)
    records = unique_records(
        path, _checked(path, bench), key=lambda record: ("question_id", record.question_id)
    )
    answers = {record.question_id: answer_only(record, thinking) for record in records}
    known = bench.by_id
    if not answers:
        raise InputError(f"{path}: no answers")
    if complete and len(answers) < len(known):
        missing = [q for q in known if q not in answers]
        # a run made with --limit N answered the first N: --limit N judges exactly those
        first = set(list(known)[: len(answers)]) == set(answers)
        limit = f", or judge the {len(answers)} answered with `limit` {len(answers)}"
        raise InputError(
            f"{path}: answers {len(answers)} of the {len(known)} {bench.spec.title} dialogues "
            f"(first missing: question_id {missing[0]}); finish it with `hyoka mtbench "
            "generate` before judging" + (limit if first else "")
        )
    return answers


def answer_only(record: AnswerRecord, thinking: ThinkingRule = DEFAULT_THINKING) -> AnswerRecord:
    """``record`` with each turn the answer after its thinking (``providers.thinking``), the
    thinking set aside in the choice's ``thinking``: an answer file made elsewhere (a
    reasoning model's ``<think>`` blocks left in by a server without a reasoning parser)
    is judged on its answers, as hyoka's own files are. A record without a thinking block
    (every published one, and every one hyoka wrote) is returned as it is."""
    choices = tuple(_choice_answer_only(choice, thinking) for choice in record.choices)
    if all(new is old for new, old in zip(choices, record.choices, strict=True)):
        return record
    return record.model_copy(update={"choices": choices})


def _choice_answer_only(choice: AnswerChoice, thinking: ThinkingRule) -> AnswerChoice:
    """One choice read by ``thinking`` (every choice is one trial's answer, judged as
    ``choices[trial]``), its earlier ``thinking`` kept where a turn has no block."""
    read = [split_thinking(turn, thinking) for turn in choice.turns]
    if all(reply.thinking is None for reply in read):
        return choice
    earlier = choice.thinking or (None,) * len(read)
    thoughts = tuple(
        reply.thinking if reply.thinking is not None else before
        for reply, before in zip(read, earlier, strict=False)
    )
    return AnswerChoice.model_validate(
        {**choice.model_dump(), "turns": tuple(r.answer for r in read), "thinking": thoughts}
    )


def model_name(bench: Bench, path: Path, answers: dict[int, AnswerRecord]) -> str:
    """The name a model's judgments carry: its answer file's name where upstream names
    models so (FastChat's ``load_model_answers``, for Japanese MT-bench, whose 2023 files
    hold other ``model_id``s), else the ``model_id`` the file names."""
    if bench.spec.model_from_file_name:
        return path.stem
    return next(iter(answers.values())).model_id
