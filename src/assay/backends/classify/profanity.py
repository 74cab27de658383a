"""The offline toxicity default: the scikit-learn model shipped inside ``alt-profanity-check``.

A linear SVM (calibrated) over a bag of words and bigrams, trained on crowd-labelled offensive
language; ~80k texts/s. Its two joblib files are verified by sha256 before they are unpickled
(unpickling runs code: a different file is refused). The package's own module is not imported,
since it loads both files at import time without any check.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from assay.backends.classify.base import ClassScores
from assay.errors import BackendError, MissingDependencyError
from assay.params import PickledAsParams

#: sha256 of the files of alt-profanity-check 1.9.1 (the model is unchanged since 1.2).
PINNED_SHA256 = {
    "model.joblib": "aeafc04849d4d93db4721cf30a86ebf22085595294b8a07d51918e7fa98f538b",
    "vectorizer.joblib": "19c5200dc6a41f026e0558e2f164f5fe8d8f58e502b46b37e4385037fcfa4831",
}
MODEL_ID = f"alt-profanity-check@sha256:{PINNED_SHA256['model.joblib'][:16]}"
_LOCK = threading.Lock()


def data_dir() -> Path:
    """The package's ``data`` folder, found without importing the package."""
    import importlib.util

    spec = importlib.util.find_spec("profanity_check")
    if spec is None or not spec.submodule_search_locations:
        raise MissingDependencyError(
            "the offline toxicity model is not installed. Install it with: "
            "pip install 'assay[toxicity]'  (or: pip install alt-profanity-check)"
        )
    return Path(next(iter(spec.submodule_search_locations))) / "data"


class ProfanityCheckClassifier(PickledAsParams):
    """Category ``profanity``: P(offensive) from alt-profanity-check, sha256-verified.

    Example:
        >>> clf = ProfanityCheckClassifier()
        >>> scores = clf.predict(["you are a stupid idiot", "have a nice day"]).column("profanity")
        >>> bool(scores[0] > 0.9 > 0.2 > scores[1])
        True
    """

    categories = ("profanity",)

    def __init__(self) -> None:
        self._parts: tuple[Any, Any] | None = None

    @property
    def model_id(self) -> str:
        """Identity pinned to the verified weights."""
        return MODEL_ID

    def load(self) -> tuple[Any, Any]:
        """Verify and load ``(vectorizer, model)`` once."""
        if self._parts is None:
            with _LOCK:
                if self._parts is None:
                    import joblib

                    from assay.backends.embed.minilm import file_sha256

                    folder = data_dir()
                    for name, expected in PINNED_SHA256.items():
                        path = folder / name
                        if not path.is_file() or file_sha256(path) != expected:
                            raise BackendError(
                                f"{path}: missing or not the pinned sha256 {expected[:16]}…; "
                                "refusing to unpickle it (pip install alt-profanity-check==1.9.1)"
                            )
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")  # scikit-learn version notices
                        vectorizer = joblib.load(folder / "vectorizer.joblib")
                        model = joblib.load(folder / "model.joblib")
                    self._parts = (vectorizer, model)
        return self._parts

    def predict(self, texts: Sequence[str]) -> ClassScores:
        """P(profanity) of each text; a text with no word of the model's vocabulary (only
        emoji, symbols, stop words such as "No.", or words it never saw) is ``unread``: its
        probability is the model's intercept, not a judgement of the text.

        Example:
            >>> ProfanityCheckClassifier().predict(["🔪🔪", "you idiot"]).unread_rows().tolist()
            [True, False]
        """
        vectorizer, model = self.load()
        if not texts:
            return ClassScores(self.categories, np.zeros((0, 1)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            features = vectorizer.transform(list(texts))
            probs = model.predict_proba(features)[:, 1]
        return ClassScores(self.categories, np.asarray(probs, dtype=np.float64).reshape(-1, 1),
                           unread=np.asarray(features.getnnz(axis=1) == 0))

    def __repr__(self) -> str:
        return "ProfanityCheckClassifier()"
