"""M-IFEval's files as upstream lays them out: the prompts, a model's responses.

The prompts file (``ja_input_data.jsonl``) holds one prompt a line: ``key``, ``prompt``,
``instruction_id_list`` and ``kwargs`` (one object per instruction). A responses file holds
``prompt`` and ``response`` a line, matched to the prompts by the prompt's text, as
upstream matches them. Every problem is one ``InputError`` naming the file and line.
"""

from __future__ import annotations

import hashlib
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hyoka.errors import HyokaWarning, InputError
from hyoka.ifeval import language
from hyoka.ifeval.registry import Instruction, build
from hyoka.store import manifest_path, read_bytes, read_manifest, read_objects, unique_records

#: where the prompts file lies in the data directory (the manifest's path for upstream's
#: ``data/ja_input_data.jsonl``)
PROMPTS_IN_DATA = Path("m-ifeval-ja") / "data" / "ja_input_data.jsonl"
#: the benchmark a hyoka answer file's manifest must name to be scored as M-IFEval's
BENCHMARK = "m-ifeval-ja"


@dataclass(frozen=True)
class Prompt:
    """One prompt and its instructions' ids and arguments, checked when read."""

    key: object
    text: str
    ids: tuple[str, ...]
    kwargs: tuple[Mapping[str, object], ...]
    where: str

    def instructions(self, seed: int | None = language.DEFAULT_SEED) -> tuple[Instruction, ...]:
        """The checks of this prompt's instructions, langdetect drawing with ``seed``."""
        return tuple(
            build(iid, kwargs, self.where, seed)
            for iid, kwargs in zip(self.ids, self.kwargs, strict=True)
        )


def _text(row: dict[str, Any], name: str, where: str) -> str:
    value = row.get(name)
    if not isinstance(value, str):
        raise InputError(f"{where}: {name} is missing or not text")
    return value


@dataclass(frozen=True)
class PromptSet:
    """The prompts of one input file, and the SHA-256 of its bytes (what a result was
    scored against)."""

    path: Path
    prompts: tuple[Prompt, ...]
    sha256: str

    def by_text(self) -> dict[str, Prompt]:
        return {prompt.text: prompt for prompt in self.prompts}

    def by_key(self) -> dict[object, str]:
        """Each prompt's text by its ``key`` (what hyoka's answer files name it by)."""
        return {prompt.key: prompt.text for prompt in self.prompts}


def files_given(
    paths: Sequence[Path],
    pattern: str,
    what: str,
    *,
    beneath: bool = False,
    but: Path | None = None,
    named: str = "",
) -> list[Path]:
    """Each file given, a folder read as its files matching ``pattern`` (at any depth with
    ``beneath``) in name order, ``but`` left out (upstream keeps its responses beside the
    prompts): one rule for the answer and evaluation files a command is given. A folder
    with none is one ``InputError`` naming it (after ``named``, the flag or parameter) and
    ``what`` it should hold."""
    found: list[Path] = []
    for path in paths:
        if not path.is_dir():
            found.append(path)
            continue
        inside = sorted(path.rglob(pattern) if beneath else path.glob(pattern))
        inside = [p for p in inside if but is None or p.name != but.name]
        if not inside:
            raise InputError(f"{named}{path}: no {what} in it")
        found.extend(inside)
    return found


def read_prompts(path: Path) -> PromptSet:
    """The prompts of an M-IFEval input file, every instruction's arguments checked."""
    data = read_bytes(path)
    prompts: list[Prompt] = []
    seen: dict[str, str] = {}
    for number, row in read_objects(path, data):
        where = f"{path}:{number}"
        text = _text(row, "prompt", where)
        ids, kwargs = row.get("instruction_id_list"), row.get("kwargs")
        if not isinstance(ids, list) or not ids or not all(isinstance(i, str) for i in ids):
            raise InputError(f"{where}: instruction_id_list is not a list of instruction ids")
        if not isinstance(kwargs, list) or not all(isinstance(k, dict) for k in kwargs):
            raise InputError(f"{where}: kwargs is not a list of objects")
        if len(kwargs) != len(ids):
            raise InputError(
                f"{where}: {len(ids)} instructions but {len(kwargs)} objects of kwargs"
            )
        if text in seen:
            raise InputError(f"{where}: the same prompt as {seen[text]}")
        seen[text] = where
        prompt = Prompt(row.get("key"), text, tuple(ids), tuple(kwargs), where)
        prompt.instructions()  # every id known and every argument usable, or the line named
        prompts.append(prompt)
    if not prompts:
        raise InputError(f"{path}: no prompts")
    return PromptSet(path, tuple(prompts), hashlib.sha256(data).hexdigest())


@dataclass(frozen=True)
class _Answered:
    """The prompt a response line answers: its text, named by its first words (the
    duplicate rule's label, ``store.unique_records``, stays one line)."""

    text: str

    def __str__(self) -> str:
        first = self.text.splitlines()[0] if self.text.strip() else self.text
        return f"the prompt {first[:40]!r}"


def _answered(row: dict[str, Any], keys: Mapping[object, str], where: str) -> tuple[str, str]:
    """The prompt and response of a line of hyoka's answer file (``hyoka mtbench generate
    --bench m-ifeval-ja``): the prompt its ``question_id`` keys, the first choice's turn."""
    key = row["question_id"]
    prompt = keys.get(key)
    if prompt is None:
        raise InputError(f"{where}: question_id {key!r} is no prompt's key")
    choices = row.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise InputError(f"{where}: no choices")
    turns = choices[0].get("turns")
    if not isinstance(turns, list) or len(turns) != 1:
        raise InputError(f"{where}: the first choice has not one turn")
    if not isinstance(turns[0], str):
        raise InputError(f"{where}: the first choice's turn is not text")
    return prompt, turns[0]


