"""Stage 1 end to end: the store's shards on the seeded server, the model's wiring on llama.cpp.

Resuming after a torn shard and taking a few hundred answers through every stage are
properties of the shards, the generation loop and the stages, not of the model: they run
against the instant seeded OpenAI-compatible server on 127.0.0.1 (``wire_servers``), whose
reply is a function of the prompt and the seed, as a sampled model's is. Two questions, six
answers each: a shard is cut in the middle of a frame, as a crash would leave it, and the
next run drops the damaged tail and makes exactly the lost batch again; stages 2–7 then run
from a build file (the rare filter off: six answers are too few). A few hundred answers
then go through every stage, the rare filter on. The real embedded model (SmolLM2 through
llama.cpp, in process) answers the settings-file test: the wiring of ``llamacpp/``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from _shared import SHARED_DATA, needs
from hyoka.cli.main import app
from hyoka.refset import load_rewrites, read_generated
from hyoka.refset.normalise import normalise_text
from hyoka.refset.shards import scan_shard
from wire_servers import OpenAIServer

DATA = SHARED_DATA / "pfgen-bench" / "data"
FLAGS = [
    "-m", "llamacpp/smollm2", "--set-name", "smol", "--answers", "6", "--batch-size", "3",
    "--shards", "2", "--num-examples", "1", "--max-tokens", "16", "-q", "Q01", "-q", "Q13",
    "--benchmark", str(DATA),
]  # fmt: skip
runner = CliRunner()


@pytest.fixture(scope="module")
def seeded() -> Iterator[OpenAIServer]:
    with OpenAIServer() as server:
        yield server


def _seeded_settings(folder: Path, server: OpenAIServer, settings: str) -> Path:
    """A generation file for ``openai/seeded`` on ``server`` (its URL an option of the file,
    as a Ray worker's node-local server is given), questions Q01 and Q13, set ``smol``."""
    path = folder / "generate.toml"
    path.write_text(
        f'work = "work"\nbenchmark = "{DATA}"\nquestions = ["Q01", "Q13"]\n'
        f'model = "openai/seeded"\nset_name = "smol"\n{settings}'
        f'[options]\nbase_url = "{server.base_url}"\n',
        encoding="utf-8",
    )
    return path


def _cli(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def test_generate_resume_after_a_torn_shard_then_build_and_score(
    tmp_path: Path, seeded: OpenAIServer
) -> None:
    """A shard whose last frame was cut short loses only that batch: the next run drops the
    damaged bytes and makes that batch again, the same answers from the same seeds."""
    work = tmp_path / "work"
    settings = _seeded_settings(
        tmp_path, seeded, "answers = 6\nbatch_size = 3\nshards = 2\nnum_examples = 1\n"
        "max_tokens = 16\n",
    )  # fmt: skip
    out = _cli("refset", "generate", "--config", str(settings))
    assert "4 batch(es)" in out
    first = {q: read_generated(work, q) for q in ("Q01", "Q13")}
    assert all(sum(r.count for r in records) == 6 for records in first.values())
    stats = json.loads((work / "01-generated" / "Q01" / "smol" / "stats.json").read_text())
    assert stats["answers"] == 6 and stats["distinct"] == len(first["Q01"])

    shard = work / "01-generated" / "Q01" / "smol" / "shard-00001.hrs"
    frames = scan_shard(shard).frames
    assert [f.header["batch"] for f in frames] == [1]  # batch 0 in shard 0, 1 in shard 1
    shard.write_bytes(shard.read_bytes()[:-10])  # the last append was cut short
    assert read_generated(work, "Q01") != first["Q01"]  # the torn frame is not read
    out = _cli("refset", "generate", "--config", str(settings))
    assert "1 batch(es)" in out and "damaged byte(s)" in out
    assert read_generated(work, "Q01") == first["Q01"]  # same seeds, same answers again
    assert scan_shard(shard).damaged is False

    config = tmp_path / "build.toml"
    config.write_text(
        f'work = "work"\nout = "published"\nbenchmark = "{DATA}"\nquestions = ["Q01", "Q13"]\n'
        "[filter-rare]\nn = 0\n"  # off: six answers have no common 5-grams to speak of
        "[select-length]\nsize = 5\ntarget = 40\n"
        "[select-representative]\nsize = 3\n",
        encoding="utf-8",
    )
    _cli("refset", "build", str(config))
    published = json.loads((tmp_path / "published/pfgen-bench/data/Q01.json").read_text())
    assert list(published["answers"]) == ["smol"] and len(published["answers"]["smol"]) == 3
    rewrites = load_rewrites(None)
    normalised = {normalise_text(r.text, rewrites)[0] for r in first["Q01"]}
    assert set(published["answers"]["smol"]) <= normalised


def test_a_few_hundred_answers_through_every_stage(tmp_path: Path, seeded: OpenAIServer) -> None:
    """240 answers (2 questions x 120, zero-shot completions) through all seven stages, the
    rare 5-gram filter on; each stage's audit accounts for every answer it removed.

    The promise is the stages' accounting on a pool of a few hundred sampled answers, so
    the answers come from the seeded server (a function of prompt and seed, with common and
    one-off 5-grams as a real model's have) rather than 84 s of llama.cpp."""
    work = tmp_path / "work"
    settings = _seeded_settings(
        tmp_path, seeded, 'answers = 120\nbatch_size = 40\nshards = 2\nnum_examples = 0\n'
        'max_tokens = 16\nmode = "completion"\n',
    )  # fmt: skip
    out = _cli("refset", "generate", "--config", str(settings))
    assert "240 answer(s) generated in 6 batch(es)" in out
    generated = {q: read_generated(work, q) for q in ("Q01", "Q13")}
    assert all(sum(r.count for r in records) == 120 for records in generated.values())
    config = tmp_path / "build.toml"
    config.write_text(
        f'work = "work"\nout = "published"\nbenchmark = "{DATA}"\nquestions = ["Q01", "Q13"]\n'
        "[filter-rare]\nn = 5\n"
        "[select-length]\nsize = 8\ntarget = 40\nallow_fewer = true\n"
        "[select-representative]\nsize = 4\nallow_fewer = true\n",
        encoding="utf-8",
    )
    _cli("refset", "build", str(config))
    for question, records in generated.items():
        summary = _summary(work / "04-rare" / "audit.jsonl", question)
        assert summary["before"] == sum(r.count for r in records) == 120
        removed = _removed(work / "04-rare" / "audit.jsonl", question)
        assert 0 < removed == summary["before"] - summary["after"]  # one-off 5-grams exist
        published = json.loads(
            (tmp_path / f"published/pfgen-bench/data/{question}.json").read_text("utf-8")
        )
        answers = published["answers"]["smol"]
        assert 1 <= len(answers) <= 4 and len(set(answers)) == len(answers)


def _audit(path: Path, question: str) -> list[dict[str, object]]:
    rows = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
    return [row for row in rows if row["question"] == question]


def _summary(path: Path, question: str) -> dict[str, int]:
    (row,) = [r for r in _audit(path, question) if r["reason"] == "summary"]
    return {"before": int(str(row["before"])), "after": int(str(row["after"]))}


def _removed(path: Path, question: str) -> int:
    return sum(
        int(str(r["removed_answers"])) for r in _audit(path, question) if "removed_answers" in r
    )


def test_generate_from_the_settings_file_plan_reads(tmp_path: Path) -> None:
    """``--config`` takes WORK, the model and every setting from the file; a generation flag
    given beside it is refused, naming the flag, so the file alone decides the answers.
    The model is the real embedded one: stage 1's wiring of ``llamacpp/``."""
    needs("llama_cpp")
    config = tmp_path / "generate.toml"
    config.write_text(
        f'work = "work"\nbenchmark = "{DATA}"\nquestions = ["Q13"]\n'
        'model = "llamacpp/smollm2"\nset_name = "smol"\nmode = "completion"\n'
        "num_examples = 0\nmax_tokens = 8\nanswers = 2\nbatch_size = 2\n"
        "[options]\nn_threads = 1\n",
        encoding="utf-8",
    )
    refused = runner.invoke(app, ["refset", "generate", "--config", str(config), "--answers", "3"])
    assert refused.exit_code == 1
    assert "--answers: not with --config" in refused.output
    assert not (tmp_path / "work").exists()
    out = _cli("refset", "generate", "--config", str(config))
    assert "2 answer(s) generated in 1 batch(es)" in out
    assert sum(r.count for r in read_generated(tmp_path / "work", "Q13")) == 2
    # --json beside --config (it changes no answer): nothing left to make, said as JSON
    shown = runner.invoke(app, ["refset", "generate", "--config", str(config), "--json"])
    assert shown.exit_code == 0, shown.output
    done = json.loads(shown.stdout)
    assert (done["answers"], done["batches"], done["failed"]) == (0, 0, 0)


def test_generate_flags_reach_a_local_server_through_base_url(
    tmp_path: Path, seeded: OpenAIServer
) -> None:
    """``--base-url`` names a local OpenAI-compatible server on the command line, as the
    settings file's ``[options] base_url`` does (``-o base_url=...`` is refused: the URL is
    redacted where stored); the two make the same set: same settings kept, same answers."""
    seeded.reset()
    settings = _seeded_settings(
        tmp_path, seeded, "answers = 2\nbatch_size = 2\nnum_examples = 0\nmax_tokens = 8\n"
    )
    _cli("refset", "generate", "--config", str(settings))
    flags = [
        "refset", "generate", str(tmp_path / "flags"), "-m", "openai/seeded", "--set-name",
        "smol", "--answers", "2", "--batch-size", "2", "--num-examples", "0", "--max-tokens",
        "8", "-q", "Q01", "-q", "Q13", "--benchmark", str(DATA), "--base-url", seeded.base_url,
    ]  # fmt: skip
    assert "4 answer(s) generated in 2 batch(es)" in _cli(*flags)
    assert seeded.served == 8  # each run asked the server for its 4 answers
    kept = Path("01-generated/Q13/smol/generation.json")
    assert (tmp_path / "flags" / kept).read_text() == (tmp_path / "work" / kept).read_text()
    for question in ("Q01", "Q13"):
        assert read_generated(tmp_path / "flags", question) == read_generated(
            tmp_path / "work", question
        )


def test_the_response_cache_is_refused_on_ray(tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["refset", "generate", str(tmp_path / "work"), *FLAGS, "--cache", "--executor", "ray"]
    )
    assert result.exit_code == 1
    assert "--cache: the response cache is a file on this machine; not on Ray" in result.output
    assert not (tmp_path / "work").exists()


def test_a_ray_worker_that_cannot_see_the_work_folder_says_so(tmp_path: Path) -> None:
    """On a cluster without a shared file system the work folder is missing on the worker's
    node: the worker reports that in one line instead of failing on a shard path."""
    from hyoka.refset import GenerateConfig
    from hyoka.refset.ray_workers import GenerationWorker

    config = GenerateConfig(model="llamacpp/smollm2", set_name="smol")
    missing = tmp_path / "not-shared"
    worker = GenerationWorker("w0", config.model_dump(mode="json"), str(DATA), None, str(missing))
    error = worker.ready()["error"]
    assert f"{missing}: the work folder is not visible to Ray worker w0" in error
    assert worker.loads == 0  # no model was loaded for nothing
