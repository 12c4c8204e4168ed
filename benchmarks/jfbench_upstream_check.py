"""Maintainer check: hyoka words JFBench's prompts and judge prompts as upstream's source does.

    git -C MIRROR archive c8fed01 | tar -x -C UPSTREAM   # pfnet-research/jfbench
    python benchmarks/jfbench_upstream_check.py UPSTREAM [--data-dir DIR]

hyoka carries none of upstream's prose: ``hyoka.jfbench.texts`` reads upstream's source at
run time (``--upstream``), pinned by a SHA-256. The tests cannot hold that source (the shared
data holds upstream's data files only), so they check the evaluator on a small tree in
upstream's layout written with hyoka's own words; this script checks it on upstream's own
checkout. Each check prints the value upstream's code gave beside hyoka's, and the script
exits 1 when one differs:

- the checkout is upstream's at c8fed01 (its files' digest);
- the first 300 prompts of the test set, and every prompt of both sets but
  MarkdownFormatConstraint's (upstream draws that one's wording without a seed: 300 entries
  a set differ between its own builds), against the digest of the prompts upstream's
  ``build.py`` built (seed 42), the texts joined by NUL;
- ``hyoka jfbench build --upstream`` (a real process) words each prompt it builds;
- multi-constraint builds (``--n-constraints`` 2, 3, 5 and 10, seed 42, both sets): their
  entries (prompt, constraints, seeds) and every prompt without MarkdownFormatConstraint
  against the digests of those upstream's ``get_benchmark_data_with_multiple_constraints``
  built, and ``hyoka jfbench build --n-constraints 3`` words the prompts it draws;
- the judge prompt of each of the 43 judged constraints of the test set (on prompts 0, 106
  and 299, about two responses), against the digest of upstream's ``_prompt``;
- the six rules that read their word lists from upstream's source decide as upstream's
  classes decided: test_jfbench_rules' hand-written cases for them, and responses made of
  upstream's own lists (ten allowed names pass, nine fail; the sentence echoed passes), and
  on the embedded model's answers (test_jfbench_rules' fixture, which pins the other rules).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from hyoka.errors import InputError
from hyoka.jfbench.build import identity_lines, multiple_constraints, single_constraint, stable_seed
from hyoka.jfbench.catalogue import COLLECTIONS, classes
from hyoka.jfbench.inputs import PROMPTS_IN_DATA, read_prompts
from hyoka.jfbench.rules import check_of
from hyoka.jfbench.texts import (
    SOURCE_SHA256,
    Source,
    render_prompts,
    source_digest,
    source_files,
)

TESTS = Path(__file__).resolve().parents[1] / "tests"
DATA = Path(__file__).resolve().parents[2] / "shared" / "data"

#: upstream's seed-42 test build: its first 300 prompts (no MarkdownFormat among them), and
#: every prompt but MarkdownFormatConstraint's (51,900 of 52,200; train: 40,800 of 41,100)
FIRST_300 = "89c982abfa4eae3aa59d66a6dc449dc48059d914bbb8cb4d3786b8f1351b0d9e"
ALL_SEEDED = {
    "test": "f244eb3a96081e242a08eaa16abc8ffeee576f318df60558f9ece0ab229cf94f",
    "train": "7bb5d75359dac82d009341e2043c69e76aef311e84d6d6a30510bf4a18166621",
}
#: upstream's multi-constraint builds at seed 42, (set, n_constraints, n_benchmark_data): the
#: digest of their identity lines (as test_jfbench_build), and how many prompts carry no
#: MarkdownFormatConstraint with the digest of those prompts (in order, joined by NUL)
MULTI = {
    ("test", 2, 100): (
        "324bd4e247e7",
        95,
        "0a9f413bca8fc11f119c06ee3e41513ec5174d244a98cfa3a122b61695fd00a9",
    ),
    ("test", 3, 100): (
        "45af423821a6",
        96,
        "2c95a3d385c5bee99ac36b199f35476ed37415ac4cfd5f411baecb878a4083f8",
    ),
    ("test", 5, 100): (
        "dd1b302c7b95",
        98,
        "d29f08d7d4cbbf8c143f21dfcc5e182870edfe92b619421f25c985c7162acc74",
    ),
    ("test", 2, 1000): (
        "a45ccdb5c226",
        963,
        "2f289300bc6de71b3c7428a79fb8a9c95dba3d41910d33a6fbe7f750156032f2",
    ),
    ("test", 10, 50): (
        "859762f1c03d",
        47,
        "9d96469d47d2b57ce6d6283d8800e95318d519776169b2dfaf32a4926d2757b2",
    ),
    ("train", 2, 100): (
        "98c0f75efaeb",
        97,
        "271acabfffc5701217d9ce3d8d181a02b1cdf4cda6c3bc7961a5cf26a576dcce",
    ),
    ("train", 3, 100): (
        "5b4f8045379c",
        99,
        "865e8c2e616934e4d4c492f6963062a79a0dc95e674aed502e4e82c44ec12341",
    ),
    ("train", 5, 100): (
        "cdf1e4ee0fbe",
        94,
        "6d60ff619abf9cc25e447419e81324deac3b58400220dadc9e497fd6f55a68f2",
    ),
    ("train", 2, 1000): (
        "0422429f85ef",
        970,
        "21c769b9cfa4b1d96187942fa059cca7332dee258a892f4d69f03c2cfd976376",
    ),
    ("train", 10, 50): (
        "3403c06f1a9e",
        47,
        "b133e43795a24dd0e5736c2caa74dd9d369c774ee1b61f51f139a22c660f43e6",
    ),
}
#: upstream's ``_prompt`` of each of the 43 judged constraints of the test set, built as its
#: single-constraint build builds them on prompts 0, 106 and 299, about two responses
JUDGE_PROMPTS = "6ffb0eb95b8ff3ac05c374049c8fc9953e4a927b82a9358ccce9ff5eeca02ee3"
RESPONSES = ("こんにちは。今日は晴れです。\n", "Hello, world! 'quoted' {braces}")
SOURCED_NAMES = (
    "PersonNamesCountIfbenchConstraint",
    "PronounsCountIfbenchConstraint",
    "ConjunctionCountIfbenchConstraint",
    "SimpleRepeatIfbenchConstraint",
    "StopWordsRatioIfbenchConstraint",
    "StartVerbWordsIfbenchConstraint",
)
#: every entry of a set: 174 constraints x 300 prompts (train: 137)
UNSEEDED = ({"MarkdownFormatConstraint"}, 300)


def _digest(texts: list[str | None]) -> str:
    digest = hashlib.sha256()
    for text in texts:
        if text is not None:
            digest.update(text.encode() + b"\0")
    return digest.hexdigest()


class _Report:
    """Each check's line, upstream's value beside hyoka's; whether any differed."""

    def __init__(self) -> None:
        self.differs = False

    def line(self, name: str, upstream: object, hyoka: object) -> None:
        same = upstream == hyoka
        self.differs |= not same
        print(f"{name:>34}: upstream {upstream}  hyoka {hyoka}  {'same' if same else 'DIFFERS'}")


