"""JFBench as a benchmark a model answers: upstream's default build, each entry worded.

Upstream's ``eval.py`` answers its default benchmark, the single-constraint build of the
test set with seed 42 (every prompt with every constraint, shuffled: 52,200 entries; its
``--n-benchmark-data N`` keeps the first N, as ``--limit N`` does here), each entry's
prompt worded by upstream's source (``texts``), which ``hyoka data fetch jfbench`` lays
beside the prompts (``src/jfbench/...`` under the data folder, each file pinned by the
manifest). ``MarkdownFormatConstraint``'s 300 entries are left out: upstream words them at
random without a seed, so no build, its own included, can show them as it did.

A folder whose source files are not upstream's at c8fed01 (a stand-in with other wording)
still builds, with a ``HyokaWarning`` naming its digest: the digest is part of what every
judged verdict, result file and answer file records (``data``), so its numbers are never
taken for upstream's, and answers are judged only in the words they were made from.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path

from hyoka.data import fetch_hint
from hyoka.errors import HyokaWarning, MissingDataError
from hyoka.jfbench.build import DEFAULT_SEED, Entry, single_constraint
from hyoka.jfbench.catalogue import ConstraintSet
from hyoka.jfbench.inputs import Prompts, read_prompts
from hyoka.jfbench.texts import PROMPT_FILE, SOURCE_SHA256, Source, render_prompts

#: the build upstream's ``eval.py`` answers by default
CONSTRAINT_SET: ConstraintSet = "test"
#: upstream's name for the prompts' source in its result records
PROMPT_SOURCE = "ifbench"


@dataclass(frozen=True)
class Benchmark:
    """The built entries a model answers, by their place in the build (upstream's
    ``prompt_index``), each with the prompt it is shown; the prompts and the source."""

    prompts: Prompts
    source: Source
    entries: dict[int, Entry]
    texts: dict[int, str]

    @property
    def data(self) -> str:
        """What was built, as judged verdicts and result files record it."""
        return f"prompts@{self.prompts.sha256[:12]}+source@{self.source.digest[:12]}"


_BUILT: dict[tuple[str, str], Benchmark] = {}


def load_benchmark(prompts_path: Path, folder: Path) -> Benchmark:
    """The default build of the prompts at ``prompts_path``, worded by the upstream source
    in ``folder`` (the data folder of JFBench); built once per process for the same files."""
    if not (folder / PROMPT_FILE).is_file():
        raise MissingDataError(
            f"JFBench's prompts are worded by upstream's source, not found in {folder} "
            f"(no {PROMPT_FILE}): {fetch_hint('jfbench', file=f'jfbench/{PROMPT_FILE}')}"
        )
    prompts = read_prompts(prompts_path)
    source = Source.read(folder, check=False)
    key = (prompts.sha256, source.digest)
    if key in _BUILT:
        return _BUILT[key]
    if not source.pinned:
        warnings.warn(
            f"{folder}: not upstream's source at c8fed01 (digest {source.digest[:12]}, pinned "
            f"{SOURCE_SHA256[:12]}): prompts and judge questions are worded by these files",
            HyokaWarning,
            stacklevel=2,
        )
    entries = single_constraint(len(prompts.documents), CONSTRAINT_SET, DEFAULT_SEED)
    texts = render_prompts(source, entries, prompts.documents)
    kept = {i: e for i, e in enumerate(entries) if texts[i] is not None}
    shown = {i: text for i, text in enumerate(texts) if text is not None}
    built = Benchmark(prompts, source, kept, shown)
    _BUILT[key] = built
    return built
