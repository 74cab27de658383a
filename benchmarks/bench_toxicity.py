"""Toxicity: validity (AUROC, functional recall) and speed of the toxicity backends.

Data: ``../shared/data/toxicity/davidson_labeled_data.csv`` (t-davidson/hate-speech-and-offensive-
language, MIT): 24,783 tweets, ``class`` 0 hate speech, 1 offensive, 2 neither. Positive = class
0 or 1 ("hate or offensive"), negative = class 2. A seeded sample of ``--limit`` tweets (default
2,000; ``--limit 0`` for all) keeps the embedding pass to a few minutes on a shared CPU. Davidson
is never training data for assay's heads. Measured in one run, through the ``toxicity`` evaluator
as a user runs it (sentence split, max over sentences):

* the tuned head (``classifier="head"`` / ``"head-tuned"``, the default: MiniLM's layer 6
  fine-tuned with the token head, design notes 0042, 0044, 0045), the sentence toxicity head
  (``"head-sentence"``, the default before 0045), the token toxicity head (``"head-token"``,
  design note 0038) and the mean of the sentence and token heads (``"head-ensemble"``, design
  note 0040): ``toxicity_score`` and each category, each sentence read alone (the reference's
  reading, the default); and the tuned head reading each pair of adjacent sentences too
  (``"head-tuned/pairs"``: ``neighbours=True``, design note 0061);
* the previous default, alt-profanity-check (``"profanity-check"``; it was *trained* on data that
  includes Davidson, so its figure is optimistic), and the ensemble ``"head+profanity"``;
* a text-length baseline (characters): a detector that does not beat it has learnt length.

AUROC with a 1,000-resample bootstrap 95 % interval. Then the functional breakdown on assay's own
hand-written diagnostic lists (:mod:`toxicity_functional`, on which the head's design was
chosen) and on its larger held-out HateCheck-style suite (:mod:`toxicity_heldout`, written
before the tuning; neither is the owner's held-out suite): recall@0.5 on lists that should be
flagged, the share correctly left unflagged on lists that should not, AUROC over all lists.
False flags on banking text: the share of the bundled demo's distinct sentences (answers,
reference answers and retrieved passages of a bank's help desk, none toxic) each backend flags
at 0.5. Speed: each head's (and the two heads') added cost (spelling-variant normaliser and
layers; the token head's pooling too) against the all-MiniLM-L6-v2 pass whose vectors (and, for
the token head, token matrices) it reuses (same distinct sentences, no cache),
and alt-profanity-check's parity with its package.
Writes ``benchmarks/results/toxicity.md``.

Run: ``python benchmarks/bench_toxicity.py [--limit N]``
"""

from __future__ import annotations

import argparse
import platform
import re
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from sklearn.metrics import roc_auc_score

from assay.backends.classify.profanity import ProfanityCheckClassifier
from assay.data.case import TestCase
from assay.demo import demo_answers
from assay.evaluators.toxicity import CATEGORY_METRICS, Toxicity
from results_file import publish
from toxicity_functional import FUNCTIONAL
from toxicity_heldout import HELDOUT, TEMPLATES

HERE = Path(__file__).resolve().parent
DATA = HERE.parents[1] / "shared" / "data" / "toxicity" / "davidson_labeled_data.csv"
OUT = HERE / "results" / "toxicity.md"
BATCH = 512
METRICS = ("toxicity_score", *CATEGORY_METRICS)
#: What a head's added cost covers, where it is not token pooling + layers.
COST_PARTS = {
    "`toxicity` head": "layer",
    "`toxicity-tuned` head": "the fine-tuned layer 6, timed inside the shared pass, "
    "+ token pooling + layers",
}


def load(limit: int | None) -> pd.DataFrame:
    """Davidson's tweets (whitespace collapsed), a seeded sample of ``limit`` when given."""
    frame = pd.read_csv(DATA)
    frame["text"] = frame["tweet"].astype(str).map(lambda t: re.sub(r"\s+", " ", t).strip())
    frame["toxic"] = (frame["class"] != 2).astype(int)
    if limit and limit < len(frame):
        frame = frame.sample(n=limit, random_state=0).reset_index(drop=True)
    return frame


def auroc_ci(labels: np.ndarray, scores: np.ndarray, n: int = 1000) -> tuple[float, float, float]:
    """AUROC and its bootstrap 95 % interval."""
    rng = np.random.default_rng(0)
    point = float(roc_auc_score(labels, scores))
    values = []
    for _ in range(n):
        idx = rng.integers(0, len(labels), len(labels))
        if labels[idx].min() != labels[idx].max():
            values.append(roc_auc_score(labels[idx], scores[idx]))
    low, high = np.percentile(values, [2.5, 97.5])
    return point, float(low), float(high)