def _prompts(report: _Report, source: Source, prompts: Path) -> None:
    documents = read_prompts(prompts).documents
    first = single_constraint(len(documents), "test", n_benchmark_data=300)
    report.line(
        "first 300 test prompts", FIRST_300, _digest(render_prompts(source, first, documents))
    )
    for constraint_set in ("test", "train"):
        entries = single_constraint(len(documents), constraint_set)
        texts = render_prompts(source, entries, documents)
        unseeded = {e.constraints[0].name for e, t in zip(entries, texts, strict=True) if t is None}
        left_out = (unseeded, sum(t is None for t in texts))
        report.line(f"{constraint_set} prompts left unworded", UNSEEDED, left_out)
        report.line(
            f"every seeded {constraint_set} prompt", ALL_SEEDED[constraint_set], _digest(texts)
        )


def _build(report: _Report, upstream: Path, prompts: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "hyoka", "jfbench", "build", "--prompts", str(prompts),
         "--upstream", str(upstream), "--n-benchmark-data", "3", "--json"],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        print(done.stderr, file=sys.stderr)
        report.line("hyoka jfbench build --upstream", "exit 0", f"exit {done.returncode}")
        return
    shown = json.loads(done.stdout)
    worded = {"rendered": shown["rendered"], "unseeded": shown["unseeded"]}
    report.line("hyoka jfbench build --upstream", {"rendered": 3, "unseeded": 0}, worded)


