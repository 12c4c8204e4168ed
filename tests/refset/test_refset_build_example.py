"""The `refset build` settings file shipped as an example loads where it is copied (as the
README's ``cp`` puts it), with every stage set and sizes that fit what the generation
example makes; the README test runs the two in turn."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from hyoka.refset import load_build_config
from hyoka.refset.executor import Executor


def test_the_shipped_build_example_loads_where_it_is_copied(tmp_path: Path) -> None:
    example = resources.files("hyoka") / "examples" / "refset" / "build-example.toml"
    copy = tmp_path / "build.toml"
    copy.write_text(example.read_text(encoding="utf-8"), encoding="utf-8")
    config = load_build_config(copy)
    assert (config.work, config.out) == (tmp_path / "refset-work", tmp_path / "refset-out")
    # no rules file named: the bundled rules, so nothing else need be copied beside it
    assert config.normalise.rules is None
    assert (config.benchmark, config.executor, config.questions) == (None, Executor.LOCAL, [])
    assert config.filter_rules.rules is None and config.filter_rare.n == 5
    # tiny, and a smaller pool kept whole: 40 answers a question, a few after filter-rare
    assert config.stage_settings()["select-length"] == {
        "size": 20, "target": 100, "allow_fewer": True,
    }  # fmt: skip
    assert config.stage_settings()["select-representative"] == {
        "size": 10, "max_n": 10, "seed": 0, "allow_fewer": True,
    }  # fmt: skip