def run_evaluator(spec: str, texts: Sequence[str]) -> tuple[dict[str, np.ndarray], float]:
    """Every metric of the ``toxicity`` evaluator with ``spec`` (NaN where not ok), and seconds;
    ``"<spec>/pairs"``: each pair of adjacent sentences read as one text too (design note
    0061)."""
    classifier, _, unit = spec.partition("/")
    evaluator = Toxicity(classifier=classifier, neighbours=unit == "pairs")
    cases = [TestCase(id=str(i), model="m", actual_answer=t) for i, t in enumerate(texts)]
    values: dict[str, list[float]] = {m: [] for m in METRICS}
    start = time.perf_counter()
    for begin in range(0, len(cases), BATCH):
        for result in evaluator.evaluate(cases[begin : begin + BATCH]):
            for metric in METRICS:
                value = result.outcomes[metric].value
                values[metric].append(np.nan if value is None else value)
    return {m: np.array(v) for m, v in values.items()}, time.perf_counter() - start


def timed(fn: Callable[[], Any], repeat: int = 1) -> tuple[Any, float]:
    """The result of ``fn()`` and its best time over ``repeat`` runs."""
    best, out = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return out, best


class TimedLayer:
    """Calls a top layer and adds up the seconds spent in it."""

    def __init__(self, layer: Any) -> None:
        self.layer, self.seconds = layer, 0.0

    def __call__(self, hidden: Any, mask: Any) -> Any:
        start = time.perf_counter()
        out = self.layer(hidden, mask)
        self.seconds += time.perf_counter() - start
        return out


def head_speed(
    texts: Sequence[str], head_names: Sequence[str], limit: int = 1000
) -> tuple[int, float, float]:
    """``(n, embedding seconds, heads' seconds)`` on up to ``limit`` distinct sentences, with no
    cache; the heads' time covers all they add: each undoing spelling variants, then its layers
    (a token head's pooling over the token matrices of the same pass too). Several heads (an
    ensemble) share one pass, with token matrices when one of them reads them."""
    from assay.backends.classify.head import HeadClassifier
    from assay.backends.embed import minilm
    from assay.backends.embed.sentence_transformers import SentenceTransformerEmbedder
    from assay.backends.embed.top_layer import TopLayerEmbedder
    from assay.text.sentences import split_sentences

    sentences = list(dict.fromkeys(s for t in texts for s in split_sentences(t)))[:limit]
    model = SentenceTransformerEmbedder(minilm.model_dir(), offline=True, verify_minilm=True)
    model.encode(sentences[:8])  # load outside the timing
    heads = [HeadClassifier(name) for name in head_names]
    read = heads[0].read(sentences)  # loads the heads and the lexicon outside the timing
    if any(head.read(sentences) != read for head in heads[1:]):
        raise SystemExit(f"the heads {list(head_names)} read the texts differently")
    tuned = [TopLayerEmbedder(h.head).layer() for h in heads if h.embedder_spec() != h.embedder]
    if len(tuned) > 1:
        raise SystemExit("one fine-tuned top layer per measurement")
    t_layer = 0.0
    if tuned:  # the time spent inside the layer during the shared pass (best of two passes)
        layer = TimedLayer(tuned[0])
        _, t_embed = timed(lambda: model.encode_with_tokens(read))
        laps = []
        for _ in range(2):
            layer.seconds = 0.0
            _, (vectors, tokens) = model.encode_with_top(read, layer)
            laps.append(layer.seconds)
        t_layer = min(laps)
    elif any(head.reads_tokens for head in heads):
        (vectors, tokens), t_embed = timed(lambda: model.encode_with_tokens(read))
    else:
        vectors, t_embed = timed(lambda: model.encode(read))
        tokens = None

    def added() -> None:
        for head in heads:
            head.read(sentences)
            head.scores_of(vectors, tokens if head.reads_tokens else None)

    _, t_head = timed(added, repeat=5)
    return len(sentences), t_embed, t_layer + t_head


