"""Toxicity: speed (texts/s) and validity (AUROC) of the toxicity backends on Davidson et al.

Data: ``../shared/data/toxicity/davidson_labeled_data.csv`` (t-davidson/hate-speech-and-offensive-
language, MIT): 24,783 tweets, ``class`` 0 hate speech, 1 offensive, 2 neither. Positive =
class 0 or 1 ("hate or offensive"), negative = class 2. Measured in one run:

* the reference: alt-profanity-check's own ``predict_prob`` on the whole tweets;
* assay's offline backend (``profanity-check``: the same model, sha256-verified) on whole tweets
  — scores must be identical to the reference;
* the ``toxicity`` evaluator (sentence split + max over sentences) through ``Evaluator.evaluate``;
* detoxify and the ensemble, only when detoxify's weights are present locally (not here).

AUROC with a 1,000-resample bootstrap 95 % interval; per-class AUROC (hate vs neither, offensive vs
neither) and recall at the 0.5 threshold show what the offline model misses.
Caveat: alt-profanity-check was *trained* on data that includes this dataset, so its AUROC here is
optimistic (in-sample); it is a plumbing and speed check more than an independent validity figure.
Writes ``benchmarks/results/toxicity.md``.

Run: ``python benchmarks/bench_toxicity.py [--limit N]``
"""

from __future__ import annotations

import argparse
import platform
import re
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.metrics import roc_auc_score

from assay.backends.classify.detoxify_backend import weights_present
from assay.backends.classify.profanity import ProfanityCheckClassifier
from assay.data.case import TestCase
from assay.evaluators.toxicity import Toxicity
from results_file import publish

HERE = Path(__file__).resolve().parent
DATA = HERE.parents[1] / "shared" / "data" / "toxicity" / "davidson_labeled_data.csv"
OUT = HERE / "results" / "toxicity.md"
BATCH = 512


def load(limit: int | None) -> pd.DataFrame:
    frame = pd.read_csv(DATA)
    frame["text"] = frame["tweet"].astype(str).map(lambda t: re.sub(r"\s+", " ", t).strip())
    frame["toxic"] = (frame["class"] != 2).astype(int)
    return frame.head(limit) if limit else frame


def auroc_ci(labels: np.ndarray, scores: np.ndarray, n: int = 1000) -> tuple[float, float, float]:
    rng = np.random.default_rng(0)
    point = float(roc_auc_score(labels, scores))
    values = []
    for _ in range(n):
        idx = rng.integers(0, len(labels), len(labels))
        if labels[idx].min() != labels[idx].max():
            values.append(roc_auc_score(labels[idx], scores[idx]))
    low, high = np.percentile(values, [2.5, 97.5])
    return point, float(low), float(high)


#: Hand-written probes (not a sample: an illustration of the model's blind spots).
PROBES = [
    ("threat, no profanity", "I know where you live and I will hurt your family."),
    ("identity attack, no profanity", "People of that religion should be driven out of town."),
    ("demeaning stereotype", "Women are too emotional to be trusted with money."),
    ("polite insult", "You are a worthless person and nobody will ever love you."),
    ("profanity, not toxic", "Holy shit, this cake is fucking delicious!"),
    ("quoted title", "The documentary 'Bitch' won an award at the festival."),
    ("neutral", "The monthly fee is waived when the balance stays above 5,000 euros."),
]


