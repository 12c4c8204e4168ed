"""pfgen-bench's protocol defaults, in one place: what a run asks the model when no flag
says otherwise.

Every other place reads them from here: ``GenerateSettings`` and the ``pfgen generate`` /
``run`` flags, the prompt builder and ``config.json`` (``build_prompt``, ``make_config``),
and the reference-set generator with its flags (``REFSET_PROTOCOL``). The values are
upstream's, as pfgen-spec.md (``../shared/docs/pfgen-spec.md``: the project's reading of
pfgen-bench's reference implementation) states them: §1 "keep the first ``num_examples``
(default 20)" and "Sampling defaults: temperature 1.0, top_p 0.98, max_tokens 300"; §5.1
for the reference sets, "temperature 1.0, top_p 0.98, top_k 1000". Changing one here
changes every default at once, and the run folder each default run hashes to.

This module imports nothing heavy, so that a command line can take its flags' defaults
from it at import.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass


@dataclass(frozen=True)
class Protocol:
    """The sampling and prompt settings of a pfgen-bench run."""

    #: Worked examples in each many-shot prompt (spec §1).
    num_examples: int = 20
    #: Sampling temperature (spec §1).
    temperature: float = 1.0
    #: Nucleus sampling (spec §1).
    top_p: float = 0.98
    #: Top-k sampling: unset in a benchmark run (spec §1 names none, and upstream's
    #: ``config.json`` records none); 1000 for reference sets (spec §5.1).
    top_k: int | None = None
    #: Longest answer, in tokens (spec §1).
    max_tokens: int = 300
    #: Answers to each question. Not upstream's number but hyoka's default: spec §1 says
    #: upstream runs open models for 100 trials and API models for few; 10 keeps a first run
    #: affordable, and the score's ``±`` says how far it may move with more.
    trials: int = 10


#: The settings of a benchmark run (``hyoka pfgen generate`` / ``run``).
PROTOCOL = Protocol()

#: The settings of reference-set generation (seeds 000/002 §3.2.1, spec §5.1): the
#: benchmark's, with top-k 1000.
REFSET_PROTOCOL = dataclasses.replace(PROTOCOL, top_k=1000)
