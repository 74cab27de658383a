"""The populations bench_label_designs.py labels: real human labels, each system a population.

* FRANK (``../shared/data/calibration/frank``): each ``model_name`` is a system under validation;
  the label is human ``Factuality == 1``; the machine is the precomputed ``BertScore P Art`` score
  (the metric bench_verdict.py decides FRANK with).
* SummEdits (``../shared/data/faithfulness/summedits``): each domain is a system; the label is 1
  (consistent); the machine is assay's ``lexical_groundedness_rouge1_precision`` (ROUGE-1 precision
  of the summary against the document: no model, computed here for every row).
* The same labels with a *simulated judge* of known quality: ``score = label + N(0, σ²)`` with σ
  set so that the AUROC is :data:`JUDGE_AUROC` in expectation (binormal model,
  ``AUROC = Φ(1 / (σ √2))``), drawn once with a fixed seed. The two real metrics are weak within a
  system (AUROC 0.5–0.8); the goals of issue 45 are stated for a metric of AUROC ≈ 0.94, which
  neither data set has without a model, so the judge supplies one on the same real labels.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
SHARED = HERE.parents[1] / "shared" / "data"
FRANK = SHARED / "calibration" / "frank"
SUMMEDITS = SHARED / "faithfulness" / "summedits"
FRANK_METRIC = "BertScore P Art"
SUMMEDITS_METRIC = "lexical_groundedness_rouge1_precision"
#: AUROC of the simulated judge, and the seed its noise is drawn with.
JUDGE_AUROC, JUDGE_SEED = 0.94, 945


@dataclass(frozen=True)
class Population:
    """Every unit of every system of one data set, with its human label and machine score.

    Attributes:
        name: how the report names it (data set · machine).
        case_id: the unit's case id (unique within a system).
        system: the system each unit belongs to.
        label: the human label (1 = PASS).
        score: the machine's score (higher = more likely PASS).
    """

    name: str
    case_id: np.ndarray
    system: np.ndarray
    label: np.ndarray
    score: np.ndarray

    @cached_property
    def systems(self) -> list[str]:
        """The systems, sorted."""
        return sorted(set(self.system.tolist()))

    @cached_property
    def keys(self) -> list[tuple[str, str]]:
        """Every unit as (case id, system), in row order."""
        return list(zip(self.case_id.tolist(), self.system.tolist(), strict=True))

    @cached_property
    def row(self) -> dict[tuple[str, str], int]:
        """Row of each unit."""
        return {key: i for i, key in enumerate(self.keys)}

    def truth(self, system: str) -> float:
        """The finite-population pass rate of the system's units (the estimand)."""
        return float(self.label[self.system == system].mean())

    def size(self, system: str) -> int:
        """How many units the system has."""
        return int((self.system == system).sum())

    def auroc(self, system: str) -> float:
        """AUROC of the machine's score against the human label within the system (NaN when
        every label is the same)."""
        from sklearn.metrics import roc_auc_score

        mask = self.system == system
        y = self.label[mask]
        if y.min() == y.max():
            return float("nan")
        return float(roc_auc_score(y, self.score[mask]))


def _population(name: str, frame: pd.DataFrame) -> Population:
    return Population(
        name=name,
        case_id=frame["case_id"].astype(str).to_numpy(),
        system=frame["system"].astype(str).to_numpy(),
        label=frame["label"].astype(int).to_numpy(),
        score=frame["score"].astype(float).to_numpy(),
    )


def frank_frame() -> pd.DataFrame:
    """FRANK's summaries: ``case_id`` (the article hash), ``system``, ``label``, ``score``."""
    human = pd.DataFrame(json.loads((FRANK / "human_annotations.json").read_text("utf-8")))
    scores = pd.DataFrame(
        json.loads((FRANK / "baseline_factuality_metrics_outputs.json").read_text("utf-8"))
    )
    frame = human.merge(scores, on=["hash", "model_name"], suffixes=("", "_metrics"))
    frame = frame[frame[FRANK_METRIC].notna()]
    return pd.DataFrame(
        {
            "case_id": frame["hash"],
            "system": frame["model_name"],
            "label": (frame["Factuality"] == 1).astype(int),
            "score": frame[FRANK_METRIC].astype(float),
        }
    ).reset_index(drop=True)


