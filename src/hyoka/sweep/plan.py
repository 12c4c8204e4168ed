"""A sweep plan: the TOML file that names the models, the suites and the judges of a sweep,
read and checked before anything runs.

One file says everything a model team evaluates at once::

    out = "sweep-results"            # relative to the plan file
    concurrency = 4

    [models.mine]
    model = "openai/my-model"
    base_url = "http://127.0.0.1:8000/v1"   # or a list of servers, used together

    [judges.gpt-4o]
    judge = "openai/gpt-4o"

    [[suites]]
    bench = "pfgen-bench"
    [[suites]]
    bench = "jmt-bench"
    variant = "llm-jp"
    [[suites]]                       # every model against the others: Rakuda's draw
    bench = "rakuda"
    matches = 200                    # and rounds, seed (the command's --rounds, --seed)
    [[suites]]                       # a FastChat suite's pairs of models, judged
    bench = "ja-vicuna-qa"
    mode = "pairwise"
    [[suites]]                       # JFBench: rules and the judge's votes
    bench = "jfbench"
    limit = 20

Every cell of the sweep is one model on one suite, with one judge where the suite is
judged (``cells``). A key the plan does not know, a value of the wrong type, a benchmark
the registry lacks or a judged suite without a judge is one ``InputError`` naming the file,
the line and the key, before any model is asked anything. Paths inside a plan (``out``, a
``scripted/`` script, a ``llamacpp/`` model file) are relative to the plan file's folder.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from hyoka.errors import InputError
from hyoka.redact import shown_value
from hyoka.store import read_toml
from hyoka.sweep.plan_checks import (
    batch_problem,
    endpoint_problem,
    pfgen_problem,
    same_server,
    url_problem,
)
from hyoka.sweep.spec import (
    JUDGED_KINDS,
    MATCHES,
    PAIRS,
    PAIRWISE,
    PFGEN,
    PFGEN_KIND,
    RANKED_TOGETHER,
    RULED,
    Endpoint,
    Suite,
    SweepPlan,
    suite_kind,
)

#: the providers whose model string names a file, read relative to the plan's folder
_FILE_PROVIDERS = ("scripted", "llamacpp")

_TOP = {"out", "concurrency", "models", "judges", "suites"}
_MODEL = {"model", "base_url", "options", "price_in", "price_out", "seconds_per_call", "batch"}
_JUDGE = {"judge", "base_url", "options", "price_in", "price_out", "seconds_per_call", "batch"}
_SUITE = {"bench", "variant", "limit", "max_tokens", "trials", "mode", "num_examples", "judges",
          "matches", "rounds", "seed"}  # fmt: skip
#: how a value's expected type is said in an error
_KIND_NAMES: dict[type, str] = {
    bool: "true or false",
    int: "a whole number",
    float: "a number",
    str: "a string",
    dict: "a table",
    list: "a list",
}
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@-]*$")


class _Where:
    """Finds the line of a key in the plan's text, for errors that name it."""

    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self.lines = text.splitlines()

    def _header(self, table: str, index: int | None) -> int:
        """The line (0-based) of ``[table]`` or of the ``index``-th ``[[table]]``; -1: none."""
        if index is None:  # [group.name] or [group."a name"]
            dotted = r"\s*\.\s*".join(rf'"?{re.escape(part)}"?' for part in table.split(".", 1))
            pattern = re.compile(rf"^\s*\[\s*{dotted}\s*\]")
        else:
            pattern = re.compile(rf"^\s*\[\[\s*{re.escape(table)}\s*\]\]")
        found = [n for n, line in enumerate(self.lines) if pattern.match(line)]
        chosen = index or 0
        return found[chosen] if chosen < len(found) else -1

    def __call__(self, table: str | None, key: str | None, index: int | None = None) -> str:
        """``file:line`` of ``key`` in ``table`` (``None``: the top level), else of the
        table's header, else the file."""
        start = -1 if table is None else self._header(table, index)
        if table is not None and start < 0:
            return str(self.path)
        if key is not None:
            pattern = re.compile(rf"^\s*\"?{re.escape(key)}\"?\s*=")
            for number in range(start + 1, len(self.lines)):
                if self.lines[number].lstrip().startswith("["):
                    break
                if pattern.match(self.lines[number]):
                    return f"{self.path}:{number + 1}"
        return f"{self.path}:{start + 1}" if start >= 0 else str(self.path)


