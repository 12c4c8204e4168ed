"""``python -m hyoka``: the same as the ``hyoka`` console script."""

from hyoka.cli.main import run

run()
