"""The library works, the command line parses (issue 18, items 4 and 5).

What a command used to compute for itself now lives in the library, with one home each:
pfgen-bench's protocol defaults (one record every default reads), the Ray workers' rates,
the pfgen run pipeline and the ``--json`` shapes. These tests hold each home to it.
"""

from __future__ import annotations

import inspect
import tomllib
from importlib import resources
from pathlib import Path
from typing import Any

from _shared import SHARED_DATA
from hyoka.cli import pfgen_generate_cmd, refset_cmd
from hyoka.pfgen import (
    PROTOCOL,
    REFSET_PROTOCOL,
    GenerateSettings,
    Mode,
    PfgenBenchmark,
    Protocol,
    plan_generation,
)
from hyoka.refset import GenerateConfig, WorkerEvent, WorkerRates

# --- one home for the protocol defaults -------------------------------------------------

PROTOCOL_FIELDS = ("num_examples", "temperature", "top_p", "top_k", "max_tokens")


def _flag_defaults(command: Any, names: tuple[str, ...]) -> dict[str, Any]:
    parameters = inspect.signature(command).parameters
    return {name: parameters[name].default for name in names}


def test_the_protocol_is_upstreams_as_the_spec_states_it() -> None:
    # pfgen-spec.md §1: 20 examples, temperature 1.0, top_p 0.98, max_tokens 300, no top_k;
    # §5.1: the reference sets sampled with top_k 1000 besides
    assert (
        Protocol(
            num_examples=20, temperature=1.0, top_p=0.98, top_k=None, max_tokens=300, trials=10
        )
        == PROTOCOL
    )
    assert (
        Protocol(
            num_examples=20, temperature=1.0, top_p=0.98, top_k=1000, max_tokens=300, trials=10
        )
        == REFSET_PROTOCOL
    )


def test_generate_and_run_flags_default_to_the_protocol() -> None:
    expected = {name: getattr(PROTOCOL, name) for name in (*PROTOCOL_FIELDS, "trials")}
    for command in (pfgen_generate_cmd.generate_command, pfgen_generate_cmd.run_command):
        assert _flag_defaults(command, (*PROTOCOL_FIELDS, "trials")) == expected


def test_generate_settings_default_to_the_protocol() -> None:
    settings = GenerateSettings(model="openai/m")
    for name in (*PROTOCOL_FIELDS, "trials"):
        assert getattr(settings, name) == getattr(PROTOCOL, name), name


def test_refset_generation_defaults_to_the_refset_protocol() -> None:
    config = GenerateConfig(model="openai/m", set_name="P")
    flags = _flag_defaults(refset_cmd.generate_command, PROTOCOL_FIELDS)
    for name in PROTOCOL_FIELDS:
        assert getattr(config, name) == getattr(REFSET_PROTOCOL, name), name
        assert flags[name] == getattr(REFSET_PROTOCOL, name), name


def test_the_example_generation_file_samples_as_the_refset_protocol() -> None:
    # the bundled example shows the sampling keys at their defaults (its other sizes are
    # deliberately tiny, and say so)
    example = resources.files("hyoka") / "examples" / "refset" / "generate-example.toml"
    settings = tomllib.loads(example.read_text(encoding="utf-8"))
    for name in ("temperature", "top_p", "top_k"):
        assert settings[name] == getattr(REFSET_PROTOCOL, name), name


def test_a_default_runs_config_records_the_protocol(tmp_path: Path) -> None:
    settings = GenerateSettings(model="openai/m", mode=Mode.CHAT, results_dir=tmp_path)
    config = plan_generation(settings, PfgenBenchmark.load(SHARED_DATA)).plan.config
    assert (config["num_examples"], config["temperature"], config["top_p"]) == (20, 1.0, 0.98)
    assert config["max_tokens"] == 300 and "top_k" not in config


# --- the Ray workers' rates, added up in the library ------------------------------------


def test_worker_rates_add_up_the_events() -> None:
    rates = WorkerRates()
    for event in (
        WorkerEvent("ready", "w0", loads=1),
        WorkerEvent("ready", "w1", loads=1),
        WorkerEvent("batch", "w0", answers=6, seconds=2.0),
        WorkerEvent("batch", "w0", answers=6, seconds=3.0),
        WorkerEvent("batch", "w1", answers=3, seconds=1.5),
        WorkerEvent("lost", "w1", redone=3),
    ):
        rates.add(event)
    assert rates.line() == "w0 2.4/s w1 2.0/s"
    assert rates.summary() == (
        "2 worker(s), 2 model load(s); 1 lost with 3 answer(s) in flight made again; "
        "w0 2.4/s w1 2.0/s"
    )
    assert WorkerRates().summary().endswith("; no batches")