def _check_keys(
    where: _Where, table: str | None, values: Mapping[str, Any], known: set[str], index: int | None
) -> None:
    shown = table or "the plan"
    for key in values:
        if key not in known:
            raise InputError(
                f"{where(table, key, index)}: {shown}: unknown key {key!r} (known: "
                f"{', '.join(sorted(known))})"
            )


def _typed(
    where: _Where,
    table: str | None,
    values: Mapping[str, Any],
    key: str,
    kind: type | tuple[type, ...],
    index: int | None = None,
    *,
    minimum: float | None = None,
) -> Any:
    """``values[key]`` when it is a ``kind`` (and at least ``minimum``), ``None`` when absent;
    else one line naming the file, line and key."""
    if key not in values:
        return None
    value = values[key]
    fits = isinstance(value, kind) and not (isinstance(value, bool) and kind is not bool)
    if fits and minimum is not None and value < minimum:
        fits = False
    if not fits:
        kinds = kind if isinstance(kind, tuple) else (kind,)
        names = " or ".join(_KIND_NAMES.get(k, k.__name__) for k in kinds)
        more = f" of at least {minimum:g}" if minimum is not None else ""
        raise InputError(
            f"{where(table, key, index)}: {table or 'the plan'}: {key} must be {names}{more}, "
            f"got {shown_value(value)}"
        )
    return value


def _spec(where: _Where, table: str, key: str, value: Any, folder: Path) -> str:
    """A ``provider/model`` string, checked; a relative file of a scripted or llama.cpp model
    read from the plan's folder."""
    from hyoka.providers import parse_model_string

    if not isinstance(value, str):
        raise InputError(f"{where(table, key)}: {table}: {key} must be a string PROVIDER/MODEL")
    try:
        provider, model = parse_model_string(value, flag=f"{table}.{key}")
    except InputError as exc:
        raise InputError(f"{where(table, key)}: {exc}") from None
    if provider in _FILE_PROVIDERS and not Path(model).is_absolute():
        beside = folder / model
        if beside.exists():
            return f"{provider}/{beside}"
    return value


def _endpoint(
    where: _Where, group: str, name: str, values: Any, spec_key: str, folder: Path
) -> Endpoint:
    table = f"{group}.{name}"
    if not isinstance(values, dict):
        raise InputError(f"{where(group, name)}: {table} must be a table ([{table}])")
    if not _NAME.match(name):
        raise InputError(
            f"{where(table, None)}: {group} name {name!r}: letters, digits, '.', '-', '_' "
            "and '@' only (it names files)"
        )
    _check_keys(where, table, values, _MODEL if spec_key == "model" else _JUDGE, None)
    if spec_key not in values:
        raise InputError(f'{where(table, None)}: {table}: needs {spec_key} = "PROVIDER/MODEL"')
    options = _typed(where, table, values, "options", dict) or {}
    spec = _spec(where, table, spec_key, values[spec_key], folder)
    problem = endpoint_problem(spec, options)
    if problem is not None:
        key, message = problem
        raise InputError(f"{where(table, key or spec_key)}: {table}: {message}")
    base_urls = _base_urls(where, table, values)
    batch = _typed(where, table, values, "batch", bool) or False
    refused = batch_problem(spec, options, len(base_urls)) if batch else None
    if refused is not None:
        raise InputError(f"{where(table, 'batch')}: {table}: {refused}")
    return Endpoint(
        name=name,
        spec=spec,
        base_urls=base_urls,
        options=dict(options),
        price_in=_typed(where, table, values, "price_in", (int, float), minimum=0),
        price_out=_typed(where, table, values, "price_out", (int, float), minimum=0),
        seconds_per_call=_typed(where, table, values, "seconds_per_call", (int, float), minimum=0),
        batch=batch,
    )


def _base_urls(where: _Where, table: str, values: Mapping[str, Any]) -> tuple[str, ...]:
    """``base_url``: one server, or a list of servers of the same model used together."""
    value = _typed(where, table, values, "base_url", (str, list))
    if value is None:
        return ()
    urls = [value] if isinstance(value, str) else value
    if not urls or not all(isinstance(url, str) and url for url in urls):
        wrong = next((url for url in urls if not isinstance(url, str) or not url), value)
        listed = " in the list" if isinstance(value, list) and wrong is not value else ""
        raise InputError(
            f"{where(table, 'base_url')}: {table}: base_url must be a URL or a list of URLs, "
            f"got {shown_value(wrong)}{listed}"
        )
    for url in urls:
        problem = url_problem(url)
        if problem is not None:
            raise InputError(f"{where(table, 'base_url')}: {table}: {problem}")
    if len({same_server(url) for url in urls}) != len(urls):
        raise InputError(f"{where(table, 'base_url')}: {table}: base_url lists a server twice")
    return tuple(urls)


