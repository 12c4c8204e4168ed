"""The `refset build` settings file shipped as an example loads, with every stage set."""

from __future__ import annotations

from importlib import resources

from hyoka.refset import load_build_config
from hyoka.refset.executor import Executor


def test_the_shipped_build_example_loads() -> None:
    examples = resources.files("hyoka") / "examples" / "refset"
    with resources.as_file(examples) as folder:
        config = load_build_config(folder / "build-example.toml")
        assert (config.work, config.out) == (folder / "refset-work", folder / "refset-out")
        assert config.normalise.rules == folder / "normalise-ja.toml"
        assert config.normalise.rules.is_file()  # the rules it names ship beside it
    assert (config.benchmark, config.executor, config.questions) == (None, Executor.LOCAL, [])
    assert config.filter_rules.rules is None and config.filter_rare.n == 5
    assert config.stage_settings()["select-length"] == {
        "size": 30000, "target": 100, "allow_fewer": False,
    }  # fmt: skip
    assert config.stage_settings()["select-representative"] == {
        "size": 1000, "max_n": 10, "seed": 0, "allow_fewer": False,
    }  # fmt: skip
