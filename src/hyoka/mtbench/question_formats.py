"""How a benchmark's questions file is written, as objects with one interface.

A definition names its format (``BenchSpec.question_format``); the loader, the leaderboard,
verify and the report ask the format, never its name. Two formats exist: FastChat's
``question.jsonl`` (``question_id``, ``category``, ``turns``) and Shaberi's judgment rows
(``Question``, ``output`` = the reference answer, ``eval_aspect`` = the task's own grading
criteria; the row's place, from 0, is its id), as ELYZA-tasks-100 is published in Shaberi's
judgment files, which are therefore also judgment files hyoka reads (``upstream_judgments``),
M-IFEval's prompts file (``key``, ``prompt``, ``instruction_id_list``, ``kwargs``: one
single-turn prompt a line, in the group of its first instruction), and JFBench's prompts
read as the benchmark built from them (``hyoka.jfbench``). A new format is one more
class here with the same four members.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from pydantic import ConfigDict, Field, ValidationError

from hyoka.errors import DataError
from hyoka.mtbench.records import KeepsIdType
from hyoka.mtbench.shaberi import shaberi_rows
from hyoka.store import read_objects, read_records


class Question(KeepsIdType):
    """One dialogue: its user turns (two, or one for single-turn tasks), and for
    translation the language of each answer.

    MT-bench questions may carry ``reference``: short reference answers its authors kept
    beside the question (FastChat judges against ``reference_answer/gpt-4.jsonl``
    instead); they are read and kept, never used for judging.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    category: str
    #: one or two user turns (the benchmark's ``turns`` says how many it has)
    turns: tuple[str, ...] = Field(min_length=1, max_length=2)
    answer_lang: tuple[str, ...] | None = None
    reference: tuple[str, ...] | None = None
    #: the task's own grading criteria (ELYZA-tasks-100's ``eval_aspect``)
    eval_aspect: str | None = None


class QuestionFormat(Protocol):
    """What the code asks of a questions file's format."""

    @property
    def name(self) -> str:
        """The format's name, for listings (``fastchat``, ``shaberi``)."""
        ...

    @property
    def upstream_judgments(self) -> bool:
        """Whether upstream's own judgment files are in this format too (Shaberi's
        ``*.json``: each holds the tasks with their grades), read beside hyoka's ``*.jsonl``."""
        ...

    def read(
        self, path: Path, data: bytes, categories: Sequence[str]
    ) -> Iterator[tuple[int, Question]]:
        """Each question with the line (or row, from 1) it was read from; ``categories``:
        the definition's, for a format that has none of its own (the first is used)."""
        ...

    def is_judgment_file(self, path: Path) -> bool:
        """Whether ``path`` is one of upstream's judgment files in this format."""
        ...

    def wording(self, path: Path) -> str | None:
        """What worded the questions read from ``path`` where the file alone does not
        (JFBench's build: its prompts' and source's digests); ``None``: the file's text is
        what was asked. An answer file records it, and is judged only against the same."""
        ...


@dataclass(frozen=True)
class FastChatQuestions:
    """FastChat's ``question.jsonl``: one JSON object a line."""

    name: str = "fastchat"
    upstream_judgments: bool = False

    def read(
        self, path: Path, data: bytes, categories: Sequence[str]
    ) -> Iterator[tuple[int, Question]]:
        return read_records(path, Question, data)

    def is_judgment_file(self, path: Path) -> bool:
        return False

    def wording(self, path: Path) -> str | None:
        return None


@dataclass(frozen=True)
class ShaberiRows:
    """Shaberi's judgment file read as the tasks it carries: one category (the
    definition's first), the reference answer and grading criteria in each row."""

    name: str = "shaberi"
    upstream_judgments: bool = True

    def read(
        self, path: Path, data: bytes, categories: Sequence[str]
    ) -> Iterator[tuple[int, Question]]:
        for number, row in shaberi_rows(path, data):
            yield number, Question(
                question_id=number - 1, category=categories[0], turns=(row.Question,),
                reference=(row.output,), eval_aspect=row.eval_aspect,
            )  # fmt: skip

    def is_judgment_file(self, path: Path) -> bool:
        return path.suffix == ".json"

    def wording(self, path: Path) -> str | None:
        return None


@dataclass(frozen=True)
class IfevalPrompts:
    """M-IFEval's prompts file read as single-turn questions: ``key`` the id, ``prompt``
    the one turn, and as category the group of the first instruction
    (``ja:detectable_format:...`` is ``detectable_format``). The instructions themselves
    are the scorer's to read (``hyoka.ifeval.read_prompts``), never needed to answer."""

    name: str = "ifeval"
    upstream_judgments: bool = False

    def read(
        self, path: Path, data: bytes, categories: Sequence[str]
    ) -> Iterator[tuple[int, Question]]:
        for number, row in read_objects(path, data):
            key, prompt, ids = row.get("key"), row.get("prompt"), row.get("instruction_id_list")
            if not isinstance(prompt, str) or not isinstance(ids, list) or not ids:
                raise DataError(f"{path}:{number}: a prompt line needs prompt and instruction ids")
            group = str(ids[0]).split(":")
            category = group[-2] if len(group) > 1 else group[0]
            try:
                question = Question.model_validate(
                    {"question_id": key, "category": category, "turns": (prompt,)}
                )
            except ValidationError:
                raise DataError(f"{path}:{number}: key {key!r} is not a whole number") from None
            yield number, question

    def is_judgment_file(self, path: Path) -> bool:
        return False

    def wording(self, path: Path) -> str | None:
        return None


#: JFBench's questions by the build they are of (``hyoka.jfbench.Benchmark.data``)
_JFBENCH_QUESTIONS: dict[str, tuple[tuple[int, Question], ...]] = {}


@dataclass(frozen=True)
class JfbenchEntries:
    """JFBench's prompts file read as the benchmark upstream's ``eval.py`` answers
    (``hyoka.jfbench.load_benchmark``: the seed-42 single-constraint build of the test
    set): each entry's place in the build (upstream's ``prompt_index``) the id, the prompt
    it is shown (worded by upstream's source in the data folder) the one turn, and its
    constraint's group the category; the line number is its prompt's."""

    name: str = "jfbench"
    upstream_judgments: bool = False

    def read(
        self, path: Path, data: bytes, categories: Sequence[str]
    ) -> Iterator[tuple[int, Question]]:
        from hyoka.jfbench import load_benchmark

        built = load_benchmark(path, path.parent.parent)
        if built.data not in _JFBENCH_QUESTIONS:  # 51,900 of them: made once a process
            _JFBENCH_QUESTIONS[built.data] = tuple(
                (entry.prompt + 1, Question(
                    question_id=position, category=entry.constraint_groups[0],
                    turns=(built.texts[position],),
                ))
                for position, entry in built.entries.items()
            )  # fmt: skip
        return iter(_JFBENCH_QUESTIONS[built.data])

    def is_judgment_file(self, path: Path) -> bool:
        return False

    def wording(self, path: Path) -> str | None:
        from hyoka.jfbench import load_benchmark

        return load_benchmark(path, path.parent.parent).data


FASTCHAT_QUESTIONS = FastChatQuestions()
JFBENCH_ENTRIES = JfbenchEntries()
IFEVAL_PROMPTS = IfevalPrompts()
SHABERI_ROWS = ShaberiRows()