def davidson_rows(frame: pd.DataFrame, signals: dict[str, np.ndarray]) -> list[str]:
    """One table row per signal: AUROC [CI], hate and offensive AUROCs, recall and FPR."""
    labels = frame["toxic"].to_numpy()
    cls = frame["class"].to_numpy()
    rows = []
    for name, scores in signals.items():
        keep = ~np.isnan(scores)
        y, s, c = labels[keep], scores[keep], cls[keep]
        point, low, high = auroc_ci(y, s)
        hate = roc_auc_score((c[c != 1] == 0).astype(int), s[c != 1])
        offensive = roc_auc_score((c[c != 0] == 1).astype(int), s[c != 0])
        rec = [float((s[c == k] >= 0.5).mean()) for k in (0, 1)]
        fpr = float((s[c == 2] >= 0.5).mean())
        thresholded = (
            "— | — | —"
            if name.startswith("text length")  # not a probability
            else f"{rec[0]:.2f} | {rec[1]:.2f} | {fpr:.2f}"
        )
        rows.append(
            f"| {name} | {int(keep.sum())} | {point:.3f} [{low:.3f}, {high:.3f}] | "
            f"{hate:.3f} | {offensive:.3f} | {thresholded} |"
        )
    return rows


def functional_rows(
    lists: dict[str, tuple[int, list[str]]], scorers: dict[str, dict[str, np.ndarray]]
) -> tuple[list[str], list[str]]:
    """Per functionality of ``lists``, each scorer's recall (label 1) or correct-pass share
    (label 0) among the sentences it measured (the unmeasured — nothing the model can read —
    counted apart: a gate neither passes nor flags them); and per scorer its AUROC over all the
    measured sentences and its lowest recall among the functionalities that should be
    flagged."""
    names = list(scorers)
    head = [
        "| functionality | should flag | n | " + " | ".join(names) + " |",
        "|---|:---:|---:|" + "---:|" * len(names),
    ]
    rows, start = [], 0
    labels = np.concatenate([[lab] * len(t) for lab, t in lists.values()])
    lowest: dict[str, tuple[float, str]] = {name: (2.0, "") for name in names}
    for functionality, (label, texts) in lists.items():
        cells = []
        for name in names:
            found = scorers[name]["toxicity_score"][start : start + len(texts)]
            s = found[~np.isnan(found)]
            share = float((s >= 0.5).mean() if label else (s < 0.5).mean()) if len(s) else 0.0
            if label and share < lowest[name][0]:
                lowest[name] = (share, functionality)
            unmeasured = len(found) - len(s)
            cells.append(f"{share:.0%}" + (f" ({unmeasured} unmeasured)" if unmeasured else ""))
        rows.append(
            f"| {functionality} | {'yes' if label else 'no'} | {len(texts)} | "
            + " | ".join(cells)
            + " |"
        )
        start += len(texts)

    def measured_auroc(scores: np.ndarray) -> str:
        keep = ~np.isnan(scores)
        unmeasured = f" ({int((~keep).sum())} unmeasured)" if not keep.all() else ""
        return f"{roc_auc_score(labels[keep], scores[keep]):.3f}{unmeasured}"

    summary = [
        f"{name}: AUROC {measured_auroc(scorers[name]['toxicity_score'])}, "
        f"lowest recall {lowest[name][0]:.0%} ({lowest[name][1]})"
        for name in names
    ]
    return head + rows, summary


def banking_sentences() -> list[str]:
    """The distinct sentences of the bundled demo suite's answers, reference answers and
    retrieved passages (a bank help desk; none toxic)."""
    from assay.demo import demo_texts
    from assay.text.sentences import split_sentences

    return list(dict.fromkeys(s for t in demo_texts() for s in split_sentences(t)))


def unit_counts(texts: Sequence[str]) -> tuple[int, int, int, int]:
    """Distinct sentences and distinct pairs of adjacent sentences of ``texts``, and the words
    in each set: what reading pairs adds to the texts the evaluator encodes."""
    from assay.evaluators.worst_sentence import answer_units
    from assay.text.sentences import split_sentences

    singles: dict[str, None] = {}
    pairs: dict[str, None] = {}
    for text in texts:
        sentences = split_sentences(text)
        singles.update(dict.fromkeys(sentences))
        pairs.update(dict.fromkeys(answer_units(sentences, True)[len(sentences) :]))
    pairs = {p: None for p in pairs if p not in singles}
    return (
        len(singles),
        len(pairs),
        sum(len(t.split()) for t in singles),
        sum(len(t.split()) for t in pairs),
    )


