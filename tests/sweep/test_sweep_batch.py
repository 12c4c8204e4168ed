"""``hyoka sweep PLAN`` with ``batch = true`` on a model and a judge: the official OpenAI SDK
against a local server speaking the Batch API's wire format (``batch_servers``). A cell
whose requests went into a batch waits (neither done nor failed: ``waiting on batch ID``
in the progress line, sweep.json, ``--plan`` and the matrix), the sweep exits 0 saying to
run it again, and each rerun collects the ended batches and moves the cell one round on
(the dialogue's first turn, its second, the judge) until its number is the online
sweep's, signed ``batch:openai``. A provider without a batch API is refused in one line
naming the plan's file, line and key; ``--plan`` prices a batch at half the list price.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from _shared import SHARED_DATA
from batch_servers import openai_server
from hyoka.cli.main import app
from hyoka.errors import InputError
from hyoka.providers.batch_openai import OpenAIBatches
from hyoka.sweep import batched, read_plan

SUITE = '[[suites]]\nbench = "jmt-bench"\nvariant = "llm-jp"\nlimit = 1\nmax_tokens = 8\n'


@pytest.fixture(scope="module")
def server() -> Iterator[Any]:
    with openai_server() as served:
        yield served


def _plan(folder: Path, name: str, url: str, batch: str) -> Path:
    text = (
        f'out = "{name}"\n[models.mine]\nmodel = "openai/seeded"\nbase_url = "{url}"\n{batch}'
        f'[judges.gpt]\njudge = "openai/judge"\nbase_url = "{url}"\n{batch}{SUITE}'
    )
    path = folder / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    return path


def _hyoka(args: list[str | Path], cache: Path, mp: pytest.MonkeyPatch) -> Result:
    mp.setenv("HYOKA_CACHE_DIR", str(cache))  # each sweep its own cache: nothing shared
    return CliRunner().invoke(app, list(map(str, args)))


def _cell(out: Path) -> dict[str, Any]:
    (cell,) = json.loads((out / "sweep.json").read_text(encoding="utf-8"))["cells"]
    return dict(cell)


def test_a_batch_sweep_waits_then_each_rerun_moves_it_on_to_the_online_number(
    server: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HYOKA_DATA_DIR", str(SHARED_DATA))
    url = f"{server.url}/v1"
    online = _hyoka(["sweep", _plan(tmp_path, "online", url, ""), "--json"], tmp_path / "c1",
                    monkeypatch)  # fmt: skip
    assert online.exit_code == 0, online.output
    expected = _cell(tmp_path / "online")
    assert expected["status"] == "done" and expected["score"] is not None
    first = len(server.batches)

    # one request a batch (the API's limit lowered): the judge's two turns wait on two
    monkeypatch.setattr(OpenAIBatches, "max_requests", 1)
    plan = _plan(tmp_path, "batch", url, "batch = true\n")
    out, runs = tmp_path / "batch", []
    for _ in range(6):
        run = _hyoka(["sweep", plan], tmp_path / "c2", monkeypatch)
        assert run.exit_code == 0, run.output
        runs.append(run)
        cell = _cell(out)
        if cell["status"] == "done":
            break
        # neither done nor failed: waiting on the batch just submitted, said everywhere
        assert cell["status"] == "waiting" and cell["error"] is None
        waits = cell["batches"]
        assert waits == list(server.batches)[-len(waits) :]
        assert len(waits) == (2 if len(runs) == 3 else 1)  # the judge's round: two batches
        batch = waits[0]
        assert f"waiting on batch {', '.join(waits)}" in run.output
        assert "1 cell(s) wait on batches: run the same command again" in run.output
        assert "waiting (batch)" in (out / "results.md").read_text(encoding="utf-8")
        assert "batch: waiting" in (out / "results.csv").read_text(encoding="utf-8")
        if len(runs) == 1:  # --plan and `hyoka batch status` name it too
            planned = _hyoka(["sweep", plan, "--plan", "--json"], tmp_path / "c2", monkeypatch)
            (estimate,) = json.loads(planned.stdout)["cells"]
            assert estimate["status"].startswith(f"waiting on batch {batch}")
            listed = _hyoka(["batch", "status", out, "--offline"], tmp_path / "c2", monkeypatch)
            assert listed.exit_code == 0 and f"batch {batch}" in listed.stdout
        server.finish()
    # turn 1, turn 2 (it needs turn 1's reply), the judge's two turns, then read back
    assert len(runs) == 4 and len(server.batches) - first == 4
    assert [len(b.requests) for b in list(server.batches.values())[first:]] == [1, 1, 1, 1]
    cell = _cell(out)
    assert (cell["score"], cell["low"], cell["high"]) == (
        expected["score"], expected["low"], expected["high"])  # fmt: skip
    assert "batch:openai" in cell["signature"]["line"]
    assert "waiting" not in (out / "results.md").read_text(encoding="utf-8")


def test_batch_on_a_provider_without_a_batch_api_is_refused_at_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "judge.jsonl").write_text('{"reply": "[[6]]"}\n', encoding="utf-8")
    plan = tmp_path / "sweep.toml"
    plan.write_text(
        '[models.mine]\nmodel = "openai/gpt-4o"\nbatch = true\n'
        '[judges.s]\njudge = "scripted/judge.jsonl"\nbatch = true\n' + SUITE,
        encoding="utf-8",
    )
    refused = _hyoka(["sweep", plan, "--plan"], tmp_path / "c", monkeypatch)
    assert refused.exit_code == 1
    assert f"{plan}:6: judges.s: batch = true: the scripted/ provider has no batch API" in (
        refused.output
    )
    assert "Traceback" not in refused.output


def test_batch_flag_on_a_plan_with_no_batch_api_names_the_flag(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--batch`` where no model or judge has a batch API: one line naming the flag (the
    library names its parameter, ``batch``; the command line shows it as its flag)."""
    (tmp_path / "judge.jsonl").write_text('{"reply": "[[6]]"}\n', encoding="utf-8")
    plan = tmp_path / "sweep.toml"
    plan.write_text(
        '[models.mine]\nmodel = "scripted/judge.jsonl"\n'
        '[judges.s]\njudge = "scripted/judge.jsonl"\n' + SUITE,
        encoding="utf-8",
    )
    refused = _hyoka(["sweep", plan, "--plan", "--batch"], tmp_path / "c", monkeypatch)
    assert refused.exit_code == 1, refused.output
    assert refused.stderr.splitlines() == [
        f"error: --batch: no model or judge of {plan} has a batch API (openai/, anthropic/)"
    ]
    with pytest.raises(InputError, match=r"^`batch`: no model or judge of "):
        batched(read_plan(plan))  # a Python caller reads the parameter


