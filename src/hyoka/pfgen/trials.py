"""Where reading trials used to live; the run-folder layout now has one home.

Kept only so that older imports keep working: use ``hyoka.pfgen`` (``find_runs``,
``read_trials``, ``TrialsInput``) instead; the layout itself is ``hyoka.store.pfgen_runs``.
"""

from hyoka.store import pfgen_runs

TRIAL_GLOB = pfgen_runs.TRIAL_GLOB
TRIALS_JSONL = pfgen_runs.TRIALS_JSONL
TRIALS_XZ = pfgen_runs.TRIALS_XZ
TrialsInput = pfgen_runs.TrialsInput
find_runs = pfgen_runs.find_runs
read_trials = pfgen_runs.read_trials

__all__ = ["TRIALS_JSONL", "TRIALS_XZ", "TRIAL_GLOB", "TrialsInput", "find_runs", "read_trials"]