def summedits_frame() -> pd.DataFrame:
    """SummEdits' summaries: ``case_id``, ``system`` (the domain), ``label``, ``score`` (assay's
    lexical groundedness of the summary against its document)."""
    from assay.data.case import TestCase
    from assay.evaluators.lexical_groundedness import LexicalGroundedness

    parts = []
    for path in sorted(SUMMEDITS.glob("summedits_*.json")):
        part = pd.read_json(path, dtype={"id": str, "label": str})
        part["system"] = path.stem.removeprefix("summedits_")
        parts.append(part)
    frame = pd.concat(parts, ignore_index=True)
    cases = [
        TestCase(id=f"{row.system}-{i}", actual_answer=row.summary, retrieved_context=[row.doc])
        for i, row in enumerate(frame.itertuples())
    ]
    results = LexicalGroundedness().evaluate(cases)
    values = [r.outcomes[SUMMEDITS_METRIC].value for r in results]
    out = pd.DataFrame(
        {
            "case_id": [c.id for c in cases],
            "system": frame["system"],
            "label": frame["label"].astype(int),
            "score": pd.Series(values, dtype=float),
        }
    )
    return out[out["score"].notna()].reset_index(drop=True)


def with_judge(frame: pd.DataFrame, seed: int = JUDGE_SEED) -> pd.DataFrame:
    """The same units scored by the simulated judge of AUROC :data:`JUDGE_AUROC` (see the module
    docstring)."""
    noise = np.random.default_rng(seed).normal(0.0, _judge_sigma(), len(frame))
    return frame.assign(score=frame["label"].to_numpy(float) + noise)


def judge_pass_proba(label: np.ndarray, score: np.ndarray) -> np.ndarray:
    """The simulated judge's true P(PASS | score) for each unit of one system (labels ``label``):
    the binormal posterior ``π φ((s − 1)/σ) / (π φ((s − 1)/σ) + (1 − π) φ(s/σ))``, π the
    system's pass rate and σ the judge's noise (see :func:`with_judge`) — what a perfectly
    calibrated machine would predict from the score alone.

    Example:
        >>> p = judge_pass_proba(np.array([0, 1]), np.array([0.5, 0.5]))  # halfway, even odds
        >>> [round(float(x), 6) for x in p]
        [0.5, 0.5]
    """
    from scipy.stats import norm

    sigma = _judge_sigma()
    rate = float(np.mean(label))
    passing = rate * norm.pdf((score - 1.0) / sigma)
    failing = (1.0 - rate) * norm.pdf(score / sigma)
    return passing / (passing + failing)


def _judge_sigma() -> float:
    """The judge's noise σ: AUROC = Φ(1 / (σ √2)) solved for :data:`JUDGE_AUROC`."""
    from scipy.stats import norm

    return float(1.0 / (np.sqrt(2.0) * norm.ppf(JUDGE_AUROC)))


def populations(which: list[str]) -> tuple[list[Population], list[str]]:
    """The populations named in ``which`` (``frank``, ``frank-judge``, ``summedits``,
    ``summedits-judge``) that have data, and a message per one skipped for want of it."""
    loaded: list[Population] = []
    skipped: list[str] = []
    frames: dict[str, pd.DataFrame] = {}
    for name in which:
        base = name.removesuffix("-judge")
        folder = FRANK if base == "frank" else SUMMEDITS
        if not folder.is_dir():
            skipped.append(f"{name}: data not found at {folder} (see shared/data/README.md)")
            continue
        if base not in frames:
            frames[base] = frank_frame() if base == "frank" else summedits_frame()
        title = "FRANK" if base == "frank" else "SummEdits"
        if name.endswith("-judge"):
            loaded.append(
                _population(
                    f"{title} · simulated judge (AUROC {JUDGE_AUROC})", with_judge(frames[base])
                )
            )
        else:
            metric = FRANK_METRIC if base == "frank" else SUMMEDITS_METRIC
            loaded.append(_population(f"{title} · {metric}", frames[base]))
    return loaded, skipped
