"""Generating a pfgen-bench run: prompts to a model, answers to trial files, resumably.

Crash safety comes from three rules. A trial file appears whole or not at all (written to a
temporary name, then renamed), so a finished trial is never generated again. Every answer
goes through the persistent response cache before it is used, so the answers of a trial
that was cut short come back from the cache, unchanged, when the run starts again. And the
requests are deterministic (seeded prompts and sampling), so a restarted run asks exactly
the same questions. Killed at any moment and restarted, a run ends with the answers it would
have had: none lost, none duplicated.
"""

from __future__ import annotations

import asyncio
import datetime
import json
import lzma
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hyoka._atomic import atomic_write_bytes, atomic_write_text
from hyoka.errors import HyokaError
from hyoka.pfgen.benchmark import SampleAnswer
from hyoka.pfgen.prompts import Mode, build_prompt, clean_answer, stops_for, trial_seed
from hyoka.pfgen.run_config import config_text
from hyoka.pfgen.trials import TRIALS_XZ
from hyoka.providers.client import ModelClient
from hyoka.providers.types import SamplingParams

#: Upstream gives a question ten tries to produce a non-empty answer.
MAX_ATTEMPTS = 10

Progress = Callable[[str, int], None]


@dataclass(frozen=True)
class GenerationPlan:
    """What to generate: settings that are also written to ``config.json``."""

    folder: Path
    config: dict[str, Any]
    mode: Mode
    num_trials: int
    num_examples: int = 20
    seed: str = ""
    prefix: str = ""
    params: SamplingParams = field(default_factory=SamplingParams)


@dataclass
class GenerationReport:
    folder: Path
    trials_done_before: int = 0
    trials_generated: int = 0
    answers: int = 0
    empty_retries: int = 0
    notes: list[str] = field(default_factory=list)


def trial_path(folder: Path, trial: int) -> Path:
    return folder / f"trial_{trial:03d}.jsonl"


def prepare_folder(plan: GenerationPlan) -> None:
    """Create the run folder with its config; a different config already there is an error."""
    plan.folder.mkdir(parents=True, exist_ok=True)
    config_file = plan.folder / "config.json"
    text = config_text(plan.config)
    if config_file.exists():
        existing = config_file.read_text(encoding="utf-8").strip()
        if existing != text:
            raise HyokaError(f"{config_file} holds different settings; refusing to mix runs")
        return
    atomic_write_text(config_file, text + "\n")


async def generate_run(
    plan: GenerationPlan,
    client: ModelClient,
    samples: Sequence[SampleAnswer],
    questions: Sequence[str],
    progress: Progress | None = None,
) -> GenerationReport:
    """Generate every missing trial of ``plan``, then (re)write ``trials.jsonl.xz``.

    ``questions`` are the question texts to ask, in benchmark order (all 50, or fewer).
    Trials run concurrently; the client's concurrency limit bounds the requests in flight.
    """
    prepare_folder(plan)
    report = GenerationReport(plan.folder)
    pending = [t for t in range(1, plan.num_trials + 1) if not trial_path(plan.folder, t).exists()]
    report.trials_done_before = plan.num_trials - len(pending)

    async def one_trial(trial: int) -> None:
        answers = await asyncio.gather(
            *(_answer(plan, client, samples, q, trial, report, progress) for q in questions)
        )
        lines = [json.dumps(a, ensure_ascii=False) for a in answers]
        atomic_write_text(trial_path(plan.folder, trial), "\n".join(lines) + "\n")
        report.trials_generated += 1
        report.answers += len(lines)
        if progress is not None:
            progress("trial", trial)

    await asyncio.gather(*(one_trial(t) for t in pending))
    write_trials_xz(plan.folder)
    return report


async def _answer(
    plan: GenerationPlan,
    client: ModelClient,
    samples: Sequence[SampleAnswer],
    question: str,
    trial: int,
    report: GenerationReport,
    progress: Progress | None,
) -> dict[str, str]:
    prompt = build_prompt(
        samples, question, plan.mode, trial,
        num_examples=plan.num_examples, seed=plan.seed, prefix=plan.prefix,
    )  # fmt: skip
    base_seed = trial_seed(trial, plan.seed)
    for attempt in range(MAX_ATTEMPTS):
        # a retry changes the seed: the same seed would give the same empty answer again
        params = plan.params.model_copy(update={"seed": (base_seed + attempt) % 2**31})
        response = await client.generate(
            prompt.to_request(params), sample_key=f"pfgen:{trial}:{attempt}"
        )
        answer = clean_answer(response.text, plan.mode, stops_for(plan.mode))
        if answer:
            if progress is not None:
                progress("answer", trial)
            timestamp = datetime.datetime.now().isoformat()
            return {"question": question, "answer": answer, "timestamp": timestamp}
        report.empty_retries += 1
    raise HyokaError(f"no answer for {question!r} in trial {trial} after {MAX_ATTEMPTS} tries")


def write_trials_xz(folder: Path) -> Path:
    """All trial files' lines, sorted bytewise (as ``LC_ALL=C sort``), xz-compressed."""
    lines: list[bytes] = []
    for part in sorted(folder.glob("trial_*.jsonl")):
        lines.extend(line for line in part.read_bytes().splitlines() if line.strip())
    lines.sort()
    target = folder / TRIALS_XZ
    atomic_write_bytes(target, lzma.compress(b"".join(line + b"\n" for line in lines)))
    return target
