"""Human calibration: probability calibration, split conformal prediction, separation checks,
error analysis and threshold selection (see docs/calibration.md).

Importing this package loads scikit-learn and scipy, so ``import assay`` does not import it;
LightGBM loads only when the monotone calibrator is used.
"""

from assay.calibrate.base import BINARY_CLASSES, Calibrator
from assay.calibrate.binary import IsotonicCalibrator, LogisticCalibrator
from assay.calibrate.conformal import (
    SplitConformalClassifier,
    conformal_quantile,
    coverage,
    prediction_sets,
    set_summary,
)
from assay.calibrate.diagnostics import (
    brier_score,
    calibration_diagnostics,
    confusion,
    error_rates,
    expected_calibration_error,
    reliability_curve,
)
from assay.calibrate.monotone import MonotoneBoostingCalibrator
from assay.calibrate.ordinal import OrdinalCalibrator
from assay.calibrate.persist import KINDS, load_calibrator, make_calibrator, save_calibrator
from assay.calibrate.separation import auroc, auroc_ci, compare_combined, separation_report
from assay.calibrate.threshold_methods import RISK_APPETITE, confidence_level
from assay.calibrate.thresholds import (
    METHODS,
    THRESHOLD_METHODS,
    ThresholdResult,
    select_thresholds,
)

__all__ = [
    "BINARY_CLASSES",
    "KINDS",
    "METHODS",
    "RISK_APPETITE",
    "THRESHOLD_METHODS",
    "Calibrator",
    "IsotonicCalibrator",
    "LogisticCalibrator",
    "MonotoneBoostingCalibrator",
    "OrdinalCalibrator",
    "SplitConformalClassifier",
    "ThresholdResult",
    "auroc",
    "auroc_ci",
    "brier_score",
    "calibration_diagnostics",
    "compare_combined",
    "confidence_level",
    "conformal_quantile",
    "confusion",
    "coverage",
    "error_rates",
    "expected_calibration_error",
    "load_calibrator",
    "make_calibrator",
    "prediction_sets",
    "reliability_curve",
    "save_calibrator",
    "select_thresholds",
    "separation_report",
    "set_summary",
]