def _multi(report: _Report, source: Source, upstream: Path, prompts: Path) -> None:
    documents = read_prompts(prompts).documents
    for (constraint_set, n, size), (entries_digest, worded, digest) in MULTI.items():
        entries = multiple_constraints(documents, n, size, constraint_set)  # type: ignore[arg-type]
        built = hashlib.sha256(identity_lines(entries).encode()).hexdigest()[:12]
        texts = render_prompts(source, entries, documents)
        shown = (built, sum(t is not None for t in texts), _digest(texts))
        report.line(
            f"{constraint_set} {n} constraints x {size}",
            (entries_digest, worded, digest[:12]),
            (shown[0], shown[1], shown[2][:12]),
        )
    done = subprocess.run(
        [sys.executable, "-m", "hyoka", "jfbench", "build", "--prompts", str(prompts),
         "--upstream", str(upstream), "--n-constraints", "3", "--n-benchmark-data", "100",
         "--json"],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        print(done.stderr, file=sys.stderr)
    shown_json = json.loads(done.stdout) if done.returncode == 0 else {}
    report.line(
        "build --n-constraints 3 --upstream",
        (100, 96, 4),
        (shown_json.get("entries"), shown_json.get("rendered"), shown_json.get("unseeded")),
    )


def _judge_prompts(report: _Report, source: Source, prompts: Path) -> None:
    documents = read_prompts(prompts).documents
    asked: list[str | None] = [
        source.judge_prompt(f, stable_seed("ifbench", str(p), "llm", str(i)), documents[p], r)
        for p in (0, 106, 299)
        for i, f in enumerate(COLLECTIONS["test"].judged)
        for r in RESPONSES
    ]
    report.line("judge prompts", (258, JUDGE_PROMPTS), (len(asked), _digest(asked)))


def _data_folder(report: _Report, upstream: Path, data_dir: Path) -> None:
    """The checkout laid out as ``hyoka data fetch jfbench`` lays it (its source files the
    manifest pins, beside the prompts): the benchmark ``mtbench generate --bench jfbench``
    answers, and the judge question of every judged entry of it."""
    from hyoka.data import manifest
    from hyoka.jfbench import Response, judge_settings, load_benchmark, plan_judged

    pinned = {
        f.upstream: f.sha256 for f in manifest("jfbench").files if f.upstream.startswith("src/")
    }
    found = {
        str(relative): hashlib.sha256((upstream / relative).read_bytes()).hexdigest()
        for relative in source_files(upstream)
    }
    report.line("source files the manifest pins", len(found), len(pinned))
    report.line("  ... each SHA-256 equal", True, pinned == found)
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "jfbench"
        root.mkdir()
        (root / "data").symlink_to((data_dir / PROMPTS_IN_DATA).parent.resolve())
        (root / "src").symlink_to(upstream / "src")
        built = load_benchmark(root / "data" / PROMPTS_IN_DATA.name, root)
        judged = [
            Response(p, e, RESPONSES[0])
            for p, e in built.entries.items()
            if any(c.factory.judged for c in e.constraints)
        ]
        plan = plan_judged(
            "m", judged, built.prompts.documents, built.source,
            judge_settings("openai/m"), Path(folder) / "log.jsonl", data=built.data,
        )  # fmt: skip
    # every entry but MarkdownFormatConstraint's 300; 43 judged classes x 300 prompts
    report.line(
        "entries answered, source pinned", (51900, True), (len(built.entries), built.source.pinned)
    )
    report.line("judge questions of the build", 12900, len(plan.tasks))


def _word_lists(report: _Report, source: Source) -> None:
    sys.path.insert(0, str(TESTS))
    rules = importlib.import_module("test_jfbench_rules")
    doc: str = rules.DOC
    tests = classes("test")
    cases: list[tuple[str, str, bool]] = [c for c in rules.CASES if c[0] in SOURCED_NAMES]
    names = sorted(source.instance(tests[SOURCED_NAMES[0]], None).attributes["_allowed_names"])
    sentence = source.instance(tests[SOURCED_NAMES[3]], None).attributes["_exact_text"]
    cases += [
        (SOURCED_NAMES[0], " ".join(names[:10]), True),
        (SOURCED_NAMES[0], " ".join(names[:9]), False),
        (SOURCED_NAMES[3], f"  {sentence}\n", True),
    ]
    for name, response, upstream in cases:
        shown = repr(response) if len(response) <= 16 else f"{response[:12]!r}... ({len(response)})"
        decided: Callable[[str], bool] = check_of(tests[name], doc, source)
        report.line(
            f"{name.removesuffix('IfbenchConstraint')} {shown}", upstream, decided(response)
        )


def _embedded_answers(report: _Report, source: Source, prompts: Path) -> None:
    """The embedded model's answers (test_jfbench_rules' fixture): the six rules that read
    upstream's lists decide each as upstream's classes did."""
    documents = read_prompts(prompts).documents
    factories = COLLECTIONS["test"].rule_based
    same = total = 0
    for line in (
        (TESTS / "fixtures" / "jfbench" / "embedded_verdicts.jsonl")
        .read_text(encoding="utf-8")
        .splitlines()
    ):
        answer = json.loads(line)
        for key, upstream in answer["verdicts"].items():
            factory = factories[int(key.split(":")[0])]
            if (factory.positive or factory).name not in SOURCED_NAMES:
                continue
            check = check_of(factory, documents[answer["prompt"]], source)
            total += 1
            same += check(answer["response"]) is upstream
    report.line("embedded answers, sourced rules", (total, total), (total, same))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("upstream", type=Path, help="a checkout of pfnet-research/jfbench c8fed01")
    parser.add_argument("--data-dir", type=Path, default=DATA, help="the shared data")
    args = parser.parse_args()
    upstream: Path = args.upstream.resolve()
    prompts = args.data_dir / PROMPTS_IN_DATA
    report = _Report()
    try:
        report.line("source digest", SOURCE_SHA256[:12], source_digest(upstream)[:12])
        source = Source.read(upstream)
        _prompts(report, source, prompts)
        _build(report, upstream, prompts)
        _multi(report, source, upstream, prompts)
        _judge_prompts(report, source, prompts)
        _data_folder(report, upstream, args.data_dir)
        _word_lists(report, source)
        _embedded_answers(report, source, prompts)
    except InputError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 1 if report.differs else 0


if __name__ == "__main__":
    raise SystemExit(main())