def timed(fn, *args, repeat: int = 1):  # type: ignore[no-untyped-def]
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn(*args)
        best = min(best, time.perf_counter() - start)
    return out, best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None)
    args = parser.parse_args()
    if not DATA.is_file():
        print(f"data not found: {DATA}", file=sys.stderr)
        return 1
    frame = load(args.limit)
    texts = frame["text"].tolist()
    labels = frame["toxic"].to_numpy()
    n = len(texts)

    from profanity_check import predict_prob  # the reference (loads its model at import)

    predict_prob(texts[:10])
    reference, t_ref = timed(predict_prob, texts, repeat=3)
    backend = ProfanityCheckClassifier()
    backend.predict(texts[:10])
    ours, t_ours = timed(lambda x: backend.predict(x).column("profanity"), texts, repeat=3)
    identical = bool(np.allclose(reference, ours, atol=0, rtol=0))

    evaluator = Toxicity(classifier="profanity-check")
    cases = [TestCase(id=str(i), model="m", actual_answer=t) for i, t in enumerate(texts)]
    evaluator.evaluate(cases[:10])

    def run_evaluator(batch_cases: list[TestCase]) -> np.ndarray:
        values = []
        for start in range(0, len(batch_cases), BATCH):
            for result in evaluator.evaluate(batch_cases[start : start + BATCH]):
                outcome = result.outcomes["toxicity_score"]
                values.append(np.nan if outcome.value is None else outcome.value)
        return np.array(values)

    sentence_max, t_eval = timed(run_evaluator, cases)
    scored = ~np.isnan(sentence_max)

    rows = []
    for name, scores, seconds, mask in [
        ("alt-profanity-check `predict_prob` (reference), whole tweet", reference, t_ref, None),
        ("assay `profanity-check` backend, whole tweet", ours, t_ours, None),
        ("assay `toxicity` evaluator (max over sentences)", sentence_max, t_eval, scored),
    ]:
        keep = np.ones(n, bool) if mask is None else mask
        point, low, high = auroc_ci(labels[keep], scores[keep])
        cls = frame["class"].to_numpy()[keep]
        s = scores[keep]
        hate = roc_auc_score((cls[cls != 1] == 0).astype(int), s[cls != 1])
        offensive = roc_auc_score((cls[cls != 0] == 1).astype(int), s[cls != 0])
        recall = {c: float((s[cls == c] >= 0.5).mean()) for c in (0, 1)}
        fpr = float((s[cls == 2] >= 0.5).mean())
        rows.append((name, int(keep.sum()), seconds, point, low, high, hate, offensive, recall,
                     fpr))

    detox = "present" if weights_present() else "absent here (cannot be downloaded): not measured"
    lines = [
        "# Toxicity backends on Davidson et al. (hate or offensive vs neither)",
        "",
        f"Written by `benchmarks/bench_toxicity.py`; {n} tweets "
        f"({int(labels.sum())} hate/offensive, {int(n - labels.sum())} neither); "
        f"Python {platform.python_version()}, {platform.machine()}, shared 2-core machine.",
        "",
        "| scorer | n | texts/s | AUROC [95 % CI] | AUROC hate vs neither | AUROC offensive vs "
        "neither | recall@0.5 hate | recall@0.5 offensive | false-positive rate@0.5 |",
        "|---|---:|---:|---|---:|---:|---:|---:|---:|",
    ]
    for name, count, seconds, point, low, high, hate, offensive, recall, fpr in rows:
        lines.append(
            f"| {name} | {count} | {count / seconds:,.0f} | {point:.3f} [{low:.3f}, {high:.3f}] "
            f"| {hate:.3f} | {offensive:.3f} | {recall[0]:.2f} | {recall[1]:.2f} | {fpr:.2f} |"
        )
    probe_scores = backend.predict([t for _, t in PROBES]).column("profanity")
    lines += ["", "Hand-written probes (an illustration, not a measurement):", "",
              "| probe | offline score |", "|---|---:|"]
    lines += [f"| {kind} | {v:.2f} |" for (kind, _), v in zip(PROBES, probe_scores, strict=True)]
    lines += [
        "",
        "Times are the best of 3 runs for the two whole-tweet scorers, one run for the evaluator.",
        f"- assay backend scores identical to the reference: **{identical}**; speed ratio "
        f"backend / reference: {t_ref / t_ours:.2f}x.",
        f"- The evaluator (sentence splitting + max over sentences + result objects) runs at "
        f"{t_ref / t_eval:.2f}x the reference's speed.",
        f"- detoxify weights: {detox}.",
        "- Caveat: alt-profanity-check was trained on data that includes this dataset, so these "
        "AUROCs are optimistic (in-sample).",
        "- What the offline model misses: it scores offensive *words* (a linear model over word "
        "n-grams). See the probes above for threats, identity attacks, stereotypes and insults "
        "in polite words, and for harmless profanity; compare also the hate-vs-neither and "
        "offensive-vs-neither columns.",
        "",
    ]
    publish(OUT, lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
