"""List prices of hosted models, as data, signed with the date they were read.

A sweep's ``--plan`` prices each cell's estimated tokens at these prices (US dollars per
million tokens, input and output), so a team sees what a sweep costs before it pays.
Prices move: every estimate names ``AS_OF``, a plan may give ``price_in`` / ``price_out``
for any model or judge (then those are used and said so), and a hosted model missing here
has no price (``n/a``), never a guessed one. A model served by the user (a ``base_url``,
or a backend that runs in process) costs nothing per token.
"""

from __future__ import annotations

from dataclasses import dataclass

#: the date the list prices below were read from the providers' price pages
AS_OF = "2025-10-01"

#: ``provider/model`` -> (input, output) in USD per million tokens, list prices on ``AS_OF``
LIST_PRICES: dict[str, tuple[float, float]] = {
    "openai/gpt-4o": (2.50, 10.00),
    "openai/gpt-4o-2024-08-06": (2.50, 10.00),
    "openai/gpt-4o-mini": (0.15, 0.60),
    "openai/gpt-4.1": (2.00, 8.00),
    "openai/gpt-4.1-mini": (0.40, 1.60),
    "openai/gpt-4-turbo": (10.00, 30.00),
    "openai/gpt-4-turbo-preview": (10.00, 30.00),
    "openai/gpt-4": (30.00, 60.00),
    "anthropic/claude-sonnet-4-5": (3.00, 15.00),
    "anthropic/claude-opus-4-1": (15.00, 75.00),
    "google/gemini-2.0-flash": (0.10, 0.40),
    "google/gemini-2.5-flash": (0.30, 2.50),
    "google/gemini-2.5-pro": (1.25, 10.00),
}

#: what a batch API's tokens cost of the list price (OpenAI's Batch API and Anthropic's
#: Message Batches: half, on ``AS_OF``, for every model listed above); a plan's own
#: ``price_in`` / ``price_out`` are taken as they are
BATCH_DISCOUNT = 0.5

#: the backend that replies from a script: no price per token
SCRIPTED = "scripted"

#: seconds one call takes where the plan does not say (``seconds_per_call``): a guess for
#: a hosted model's reply of a few hundred tokens; a script answers at once
SECONDS_PER_CALL = 5.0


@dataclass(frozen=True)
class Price:
    """What a model's tokens cost (USD per million; ``None``: not known) and where the
    figure comes from: ``list@AS_OF``, ``plan``, ``local`` or ``unknown``."""

    price_in: float | None
    price_out: float | None
    source: str

    def usd(self, prompt_tokens: int, completion_tokens: int) -> float | None:
        """What the tokens cost at this price (``judge.cost_usd``), ``None`` where unknown."""
        from hyoka.judge import cost_usd  # on first use: reading a plan needs no judge
        from hyoka.providers import Usage

        if self.price_in is None or self.price_out is None:
            return None
        usage = Usage(prompt_tokens=prompt_tokens, completion_tokens=completion_tokens)
        return cost_usd(usage, self.price_in, self.price_out)


def price_of(
    spec: str,
    base_url: str | None = None,
    price_in: float | None = None,
    price_out: float | None = None,
    *,
    batch: bool = False,
) -> Price:
    """The price of ``spec``'s tokens: the plan's where it gives one, nothing for a model
    the user serves (at ``base_url``, on a backend whose replies local packages compute,
    ``providers.backend_packages``, or a script), else the list price on ``AS_OF`` (asked
    through its batch API, ``batch``: half of it, ``BATCH_DISCOUNT``), else unknown."""
    from hyoka.providers import backend_packages  # on first use: reading a plan needs none

    if price_in is not None or price_out is not None:
        return Price(price_in or 0.0, price_out or 0.0, "plan")
    provider = spec.partition("/")[0]
    if backend_packages(provider) or provider == SCRIPTED or base_url is not None:
        return Price(0.0, 0.0, "local")
    listed = LIST_PRICES.get(spec)
    if listed is None:
        return Price(None, None, "unknown")
    if batch:
        cut = BATCH_DISCOUNT
        return Price(listed[0] * cut, listed[1] * cut, f"list@{AS_OF}×{cut:g} batch")
    return Price(listed[0], listed[1], f"list@{AS_OF}")


def seconds_per_call(spec: str, given: float | None) -> float:
    """The plan's time per call, else none for a script, else ``SECONDS_PER_CALL``."""
    if given is not None:
        return given
    return 0.0 if spec.partition("/")[0] == "scripted" else SECONDS_PER_CALL