def banking_rows(sentences: Sequence[str], scorers: dict[str, dict[str, np.ndarray]]) -> list[str]:
    """Per scorer: sentences flagged at 0.5, their share, and the three highest-scoring."""
    rows = ["| backend | flagged | share | highest scores |", "|---|---:|---:|---|"]
    for name, values in scorers.items():
        score = np.nan_to_num(values["toxicity_score"], nan=-1.0)  # unmeasured: not flagged
        top = np.argsort(-score, kind="stable")[:3]
        quoted = "; ".join(f"{score[i]:.2f} “{sentences[i][:70].replace('|', '/')}”" for i in top)
        flagged = int((score >= 0.5).sum())
        unmeasured = int(np.isnan(values["toxicity_score"]).sum())
        note = f" ({unmeasured} unmeasured)" if unmeasured else ""
        rows.append(f"| {name} | {flagged}{note} | {flagged / len(sentences):.1%} | {quoted} |")
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=2000, help="tweets (0: all 24,783)")
    args = parser.parse_args()
    if not DATA.is_file():
        print(f"Davidson data not found at {DATA}; see shared/data/README", file=sys.stderr)
        return 1
    frame = load(args.limit or None)
    texts = frame["text"].tolist()
    n = len(texts)

    from profanity_check import predict_prob  # the reference (loads its model at import)

    reference, t_ref = timed(lambda: predict_prob(texts), repeat=3)
    backend = ProfanityCheckClassifier()
    ours, t_ours = timed(lambda: backend.predict(texts).column("profanity"), repeat=3)
    identical = bool(np.array_equal(reference, ours))

    speed = {
        "`toxicity` head": head_speed(texts, ["toxicity"]),
        "`toxicity-token` head": head_speed(texts, ["toxicity-token"]),
        "`head-ensemble` (both heads)": head_speed(texts, ["toxicity-token", "toxicity"]),
        "`toxicity-tuned` head": head_speed(texts, ["toxicity-tuned"]),
    }
    specs = {
        "head-tuned": "tuned toxicity head (default)",
        "head-tuned/pairs": "tuned head, adjacent sentences also read together (0061)",
        "head-sentence": "sentence toxicity head (default before 0045)",
        "head-token": "token toxicity head",
        "head-ensemble": "sentence + token heads, mean",
        "profanity-check": "alt-profanity-check (default before the heads)",
        "head+profanity": "tuned head + profanity ensemble",
    }
    results, seconds = {}, {}
    for spec in specs:
        results[spec], seconds[spec] = run_evaluator(spec, texts)
    signals: dict[str, np.ndarray] = {}
    for spec, short in (
        ("head-tuned", "tuned head"),
        ("head-sentence", "sentence head"),
        ("head-token", "token head"),
        ("head-ensemble", "heads' mean"),
    ):
        signals[f"{specs[spec]}: `toxicity_score`"] = results[spec]["toxicity_score"]
        signals.update({f"{short} category `{m}`": results[spec][m] for m in CATEGORY_METRICS})
    signals[f"{specs['head-tuned/pairs']}: `toxicity_score`"] = results["head-tuned/pairs"][
        "toxicity_score"
    ]
    signals[f"{specs['profanity-check']}: `toxicity_score`"] = results["profanity-check"][
        "toxicity_score"
    ]
    signals[f"{specs['head+profanity']}: `toxicity_score`"] = results["head+profanity"][
        "toxicity_score"
    ]
    signals["text length (characters), baseline"] = frame["text"].str.len().to_numpy(float)

    tables = {}
    for lists in (FUNCTIONAL, HELDOUT):
        texts_of = [t for _, lst in lists.values() for t in lst]
        tables[id(lists)] = functional_rows(
            lists, {specs[s]: run_evaluator(s, texts_of)[0] for s in specs}
        )
    table, aurocs = tables[id(FUNCTIONAL)]
    banking, answers = banking_sentences(), demo_answers()
    false_flags = banking_rows(banking, {specs[s]: run_evaluator(s, banking)[0] for s in specs})
    answer_flags = banking_rows(answers, {specs[s]: run_evaluator(s, answers)[0] for s in specs})
    held_table, held_aurocs = tables[id(HELDOUT)]
    n_held = sum(len(t) for _, t in HELDOUT.values())
    n_templates = sum(len(t) for _, t in TEMPLATES.values())

    labels = frame["toxic"].to_numpy()
    lines = [
        "# Toxicity backends: Davidson et al. and a functional breakdown",
        "",
        f"Written by `benchmarks/bench_toxicity.py --limit {args.limit}`; {n} tweets (seeded "
        f"sample; {int(labels.sum())} hate/offensive, {int(n - labels.sum())} neither); Python "
        f"{platform.python_version()}, {platform.machine()}, shared 2-core machine. Every score "
        "is the `toxicity` evaluator's, end to end (sentence split, max over sentences).",
        "",
        "## Davidson: hate or offensive vs neither",
        "",
        "| signal | n | AUROC [95 % CI] | AUROC hate vs neither | AUROC offensive vs neither "
        "| recall@0.5 hate | recall@0.5 offensive | false-positive rate@0.5 |",
        "|---|---:|---|---:|---:|---:|---:|---:|",
        *davidson_rows(frame, signals),
        "",
        "alt-profanity-check was trained on data that includes Davidson: its row is optimistic "
        "(in-sample). The head never saw Davidson (its training data was checked against it).",
        "",
        "## Functional breakdown (assay's own diagnostic lists, not a held-out suite)",
        "",
        "Hand-written by assay's developers (`benchmarks/toxicity_functional.py`): share flagged "
        "(score ≥ 0.5) where the list should be flagged, share left unflagged where it should "
        "not. Lists of 10–20 sentences: diagnostics with wide intervals, not validity figures. "
        '"(n unmeasured)": sentences in which the model found no word it knows (the profanity '
        "model: none of its vocabulary, e.g. letters spaced out), scored as unmeasured and "
        "left out of the share.",
        "",
        *table,
        "",
        "Over all lists: " + "; ".join(aurocs) + ".",
        "",
        "## Functional breakdown, held-out suite",
        "",
        f"`benchmarks/toxicity_heldout.py`: HateCheck's 29 functionalities (Röttger et al. "
        f"2021) as {n_templates} templates hand-written for assay, groups filled with HateCheck's"
        f" 7 protected groups (slurs: one per group): {n_held:,} sentences. Written and "
        "committed before any head was tuned. It was the honest estimate until design note "
        "0054: the tuned head's contrast rows answer the failures seen here (denied praise, "
        "negated hate; no row repeats or nearly repeats a sentence of it), and every "
        "candidate of design notes 0054 and 0055 was scored on it, so its figures for the "
        "tuned head are optimistic; the other heads' are still held out. Labels as HateCheck's: "
        "abuse aimed at individuals, objects and non-protected groups is *not* hateful, so a "
        "toxicity scorer that flags insults fails F22–F24 by design. Not HateCheck's own data "
        "and not the project owner's suite.",
        "",
        *held_table,
        "",
        "Over the held-out suite: " + "; ".join(held_aurocs) + ".",
        "",
        "## False flags on banking text",
        "",
        f"The bundled demo's {len(banking)} distinct sentences (a bank help desk's answers, "
        "reference answers and retrieved passages: fees, cards, liability, complaints; none "
        "toxic), each scored as an answer: how many each backend flags (`toxicity_score` ≥ 0.5)"
        ". Not held out for the tuned head: its `threat` operating point was set (design note "
        "0045) after three of these sentences read as threats at the previous one.",
        "",
        *false_flags,
        "",
        f"The same check on the demo's {len(answers)} distinct answers, each scored whole (where "
        "adjacent sentences can be read together, design note 0061):",
        "",
        *answer_flags,
        "",
        "## Speed",
        "",
        *(
            f"- {name} added cost (spelling-variant normaliser + "
            f"{COST_PARTS.get(name, 'token pooling + layers')}): "
            f"{t_head * 1e3:.1f} ms for {n_sentences} distinct sentences against {t_embed:.1f} s "
            "for their all-MiniLM-L6-v2 pass (no cache): "
            f"**{t_head / t_embed:.3%}** of the embedding pass it reuses (target ≤ 20 %)."
            for name, (n_sentences, t_embed, t_head) in speed.items()
        ),
        *(
            f"- Adjacent sentences read together (`neighbours=True`, design note 0061) on {name}: "
            f"{pairs:,} distinct pairs besides {singles:,} distinct sentences, "
            f"{pair_words / single_words:.0%} more words for the shared embedding pass to encode "
            "for this evaluator (a pair is encoded as one text; the pass is shared with the "
            "other evaluators, whose texts are not counted here)."
            for name, (singles, pairs, single_words, pair_words) in (
                ("the Davidson tweets", unit_counts(texts)),
                ("the demo's answers", unit_counts(answers)),
            )
        ),
        f"- `toxicity` evaluator end to end with `profanity-check` (no embeddings): "
        f"{n / seconds['profanity-check']:,.0f} tweets/s; with the head, the embedding pass "
        "dominates (see `benchmarks/results/embedding_speed.md` for its speed).",
        f"- alt-profanity-check through assay (sha256-verified) gives scores identical to the "
        f"package's own `predict_prob`: **{identical}**; speed ratio {t_ref / t_ours:.2f}x.",
        "",
    ]
    publish(OUT, lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
