"""``python -m hyoka``: the same as the ``hyoka`` console script."""

from hyoka.cli.main import app

app(prog_name="hyoka")