def _suite(where: _Where, index: int, values: Any, judges: Sequence[str]) -> Suite:
    if not isinstance(values, dict):
        raise InputError(f"{where(None, 'suites')}: suites must be an array of tables ([[suites]])")
    table = "suites"
    _check_keys(where, table, values, _SUITE, index)
    bench = values.get("bench")
    if not isinstance(bench, str):
        raise InputError(f'{where(table, None, index)}: suite {index + 1}: needs bench = "NAME"')
    chosen = _typed(where, table, values, "judges", list, index)
    if chosen == []:
        raise InputError(
            f"{where(table, 'judges', index)}: suite {index + 1}: judges = [] names no judge "
            "(leave it out for every judge of the plan)"
        )
    if chosen is not None:
        for name in chosen:
            if name not in judges:
                raise InputError(
                    f"{where(table, 'judges', index)}: suite {index + 1}: no judge {name!r} "
                    f"in [judges] (known: {', '.join(judges) or 'none'})"
                )
    suite = Suite(
        bench=bench,
        variant=_typed(where, table, values, "variant", str, index),
        limit=_typed(where, table, values, "limit", int, index, minimum=1),
        max_tokens=_typed(where, table, values, "max_tokens", int, index, minimum=1),
        trials=_typed(where, table, values, "trials", int, index, minimum=1),
        mode=_typed(where, table, values, "mode", str, index),
        num_examples=_typed(where, table, values, "num_examples", int, index, minimum=0),
        judges=None if chosen is None else tuple(chosen),
        matches=_typed(where, table, values, "matches", int, index, minimum=1),
        rounds=_typed(where, table, values, "rounds", int, index, minimum=1),
        seed=_typed(where, table, values, "seed", int, index, minimum=0),
    )
    problem = check_suite(suite, bool(judges))
    if problem is not None:
        key, message = problem
        raise InputError(f"{where(table, key or 'bench', index)}: suite {index + 1}: {message}")
    return suite


def batched(plan: SweepPlan) -> SweepPlan:
    """``plan`` with every model and judge whose provider has a batch API asked through it
    (``hyoka sweep --batch``: ``batch = true`` on each), the others online; one line where
    none has one."""
    from dataclasses import replace

    def batch(endpoint: Endpoint) -> Endpoint:
        able = batch_problem(endpoint.spec, endpoint.options, len(endpoint.base_urls)) is None
        return replace(endpoint, batch=True) if able else endpoint

    found = replace(
        plan, models=tuple(map(batch, plan.models)), judges=tuple(map(batch, plan.judges))
    )
    if not any(e.batch for e in (*found.models, *found.judges)):
        raise InputError(
            f"`batch`: no model or judge of {plan.path} has a batch API (openai/, anthropic/)"
        )
    return found


def read_plan(path: Path) -> SweepPlan:
    """The sweep plan at ``path``, every key checked: one ``InputError`` naming the file,
    the line and the key at the first problem."""
    raw, text = read_toml(path)
    where = _Where(path, text)
    folder = path.parent.resolve()  # the same files and names from whatever folder it is run
    _check_keys(where, None, raw, _TOP, None)
    models, judges = raw.get("models"), raw.get("judges", {})
    if not isinstance(models, dict) or not models:
        raise InputError(f"{where(None, 'models')}: the plan needs [models.NAME] tables")
    if not isinstance(judges, dict):
        raise InputError(f"{where(None, 'judges')}: judges must be [judges.NAME] tables")
    suites = raw.get("suites")
    if not isinstance(suites, list) or not suites:
        raise InputError(f"{where(None, 'suites')}: the plan needs [[suites]] entries")
    judged = tuple(
        _endpoint(where, "judges", name, values, "judge", folder) for name, values in judges.items()
    )
    out = _typed(where, None, raw, "out", str) or "sweep-results"
    concurrency = _typed(where, None, raw, "concurrency", int, minimum=1)
    from hyoka.providers import CONCURRENCY

    plan = SweepPlan(
        path=path,
        out=folder / out,
        concurrency=concurrency or CONCURRENCY,
        models=tuple(
            _endpoint(where, "models", name, values, "model", folder)
            for name, values in models.items()
        ),
        judges=judged,
        suites=tuple(
            _suite(where, index, values, [j.name for j in judged])
            for index, values in enumerate(suites)
        ),
    )
    _check_cells(where, plan)
    return plan


