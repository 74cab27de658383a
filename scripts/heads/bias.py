"""The bias head: P(the text implies a social stereotype) on frozen all-MiniLM-L6-v2 vectors.

``python scripts/train_heads.py --head bias``. Trained on Social Bias Frames (SBIC v2 dev +
test, the Davidson-sourced posts removed): the label is 1 when at least one annotator wrote an
implied stereotype. One class-balanced logistic regression on the standardised sentence vector
(the fit of :mod:`heads.toxicity`). Held-out figures: 5-fold cross-validation and leave one
platform out (Gab, Reddit, Twitter, Stormfront). CrowS-Pairs is not used for training: its
sentence pairs differ by one identity word, which a sentence-vector head cannot separate, and
the benchmark has known noisy pairs (Blodgett et al. 2021).
"""

from __future__ import annotations

import argparse

from heads.toxicity import LICENCES as TOXICITY_LICENCES
from heads.toxicity import add_fit_arguments, fit_and_save
from heads.toxicity_data import bias_examples

#: Licence per source-name prefix.
LICENCES = {"sbic": "CC BY 4.0 (Social Bias Frames, Sap et al. 2020)",
            "mnli": TOXICITY_LICENCES["mnli"]}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of this head (those of every logistic text head)."""
    add_fit_arguments(parser)


def train(args: argparse.Namespace) -> int:
    """Embed, fit, measure, and write the ``bias`` head folder."""
    from heads.cards import bias_card

    examples = bias_examples(args.data, limit=args.limit, seed=args.seed)
    return fit_and_save(args, "bias", examples, ("biased",), ("Biased",), "binary",
                        lambda info, digest: bias_card(info, digest, LICENCES))
