"""Planning stage 1 before paying for it: a measured calibration, scaled up, and the papers'.

Generating a reference set at the papers' scale is the one step of hyoka that costs
thousands of GPU-hours, so its cost should be known before it starts, and known from a
measurement rather than a guess:

- ``calibrate`` runs a real, short generation with the settings file's model, settings,
  executor and workers (``calibration_answers`` answers per worker, in a temporary work
  folder removed afterwards) and times it. Start-up (model load, and Ray's start on a
  cluster) is measured apart from the rate: the rate runs from the first finished batch
  to the last, so it is what a long run sustains (to within about one batch, with a
  server that answers a batch's requests all at once). The response cache is never used
  (a hit would time nothing). Tokens are the providers' own usage counts; a backend that reports
  none gets ``None``, never an invented number.
- ``estimate`` scales that to the file's full run (questions × answers), assuming the
  rate grows linearly with workers when each has its own resources (its own cores or
  GPUs), and that each worker loads its model once, all at the same time.
- ``paper_scale`` writes the papers' run on paper: 1,000,000 answers per question for each
  of 50 questions and three models, 150 million answers (seed 000 §3.2 and §3.2.1: "各問
  100 万回答ずつ、合計 1.5 億回答"; seed 002 §3.2 step 1; seed 003 §2.2), in GPU-hours
  per model from FLOPs ≈ 2 × active parameters × tokens per answer, divided by a GPU's
  peak dense BF16 rate times an assumed utilisation. Every assumption is a field of
  ``PaperAssumptions`` and is printed beside the numbers.

Seed 002 §3.2.1 says "1.5 billion responses"; 3 models × 50 questions × 1,000,000 is 150
million, as seed 000 §3.2.1 says (1.5 億), so 150 million is used here.
"""

from __future__ import annotations

import json
import math
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from hyoka.errors import HyokaError, InputError
from hyoka.refset.build_stages import benchmark_source
from hyoka.refset.config import GenerateFile, load_generate_file
from hyoka.refset.generation_run import generation_totals, run_generation
from hyoka.refset.ray_workers import WorkerEvent
from hyoka.refset.source import BenchmarkSource
from hyoka.signature import SIGNATURE_KEY, Signature, SignatureType
from hyoka.store import check_output, write_output

# --- the papers' run (seed 000 §3.2, §3.2.1; seed 002 §3.2, §3.2.1) ----------------------

PAPER_SECTIONS = "seed 000 §3.2.1, seed 002 §3.2 (step 1)"
PAPER_QUESTIONS = 50  # seed 000 §3.1 (表1: 13 科目 50 問); seed 002 §3.1
PAPER_ANSWERS_PER_QUESTION = 1_000_000  # "各問 100 万回答" per model
PAPER_TOTAL_ANSWERS = 150_000_000  # "合計 1.5 億回答" (seed 000 §3.2.1)
PAPER_SHOTS = 20  # "20-shots での生成" (seed 000 §3.2.1); 20-shot (seed 002 §3.2.1)


@dataclass(frozen=True)
class PaperModel:
    """One of the papers' generator models. The papers name the models but not their
    sizes: the parameter counts are the models' own (their names and model cards)."""

    name: str
    total_params: float
    active_params: float  # per token: all of them in a dense model
    note: str


PAPER_MODELS: tuple[PaperModel, ...] = (
    PaperModel("stockmark-100b", 100e9, 100e9, "dense, about 100B (its name and model card)"),
    PaperModel("PLaMo-100b", 100e9, 100e9, "dense, about 100B (its name and model card)"),
    PaperModel(
        "Swallow-MX-8x7b-NVE-v0.1",
        46.7e9,
        12.9e9,
        "Mixtral-8x7B mixture of experts: 46.7B total, 2 of 8 experts (12.9B) per token",
    ),
)

