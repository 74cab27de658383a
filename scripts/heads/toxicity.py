"""The toxicity head: P(toxic) and five subtype heads on frozen all-MiniLM-L6-v2 vectors.

``python scripts/train_heads.py --head toxicity``. One logistic regression per target on the
standardised sentence vector (L2, lbfgs: deterministic; subtypes class-balanced), stacked into
one linear layer of assay's head format. ``toxicity`` is fitted on every labelled text; the
subtypes severe toxicity, obscene, insult and identity attack only on toxic texts, and score
``P(toxic) * P(subtype | toxic)`` at inference (:mod:`assay.backends.classify.head`); ``threat``
(:data:`DIRECT`) is fitted against every labelled text and scored on its own, and a threat
counts as toxic. Counter-speech and negated hate made from the training data's own hateful
sentences (:func:`heads.toxicity_data.counter_speech_examples`) are negatives of every head
fitted against all texts (``toxicity``, ``threat``). The head also ships the lexicon of its
spelling-variant normaliser (:func:`heads.toxicity_data.deobfuscation_lexicon`) inside its
weights file. Labels and sources:
:mod:`heads.toxicity_data`. Validity figures in the model card are held-out (5-fold
cross-validation, and leave-one-source-out for ``toxicity``); Davidson and the functional
breakdown are measured by ``benchmarks/bench_toxicity.py``, never used here.
"""

from __future__ import annotations

import argparse
import logging
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from assay.backends.classify.head import FEATURE_SET
from assay.backends.embed import minilm
from assay.backends.heads.store import save_head
from heads.common import EMBEDDER, SHIPPED, embedder, standardise
from heads.toxicity_data import (
    COUNTER_SPEECH,
    TOXICITY_TARGETS,
    Example,
    counter_speech_examples,
    deobfuscation_lexicon,
    opinion_examples,
    toxicity_examples,
)

logger = logging.getLogger("train_heads")
#: Subtypes fitted against every labelled text and scored on their own: a threat in plain words
#: ("I know where you live") gets a low P(toxic), so P(toxic) * P(threat | toxic) missed it.
DIRECT = ("threat",)
LICENCES = {
    "civil_comments": "CC0 1.0 (ToxicSpans, Civil Comments)",
    "convabuse": "CC BY 4.0 (ConvAbuse)",
    "stormfront": "CC BY-SA 3.0 ES (de Gibert et al. 2018)",
    "toxigen": "MIT / CDLA-Permissive-2.0 (ToxiGen demonstrations)",
    "wikipedia": "Apache-2.0 repo, CC BY-SA 3.0 text (Dixon et al. debiasing set)",
    "sbic": "CC BY 4.0 (Social Bias Frames)",
    "counter_speech": "derived from the Stormfront, ToxiGen and SBIC sentences (their licences)",
    "opinion": "derived from the Stormfront, ToxiGen and SBIC sentences (their licences)",
    "negated_positive": "derived from the ToxiGen sentences (their licence)",
    "stance_contrast": "written for assay (heads.toxicity_contrast; Apache-2.0, as assay)",
    "mnli": "OANC (free use); fiction CC BY 3.0 / CC BY-SA 3.0 (MultiNLI); TaxiNLI C-UDA 1.0",
}


def add_fit_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of every logistic text head (this one and the bias head)."""
    parser.add_argument("--C", type=float, default=0.01, dest="c",
                        help="inverse L2 strength of every logistic head")
    parser.add_argument("--folds", type=int, default=5, help="cross-validation folds (0: none)")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of this head."""
    add_fit_arguments(parser)
    parser.add_argument("--no-counter-speech", action="store_false", dest="counter_speech",
                        help="leave out the counter-speech and negation hard negatives")
    parser.add_argument("--opinion", action="store_true",
                        help="add hate phrased as an opinion and its benign twins "
                             "(heads.toxicity_data.opinion_examples; design note 0040)")


