"""Text helpers the in-process backends share (none of them imports an engine)."""

from __future__ import annotations

from collections.abc import Sequence


def cut_at_stop(text: str, stops: Sequence[str]) -> tuple[str, bool]:
    """``text`` up to the first stop string, and whether one was found."""
    positions = [position for stop in stops if stop and (position := text.find(stop)) >= 0]
    if not positions:
        return text, False
    return text[: min(positions)], True


#: what a tokenizer's decoder writes for the bytes of an incomplete UTF-8 character
REPLACEMENT = "\ufffd"


def drop_cut_character(text: str) -> str:
    """``text`` without the replacement characters that end it: the decoded bytes of a
    character that a cut at ``max_tokens`` left incomplete (dropped, as llama.cpp drops
    them, so the text holds no more tokens than were generated)."""
    return text.rstrip(REPLACEMENT)
