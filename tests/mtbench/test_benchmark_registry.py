"""The benchmark registry is the one place a benchmark is named: a definition added at run
time (a module another package offers under the ``hyoka.benchmarks`` entry point group) is
a ``--bench`` choice, in its help and its error, and loads, with no other file edited; and
every registered definition loads its data from the shared data folder."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from _shared import SHARED_DATA, elyza_data, jfbench_data
from hyoka.cli.main import app
from hyoka.data import DATA_DIR_ENV, manifest
from hyoka.errors import DataError, HyokaError
from hyoka.mtbench import (
    CONSTRAINT_CHECKED,
    DRAWN_MATCHES,
    FASTCHAT_JUDGING,
    RULE_CHECKED,
    Bench,
    answer_set,
    definition,
    definitions,
    fastchat_bench,
)
from hyoka.mtbench.registry import ENTRY_POINTS, refresh

#: a definition module as another package would ship it: MT-bench's rules on its data
#: folder, under a name of its own, listed first
THROWAWAY = """
from dataclasses import replace

from hyoka.mtbench.definitions.mt_bench import DEFINITION as MT_BENCH

DEFINITION = replace(MT_BENCH, name="throwaway-bench", title="Throwaway bench", listing_order=1)
"""


def _plugin(root: Path, module: str, source: str, points: dict[str, str]) -> None:
    """An installed distribution in ``root``: ``module``.py and a dist-info whose entry
    points register ``points`` (name -> object reference) under ``hyoka.benchmarks``."""
    (root / f"{module}.py").write_text(source, encoding="utf-8")
    info = root / f"{module}-0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\nVersion: 0\n")
    lines = "".join(f"{name} = {value}\n" for name, value in points.items())
    (info / "entry_points.txt").write_text(f"[{ENTRY_POINTS}]\n{lines}", encoding="utf-8")


@pytest.fixture
def installed(tmp_path: Path) -> Iterator[Path]:
    """A folder on ``sys.path`` for plugins; the registry forgets them afterwards."""
    sys.path.insert(0, str(tmp_path))
    refresh()
    try:
        yield tmp_path
    finally:
        sys.path.remove(str(tmp_path))
        for name in [m for m in sys.modules if m.startswith("throwaway")]:
            del sys.modules[name]
        refresh()


def test_a_definition_added_is_a_choice_everywhere_and_loads(installed: Path) -> None:
    assert "throwaway-bench" not in definitions()
    _plugin(installed, "throwaway_bench", THROWAWAY, {"throwaway": "throwaway_bench"})
    refresh()
    assert next(iter(definitions())) == "throwaway-bench"  # its listing order, first
    runner = CliRunner()
    wide = {"COLUMNS": "400", "TERMINAL_WIDTH": "400"}
    for command in (["mtbench", "leaderboard"], ["mtbench", "verify"], ["judge", "rankings"]):
        shown = runner.invoke(app, [*command, "--help"], env=wide)
        assert shown.exit_code == 0, shown.output
        assert "<throwaway-bench|pfmt-fin|mt-bench|" in shown.output, command
    # an unknown name's usage error lists it among the others
    bad = runner.invoke(app, ["mtbench", "variants", "--bench", "nope"], env=wide)
    assert bad.exit_code == 2
    assert (
        "--bench: unknown benchmark 'nope'; choose one of: throwaway-bench, "
        f"{', '.join(n for n in definitions() if n != 'throwaway-bench')} "
    ) in bad.stderr
    listed = runner.invoke(app, ["mtbench", "variants", "--bench", "throwaway-bench"])
    assert listed.exit_code == 0 and "Throwaway bench has no variants" in listed.output
    loaded = Bench.load("throwaway-bench", SHARED_DATA)
    assert loaded.spec is definition("throwaway-bench") and len(loaded.questions) == 80
    assert loaded.questions == Bench.load("mt-bench", SHARED_DATA).questions


def _refusal(call: Callable[[], object]) -> str:
    """The library's one error line for a name it does not know, as a command shows it."""
    with pytest.raises(HyokaError) as refused:
        call()
    return str(refused.value).replace("`bench`", "--bench").replace("`variant`", "--variant")


@pytest.mark.parametrize(
    ("args", "library"),
    [
        (["mtbench", "leaderboard", "--bench", "nosuch"], lambda: definition("nosuch")),
        (["mtbench", "verify", "absent.jsonl", "--bench", "nosuch"], lambda: definition("nosuch")),
        (["mtbench", "leaderboard", "--bench", "jmt-bench", "--variant", "foo"],
         lambda: definition("jmt-bench").variant("foo")),
        # --variant is checked against the --bench given after it, or the default
        (["mtbench", "generate", "--variant", "foo", "--bench", "jmt-bench"],
         lambda: definition("jmt-bench").variant("foo")),
        (["mtbench", "judge", "--variant", "swallow"],
         lambda: definition("pfmt-fin").variant("swallow")),
        (["judge", "rankings", "--bench", "m-ifeval-ja"], lambda: fastchat_bench("m-ifeval-ja")),
        (["judge", "rankings", "--bench", "mt-bench", "--variant", "swallow"],
         lambda: definition("mt-bench").variant("swallow")),
    ],
)  # fmt: skip
def test_an_unknown_name_is_a_usage_error_before_anything_is_read(
    args: list[str], library: Callable[[], object]
) -> None:
    """The README's promise: a value outside a flag's choices is a usage error (exit 2)
    listing them, the library's own line, given before any file is looked at."""
    wide = {"COLUMNS": "400", "TERMINAL_WIDTH": "400"}
    bad = CliRunner().invoke(app, args, env=wide)
    assert bad.exit_code == 2, bad.output
    assert f" {_refusal(library)} " in bad.stderr
    assert "absent" not in bad.stderr