#: A 20-shot pfgen-bench prompt is about 2,500 characters (instruction, 20 example pairs
#: with ~100-character answers, the question); answers aim at ~100 characters. Japanese
#: tokenizers of the papers' models spend roughly a token per character or less, so one
#: token per character is the stated default when nothing was measured.
DEFAULT_PROMPT_TOKENS = 2_500.0
DEFAULT_COMPLETION_TOKENS = 100.0
DEFAULT_GPU = "H100 SXM"
DEFAULT_PEAK_TFLOPS = 989.4  # H100 SXM dense BF16 tensor-core peak (1,979 with sparsity)
#: Assumed, not measured: prefill (most of the FLOPs here, prompts being ~25 times the
#: answers) runs near half of peak in vLLM, decoding far lower. Anchor it with a measured
#: vLLM run where a GPU is at hand.
DEFAULT_UTILISATION = 0.4


# --- calibration -------------------------------------------------------------------------


@dataclass(frozen=True)
class CalibrationShape:
    """How a calibration's answers are laid out so that its timing means something."""

    questions: int  # the first this many of the file's questions
    answers_per_question: int
    shards: int
    batch_size: int


def calibration_shape(
    questions: int, workers: int, per_worker: int, batch_size: int, concurrency: int
) -> CalibrationShape:
    """Lay ``per_worker × workers`` answers out as a long run would make them.

    A worker has one batch in flight at a time, so batches of ``min(batch_size,
    concurrency)`` keep as many requests in flight per worker as the full run does, while
    leaving several batches, hence several progress reports to time, in a short run. The
    answers are spread over as many questions as get a whole batch each (prompt lengths
    differ by question), and each question is sharded so that every worker has a shard of
    its own to fill (a shard takes one writer at a time).
    """
    batch = max(1, min(batch_size, concurrency))
    total = per_worker * workers
    used = max(1, min(questions, total // batch))
    each = math.ceil(total / used)
    shards = max(1, min(math.ceil(each / batch), math.ceil(workers / used)))
    return CalibrationShape(used, each, shards, batch)


@dataclass(frozen=True)
class Calibration:
    """What a short real run measured. ``answers`` counts answer slots (an answer still
    empty after its retries costs tokens and time too), ``kept`` the non-empty ones."""

    model: str
    num_examples: int  # shots per prompt: what the prompt tokens stand for
    executor: str
    workers: int
    loads: int  # model loads the workers reported: one per worker by design
    questions: int
    answers: int
    kept: int
    empty_retries: int  # answers sampled again because they came back empty
    wall_s: float
    startup_s: float | None  # None: too few progress reports to tell it from the rate
    generation_s: float
    prompt_tokens: int | None  # None: the backend reported no usage
    completion_tokens: int | None
    notes: tuple[str, ...] = ()

    @property
    def rate(self) -> float:
        """Answers per second over all workers, start-up excluded where it was measured."""
        return self.answers / self.generation_s

    @property
    def prompt_tokens_per_answer(self) -> float | None:
        return None if self.prompt_tokens is None else self.prompt_tokens / self.answers

    @property
    def completion_tokens_per_answer(self) -> float | None:
        return None if self.completion_tokens is None else self.completion_tokens / self.answers

    def to_json(self) -> dict[str, Any]:
        return {
            **asdict(self),
            "notes": list(self.notes),
            "answers_per_s": self.rate,
            "prompt_tokens_per_answer": self.prompt_tokens_per_answer,
            "completion_tokens_per_answer": self.completion_tokens_per_answer,
        }


def timing_from_progress(
    start: float, end: float, events: Sequence[tuple[float, int]]
) -> tuple[float | None, float]:
    """(start-up seconds, generation seconds) from ``(time, answers)`` progress reports.

    The rate is taken from the first report to the last (answers after the first / time
    between them); start-up is the time to the first report less the time its answers take
    at that rate. With fewer than two reports, or all at one instant, the two cannot be
    told apart: start-up is ``None`` and the whole wall time counts as generation.

    Generation never exceeds the wall time less start-up: when the first answers came
    faster than the later rate (a warm model, a short first prompt), start-up is 0 and
    extrapolating the rate would claim more seconds than passed.
    """
    wall = end - start
    total = sum(n for _, n in events)
    if len(events) < 2 or total <= events[0][1]:
        return None, wall
    first_t, first_n = events[0]
    last_t = events[-1][0]
    if last_t <= first_t:
        return None, wall
    rate = (total - first_n) / (last_t - first_t)
    startup = max(0.0, (first_t - start) - first_n / rate)
    return startup, min(total / rate, wall - startup)


def calibrate(
    settings: GenerateFile,
    source: BenchmarkSource,
    *,
    workers: int | None = None,
    per_worker: int | None = None,
    scratch: Path | None = None,
) -> Calibration:
    """Run ``per_worker × workers`` real answers with the file's settings and time them.

    The answers are spread evenly over the questions, so the count is rounded up to a
    multiple of the questions used (see ``calibration_shape``); the seeds are the file's,
    so these are the very answers the full run would make first. ``workers`` and
    ``per_worker`` default to the file's ``[plan]``. The answers go to a
    temporary folder under ``scratch`` (default: the system's; on a multi-node Ray cluster
    it must be on a file system every node sees, e.g. TMPDIR) that is removed afterwards.
    """
    plan = settings.plan
    workers = workers or plan.workers
    per_worker = per_worker or plan.calibration_answers
    config = settings.generation
    questions = source.select(list(settings.questions) or None)
    shape = calibration_shape(
        len(questions), workers, per_worker, config.batch_size, config.concurrency
    )
    chosen = [q.question_id for q in questions[: shape.questions]]
    short = config.model_copy(
        update={
            "answers": shape.answers_per_question,
            "shards": shape.shards,
            "batch_size": shape.batch_size,
        }
    )
    events: list[tuple[float, int]] = []
    loads: list[int] = []

    def heard(event: WorkerEvent) -> None:
        if event.kind == "ready":
            loads.append(event.loads)

    with tempfile.TemporaryDirectory(prefix="hyoka-plan-", dir=scratch) as folder:
        start = time.perf_counter()
        reports = run_generation(
            Path(folder), short, source, chosen, settings.snippets, plan.executor,
            None,  # never the response cache: a cached answer would time nothing
            lambda n: events.append((time.perf_counter(), n)),
            workers=workers, cpus_per_worker=plan.cpus_per_worker,
            gpus_per_worker=plan.gpus_per_worker,
            on_event=heard,
        )  # fmt: skip
        end = time.perf_counter()
    totals = generation_totals(reports)
    made = totals.answers + totals.failed
    if made == 0:
        raise HyokaError(f"{settings.path}: the calibration made no answers to time")
    startup, generation = timing_from_progress(start, end, events)
    notes = list(totals.notes)
    if startup is None:
        notes.append(
            "start-up could not be told apart from generation (fewer than two progress "
            "reports): the rate includes the model load and understates a long run's"
        )
    reported = totals.prompt_tokens + totals.completion_tokens > 0
    if not reported:
        notes.append(f"{config.model} reported no token usage: tokens are not estimated")
    return Calibration(
        model=config.model,
        num_examples=config.num_examples,
        executor=plan.executor.value,
        workers=workers,
        loads=sum(loads),
        questions=len(chosen),
        answers=made,
        kept=totals.answers,
        empty_retries=totals.empty_retries,
        wall_s=end - start,
        startup_s=startup,
        generation_s=generation,
        prompt_tokens=totals.prompt_tokens if reported else None,
        completion_tokens=totals.completion_tokens if reported else None,
        notes=tuple(notes),
    )


# --- the file's full run -----------------------------------------------------------------

SCALING_ASSUMPTION = (
    "answers/s grows linearly with workers, each with its own cores or GPUs; "
    "every worker loads its model once, all at the same time"
)


@dataclass(frozen=True)
class Estimate:
    """The file's full run: ``questions × answers_per_question`` answers on ``workers``."""

    questions: int
    answers_per_question: int
    workers: int
    answers: int
    prompt_tokens: float | None
    completion_tokens: float | None
    answers_per_s: float | None
    startup_s: float | None
    generation_s: float | None
    assumptions: tuple[str, ...]

    @property
    def wall_s(self) -> float | None:
        if self.generation_s is None:
            return None
        return (self.startup_s or 0.0) + self.generation_s

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "assumptions": list(self.assumptions), "wall_s": self.wall_s}


def estimate(
    settings: GenerateFile,
    questions: int,
    calibration: Calibration | None,
    workers: int | None = None,
) -> Estimate:
    """Scale ``calibration`` to the file's ``questions × answers`` on ``workers`` workers
    (default: the file's ``[plan]``). Without a calibration, only the answers are known."""
    workers = workers or settings.plan.workers
    per_question = settings.generation.answers
    answers = questions * per_question
    if calibration is None:
        return Estimate(
            questions, per_question, workers, answers, None, None, None, None, None,
            ("no calibration: tokens and time are not estimated",),
        )  # fmt: skip
    rate = calibration.rate / calibration.workers * workers
    assumptions = [SCALING_ASSUMPTION, f"measured on {calibration.workers} worker(s)"]
    if calibration.startup_s is None:
        assumptions.append("start-up was not measured apart: it is inside the rate")
    prompt = calibration.prompt_tokens_per_answer
    completion = calibration.completion_tokens_per_answer
    return Estimate(
        questions=questions,
        answers_per_question=per_question,
        workers=workers,
        answers=answers,
        prompt_tokens=None if prompt is None else prompt * answers,
        completion_tokens=None if completion is None else completion * answers,
        answers_per_s=rate,
        startup_s=calibration.startup_s,
        generation_s=answers / rate,
        assumptions=tuple(assumptions),
    )


# --- the papers' scale -------------------------------------------------------------------


_DEFAULT_TOKENS = "stated default, one token per character"


@dataclass(frozen=True)
class PaperAssumptions:
    """Everything the paper-scale figures rest on, each printed beside them."""

    gpu: str = DEFAULT_GPU
    peak_tflops: float = DEFAULT_PEAK_TFLOPS  # dense BF16, per GPU
    utilisation: float = DEFAULT_UTILISATION
    prompt_tokens: float = DEFAULT_PROMPT_TOKENS  # per answer
    completion_tokens: float = DEFAULT_COMPLETION_TOKENS  # per answer
    prompt_from: str = _DEFAULT_TOKENS
    completion_from: str = _DEFAULT_TOKENS
    note: str = ""  # why a calibration's token counts were not used, if they were not

    def lines(self) -> list[str]:
        lines = [
            f"GPU: {self.gpu}, peak {self.peak_tflops:g} TFLOP/s dense BF16, "
            f"utilisation {self.utilisation:g}",
            f"prompt tokens per answer: {self.prompt_tokens:,.0f} ({self.prompt_from})",
            f"completion tokens per answer: {self.completion_tokens:,.0f} ({self.completion_from})",
        ]
        if self.note:
            lines.append(self.note)
        return [
            *lines,
            "FLOPs per answer = 2 x active parameters x (prompt + completion tokens); "
            "attention FLOPs and prefix caching ignored",
            "model sizes are the models' own (names, model cards); the papers do not state them",
        ]


def paper_assumptions(
    calibration: Calibration | None = None,
    *,
    gpu: str | None = None,
    peak_tflops: float | None = None,
    utilisation: float | None = None,
    prompt_tokens: float | None = None,
    completion_tokens: float | None = None,
) -> PaperAssumptions:
    """Token counts from the flags where given, else the calibration's where it measured
    them with the papers' 20-shot prompts (its model's tokenizer, not the papers' models':
    said so beside the numbers), else the stated defaults. A calibration with fewer shots
    measured a shorter prompt than the papers', so its counts would understate theirs.
    Whatever is ``None`` takes its stated default."""
    gpu = DEFAULT_GPU if gpu is None else gpu
    peak_tflops = DEFAULT_PEAK_TFLOPS if peak_tflops is None else peak_tflops
    utilisation = DEFAULT_UTILISATION if utilisation is None else utilisation
    if not 0 < utilisation <= 1:
        raise InputError(f"`utilisation` must be in (0, 1], got {utilisation:g}")
    if peak_tflops <= 0:
        raise InputError(f"`peak_tflops` must be positive, got {peak_tflops:g}")
    measured: tuple[float | None, float | None] = (None, None)
    note = ""
    if calibration is not None and calibration.num_examples == PAPER_SHOTS:
        measured = (calibration.prompt_tokens_per_answer, calibration.completion_tokens_per_answer)
    elif calibration is not None:
        note = (
            f"the calibration's {calibration.num_examples}-shot prompts are not the papers' "
            f"{PAPER_SHOTS}-shot ones: its token counts are not used here"
        )
    by = (
        f"measured, {calibration.model}'s tokenizer, not the papers' models'" if calibration else ""
    )
    prompt, prompt_from = _pick("prompt", prompt_tokens, measured[0], by, DEFAULT_PROMPT_TOKENS)
    completion, completion_from = _pick(
        "completion", completion_tokens, measured[1], by, DEFAULT_COMPLETION_TOKENS
    )
    return PaperAssumptions(
        gpu, peak_tflops, utilisation, prompt, completion, prompt_from, completion_from, note
    )


def _pick(
    what: str, flag: float | None, measured: float | None, measured_by: str, default: float
) -> tuple[float, str]:
    """The value and where it came from: the flag, the calibration, or the default."""
    if flag is not None:
        if flag < 0:
            raise InputError(f"--{what}-tokens must not be negative, got {flag:g}")
        return flag, f"--{what}-tokens"
    if measured is not None:
        return measured, measured_by
    return default, _DEFAULT_TOKENS


@dataclass(frozen=True)
class PaperRow:
    model: PaperModel
    answers: int
    tokens: float
    flops: float
    gpu_hours: float


@dataclass(frozen=True)
class PaperScale:
    rows: tuple[PaperRow, ...]
    assumptions: PaperAssumptions
    questions: int = PAPER_QUESTIONS
    answers_per_question: int = PAPER_ANSWERS_PER_QUESTION
    sections: str = PAPER_SECTIONS
    notes: tuple[str, ...] = field(default=())

    @property
    def answers(self) -> int:
        return sum(row.answers for row in self.rows)

    @property
    def gpu_hours(self) -> float:
        return sum(row.gpu_hours for row in self.rows)

    def to_json(self) -> dict[str, Any]:
        return {
            "sections": self.sections,
            "questions": self.questions,
            "answers_per_question": self.answers_per_question,
            "answers": self.answers,
            "gpu_hours": self.gpu_hours,
            "models": [
                {**asdict(row.model), **{k: v for k, v in asdict(row).items() if k != "model"}}
                for row in self.rows
            ],
            "assumptions": asdict(self.assumptions),
            "notes": list(self.notes),
        }


def paper_scale(assumptions: PaperAssumptions | None = None) -> PaperScale:
    """The papers' 150 million answers, in GPU-hours per model (see the module's notes)."""
    assumptions = assumptions or PaperAssumptions()
    per_answer = assumptions.prompt_tokens + assumptions.completion_tokens
    rate = assumptions.peak_tflops * 1e12 * assumptions.utilisation  # FLOP/s per GPU
    answers = PAPER_QUESTIONS * PAPER_ANSWERS_PER_QUESTION
    rows = []
    for model in PAPER_MODELS:
        flops = 2 * model.active_params * per_answer * answers
        rows.append(PaperRow(model, answers, per_answer * answers, flops, flops / rate / 3600))
    notes = (
        "seed 002 §3.2.1 says 1.5 billion; 3 models x 50 questions x 1,000,000 is 150 "
        "million, as seed 000 §3.2.1 says (1.5 億)",
    )
    return PaperScale(tuple(rows), assumptions, notes=notes)


# --- the record ----------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class PlanSignature(SignatureType):
    """How the plan's numbers were made: the generation settings that cost time and tokens,
    the workers, the calibration's size, and every paper-scale assumption.

    No package's version is recorded: the estimates are arithmetic on these fields and on
    the calibration's measured times, which vary from run to run whatever the versions."""

    kind: ClassVar[str] = "refset-plan"
    model: str
    mode: str
    num_examples: int
    max_tokens: int
    snippets_k: int
    executor: str
    workers: int
    cpus_per_worker: float
    gpus_per_worker: float
    calibration: int
    gpu: str
    peak_tflops: float
    utilisation: float
    prompt_tokens: float
    completion_tokens: float


def plan_signature(
    settings: GenerateFile,
    calibration: Calibration | None,
    assumptions: PaperAssumptions,
    workers: int,
) -> Signature:
    """The plan's ``PlanSignature``."""
    config = settings.generation
    plan = settings.plan
    return PlanSignature(
        model=config.model,
        mode=config.mode.value,
        num_examples=config.num_examples,
        max_tokens=config.max_tokens,
        snippets_k=config.snippets_k if settings.snippets else 0,
        executor=plan.executor.value if calibration else "none",
        workers=workers,
        cpus_per_worker=plan.cpus_per_worker,
        gpus_per_worker=plan.gpus_per_worker,
        calibration=calibration.answers if calibration else 0,
        gpu=assumptions.gpu,
        peak_tflops=assumptions.peak_tflops,
        utilisation=assumptions.utilisation,
        prompt_tokens=round(assumptions.prompt_tokens, 1),
        completion_tokens=round(assumptions.completion_tokens, 1),
    ).signature()


def plan_record(
    settings: GenerateFile,
    calibration: Calibration | None,
    run: Estimate,
    paper: PaperScale,
) -> dict[str, Any]:
    """The whole plan as JSON: what ``--json`` writes."""
    signature = plan_signature(settings, calibration, paper.assumptions, run.workers)
    return {
        SIGNATURE_KEY: signature.to_json(),
        "settings": {
            "file": str(settings.path),
            # its URLs redacted, as generation.json keeps them: a password stays unwritten
            "generation": {
                **settings.generation.model_dump(mode="json"),
                "options": settings.generation.identity()["options"],
            },
            "questions": list(settings.questions),
            "plan": settings.plan.model_dump(mode="json"),
        },
        "calibration": calibration.to_json() if calibration else None,
        "estimate": run.to_json(),
        "paper_scale": paper.to_json(),
    }


@dataclass(frozen=True)
class Plan:
    """A generation planned: the short measured run (``calibration``, ``None`` without
    one), the estimate for the whole run, the papers' scale, and the signed record."""

    calibration: Calibration | None
    estimate: Estimate
    paper: PaperScale
    record: dict[str, Any]
    model: str

    def to_json(self) -> dict[str, Any]:
        """The signed record (what ``--json FILE`` writes)."""
        return self.record


def plan_refsets(
    config: Path,
    *,
    workers: int | None = None,
    calibration_answers: int | None = None,
    no_calibration: bool = False,
    record_file: Path | None = None,
    gpu: str | None = None,
    peak_tflops: float | None = None,
    utilisation: float | None = None,
    prompt_tokens: float | None = None,
    completion_tokens: float | None = None,
    base_url: str | None = None,
    data_dir: Path | None = None,
    calibrating: Callable[[int, int, str], None] | None = None,
) -> Plan:
    """Plan the generation the settings file ``config`` describes, as ``hyoka refset
    plan`` does: a short measured run on ``workers`` workers (unless ``no_calibration``;
    ``calibrating`` hears the answers per worker, the workers and the executor before it
    starts), the estimate for every answer, and the papers' scale in GPU-hours; the signed
    record also written to ``record_file`` when given (checked before the calibration)."""
    settings = load_generate_file(config)
    if base_url:
        settings = settings.served_at(base_url)
    source = benchmark_source(settings.benchmark, data_dir)
    questions = source.select(list(settings.questions) or None)
    workers = workers or settings.plan.workers

    def assumptions(calibration: Calibration | None) -> PaperAssumptions:
        return paper_assumptions(
            calibration, gpu=gpu, peak_tflops=peak_tflops, utilisation=utilisation,
            prompt_tokens=prompt_tokens, completion_tokens=completion_tokens,
        )  # fmt: skip

    assumptions(None)  # a bad value fails now, not after the calibration
    if record_file is not None and not record_file.parent.is_dir():
        folder = record_file.parent
        raise InputError(f"`record_file` {record_file}: the folder {folder} does not exist")
    check_output(record_file, flag="`record_file`")  # before the calibration, not after
    calibration = None
    if not no_calibration:
        per_worker = calibration_answers or settings.plan.calibration_answers
        if calibrating is not None:
            calibrating(per_worker, workers, settings.plan.executor.value)
        calibration = calibrate(settings, source, workers=workers, per_worker=per_worker)
    run = estimate(settings, len(questions), calibration, workers)
    paper = paper_scale(assumptions(calibration))
    record = plan_record(settings, calibration, run, paper)
    if record_file is not None:
        text = json.dumps(record, ensure_ascii=False, indent=2) + "\n"
        write_output(record_file, text, flag="`record_file`")
    return Plan(calibration, run, paper, record, settings.generation.model)
