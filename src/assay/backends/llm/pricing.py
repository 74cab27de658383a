"""Token prices per model, to turn judge usage into cost.

Prices are in US dollars per million tokens and change often: the defaults are a convenience,
dated below; pass your own table (a mapping or a JSON file) for real budgets. A model missing from
the table has an *unknown* cost (None), never a silent 0; local servers are priced by declaring
the model with zero prices.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from assay.backends.llm.protocol import Usage
from assay.errors import InvalidInputError

#: When the default prices were taken from the providers' public price pages.
DEFAULT_PRICES_AS_OF = "2025-06"

#: USD per million (input, output) tokens.
DEFAULT_PRICES: dict[str, tuple[float, float]] = {
    "gpt-4o": (2.50, 10.00),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "o4-mini": (1.10, 4.40),
}


@dataclass(frozen=True)
class Price:
    """USD per million input and output tokens."""

    input_per_million: float
    output_per_million: float

    def cost(self, usage: Usage) -> float:
        """The cost of ``usage`` in USD."""
        return (
            usage.prompt_tokens * self.input_per_million
            + usage.completion_tokens * self.output_per_million
        ) / 1_000_000


class PriceTable:
    """Looks up a model's price; exact names first, then the longest matching prefix
    (so ``gpt-4o-mini-2024-07-18`` finds ``gpt-4o-mini``).

    Example:
        >>> table = PriceTable({"my-model": (1.0, 2.0)})
        >>> table.cost("my-model-v2", Usage(1_000_000, 500_000))
        2.0
        >>> table.cost("unknown", Usage(10, 10)) is None
        True
    """

    def __init__(self, prices: Mapping[str, tuple[float, float] | Price] | None = None) -> None:
        source = DEFAULT_PRICES if prices is None else prices
        self.prices: dict[str, Price] = {}
        for model, price in source.items():
            if not isinstance(price, Price):
                try:
                    inp, out = price
                    price = Price(float(inp), float(out))
                except (TypeError, ValueError):
                    raise InvalidInputError(
                        f"price of {model!r} must be [input_per_million, output_per_million]; "
                        f"got {price!r}"
                    ) from None
            if price.input_per_million < 0 or price.output_per_million < 0:
                raise InvalidInputError(f"price of {model!r} is negative: {price}")
            self.prices[model] = price

    @classmethod
    def load(cls, path: str | Path, *, include_defaults: bool = True) -> PriceTable:
        """Read ``{"model": [input_per_million, output_per_million], ...}`` from a JSON file."""
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise InvalidInputError(f"{path}: cannot read the price table: {exc}") from None
        if not isinstance(data, dict):
            raise InvalidInputError(f"{path}: a price table is a JSON object model -> prices")
        merged: dict[str, tuple[float, float] | Price] = (
            dict(DEFAULT_PRICES) if include_defaults else {}
        )
        merged.update(data)
        return cls(merged)

    def price(self, model: str) -> Price | None:
        """The price of ``model``, or None when unknown."""
        if model in self.prices:
            return self.prices[model]
        matches = [name for name in self.prices if model.startswith(name)]
        return self.prices[max(matches, key=len)] if matches else None

    def cost(self, model: str, usage: Usage) -> float | None:
        """The cost of ``usage`` on ``model`` in USD, or None when the price is unknown."""
        price = self.price(model)
        return None if price is None else price.cost(usage)

    def __repr__(self) -> str:
        return f"PriceTable({len(self.prices)} models)"
