"""Several metrics at once: gradient boosting with monotone constraints (LightGBM).

Each metric is constrained so that a better score never lowers P(PASS). The direction comes from
``higher_is_better`` (default: every metric higher-is-better). The booster is stored as LightGBM's
own text model inside the calibrator's JSON file.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from assay.calibrate._arrays import FloatArray, IntArray
from assay.calibrate.base import Calibrator
from assay.errors import require
from assay.params import check, check_int


@dataclass(eq=False, repr=False)
class MonotoneBoostingCalibrator(Calibrator):
    """Binary calibrator combining several metrics with monotone gradient boosting.

    Args:
        n_estimators: boosting rounds.
        learning_rate: shrinkage per round.
        num_leaves: leaves per tree.
        min_child_samples: fewest cases in a leaf (regularises small calibration sets).
        seed: LightGBM seed (training is deterministic, single-threaded).
    """

    kind = "monotone"

    n_estimators: int = 200
    learning_rate: float = 0.03
    num_leaves: int = 8
    min_child_samples: int = 30
    seed: int = 0

    def __post_init__(self) -> None:
        super().__post_init__()
        where = "MonotoneBoostingCalibrator"
        check_int(self.n_estimators, "n_estimators", where)
        check(0 < self.learning_rate <= 1, "learning_rate", where, "in (0, 1]", self.learning_rate)
        check_int(self.num_leaves, "num_leaves", where, minimum=2)
        check_int(self.min_child_samples, "min_child_samples", where)
        self.booster_: Any = None

    def _fit(self, x: FloatArray, codes: IntArray) -> None:
        lgb: Any = require("lightgbm", extra="calibrate")
        params = {
            "objective": "binary",
            "learning_rate": self.learning_rate,
            "num_leaves": self.num_leaves,
            "min_data_in_leaf": self.min_child_samples,
            "monotone_constraints": [1] * x.shape[1],
            "monotone_constraints_method": "advanced",
            "seed": self.seed,
            "deterministic": True,
            "num_threads": 1,
            "verbosity": -1,
        }
        data = lgb.Dataset(x, label=codes.astype(np.float64), free_raw_data=True)
        self.booster_ = lgb.train(params, data, num_boost_round=self.n_estimators)

    def _proba(self, x: FloatArray) -> FloatArray:
        p = np.asarray(self.booster_.predict(x), dtype=np.float64)
        return np.column_stack([1.0 - p, p])

    def _get_state(self) -> dict[str, Any]:
        return {"lightgbm_model": self.booster_.model_to_string()}

    def _set_state(self, state: dict[str, Any]) -> None:
        lgb: Any = require("lightgbm", extra="calibrate")
        self.booster_ = lgb.Booster(model_str=state["lightgbm_model"])
