"""The ``--thinking`` flag, shared by the commands that generate answers and those that judge.

Its own module so that no command module imports another, and so that the commands that
take it (and only they) load its enum, from the providers package it belongs to.
"""

from __future__ import annotations

from typing import Annotated

import typer

from hyoka.providers import ThinkingChoice

ThinkingOption = Annotated[
    ThinkingChoice,
    typer.Option(
        "--thinking",
        help="How a reply that thinks aloud (<think>...</think>, or a server's "
        "reasoning_content) is read: strip-think judges and scores the answer after the "
        "thinking (kept beside it in the record; an unclosed block is an empty answer); "
        "keep reads the whole text.",
    ),
]
