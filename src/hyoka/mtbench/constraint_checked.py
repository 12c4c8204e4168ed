"""The constraint-checked protocol (``spec.CONSTRAINT_CHECKED``): JFBench's run path after
the answers, as upstream's ``eval.py`` evaluates and its ``analyze.py`` summarises.

``judge_constraints`` decides every constraint of every answered entry: by rule
(``hyoka.jfbench``'s checks, upstream's classes' verdicts), and, for the judged ones, by
the judge given, three votes each, through hyoka's judging engine (one judgment log per
model, resumable; ``hyoka.jfbench.plan_judged``). It then writes each model's result file
in upstream's record shape (``model``, ``prompt_index``, ``response``, ``results``: class
name -> verdict, and the entry's metadata), named as upstream names it
(``ifbench-test-1-<model>.jsonl``), with a manifest whose signature says how its verdicts
were made. An entry with a rule-based constraint hyoka does not decide yet keeps
``results`` null: pending, never counted as passed or failed (upstream's own reading of a
record not yet evaluated).

``constraint_leaderboard`` reads result files (hyoka's, or upstream's own) and ranks the
models by success rate, the share of evaluated entries whose every constraint holds, with
a bootstrap interval, and each constraint group's share of constraints satisfied
(``hyoka.jfbench.score``). ``mtbench.run`` comes here by the definition's protocol.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from hyoka.errors import HyokaNote, InputError
from hyoka.judge import JudgeReport, JudgeWatcher, judge_plans, judges_json, run_judge
from hyoka.mtbench.answers import load_answers, model_name
from hyoka.mtbench.bench import Bench
from hyoka.mtbench.spec import BenchSpec
from hyoka.printable import table_text
from hyoka.providers import ClientStats, ThinkingRule
from hyoka.signature import SIGNATURE_KEY, Signature
from hyoka.store import (
    Manifest,
    atomic_write_text,
    json_text,
    manifest_path,
    path_under,
    read_manifest,
)

if TYPE_CHECKING:
    from hyoka.jfbench import Benchmark, Response, Summary
    from hyoka.judge import Connection, JudgedBy
    from hyoka.mtbench.records import AnswerRecord

#: the kind of a result file's manifest
RESULTS_KIND = "results/jfbench"
#: where result files go under the benchmark's results folder (upstream's ``--output-dir``)
RESULTS_FOLDER = "benchmark_results"
HEADER = ("Rank", "Model", "Evaluated", "Pending", "Success %", "95% CI")


def constraint_benchmark(bench: Bench) -> Benchmark:
    """JFBench's entries, prompts and constraints behind ``bench``'s questions, built as
    judging them builds them (the sweep's estimate counts its calls from the same)."""
    from hyoka.jfbench import load_benchmark

    return load_benchmark(bench.folder / bench.spec.question_file, bench.folder)


@dataclass(frozen=True)
class ConstraintsJudged:
    """Every answered entry's constraints decided: per model its judgment log and result
    file, what this run asked (``report``, ``stats``), the judges and one signature."""

    outputs: list[tuple[str, Path, Path]]
    report: JudgeReport
    stats: ClientStats
    judges: list[JudgedBy]
    signature: Signature | None
    #: entries left pending: a rule-based constraint hyoka does not decide yet, or a
    #: judged one whose votes a batch still holds (``--batch``)
    pending: int

    def to_json(self) -> dict[str, Any]:
        report, usage = self.report, self.stats.usage
        return {
            "mode": "constraints", "judged": report.judged, "done_before": report.done_before,
            "empty_responses": report.ruled, "judge_calls": report.judge_calls,
            "cache_hits": self.stats.cache_hits, "prompt_tokens": usage.prompt_tokens,
            "completion_tokens": usage.completion_tokens, "pending": self.pending,
            "outputs": [
                {"model": model, "judgments": str(log), "results": str(results)}
                for model, log, results in self.outputs
            ],
            "judged_by": judges_json(self.judges),
            SIGNATURE_KEY: None if self.signature is None else self.signature.to_json(),
        }  # fmt: skip


def result_path(folder: Path, model: str) -> Path:
    """Upstream's name for a model's results of its default build
    (``<benchmark>-<constraint set>-<n constraints>-<model>.jsonl``), sanitised."""
    from hyoka.jfbench import PROMPT_SOURCE

    return path_under(folder, f"{PROMPT_SOURCE}-test-1-{model}", what="model_id", suffix=".jsonl")


def judge_constraints(
    spec: BenchSpec,
    judge: str,
    answers: Sequence[Path],
    *,
    judge_name: str,
    connection: Connection,
    results_dir: Path,
    output_dir: Path | None = None,
    limit: int | None = None,
    max_tokens: int | None = None,
    thinking: ThinkingRule,
    data_dir: Path | None = None,
    watcher: JudgeWatcher | None = None,
) -> ConstraintsJudged:
    """Decide every constraint of the entries ``answers`` answered (the first ``limit`` of
    the build, or all): rules here, judged constraints by ``judge`` into one judgment log per
    model (``output_dir``, else ``<results_dir>/jfbench/model_judgment/<judge>_constraints``),
    and each model's result file beside the logs' folder (``benchmark_results``)."""
    from hyoka.jfbench import (
        JUDGE_MAX_TOKENS,
        JUDGE_THINKING,
        UPSTREAM_JUDGE,
        decide,
        failed_calls,
        judge_settings,
        plan_judged,
        verdicts_of,
    )

    if UPSTREAM_JUDGE not in judge:
        warnings.warn(
            f"{judge} judges the judged constraints; upstream's default judge is "
            f"{UPSTREAM_JUDGE} (openai/{UPSTREAM_JUDGE} on OpenRouter, reasoning effort "
            "medium): its published numbers are that judge's",
            HyokaNote,
            stacklevel=2,
        )
    bench = Bench.load(spec.name, data_dir, questions_only=True)
    built = constraint_benchmark(bench)
    wanted = [q.question_id for q in bench.questions][:limit] if limit else None
    given = []
    for path in answers:  # every answer file is checked before the first judge call
        found = load_answers(path, bench, complete=limit is None, thinking=thinking)
        ids = sorted(found) if wanted is None else [i for i in wanted if i in found]
        if wanted is not None and len(ids) < len(wanted):
            missing = next(i for i in wanted if i not in found)
            raise InputError(f"{path}: no answer to question_id {missing} (`limit` {limit})")
        responses = [_response(i, built, found[i]) for i in ids]
        given.append((model_name(bench, path, found), responses))
    # the judge's reply read as upstream reads it (``message.content`` as it is: a
    # ``<think>`` block before ``True`` fails), signed; ``thinking`` reads the answers
    settings = judge_settings(
        judge, base_url=connection.base_url, max_tokens=max_tokens or JUDGE_MAX_TOKENS,
        thinking=JUDGE_THINKING,
    )  # fmt: skip
    base = path_under(results_dir, spec.name, what="`bench`")
    logs = output_dir or path_under(
        base, "model_judgment", f"{judge_name}_constraints", what="`judge_name`"
    )
    plans = [
        (model, plan_judged(
            model, responses, built.prompts.documents, built.source, settings,
            path_under(logs, model, what="model_id", suffix=".jsonl"), data=built.data,
        ))
        for model, responses in given
    ]  # fmt: skip
    folder = (output_dir or base) / RESULTS_FOLDER
    for model, _responses in given:  # refused before the first judge call, not after
        _check_results(result_path(folder, model))
    # every rule decided before the first judge call: a source that cannot decide one (a
    # word list missing) stops the run before it costs a call
    ruled = [
        [decide(r.entry, built.prompts.documents, r.text, built.source) for r in responses]
        for _model, responses in given
    ]
    client = connection.connect(judge)
    report, runs = judge_plans(client, plans, watcher=watcher)
    outputs, pending = [], 0
    signature = None
    for (model, responses), (_model, plan), judged, rules in zip(
        given, plans, runs, ruled, strict=True
    ):
        signature = judged.run.signature()
        target = result_path(folder, model)
        verdicts = verdicts_of(list(judged.lines))
        lines, waiting = _result_lines(model, responses, built, rules, verdicts)
        pending += waiting
        manifest = Manifest(
            kind=RESULTS_KIND,
            identity={"benchmark": spec.name, "model_id": model, "data": built.data},
            signature=signature.to_json(),
        )
        _write_results(target, "".join(json_text(line) for line in lines), manifest)
        outputs.append((model, plan.output, target))
    failed = [line for judged in runs for line in failed_calls(judged.lines)]
    if failed:
        warnings.warn(
            f"{len(failed)} judged constraint(s) recorded false because a judge call failed, "
            f"as upstream's eval.py records them (first: {failed[0]})",
            HyokaNote,
            stacklevel=2,
        )
    judges = [run_judge(judged.run) for judged in runs[:1]]
    return ConstraintsJudged(outputs, report, client.stats, judges, signature, pending)


def _check_results(target: Path) -> None:
    """Refuse a result file's place where a file hyoka did not write lies (one without a
    manifest of ``RESULTS_KIND``, not empty): a user's file is never replaced."""
    if target.exists() and target.stat().st_size:
        found = read_manifest(target)
        if found is None or found.kind != RESULTS_KIND:
            raise InputError(
                f"{target}: not a JFBench result file hyoka wrote (no manifest of "
                f"{RESULTS_KIND} beside it); not replaced: move it, or give `output_dir`"
            )


def _write_results(target: Path, text: str, manifest: Manifest) -> None:
    """Write a result file and its manifest (``_check_results`` again just before)."""
    _check_results(target)
    atomic_write_text(target, text)
    atomic_write_text(manifest_path(target), manifest.text())


def _response(position: int, built: Benchmark, answer: AnswerRecord) -> Response:
    """The first choice's answer, stripped as upstream's client strips a reply, and the
    thinking set aside before it (``reasoning_content``)."""
    from hyoka.jfbench import Response

    choice = answer.choices[0]
    thought = choice.thinking[0] if choice.thinking else None
    return Response(position, built.entries[position], choice.turns[0].strip(), thought)


def _result_lines(
    model: str,
    responses: Sequence[Response],
    built: Benchmark,
    ruled: Sequence[dict[str, bool | None]],
    judged: dict[str, bool],
) -> tuple[list[dict[str, Any]], int]:
    """Each response's record as upstream's ``eval.py`` writes it (``ruled``: each one's
    rule verdicts, ``judged``: the judge's by task, a task not yet judged (its votes in a
    batch still running: ``--batch``) pending); how many are pending."""
    from hyoka.jfbench import task_id

    lines, pending = [], 0
    for response, rules in zip(responses, ruled, strict=True):
        entry = response.entry
        verdicts = dict(rules)
        for constraint in entry.constraints:
            if constraint.factory.judged:
                verdicts[constraint.name] = judged.get(task_id(response.position, constraint.name))
        decided = None if any(v is None for v in verdicts.values()) else verdicts
        pending += decided is None
        lines.append({
            "model": model, "model_short": model, "prompt_index": response.position,
            "response": response.text, "response_details": None,
            "reasoning_content": response.reasoning,
            "results": decided, "prompt_source": "ifbench", "data_id": entry.data_id,
            "n_constraints": entry.n_constraints,
            "constraint_types": list(entry.constraint_types),
            "constraint_groups": list(entry.constraint_groups),
            "constraint_instructions": [
                built.source.render(c.factory, c.seed, "test") for c in entry.constraints
            ],
            "prompt": built.texts[response.position], "constraint_set": entry.constraint_set,
        })  # fmt: skip
    return lines, pending


@dataclass(frozen=True)
class ConstraintBoard:
    """Models ranked by success rate: the share of evaluated entries whose every
    constraint holds (upstream's ``analyze.py``), with its bootstrap interval; the share of
    constraints satisfied per constraint group; how the summary and each file's verdicts
    were made."""

    title: str
    summary: Summary
    signature: Signature
    #: each result file's signature (how its verdicts were made), where it has one
    judged: tuple[tuple[Path, Signature | None], ...]

    def rows(self) -> list[tuple[str, int, int, float | None, str]]:
        """(model, evaluated, pending, success %, interval) ranked, one per (source,
        constraint count, model) group."""
        found = []
        for key, tally in self.summary.groups.items():
            interval = tally.interval
            shown = "" if interval is None else f"[{interval.low:.1f}, {interval.high:.1f}]"
            label = key.model if key.n_constraints == 1 else f"{key.model} ({key.n_constraints})"
            found.append((label, tally.evaluated, tally.pending, tally.success_rate, shown))
        found.sort(key=lambda row: (row[3] is None, -(row[3] or 0.0), row[0]))
        return found

    def render(self, fmt: Literal["md", "csv", "plain"] = "plain") -> str:
        """The table (success in percent, one decimal, n/a with nothing evaluated), the
        groups' shares per model, and the signature lines."""
        rows = [
            [str(n), model, str(evaluated), str(pending),
             "n/a" if rate is None else f"{rate:.1f}", interval]
            for n, (model, evaluated, pending, rate, interval) in enumerate(self.rows(), 1)
        ]  # fmt: skip
        notes = [f"{self.title}: success rate in %; signature: {self.signature.line}"]
        for model, shares in sorted(self.summary.constraint_groups.items()):
            parts = ", ".join(f"{g} {s.satisfied}/{s.total}" for g, s in sorted(shares.items()))
            notes.append(f"{model}: constraints satisfied by group: {parts}")
        notes += [f"{path}: verdicts: {_made(s)}" for path, s in self.judged]
        return table_text(HEADER, rows, notes, fmt)

    def to_json(self) -> dict[str, Any]:
        """The summary (``hyoka.jfbench.Summary``: groups, total, constraint groups), the
        files and how each was made, and the signature."""
        return {
            "bench": self.title,
            **self.summary.to_json(),
            "files": [
                {"results": str(path), "verdicts": None if s is None else s.to_json()}
                for path, s in self.judged
            ],
            SIGNATURE_KEY: self.signature.to_json(),
        }


def _made(signed: Signature | None) -> str:
    """How a file's verdicts were made: the judge named (a dry run said, where a script
    gave the replies, as the report's page says it) and the signature."""
    from hyoka.judge import token_dry_run

    if signed is None:
        return "no signature"
    judge = str(signed.get("judge") or "")
    dry = " (dry run: replies read from a script, not a model's judgment)"
    return f"judged by {judge}{dry if token_dry_run(judge) else ''}: {signed.line}"


def constraint_leaderboard(
    spec: BenchSpec,
    results: Sequence[Path] | None,
    *,
    resamples: int = 2000,
    seed: int = 0,
) -> ConstraintBoard:
    """Summarise ``results`` (result files or folders of them: hyoka's, from
    ``judge_constraints``, or upstream's ``eval.py``'s) as upstream's ``analyze.py`` does,
    with intervals."""
    from hyoka.jfbench import files_of, jfbench_signature, read_records, score

    if not results:
        raise InputError(
            f"`bench` {spec.name}: give `judgments`, its result files (its judging step "
            "writes them; upstream publishes none)"
        )
    files = [file for path in results for file in files_of(path)]
    records = read_records(files)  # one record per item across the files
    summary = score(records, resamples=resamples, seed=seed)
    judged = []
    for file in files:
        manifest = read_manifest(file)
        signed = None if manifest is None else Signature.from_json(manifest.signature, file)
        judged.append((file, signed))
    return ConstraintBoard(
        spec.title, summary, jfbench_signature(resamples, 0.95, seed), tuple(judged)
    )


@dataclass(frozen=True)
class ConstraintVerification:
    """A result file's verdicts decided again: records read (with results), the rule
    verdicts that agree of those re-decided, the judged ones (a judge's: not re-decided
    here), those by rules hyoka does not decide yet, and the first difference."""

    records: int
    agreed: int
    checked: int
    judged: int
    undecided: int
    difference: str | None
    #: lines that repeat an earlier record identically: counted once, as score counts them
    repeated: int = 0

    @property
    def rules(self) -> str:
        from hyoka.jfbench import SIGNED_RULES

        again = (
            f", {self.repeated} identical duplicate line(s) counted once" if self.repeated else ""
        )
        return (
            f"jfbench rules ({SIGNED_RULES}), {self.agreed}/{self.checked} rule verdicts agree, "
            f"{self.judged} judged verdict(s) a judge gave (not re-decided), {self.undecided} "
            f"by rules hyoka does not decide yet{again}"
        )


def verify_constraints(
    path: Path, spec: BenchSpec, data_dir: Path | str | None = None
) -> ConstraintVerification:
    """Each rule-based verdict of the result file ``path`` (hyoka's or upstream's
    ``eval.py``'s, of the default build) decided again on its response, as upstream's
    classes decide; a record that is not the build's entry at its ``prompt_index`` is the
    difference named."""
    from hyoka.store import read_bytes, read_objects

    bench = Bench.load(spec.name, data_dir, questions_only=True)
    built = constraint_benchmark(bench)
    from hyoka.jfbench import decide

    records = agreed = checked = judged = undecided = repeated = 0
    difference = None
    seen: dict[str, tuple[int, dict[str, Any]]] = {}  # one record per item, as score reads
    for number, row in read_objects(path, read_bytes(path)):
        results = row.get("results")
        if not isinstance(results, dict):
            continue
        where = f"{path}:{number}"
        position = row.get("prompt_index")
        item = json_text([row.get("model_short") or row.get("model"), position]).strip()
        if isinstance(position, int) and item in seen:
            first, kept = seen[item]
            if kept == row:
                repeated += 1
            else:
                difference = difference or (
                    f"{where}: a second, different record for prompt_index {position} (first "
                    f"at line {first})"
                )
            continue
        seen[item] = (number, row)
        records += 1
        entry = built.entries.get(position) if isinstance(position, int) else None
        if entry is None or entry.data_id != row.get("data_id"):
            difference = difference or (
                f"{where}: prompt_index {position!r} is not entry {row.get('data_id')!r} of "
                "upstream's default build (the seed-42 single-constraint build of the test set)"
            )
            continue
        response = row.get("response")
        if not isinstance(response, str):
            difference = difference or f"{where}: no response to decide"
            continue
        again = decide(entry, built.prompts.documents, response, built.source)
        for constraint in entry.constraints:
            name = constraint.name
            if constraint.factory.judged:
                judged += 1
            elif again.get(name) is None:
                undecided += 1
            else:
                checked += 1
                if again[name] == results.get(name):
                    agreed += 1
                else:
                    difference = difference or (
                        f"{where}: {name} recorded {json_text(results.get(name)).strip()}, "
                        f"its rule gives {json_text(again[name]).strip()}"
                    )
    return ConstraintVerification(records, agreed, checked, judged, undecided, difference, repeated)
