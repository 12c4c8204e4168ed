"""The pfgen-bench benchmark as loaded from a data directory: questions, scorers, hashes.

Scorers are built on first use and cached on disk (``index_cache``); building the missing
ones runs in parallel processes, one question per task, because building is CPU-bound numpy
work and the machine's cores are otherwise idle.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Container, Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from hyoka.data import fetch_hint, resolve_data_dir
from hyoka.errors import DataError, InputError, MissingDataError
from hyoka.pfgen._workers import worker_pool
from hyoka.pfgen.engine import use_kernel
from hyoka.pfgen.index_cache import IndexCache
from hyoka.pfgen.questions import QuestionFile, QuestionInfo
from hyoka.pfgen.scorer import AnswerScore, QuestionScorer, ReferenceSet, with_trie
from hyoka.store import UntrustedCacheError, pfgen_runs, read_objects

#: Folder of the pfgen-bench files inside a data directory.
BENCHMARK_FOLDER = Path("pfgen-bench") / "data"


@dataclass(frozen=True)
class SampleAnswer:
    """A question with the hand-written ~100-character answer used as a many-shot example."""

    question: str
    answer: str


class PfgenBenchmark:
    """The 50 questions of one data directory, with lazily built, cached scorers."""

    def __init__(
        self,
        folder: Path,
        files: list[QuestionFile],
        cache: IndexCache,
        data_dir: Path | None = None,
    ) -> None:
        self.folder = folder
        #: the ``--data-dir`` it was loaded from, if one was given (for hints)
        self.data_dir = data_dir
        self._files = {f.path.stem: f for f in files}
        self._cache = cache
        self._scorers: dict[str, QuestionScorer] = {}
        self.metadata_hash = hashlib.sha1("".join(f.sha1 for f in files).encode()).hexdigest()
        self.questions: dict[str, QuestionInfo] = {}
        self._load_infos()
        self.by_text = {q.question: q for q in self.questions.values()}

    @classmethod
    def load(cls, data_dir: Path | None = None, cache_dir: Path | None = None) -> PfgenBenchmark:
        folder = resolve_data_dir(data_dir) / BENCHMARK_FOLDER
        paths = sorted(folder.glob("Q*.json")) if folder.is_dir() else []
        if not paths:
            hint = fetch_hint("pfgen", data_dir)
            raise MissingDataError(f"pfgen-bench data not found in {folder}: {hint}")
        # 39 MB hashed as streams on two threads (15 ms); read again only where needed
        files = QuestionFile.read_all(paths)
        return cls(folder, files, IndexCache(cache_dir), data_dir)

    @property
    def pinned(self) -> bool:
        """Whether the question files are exactly the release hyoka pins (its manifest)."""
        from hyoka.pfgen.provenance import pinned_metadata_hash

        return self.metadata_hash == pinned_metadata_hash()

    def data_differences(self) -> list[str]:
        """How the question files differ from the pinned release, one phrase per file
        (``Q01.json changed``, ``Q51.json not in the release``, ``Q50.json missing``);
        empty when they are the release. Checked against the manifest's SHA-256s only when
        the data's hash already says they differ, so the usual case costs nothing."""
        if self.pinned:
            return []
        from hyoka.data import manifest

        prefix = BENCHMARK_FOLDER.as_posix() + "/"
        pinned = {
            f.path.removeprefix(prefix): f.sha256
            for f in manifest("pfgen").files
            if f.path.startswith(prefix + "Q") and f.path.endswith(".json")
        }
        here = {f.path.name: hashlib.sha256(f.content).hexdigest() for f in self._files.values()}
        differences = [
            f"{name} changed" for name in sorted(here.keys() & pinned.keys())
            if here[name] != pinned[name]
        ]  # fmt: skip
        differences += [f"{name} not in the release" for name in sorted(here.keys() - pinned)]
        differences += [f"{name} missing" for name in sorted(pinned.keys() - here.keys())]
        return differences

    def data_note(self) -> str | None:
        """One line saying that scores made here are not on the pinned data, or ``None``."""
        differences = self.data_differences()
        if not differences:
            return None
        from hyoka.pfgen.provenance import data_id

        shown = ", ".join(differences[:3]) + (
            f" and {len(differences) - 3} more" if len(differences) > 3 else ""
        )
        return (
            f"{self.folder} is not the pinned pfgen-bench release ({shown}): its scores are "
            f"signed data:{data_id(self.metadata_hash)} and marked where they meet public runs"
        )

    def sample_answers(self) -> list[SampleAnswer]:
        """The many-shot examples (``questions.jsonl``), in file order."""
        path = self.folder / "questions.jsonl"
        if not path.exists():
            raise MissingDataError(f"{path} not found: {fetch_hint('pfgen', self.data_dir)}")
        samples: list[SampleAnswer] = []
        try:
            for number, raw in read_objects(path):
                if not isinstance(raw.get("question"), str) or not isinstance(
                    raw.get("answer"), str
                ):
                    raise DataError(f"{path}:{number}: not a question/answer object")
                samples.append(SampleAnswer(raw["question"], raw["answer"]))
        except InputError as exc:
            raise DataError(str(exc)) from None
        return samples

    def question(self, key: str) -> QuestionInfo:
        """A question by id (``Q01``) or by its exact text."""
        if key in self.questions:
            return self.questions[key]
        if key in self.by_text:
            return self.by_text[key]
        raise DataError(f"no question {key!r} in pfgen-bench ({self.folder})")

    def group_by_question(
        self, trials: pfgen_runs.TrialsInput, keep: Container[str] | None = None
    ) -> dict[str, list[dict[str, Any]]]:
        """A run's records by question id, each question's in input order.

        ``keep`` limits the result to some question ids; a record whose question is not in
        the benchmark is an ``InputError`` naming its file and line, wherever it is.
        """
        grouped: dict[str, list[dict[str, Any]]] = {}
        for index, record in enumerate(trials.records):
            info = self.by_text.get(record["question"])
            if info is None:
                shown = record["question"][:40]
                raise InputError(f"{trials.where(index)}: question not in pfgen-bench: {shown!r}")
            if keep is None or info.question_id in keep:
                grouped.setdefault(info.question_id, []).append(record)
        return grouped

    def scorer(self, question: str) -> QuestionScorer:
        """The scorer of a question given by id (``Q01``) or exact text."""
        question_id = self.question(question).question_id
        return self.scorers([question_id])[question_id]

    def score(self, question: str, answer: str) -> AnswerScore:
        """Score one answer: the three metrics, their average and the missed rules.

        >>> bench = PfgenBenchmark.load()                         # doctest: +SKIP
        >>> bench.score("Q01", "22回です。").helpfulness          # doctest: +SKIP
        """
        return self.scorer(question).score([answer])[0]

    def score_many(self, question: str, answers: Sequence[str]) -> list[AnswerScore]:
        """Score many answers to one question in one vectorised pass."""
        return self.scorer(question).score(answers)

    def scorers(self, question_ids: Iterable[str]) -> dict[str, QuestionScorer]:
        """Scorers for these questions: from memory, the disk cache, or built (in parallel).

        The engine is settled here, in the process that loads the scorers: its note (numpy
        without the kernel) or error (a forced kernel that does not load) comes once, before
        any worker forked from this process starts."""
        use_kernel()
        wanted = [q for q in dict.fromkeys(question_ids) if q not in self._scorers]
        missing: list[str] = []
        for qid in wanted:
            cached = self._cache.load(self._files[qid].sha1, qid)
            if cached is None:
                missing.append(qid)
            else:
                rebuild = partial(self._rebuilt_sets, qid)
                source = str(self._cache.blob_path(self._files[qid].sha1))
                self._scorers[qid] = QuestionScorer(cached[0], cached[1], rebuild, source)
        for qid, scorer in zip(missing, self._build(missing), strict=True):
            self._scorers[qid] = scorer
        return {q: self._scorers[q] for q in dict.fromkeys(question_ids)}

    def _rebuilt_sets(self, question_id: str) -> list[ReferenceSet]:
        """A question's sets built again (and cached again) from its file: what a scorer
        loaded from the cache walks when its entry turns out damaged (``DamagedIndexError``).
        The entry is removed first, so that a cache that cannot take the new one leaves
        none (the next run builds again) rather than the damaged one."""
        self._cache.remove(self._files[question_id].sha1)
        (scorer,) = self._build([question_id])
        return list(scorer.sets)

    def _build(self, question_ids: list[str]) -> list[QuestionScorer]:
        files = [self._files[q] for q in question_ids]
        workers = min(len(files), os.cpu_count() or 1)
        if workers <= 1:
            built = [_build_question(f) for f in files]
        else:
            with worker_pool(workers) as pool:
                built = list(pool.map(_build_question, files))
        scorers = []
        for file, (info, sets) in zip(files, built, strict=True):
            # an unwritable cache costs speed, never correctness; one the user would not
            # trust has said so once (``store.CacheFolder``)
            with contextlib.suppress(OSError, UntrustedCacheError):
                self._cache.store(file.sha1, info, sets)
            scorers.append(QuestionScorer(info, sets))
        return scorers

    def _load_infos(self) -> None:
        for qid, file in self._files.items():
            cached = self._cache.load_info(file.sha1, qid)
            info = cached if cached is not None else file.parse()[0]
            if info.question_id != qid:
                raise DataError(f"{file.path}: question_id {info.question_id!r} != file name")
            self.questions[qid] = info


def _build_question(file: QuestionFile) -> tuple[QuestionInfo, list[ReferenceSet]]:
    info, answers = file.parse()
    sets = [ReferenceSet.build(name, texts, str(file.path)) for name, texts in answers.items()]
    return info, with_trie(sets)
