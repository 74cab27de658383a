"""Calibrators: lifecycle, parity with scikit-learn, persistence, input errors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from assay.calibrate import (
    IsotonicCalibrator,
    LogisticCalibrator,
    MonotoneBoostingCalibrator,
    OrdinalCalibrator,
    load_calibrator,
    make_calibrator,
)
from assay.errors import InvalidInputError, NotFittedError


@pytest.mark.parametrize("kind", ["logistic", "isotonic", "ordinal", "monotone"])
def test_out_of_order_use_raises_not_fitted(kind: str, binary_data) -> None:
    if kind == "monotone":
        pytest.importorskip("lightgbm")
    s, y = binary_data
    cal = make_calibrator(kind, metrics=["m"])
    with pytest.raises(NotFittedError, match="fit"):
        cal.predict_proba(s)
    with pytest.raises(NotFittedError):
        cal.conformalize(s, y)
    with pytest.raises(NotFittedError):
        cal.save("never-written.json")
    cal.fit(s[:1000], y[:1000])
    with pytest.raises(NotFittedError, match="conformalize"):
        cal.predict_set(s)
    cal.conformalize(s[1000:1500], y[1000:1500], alpha=0.1)
    sets = cal.predict_set(s[1500:])
    assert sets.shape == (500, len(cal.classes_))


@pytest.mark.parametrize("kind", ["logistic", "isotonic", "ordinal", "monotone"])
def test_save_load_round_trip(kind: str, binary_data, tmp_path: Path) -> None:
    if kind == "monotone":
        pytest.importorskip("lightgbm")
    s, y = binary_data
    cal = make_calibrator(kind, metrics=["m"]).fit(s[:1000], y[:1000])
    cal.conformalize(s[1000:1500], y[1000:1500], alpha=0.2)
    path = cal.save(tmp_path / "cal.json")
    loaded = load_calibrator(path)
    assert type(loaded) is type(cal) and loaded.metrics == ["m"]
    np.testing.assert_allclose(loaded.predict_proba(s[1500:]), cal.predict_proba(s[1500:]))
    np.testing.assert_array_equal(loaded.predict_set(s[1500:]), cal.predict_set(s[1500:]))
    assert loaded.alpha == 0.2


def test_loading_a_tampered_or_incompatible_file_is_a_clear_error(tmp_path: Path) -> None:
    cal = LogisticCalibrator(metrics=["m"]).fit([0.1, 0.4, 0.6, 0.9], [0, 1, 0, 1])
    path = cal.save(tmp_path / "cal.json")
    data = json.loads(path.read_text())
    data["state"]["model"]["intercept"] += 1
    path.write_text(json.dumps(data))
    with pytest.raises(InvalidInputError, match="hash does not match"):
        load_calibrator(path)
    data = json.loads(cal.save(tmp_path / "cal2.json").read_text())
    data["format_version"] = 99
    (tmp_path / "v99.json").write_text(json.dumps(data))
    with pytest.raises(InvalidInputError, match="format version 99"):
        load_calibrator(tmp_path / "v99.json")
    (tmp_path / "other.json").write_text('{"a": 1}')
    with pytest.raises(InvalidInputError, match="not an assay calibrator"):
        load_calibrator(tmp_path / "other.json")
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(InvalidInputError, match="not a JSON"):
        load_calibrator(tmp_path / "bad.json")


def test_logistic_matches_sklearn(binary_data) -> None:
    from sklearn.linear_model import LogisticRegression

    s, y = binary_data
    x = np.column_stack([s, np.random.default_rng(0).normal(size=len(s))])
    ours = LogisticCalibrator().fit(x, y).predict_pass_proba(x)
    ref = LogisticRegression(C=np.inf, tol=1e-12, max_iter=10000).fit(x, y).predict_proba(x)[:, 1]
    np.testing.assert_allclose(ours, ref, atol=1e-6)


def test_penalised_logistic_matches_sklearn(binary_data) -> None:
    from sklearn.linear_model import LogisticRegression

    s, y = binary_data
    x = np.column_stack([s * 10, s**2])  # unequal scales: the penalty must act on raw weights
    ours = LogisticCalibrator(C=0.01).fit(x, y)
    ref = LogisticRegression(C=0.01, tol=1e-12, max_iter=10000).fit(x, y)
    np.testing.assert_allclose(ours.coef_, ref.coef_[0], rtol=1e-5)
    assert ours.intercept_ == pytest.approx(ref.intercept_[0], rel=1e-5)


def test_isotonic_matches_sklearn_and_is_monotone(binary_data) -> None:
    from sklearn.isotonic import IsotonicRegression

    s, y = binary_data
    cal = IsotonicCalibrator().fit(s[:1500], y[:1500])
    ref = IsotonicRegression(out_of_bounds="clip", y_min=0, y_max=1).fit(s[:1500], y[:1500])
    grid = np.linspace(-5, 6, 400)
    p = cal.predict_pass_proba(grid)
    np.testing.assert_allclose(p, ref.predict(grid), atol=2e-9)
    # ties inside a step are broken by the raw score: strictly increasing over the fitted range
    inside = (grid > s[:1500].min()) & (grid < s[:1500].max())
    assert np.all(np.diff(p[inside]) > 0)


def test_centred_isotonic_interpolates_between_block_centroids(binary_data) -> None:
    s, y = binary_data
    plain = IsotonicCalibrator().fit(s, y)
    centred = IsotonicCalibrator(centered=True).fit(s, y)
    grid = np.linspace(s.min(), s.max(), 2000)
    p_plain, p_centred = plain.predict_pass_proba(grid), centred.predict_pass_proba(grid)
    assert np.all(np.diff(p_centred) >= 0)
    # visibly smoother than the step function, same range of probabilities
    assert len(np.unique(p_centred.round(6))) > 5 * len(np.unique(p_plain.round(6)))
    assert p_centred.min() == pytest.approx(p_plain.min()) and p_centred.max() == pytest.approx(
        p_plain.max()
    )
    # at each block's centroid the two maps agree
    for x, p in zip(centred.x_thresholds_, centred.y_thresholds_, strict=True):
        assert plain.predict_pass_proba([x])[0] == pytest.approx(p, abs=1e-8)


def test_lower_is_better_metric_is_flipped(binary_data) -> None:
    s, y = binary_data
    up = IsotonicCalibrator().fit(s, y).predict_pass_proba([-1.0, 2.0])
    down = IsotonicCalibrator(higher_is_better=[False]).fit(-s, y).predict_pass_proba([1.0, -2.0])
    np.testing.assert_allclose(up, down)
    assert down[0] < down[1]


def test_graded_labels_need_pass_at() -> None:
    with pytest.raises(InvalidInputError, match="pass_at"):
        LogisticCalibrator().fit([0.1, 0.5, 0.9], [0.0, 0.5, 1.0])
    cal = LogisticCalibrator(pass_at=1.0).fit([0.1, 0.5, 0.9, 0.95], [0.0, 0.5, 1.0, 0.6])
    assert cal.fit_summary_["class_counts"] == [3, 1]


def test_input_errors_name_the_problem() -> None:
    with pytest.raises(InvalidInputError, match="drop unmeasured cases"):
        LogisticCalibrator().fit([0.1, float("nan")], [0, 1])
    with pytest.raises(InvalidInputError, match="at least two classes"):
        LogisticCalibrator().fit([0.1, 0.2], [1, 1])
    with pytest.raises(InvalidInputError, match="at most 1 metric"):
        IsotonicCalibrator().fit(np.zeros((4, 2)), [0, 1, 0, 1])
    with pytest.raises(InvalidInputError, match="2 score rows but 3 labels"):
        LogisticCalibrator().fit([0.1, 0.2], [0, 1, 1])
    cal = LogisticCalibrator().fit(np.random.default_rng(0).normal(size=(10, 2)), [0, 1] * 5)
    with pytest.raises(InvalidInputError, match="expected 2 metric column"):
        cal.predict_proba([0.3])
    with pytest.raises(InvalidInputError, match=r"(?i)unknown calibration method"):
        make_calibrator("platt")


def test_ordinal_recovers_known_parameters() -> None:
    rng = np.random.default_rng(3)
    s = rng.normal(size=20000)
    beta, cuts = 1.5, np.array([-1.0, 0.0, 1.2, 2.0])
    latent = beta * s + rng.logistic(size=s.size)
    y = np.searchsorted(cuts, latent) + 1  # classes 1..5
    cal = OrdinalCalibrator().fit(s, y)
    assert cal.classes_ == [1, 2, 3, 4, 5]
    assert cal.coef_[0] == pytest.approx(beta, abs=0.05)
    np.testing.assert_allclose(cal.cutpoints_, cuts, atol=0.07)
    proba = cal.predict_proba(s[:5])
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)


def test_ordinal_matches_statsmodels() -> None:
    om = pytest.importorskip("statsmodels.miscmodels.ordinal_model")
    rng = np.random.default_rng(5)
    x = rng.normal(size=(800, 2))
    y = np.digitize(x @ [1.0, -0.5] + rng.logistic(size=800), [-1, 0.5, 1.5])
    ours = OrdinalCalibrator().fit(x, y)
    ref = om.OrderedModel(y, x, distr="logit").fit(method="bfgs", disp=False, maxiter=2000)
    np.testing.assert_allclose(ours.predict_proba(x), ref.predict(x), atol=1e-4)


def test_monotone_boosting_is_monotone_and_combines_metrics() -> None:
    pytest.importorskip("lightgbm")
    rng = np.random.default_rng(0)
    n = 4000
    y = rng.integers(0, 2, n)
    a = rng.normal(size=n) + 0.8 * y  # two independent weak metrics
    b = rng.normal(size=n) - 0.8 * y  # lower is better
    x = np.column_stack([a, b])
    cal = MonotoneBoostingCalibrator(higher_is_better=[True, False]).fit(x[:3000], y[:3000])
    grid = np.linspace(-3, 4, 60)
    up = cal.predict_pass_proba(np.column_stack([grid, np.zeros_like(grid)]))
    down = cal.predict_pass_proba(np.column_stack([np.zeros_like(grid), grid]))
    assert np.all(np.diff(up) >= -1e-12) and np.all(np.diff(down) <= 1e-12)
    from assay.calibrate import auroc

    combined = auroc(cal.predict_pass_proba(x[3000:]), y[3000:])
    assert combined > auroc(a[3000:], y[3000:]) + 0.03


def test_multiclass_predict_pass_proba_is_refused() -> None:
    cal = OrdinalCalibrator().fit([0.0, 1.0, 2.0, 0.5, 1.5, 2.5], [1, 2, 3, 1, 2, 3])
    with pytest.raises(InvalidInputError, match="several classes"):
        cal.predict_pass_proba([0.5])
    assert cal.predict([0.0, 3.0]) == [1, 3]


def test_a_multi_criterion_export_names_its_criteria_and_the_option(tmp_path) -> None:
    from assay.calibrate.dataset import read_labels
    from assay.errors import InvalidInputError

    path = tmp_path / "labels.csv"
    path.write_text("id,model,grounded,quality,n_annotators\nq1,m,1,4,2\n", encoding="utf-8")
    with pytest.raises(InvalidInputError, match=r"several criteria \(grounded, quality\): "
                                                  r"choose one with --label grounded"):
        read_labels(path)
    assert read_labels(path, label="quality")["label"].tolist() == [4]