def test_plan_prices_a_batch_at_half_the_list_price(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HYOKA_DATA_DIR", str(SHARED_DATA))
    (tmp_path / "judge.jsonl").write_text('{"reply": "[[6]]"}\n', encoding="utf-8")

    def usd(batch: str, *flag: str) -> tuple[float, list[str]]:
        plan = tmp_path / "sweep.toml"
        plan.write_text(f'[models.mine]\nmodel = "openai/gpt-4o"\n{batch}'
                        f'[judges.s]\njudge = "scripted/judge.jsonl"\n{SUITE}',
                        encoding="utf-8")  # fmt: skip
        shown = _hyoka(["sweep", plan, "--plan", "--json", *flag], tmp_path / "c", monkeypatch)
        assert shown.exit_code == 0, shown.output
        (cell,) = json.loads(shown.stdout)["cells"]
        return float(cell["usd"]), list(cell["prices"])

    listed, sources = usd("")
    assert listed > 0 and sources[0] == "model list@2025-10-01"
    for halved, said in (usd("batch = true\n"), usd("", "--batch")):
        assert halved == pytest.approx(listed / 2)
        assert said[0] == "model list@2025-10-01×0.5 batch"


def test_a_cell_waits_on_a_batch_kept_noted_until_released() -> None:
    # a batch the API says it does not know (404: perhaps another key) is kept noted, not
    # resubmitted: the cell waits on it, named, as on one still running
    from hyoka.providers import BatchProgress, ClientStats
    from hyoka.sweep.cells import waiting_on

    assert waiting_on(ClientStats(batch=BatchProgress(held=["batch_9"]))) == ["batch_9"]
    assert waiting_on(ClientStats(batch=BatchProgress())) is None


def test_a_failed_batch_or_request_is_said_in_the_cells_notes_not_only_waited_on(
    server: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A batch that ended failed (its reason quoted, made printable), then a request that
    failed in its batch: each rerun says so in the cell's notes (sweep.json), the matrix's
    note and the progress line, as ``hyoka mtbench generate --batch`` prints it; before,
    the cell was only "waiting" on the new batch, its notes empty."""
    monkeypatch.setenv("HYOKA_DATA_DIR", str(SHARED_DATA))
    plan = _plan(tmp_path, "failing", f"{server.url}/v1", "batch = true\n")
    out, cache = tmp_path / "failing", tmp_path / "c"
    assert _hyoka(["sweep", plan], cache, monkeypatch).exit_code == 0
    assert _cell(out)["notes"] == []
    server.fail("bad input \x1b[2Jline 1")
    run = _hyoka(["sweep", plan], cache, monkeypatch)
    cell = _cell(out)
    (failed,) = [b for b in cell["notes"] if "ended failed" in b]
    assert "bad input \\x1b[2Jline 1" in failed and "asked again in a new batch" in failed
    assert cell["status"] == "waiting" and failed in run.output and "\x1b" not in run.output
    assert failed.removeprefix("batch: ") in (out / "results.md").read_text(encoding="utf-8")
    (again,) = [b.requests for b in server.batches.values()][-1:]
    server.finish(failed=[request["custom_id"] for request in again])
    _hyoka(["sweep", plan], cache, monkeypatch)
    (said,) = _cell(out)["notes"]
    assert "1 failed or expired (HTTP 500 1; asked again in a new batch)" in said


def _edited_while_waiting(
    server: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, before: str, after: str
) -> tuple[Path, str, str, Any]:
    """A batch sweep run until its cell waits on one batch, its plan then edited (``before``
    replaced by ``after``): the output folder, that batch's id, the cell's ``--plan``
    status, and the rerun's result."""
    monkeypatch.setenv("HYOKA_DATA_DIR", str(SHARED_DATA))
    plan = _plan(tmp_path, "edited", f"{server.url}/v1", "batch = true\n")
    out, cache = tmp_path / "edited", tmp_path / "c"
    assert _hyoka(["sweep", plan], cache, monkeypatch).exit_code == 0
    (old,) = _cell(out)["batches"]
    text = plan.read_text(encoding="utf-8")
    assert before in text
    plan.write_text(text.replace(before, after), encoding="utf-8")
    planned = _hyoka(["sweep", plan, "--plan", "--json"], cache, monkeypatch)
    (estimate,) = json.loads(planned.stdout)["cells"]
    return out, old, estimate["status"], _hyoka(["sweep", plan], cache, monkeypatch)


def test_settings_changed_while_a_cell_waits_name_the_batch_left_in_flight(
    server: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A plan edited while its cell waits on a batch: the cell runs again under the new
    settings, and ``--plan``, the rerun's progress line and the cell's note name the batch
    the old settings left running (paid for, collected by no run of these) and how to see
    or let it go; before, they said only "changed: will run again"."""
    out, old, status, run = _edited_while_waiting(
        server, tmp_path, monkeypatch, "max_tokens = 8", "max_tokens = 9"
    )
    assert status.startswith(f"changed: will run again (batch {old} left in flight)")
    said = _cell(out)["notes"][0]
    assert said.startswith("settings changed since the last run")
    assert f"batch {old} it waited on left in flight" in said
    assert f"`hyoka batch status {out}`" in said and "`hyoka batch release" in said
    assert said in run.output
    server.finish()


def test_a_judge_edited_while_the_cell_waits_on_its_answers_batch_still_collects_it(
    server: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only the judge edited while the cell waits on the batch of its model's answers: the
    answers file is the same under the new settings (``answers_folder``: model and answer
    settings only), so the rerun goes on collecting that batch, and neither ``--plan`` nor
    the cell's note calls it left in flight (a user who released it would pay again);
    before, both said it was left in flight, not collected."""
    out, old, status, run = _edited_while_waiting(
        server, tmp_path, monkeypatch, '"openai/judge"', '"openai/judge-edited"'
    )
    assert status.startswith("changed: will run again") and "left in flight" not in status
    cell = _cell(out)
    assert cell["status"] == "waiting" and cell["batches"] == [old]  # the same batch
    said = cell["notes"][0]
    assert said.startswith("settings changed since the last run")
    assert f"batch {old} it waited on still collected" in said and said in run.output
    assert "left in flight" not in run.output + "".join(cell["notes"])
    server.finish()