def _refuse_other_benchmark(path: Path) -> None:
    """An ``InputError`` when ``path`` is a hyoka answer file of another benchmark (its
    manifest's ``benchmark``): its question ids would be read as prompts' keys."""
    manifest = read_manifest(path)
    if manifest is None:
        return
    named = manifest.identity.get("benchmark")
    if named != BENCHMARK:
        raise InputError(
            f"{manifest_path(path)}: benchmark is {named!r}, not {BENCHMARK!r}: "
            "another benchmark's answers"
        )


def _line(
    path: Path, number: int, row: dict[str, Any], keys: Mapping[object, str] | None
) -> tuple[int, tuple[str, str, dict[str, Any]]]:
    where = f"{path}:{number}"
    if keys is not None and "question_id" in row and "prompt" not in row:
        prompt, value = _answered(row, keys, where)
    else:
        prompt = _text(row, "prompt", where)
        if "response" not in row:
            raise InputError(f"{where}: no response")
        value = row["response"]
        if not isinstance(value, str):
            raise InputError(f"{where}: response is not text")
    return number, (prompt, value, row)


def read_responses(path: Path, keys: Mapping[object, str] | None = None) -> dict[str, str]:
    """Each prompt's response: lines of upstream's ``prompt`` and ``response``, or, given
    the prompts' ``keys`` (key to text), of hyoka's answer file (whose manifest, if any,
    must name M-IFEval-Ja). A response that is not text, or a key twice in one line, is
    refused naming the line; a line repeated identically is read once with a warning, a
    prompt answered twice differently refused naming both lines (``store.unique_records``).
    Given ``keys``, responses to prompts not among them are left out with a warning
    counting them (a cut prompts file scores part of a full answer file)."""
    _refuse_other_benchmark(path)
    lines = (_line(path, n, row, keys) for n, row in read_objects(path, unique_keys=True))
    found = {
        prompt: response
        for prompt, response, _ in unique_records(path, lines, lambda line: _Answered(line[0]))
    }
    if keys is not None:
        known = set(keys.values())
        extra = sum(prompt not in known for prompt in found)
        if extra:
            warnings.warn(
                f"{path}: {extra} response(s) to prompts not in the prompts file left out",
                HyokaWarning,
                stacklevel=2,
            )
            found = {prompt: response for prompt, response in found.items() if prompt in known}
    return found


def matched(
    prompts: Sequence[Prompt], responses: Mapping[str, str], path: Path
) -> list[str | None]:
    """Each prompt's response, in the prompts' order; a prompt without one is refused."""
    missing = [p for p in prompts if p.text not in responses]
    if missing:
        raise InputError(
            f"{path}: no response to {len(missing)} of the {len(prompts)} prompts "
            f"(the first: {missing[0].where})"
        )
    return [responses[p.text] for p in prompts]


@dataclass(frozen=True)
class PublishedVerdicts:
    """One line of an upstream evaluation file (``eval_results_strict.jsonl``): the prompt,
    the response it judged, the instruction ids and the verdicts it wrote."""

    where: str
    prompt: str
    response: str | None
    ids: tuple[str, ...]
    follows: tuple[bool, ...]
    follow_all: bool


@dataclass(frozen=True)
class _Line:
    """One line of a file read by prompt: equal to another when its row is (its number
    apart), as ``store.unique_records`` compares repeats."""

    number: int = field(compare=False)
    prompt: str
    row: dict[str, Any]


def _by_prompt(path: Path) -> Iterator[_Line]:
    """The lines of ``path`` (a key twice in one refused), one per prompt: an identical
    repeat read once with a warning, another line for the same prompt refused naming both
    (``store.unique_records``)."""
    numbered = (
        (number, _Line(number, _text(row, "prompt", f"{path}:{number}"), row))
        for number, row in read_objects(path, unique_keys=True)
    )
    return unique_records(path, numbered, lambda line: _Answered(line.prompt))


def read_evaluation(path: Path) -> tuple[PublishedVerdicts, ...]:
    """The lines of an upstream evaluation file, each checked for shape; a key twice in a
    line refused, and repeats by the one duplicate rule (``store.unique_records``: an
    identical line read once with a warning, another line for the same prompt refused
    naming both)."""
    rows: list[PublishedVerdicts] = []
    for line in _by_prompt(path):
        row, where = line.row, f"{path}:{line.number}"
        ids, follows = row.get("instruction_id_list"), row.get("follow_instruction_list")
        follow_all = row.get("follow_all_instructions")
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            raise InputError(f"{where}: instruction_id_list is not a list of instruction ids")
        if not isinstance(follows, list) or not all(isinstance(f, bool) for f in follows):
            raise InputError(f"{where}: follow_instruction_list is not a list of true/false")
        if len(follows) != len(ids):
            raise InputError(f"{where}: {len(ids)} instructions but {len(follows)} verdicts")
        if not isinstance(follow_all, bool):
            raise InputError(f"{where}: follow_all_instructions is not true or false")
        response = row.get("response")
        rows.append(
            PublishedVerdicts(
                where,
                _text(row, "prompt", where),
                response if isinstance(response, str) else None,
                tuple(ids),
                tuple(follows),
                follow_all,
            )
        )
    if not rows:
        raise InputError(f"{path}: no verdicts")
    return tuple(rows)
