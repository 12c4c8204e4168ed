"""Which benchmark (and variant) a judgment file belongs to, where files come from anywhere.

``judge meta`` puts judges side by side per suite: grades of one benchmark's items are
compared, on that benchmark's scale. A folder's name is no good witness: hyoka writes a
benchmark's judgments under its own name (``pfmt-fin/model_judgment``), upstream under
its data folder's (``pfmt-bench-fin-ja``), and ``--output-dir`` under any name at all. So
the suite is, in order:

- the benchmark (and variant) the file's hyoka manifest names, as ``mtbench verify`` and
  the report read it (``BenchSpec.recorded_variant``: a variant this hyoka does not know
  is an error naming the manifest);
- else the benchmark the registry knows by the folder's name (``bench_name``: the folder
  holding ``model_judgment``, else the file's or folder's own), by any of its names
  (``registry.spec_named``: hyoka's, upstream's, its data folder's), read under its default
  variant; a single-grading file of a benchmark with variants has each model's rows
  under the variant their judged prompts show (``judged_variant``, as the leaderboard
  signs them: Stability's published file holds rows of two);
- else none: the suite is named by the folder, and its scale is unknown (the reader says
  so rather than guess one).

A suite is named by its benchmark's data folder (the name its published judgments lie
under, whichever name the file was found by), with the variant where one other than the
default is recorded. A known benchmark's questions are loaded once per run (the
questions only: the line checks of ``line_checks.check_line`` as the leaderboard applies
them need no more), from the data directory given.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from hyoka.errors import InputError
from hyoka.mtbench import (
    Bench,
    BenchSpec,
    SingleJudgmentLine,
    Variant,
    VariantBenches,
    row_variants,
    spec_named,
)
from hyoka.store import codec_of, manifest_path, read_manifest


@dataclass(frozen=True)
class Suite:
    """A judgment file's suite: its name where rows show it, its benchmark and variant
    (``spec`` ``None``: no benchmark hyoka defines)."""

    name: str
    spec: BenchSpec | None = None
    variant: Variant | None = None

    @property
    def scale(self) -> tuple[int, int] | None:
        return None if self.spec is None else self.spec.scale


def file_stem(path: Path) -> str:
    """A judgment file's name without ``.jsonl`` (and a compression suffix)."""
    name = path.name
    if codec_of(path):
        name = name.rsplit(".", 1)[0]
    return name.removesuffix(".jsonl") or name


def bench_name(path: Path) -> str:
    """The benchmark a FastChat judgment path names by its folders: the folder holding its
    ``model_judgment``, else the file's or folder's own name."""
    parts = path.resolve().parts
    if "model_judgment" in parts:
        at = len(parts) - 1 - parts[::-1].index("model_judgment")
        if at > 0:
            return parts[at - 1]
    return file_stem(path)


class Suites:
    """The suites of the judgment files one run reads, each benchmark (and variant)
    loaded once from ``data_dir`` (``None``: the default data directory)."""

    def __init__(self, data_dir: Path | None = None) -> None:
        self.data_dir = data_dir
        self._benches: dict[tuple[str, str | None], Bench] = {}
        self._variants: dict[str, VariantBenches] = {}

    def of(self, file: Path, given: Path) -> Suite:
        """The suite of judgment ``file``, found under the path ``given`` (the module's
        rule: its manifest, else the name of ``given``'s folders, under the default
        variant)."""
        manifest = read_manifest(file)
        named = manifest.identity.get("benchmark") if manifest is not None else None
        spec = spec_named(named) if isinstance(named, str) else None
        if manifest is not None and spec is not None:
            signed = manifest.identity.get("variant")
            variant = spec.recorded_variant(
                signed if isinstance(signed, str) else None, manifest_path(file)
            )
        else:
            spec = spec_named(bench_name(given))
            if spec is None:
                return Suite(bench_name(given))
            variant = spec.variant(None)
        return Suite(_name(spec, variant), spec, variant)

    def of_rows(
        self, file: Path, given: Path, lines: Sequence[SingleJudgmentLine]
    ) -> dict[str, Suite]:
        """The suite of each model's rows of single-grading ``file`` (``of``); in a file
        without a manifest, of a benchmark with variants, each model's variant is the one
        its judged prompts show (``judged_variant.row_variants``; the default where no
        line keeps one), as the leaderboard signs its rows: one upstream file may hold
        rows of several (Stability's). Rows whose prompts no variant builds are an error
        naming the file and the model."""
        suite = self.of(file, given)
        models = dict.fromkeys(line.model for line in lines)
        spec = suite.spec
        if spec is None or not spec.variants or read_manifest(file) is not None:
            return dict.fromkeys(models, suite)
        if spec.name not in self._variants:
            self._variants[spec.name] = VariantBenches(spec, self.data_dir)
        found = row_variants(spec, lines, self._variants[spec.name])
        rows = {}
        for model, candidates in found.items():
            if candidates is not None and not candidates:
                raise InputError(
                    f"{file}: the judged prompts of {model!r} are no {spec.title} variant's "
                    "(a variant this hyoka does not know, or edited lines)"
                )
            variant = suite.variant if candidates is None else candidates[0]
            rows[model] = Suite(_name(spec, variant), spec, variant)
        return rows

    def bench(self, suite: Suite) -> Bench | None:
        """The questions of ``suite``'s benchmark (its variant's), loaded once; ``None``
        for no benchmark hyoka defines."""
        if suite.spec is None:
            return None
        key = (suite.spec.name, None if suite.variant is None else suite.variant.name)
        if key not in self._benches:
            self._benches[key] = Bench.load(key[0], self.data_dir, key[1], questions_only=True)
        return self._benches[key]


def _name(spec: BenchSpec, variant: Variant | None) -> str:
    if variant is None or variant == spec.variants[0]:
        return spec.folder
    return f"{spec.folder} ({variant.name})"
