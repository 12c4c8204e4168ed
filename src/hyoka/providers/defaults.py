"""The requests a client keeps in flight at once where its caller does not say: one home
for the number that ``ModelClient``, ``connect``, a judge's ``Connection``, the generation
settings and every ``--concurrency`` flag default to.

A module of its own, importing nothing, so that a command's flags can show it without
loading the client.
"""

from __future__ import annotations

#: requests in flight at once (the client's adaptive limit starts here and never exceeds it)
CONCURRENCY = 8
