"""Synthetic long results tables with known weaknesses, for the analysis tests."""

from __future__ import annotations

import numpy as np
import pandas as pd


def results_frame(
    spec: dict[tuple[str, str], float],
    *,
    n: int = 40,
    metric: str = "acc",
    threshold: float = 0.5,
    query_types: tuple[str, ...] = ("factual", "how-to"),
    seed: int = 0,
) -> pd.DataFrame:
    """Bernoulli scores per (model, topic) with the given success probability; ``n`` per cell."""
    rng = np.random.default_rng(seed)
    rows = []
    for (model, topic), p in spec.items():
        for i in range(n):
            value = float(rng.random() < p)
            rows.append(
                {
                    "case_id": f"{topic}-{i}",
                    "model": model,
                    "evaluator": "e",
                    "metric": metric,
                    "primary": True,
                    "status": "ok",
                    "value": value,
                    "passed": value >= threshold,
                    "threshold": threshold,
                    "topic": topic,
                    "query_type": query_types[i % len(query_types)],
                    "perturbation": None,
                    "parent_id": None,
                }
            )
    return pd.DataFrame(rows)