def test_a_name_defined_twice_is_one_error_naming_both(installed: Path) -> None:
    twice = THROWAWAY.replace('name="throwaway-bench"', 'name="mt-bench"')
    _plugin(installed, "throwaway_twice", twice, {"twice": "throwaway_twice"})
    refresh()
    with pytest.raises(DataError, match=r"benchmark 'mt-bench' is defined twice: in "
                       r"hyoka\.mtbench\.definitions\.mt_bench and entry point twice"):  # fmt: skip
        definitions()


def test_an_entry_point_that_is_no_definition_is_named(installed: Path) -> None:
    _plugin(installed, "throwaway_none", "VALUE = 1\n", {"none": "throwaway_none"})
    refresh()
    with pytest.raises(DataError, match="throwaway_none: a benchmark definition module holds"):
        definitions()


def test_every_definition_loads_its_shared_data(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Each definition has its data manifest (``hyoka data fetch NAME``) and, with the data
    directory from the environment, its questions load (FastChat-judged ones: with their
    judge prompts and references, under every variant). JFBench's prompts are worded by
    upstream's source, code the shared data does not hold: a stand-in words them here, as
    stand-ins give ELYZA-tasks-100's 2025 judge prompt (``elyza_data``)."""
    data = jfbench_data(tmp_path / "data")
    elyza_data(data)
    for folder in SHARED_DATA.iterdir():
        if not (data / folder.name).exists():
            (data / folder.name).symlink_to(folder)
    monkeypatch.setenv(DATA_DIR_ENV, str(data))
    protocols = {spec.judging for spec in definitions().values()}
    assert protocols == {FASTCHAT_JUDGING, DRAWN_MATCHES, RULE_CHECKED, CONSTRAINT_CHECKED}
    for name, spec in definitions().items():
        assert manifest(name).name == name
        answered = answer_set(name)
        assert answered.questions, name
        assert {q.category for q in answered.questions} <= set(spec.categories), name
        if spec.judging is FASTCHAT_JUDGING:
            for variant in spec.variants or (None,):
                full = Bench.load(name, variant=None if variant is None else variant.name)
                assert full.prompts and full.data_sha256, (name, variant)


def test_each_protocol_is_one_object_with_its_commands() -> None:
    """How a benchmark is judged and ranked is its protocol's object (``mtbench.run``'s
    ``COMMANDS``, the listing's ``JudgingProtocol.listing``): every protocol a definition
    has there, and no command, page or library call tests which protocol a definition has,
    so a new protocol adds one entry, not a branch at each call site (``verify_file``: one
    verifier in ``mtbench.verify._VERIFIERS``; ``generate``: one question reader in
    ``mtbench.generate.ANSWER_SETS``; ``mtbench judge`` and ``leaderboard``: one printer
    per result type the protocols' commands return, none chosen by ``isinstance``)."""
    import re
    from typing import get_args, get_type_hints

    import hyoka
    from hyoka.cli.mtbench_cmd import board_printers, judged_printers
    from hyoka.mtbench.generate import ANSWER_SETS
    from hyoka.mtbench.run import COMMANDS, ProtocolCommands

    protocols = {spec.judging for spec in definitions().values()}
    assert protocols <= set(COMMANDS)
    assert protocols <= set(ANSWER_SETS)
    commands = get_type_hints(ProtocolCommands)
    for command, printers in (("judge", judged_printers()), ("leaderboard", board_printers())):
        results = set(get_args(get_args(commands[command])[1]))
        assert len(results) > 1 and results == set(printers), command
    source = Path(hyoka.__file__).parent
    files = [*(source / "cli").glob("*.py"), *(source / "report").glob("*.py")]
    library = [source / "mtbench" / name for name in ("run.py", "verify.py", "generate.py")]
    protocol = re.compile(r"judging (is|==)|judging\.name ==|bench == \"")
    result_type = re.compile(
        r"isinstance\(\w+, \(?(\w+Judged|BenchBoard|RakudaRanking|RuleBoard|ConstraintBoard)\b"
    )
    branching = [
        f"{path.relative_to(source)}:{number}"
        for path in [*files, *library, *(source / "sweep").glob("*.py")]
        for number, line in enumerate(path.read_text("utf-8").splitlines(), 1)
        if protocol.search(line) or (path.parent.name == "cli" and result_type.search(line))
    ]
    assert branching == []
