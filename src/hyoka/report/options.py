"""What a report build is asked for: its data, how many bootstrap rounds, which extras.

Its own module so that the site and the sections it builds share it, without the sections
importing the site that calls them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class ReportOptions:
    data_dir: Path | None = None
    cache_dir: Path | None = None
    #: public pfgen runs to rank the user's among; None: the data directory's, if present
    public_dir: Path | None = None
    public: bool = True
    rounds: int = 1000
    seed: int = 0
    workers: int | None = None
    #: put the judged models' answers on the MT-bench question pages (about 6 MB more for
    #: the published pfmt-bench-fin-ja answers)
    answers: bool = False
    #: run the reference-set stability experiment over every run with answers (slow: every
    #: answer is measured again; a ``hyoka pfgen stability --json`` file given is free)
    stability: bool = False
    #: add the judges page: ``hyoka judge meta`` over the data directory's published judgments
    judges: bool = False