def labels_of(examples: Sequence[Example], target: str) -> np.ndarray:
    """``1``/``0`` per example, ``-1`` where the example is not labelled for ``target``."""
    return np.array([-1 if e.labels.get(target) is None else int(e.labels[target])  # type: ignore[arg-type]
                     for e in examples])


def fit_logistic(z: np.ndarray, y: np.ndarray, c: float, seed: int, *, balanced: bool
                 ) -> tuple[np.ndarray, float]:
    """L2 logistic regression on standardised rows (class-balanced or not): ``(w, b)``."""
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression(C=c, class_weight="balanced" if balanced else None,
                               max_iter=3000, random_state=seed)
    model.fit(z, y)
    return model.coef_[0].astype(np.float32), float(model.intercept_[0])


def cross_validated(z: np.ndarray, y: np.ndarray, groups: np.ndarray | None, c: float,
                    seed: int, folds: int, balanced: bool) -> np.ndarray:
    """Out-of-fold decision values (stratified folds; ``groups``: leave one group out)."""
    from sklearn.model_selection import LeaveOneGroupOut, StratifiedKFold

    out = np.zeros(len(y))
    splits = (LeaveOneGroupOut().split(z, y, groups) if groups is not None
              else StratifiedKFold(folds, shuffle=True, random_state=seed).split(z, y))
    for train, test in splits:
        if len(set(y[train])) < 2:
            out[test] = np.nan
            continue
        w, b = fit_logistic(z[train], y[train], c, seed, balanced=balanced)
        out[test] = z[test] @ w + b
    return out


#: Fewest texts of each class for an AUROC to be reported: below it the figure is the order of a
#: handful of texts (SBIC's r/offensivequestions, one text of each class, read 0.000), not a
#: measurement.
MIN_CLASS = 5


def auroc(y: np.ndarray, score: np.ndarray) -> float | None:
    """AUROC, or None when a class has fewer than :data:`MIN_CLASS` scored texts.

    Example:
        >>> auroc(np.array([0, 1]), np.array([0.9, 0.1])) is None
        True
        >>> auroc(np.array([0] * 5 + [1] * 5), np.arange(10.0))
        1.0
    """
    from sklearn.metrics import roc_auc_score

    keep = ~np.isnan(score)
    if min(np.sum(y[keep] == 0), np.sum(y[keep] == 1)) < MIN_CLASS:
        return None
    return round(float(roc_auc_score(y[keep], score[keep])), 4)


def fit_targets(x: np.ndarray, examples: Sequence[Example], targets: Sequence[str], *, c: float,
                seed: int, folds: int, loso: str | None = None, direct: Sequence[str] = ()
                ) -> tuple[list[tuple[np.ndarray, np.ndarray]], np.ndarray, np.ndarray,
                           dict[str, Any]]:
    """One logistic head per target, stacked as one layer; with held-out metrics per target.

    The first (main) target is fitted with the data's own class prior, so that its 0.5 is not
    inflated on everyday text; the others (subtypes, scored times the main probability) are
    class-balanced, so that a rare subtype is not swamped. A ``direct`` target is fitted against
    every text labelled for the main target (its positives against all the rest, toxic or not),
    and is scored on its own rather than times the main probability. ``loso`` names a target
    whose AUROC is also measured leaving one source out at a time.
    """
    mean, scale = standardise(x)
    z = (x - mean) / scale
    sources = np.array([e.source for e in examples])
    weights, biases, metrics = [], [], {}
    for target in targets:
        balanced = target != targets[0]
        y_all = labels_of(examples, target)
        if target in direct:
            y_all = np.where(y_all == 1, 1, np.where(labels_of(examples, targets[0]) >= 0, 0, -1))
            y_all[sources == COUNTER_SPEECH] = -1
        rows = y_all >= 0
        y = y_all[rows]
        if len(set(y.tolist())) < 2:
            raise SystemExit(f"target {target!r}: one class only among its {len(y)} labelled "
                             "texts; raise --limit")
        w, b = fit_logistic(z[rows], y, c, seed, balanced=balanced)
        weights.append(w)
        biases.append(b)
        entry: dict[str, Any] = {"n": int(rows.sum()), "positives": int(y.sum())}
        if folds:
            held = cross_validated(z[rows], y, None, c, seed, folds, balanced)
            entry["cv_auroc"] = auroc(y, held)
            entry["cv_auroc_by_source"] = {
                s: auroc(y[sources[rows] == s], held[sources[rows] == s])
                for s in sorted(set(sources[rows]))}
            if target == loso:
                held = cross_validated(z[rows], y, sources[rows], c, seed, folds, balanced)
                entry["leave_one_source_out_auroc"] = {
                    s: auroc(y[sources[rows] == s], held[sources[rows] == s])
                    for s in sorted(set(sources[rows]))}
        metrics[target] = entry
        logger.info("%s: %s", target, entry)
    layer = (np.stack(weights, axis=1).astype(np.float32), np.array(biases, dtype=np.float32))
    return [layer], mean, scale, metrics


