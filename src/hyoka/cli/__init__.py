"""The ``hyoka`` command: thin wiring from flags to library calls, nothing else."""