def _check_cells(where: _Where, plan: SweepPlan) -> None:
    """What only the plan as a whole tells: two suites of one benchmark and variant (one
    column, one set of files), a model pfgen-bench cannot run."""
    seen: dict[str, int] = {}
    for index, suite in enumerate(plan.suites):
        if suite.label in seen:
            raise InputError(
                f"{where('suites', 'bench', index)}: suite {index + 1}: {suite.label} is "
                f"suite {seen[suite.label] + 1} already (one column and one set of files a "
                "benchmark and variant): keep one of them"
            )
        seen[suite.label] = index
        if suite.kind in RANKED_TOGETHER and len(plan.models) < 2:
            raise InputError(
                f"{where('suites', 'bench', index)}: suite {index + 1}: {suite.label} ranks "
                "the plan's models against each other: name two [models.NAME] or more"
            )
    if PFGEN not in seen:
        return
    for model in plan.models:
        problem = pfgen_problem(model.spec)
        if problem is not None:
            table = f"models.{model.name}"
            raise InputError(f"{where(table, 'model')}: {table}: {problem} (for {PFGEN})")


def known_suites() -> list[str]:
    """Every benchmark a sweep takes: pfgen-bench and the registry's benchmarks of every
    judging protocol a sweep knows (``suite_kind``)."""
    from hyoka.mtbench import definitions

    return [PFGEN, *(name for name in definitions() if suite_kind(name) is not None)]


def check_suite(suite: Suite, has_judges: bool) -> tuple[str | None, str] | None:
    """Why ``suite`` cannot run, as (the key at fault, the message); ``None`` when it can."""
    from hyoka.mtbench import definitions

    if suite.bench != PFGEN and suite.bench not in definitions():
        return "bench", f"unknown bench {suite.bench!r} (known: {', '.join(known_suites())})"
    if suite_kind(suite.bench) is None:
        judging = definitions()[suite.bench].judging
        return "bench", (
            f"{suite.bench} is judged as {judging.name} ({judging.summary}), which a sweep "
            f"does not run yet; run it with hyoka mtbench (a sweep takes: "
            f"{', '.join(known_suites())})"
        )
    kind = suite.kind
    problem = _ranking_problem(suite)
    if problem is not None:
        return problem
    if kind == PFGEN_KIND:
        from hyoka.pfgen import Mode

        if suite.variant is not None:
            return "variant", f"{PFGEN} has no variants"
        if suite.mode is not None and suite.mode not in {m.value for m in Mode}:
            return "mode", f"mode {suite.mode!r}: one of {', '.join(m.value for m in Mode)}"
        if suite.num_examples is not None and suite.num_examples > 49:
            return "num_examples", "num_examples must be between 0 and 49"
    else:
        if suite.mode is not None and kind != PAIRS:
            judged = "; a FastChat suite takes mode = 'pairwise'" if kind != MATCHES else ""
            return "mode", f"mode is for {PFGEN}{judged}"
        if suite.num_examples is not None:
            return "num_examples", f"num_examples is for {PFGEN} only"
        try:
            definitions()[suite.bench].variant(suite.variant)
        except InputError as exc:
            return "variant", str(exc).replace("`", "")
    if suite.judges is not None and kind not in JUDGED_KINDS:
        decides = "rules" if kind == RULED else "scorer"
        return "judges", f"{suite.bench} has no judge: its {decides} decides"
    if kind in JUDGED_KINDS and not has_judges:
        return "bench", f"{suite.bench} is graded by a judge: add a [judges.NAME] table"
    return None


def _ranking_problem(suite: Suite) -> tuple[str | None, str] | None:
    """What a suite ranked from matches needs and refuses: drawn matches their number and
    every question answered once; ``matches``, ``rounds`` and ``seed`` for them only."""
    kind = suite.kind
    if kind == MATCHES:
        if suite.matches is None:
            return "bench", f"{suite.bench} draws its matches: give matches = N"
        for key in ("limit", "trials", "variant"):
            if getattr(suite, key) is not None:
                return key, f"{key}: {suite.bench}'s draw takes every question, answered once"
        return None
    given = [key for key in ("matches", "rounds", "seed") if getattr(suite, key) is not None]
    if given:
        return given[0], f"{given[0]} is for a suite of drawn matches (rakuda)"
    if kind == PAIRS and suite.trials is not None:
        return "trials", f"trials: mode = '{PAIRWISE}' compares answers made once"
    return None