def fit_and_save(args: argparse.Namespace, name: str, examples: Sequence[Example],
                 targets: Sequence[str], labels: Sequence[str], output: str,
                 card: Callable[[dict[str, Any], str], str], *, direct: Sequence[str] = (),
                 extra: dict[str, Any] | None = None, data: dict[str, Any] | None = None) -> int:
    """Embed ``examples``, fit one logistic head per target, measure, and write head ``name``
    (weights, ``head.json``, ``MODEL_CARD.md`` from ``card(info, digest)``). ``direct``: see
    :func:`fit_targets`; ``extra``: more entries for ``head.json``'s ``training`` section;
    ``data``: JSON stored inside the weights (their sha256 covers it), also given to ``card``
    under ``info["data"]``."""
    started = time.perf_counter()
    emb = embedder(args.cache_dir)
    x = np.asarray(emb.encode([e.text for e in examples]), dtype=np.float32)
    embedded = time.perf_counter() - started
    layers, mean, scale, metrics = fit_targets(x, examples, targets, c=args.c, seed=args.seed,
                                               folds=args.folds, loso=targets[0], direct=direct)
    sources = sorted({e.source for e in examples})
    info = {
        **(extra or {}), "direct": list(direct),
        "output": output, "seed": args.seed, "C": args.c, "limit": args.limit,
        "folds": args.folds,
        "embedder": EMBEDDER,
        "rows": {s: sum(e.source == s for e in examples) for s in sources},
        "metrics": metrics,
        "seconds": {"embedding": round(embedded, 1),
                    "total": round(time.perf_counter() - started, 1)},
    }
    out = args.out or SHIPPED / name
    digest = save_head(out, name=name, labels=labels, features=FEATURE_SET, layers=layers,
                       mean=mean, scale=scale, info=info, data=data)
    (out / "MODEL_CARD.md").write_text(card({**info, "data": data or {}}, digest),
                                       encoding="utf-8")
    logger.info("wrote %s (sha256 %s)", out, digest[:16])
    return 0


def train(args: argparse.Namespace) -> int:
    """Embed, fit, measure, and write the ``toxicity`` head folder."""
    from heads.cards import toxicity_card

    examples = toxicity_examples(args.data, limit=args.limit, seed=args.seed)
    vocabulary = set((minilm.model_dir() / "vocab.txt").read_text(encoding="utf-8").split())
    # The normaliser's lexicon comes from the labelled texts only: the counter-speech frames
    # repeat hateful words as non-toxic and would dilute which words are salient.
    lexicon = deobfuscation_lexicon(examples, vocabulary)
    hard = counter_speech_examples(examples) if args.counter_speech else []
    opinion = opinion_examples(examples) if args.opinion else []
    return fit_and_save(args, "toxicity", [*examples, *hard, *opinion], TOXICITY_TARGETS,
                        TOXICITY_TARGETS, "subtypes",
                        lambda info, digest: toxicity_card(info, digest, LICENCES),
                        direct=DIRECT, extra={"opinion": args.opinion},
                        data={"deobfuscate": lexicon})
