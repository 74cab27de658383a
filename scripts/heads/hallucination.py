"""The hallucination head: a monotone logistic combination of the per-sentence support signals.

Data: the NLI pairs of ``scripts/heads/nli.py`` (same files, ``--limit`` and ``--seed``) that the
NLI head did **not** train on (its grouped validation premises), so the NLI signals are held-out
values, as they will be on users' data. Each premise is set among 0-3 other premises of its
source file to make a small *document* (:func:`with_documents`), the context of its rows; an
answer sentence is a hypothesis. Supported = entailment; unsupported = neutral or contradiction,
plus synthetic *detail edits* of the entailed hypotheses (:mod:`heads.edits`: a number changed,
a name swapped for another of the premise, a negation flipped, two roles exchanged, a word
replaced by another word of the premise, a name, number or word moved in from another premise
of the document), and joined claims (:func:`with_joined`): NLI's unsupported hypotheses mostly
add new content, while a hallucinating answer often keeps the source's words and changes one
detail, and a combination fitted on NLI alone leans on word overlap, which cannot see that. The
model is a logistic regression on standardised signals with every weight constrained to be >= 0
(scipy L-BFGS-B with bounds, L2 1e-2), so the combination is monotone: more support never raises
the hallucination score; every kind of unsupported row has the same total weight
(:func:`kind_weights`), and supported rows as much as unsupported ones. Quality is reported
with 5-fold cross-validation grouped by premise.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

from assay.backends.heads.store import save_head
from assay.backends.nli import logistic
from assay.backends.nli.head_nli import HeadNLI
from assay.evaluators.hallucination_signals import (
    FEATURE_SET,
    FIGURE_CAP,
    SIGNALS,
    capped_at_figures,
    sentence_signals,
    text_fingerprint,
    unstated_figure,
)
from assay.text.facts import STOPWORDS
from assay.text.rules_probe import FINGERPRINT
from heads.common import SHIPPED, embedder, logger, stable_fraction
from heads.edits import (
    EDITS,
    change_quantity,
    detail_edits,
    move_detail,
    surface_forms,
    swap_antonym,
)
from heads.nli import LICENCES, load, premise_key, split

L2 = 1e-2
FOLDS = 5
#: Detail edits made of each entailed hypothesis, at most (of different kinds).
EDITS_PER_CLAIM = 2
#: Other premises (of the same source file) put around a row's premise to make its document:
#: 0 to this many, seeded.
MAX_OTHER_PREMISES = 3


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--nli-head", default="nli", help="NLI head (shipped name or folder)")


def kind_weights(kinds: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Row weights giving every kind of unsupported row the same total weight, and the supported
    rows together as much weight as all the unsupported ones (even prior odds).

    Why: the generators yield very different counts (names are rare in NLI text, negations
    common); unweighted, the head would learn mostly what the most frequent kinds show, while a
    user's unsupported claims can be of any kind. And the mix is about three unsupported rows to
    one supported: fitted on it as it is, the head's probability carried that prior, so even a
    copy of a context sentence scored P(supported) 0.39 and failed the metric's 0.5 threshold.
    At even odds, 0.5 is where the signals favour neither side.

    Example:
        >>> kinds = np.array(["ok", "a", "a", "a", "b"])
        >>> kind_weights(kinds, np.array([1, 0, 0, 0, 0])).tolist()
        [4.0, 0.6666666666666666, 0.6666666666666666, 0.6666666666666666, 2.0]
    """
    weights = np.full(len(y), (y == 0).sum() / max(1, (y == 1).sum()))
    unsupported = sorted(set(kinds[y == 0].tolist()))
    for kind in unsupported:
        rows = (kinds == kind) & (y == 0)
        weights[rows] = (y == 0).sum() / len(unsupported) / rows.sum()
    return weights


def fit_monotone(
    x: np.ndarray, y: np.ndarray, weights: np.ndarray | None = None
) -> tuple[np.ndarray, float, np.ndarray, np.ndarray]:
    """Logistic regression with non-negative weights on standardised ``x`` (``weights``: per
    row, default 1).

    Returns ``(weights, bias, mean, scale)``. Deterministic (no random start).

    Example:
        >>> x = np.array([[0.0], [1.0], [2.0], [3.0]])
        >>> w, b, m, s = fit_monotone(x, np.array([0, 0, 1, 1]))
        >>> bool(w[0] > 0)
        True
    """
    from scipy.optimize import minimize

    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < 1e-9] = 1.0
    z = (x - mean) / scale
    sign = 2.0 * y - 1.0
    row = np.ones(len(y)) if weights is None else weights / weights.mean()

    def loss(params: np.ndarray) -> tuple[float, np.ndarray]:
        w, b = params[:-1], params[-1]
        margin = sign * (z @ w + b)
        value = (row * np.logaddexp(0.0, -margin)).mean() + L2 * (w @ w) / 2
        p = -sign * row / (1.0 + np.exp(margin))  # d loss / d (z w + b) per row
        grad = np.concatenate([z.T @ p / len(y) + L2 * w, [p.mean()]])
        return float(value), grad

    bounds = [(0.0, None)] * z.shape[1] + [(None, None)]
    result = minimize(loss, np.zeros(z.shape[1] + 1), jac=True, method="L-BFGS-B",
                      bounds=bounds)
    return result.x[:-1], float(result.x[-1]), mean, scale


def figure_cap(x: np.ndarray, y: np.ndarray, weights: np.ndarray) -> float:
    """The head's figure cap: the weighted share of supported rows among the rows that state a
    figure their context lacks (the fit's own row weights, so at its even odds).

    Example:
        >>> x = np.zeros((4, len(SIGNALS)))
        >>> x[1:, SIGNALS.index("figures_supported")] = -1.0
        >>> figure_cap(x, np.array([1, 1, 0, 0]), np.ones(4))
        0.3333
    """
    rows = unstated_figure(x)
    return round(float((weights[rows] * y[rows]).sum() / weights[rows].sum()), 4)


def grouped_cv_auroc(
    x: np.ndarray, y: np.ndarray, groups: list[str], kinds: np.ndarray
) -> dict[str, Any]:
    """AUROC of out-of-fold predictions (folds by premise hash; the linear combination alone,
    and with the figure cap fitted in the same folds) and of each signal alone, on all rows
    and per kind of unsupported row (that kind against every supported row)."""
    from sklearn.metrics import roc_auc_score

    fold = np.array([int(stable_fraction("cv:" + g) * FOLDS) for g in groups])
    predicted = np.empty(len(y))
    capped = np.empty(len(y))
    for k in range(FOLDS):
        train, test = fold != k, fold == k
        row_weights = kind_weights(kinds[train], y[train])
        w, b, m, s = fit_monotone(x[train], y[train], row_weights)
        predicted[test] = ((x[test] - m) / s) @ w + b
        capped[test] = capped_at_figures(logistic(predicted[test]), x[test],
                                         figure_cap(x[train], y[train], row_weights))

    def by_kind(scores: np.ndarray) -> dict[str, float]:
        out = {}
        for kind in sorted(set(kinds[y == 0].tolist())):
            rows = (y == 1) | (kinds == kind)
            out[kind] = round(float(roc_auc_score(y[rows], scores[rows])), 4)
        return out

    return {
        "combined_cv_auroc": round(float(roc_auc_score(y, predicted)), 4),
        "combined_cv_auroc_by_kind": by_kind(predicted),
        "capped_cv_auroc": round(float(roc_auc_score(y, capped)), 4),
        "capped_cv_auroc_by_kind": by_kind(capped),
        "signal_auroc": {name: round(float(roc_auc_score(y, x[:, j])), 4)
                         for j, name in enumerate(SIGNALS)},
        "signal_auroc_by_kind": {name: by_kind(x[:, j]) for j, name in enumerate(SIGNALS)},
    }


def with_documents(rows: list[dict[str, Any]], seed: int) -> list[dict[str, Any]]:
    """Each row with a ``context``: its premise among 0 to ``MAX_OTHER_PREMISES`` other premises
    of the same source file (one per line, in a seeded order), ``others``, those premises, and
    ``elsewhere``, their text. The same premise always gets the same document.

    Why: a user's context has many sentences, and a detail moved from one of them into a claim
    about another is what :mod:`assay.text.alignment` sees; single-premise contexts could not
    teach the head that signal.
    """
    rng = np.random.default_rng(seed)
    by_source: dict[str, set[str]] = {}
    for r in rows:
        by_source.setdefault(r["source"], set()).add(r["premise"])
    pool = {source: sorted(found) for source, found in by_source.items()}
    documents: dict[tuple[str, str], tuple[str, list[str]]] = {}
    for source, premises in pool.items():
        for premise in premises:
            count = int(rng.integers(MAX_OTHER_PREMISES + 1))
            others = [premises[int(i)] for i in rng.choice(len(premises), size=count + 1,
                                                           replace=False)]
            others = [o for o in others if o != premise][:count]
            lines = [*others, premise]
            order = rng.permutation(len(lines))
            documents[(source, premise)] = ("\n".join(lines[int(i)] for i in order), others)
    out = []
    for r in rows:
        context, others = documents[(r["source"], r["premise"])]
        out.append({**r, "context": context, "others": others, "elsewhere": " ".join(others)})
    return out


def _join(first: str, second: str) -> str:
    """Two claims as one sentence ("A; b"), the second's first letter lowered when its first
    word is a function or number word (so it does not read as a name).

    Example:
        >>> _join("A man sleeps.", "Two dogs run.")
        'A man sleeps; two dogs run.'
        >>> _join("A man sleeps", "Anna runs.")
        'A man sleeps; Anna runs.'
    """
    head = first.rstrip().rstrip(".!?")
    word = second.split(" ", 1)[0].lower()
    if word in STOPWORDS or word in ("two", "three", "four", "five", "there", "some", "people"):
        second = second[:1].lower() + second[1:]
    return f"{head}; {second}"


def with_joined(rows: list[dict[str, Any]], seed: int) -> list[dict[str, Any]]:
    """Claims that join a row's entailed hypothesis with a hypothesis of *another* premise of
    its document: supported (kind ``joined_entailment``) when that one is entailed by its own
    premise, unsupported (``joined_unsupported``) when it is neutral or a contradiction.

    Why: an answer sentence often condenses two passages; it is then less close to any one
    sentence, the NLI head judges it against one sentence at a time, and the words of the
    second passage lie outside the window it aligns with. Without such supported rows the head
    would read every condensing sentence as unsupported.
    """
    rng = np.random.default_rng(seed)
    hypotheses: dict[str, dict[str, list[str]]] = {}
    for r in rows:
        if r["kind"].startswith("nli_"):
            found = hypotheses.setdefault(r["premise"], {"supported": [], "unsupported": []})
            found["supported" if r["label"] == "entailment" else "unsupported"].append(
                r["hypothesis"])
    out = list(rows)
    for r in rows:
        if r["kind"] != "nli_entailment" or not r["others"]:
            continue
        other = hypotheses.get(r["others"][int(rng.integers(len(r["others"])))])
        if other is None:
            continue
        for side, kind in (("supported", "joined_entailment"), ("unsupported",
                                                                 "joined_unsupported")):
            if other[side]:
                second = other[side][int(rng.integers(len(other[side])))]
                out.append({**r, "hypothesis": _join(r["hypothesis"], second),
                            "label": "entailment" if side == "supported" else "joined",
                            "kind": kind})
    return out


def with_edits(rows: list[dict[str, Any]], seed: int) -> list[dict[str, Any]]:
    """The NLI rows (kind ``nli_<label>``) followed by detail edits of the entailed ones (kind
    ``edit_<edit>``, label ``edited``; ``edit_moved`` takes its detail from the rest of the
    row's document; ``edit_antonym`` and ``edit_quantity`` change a predicate or a quantity
    word), seeded."""
    rng = np.random.default_rng(seed)
    meaning_rng = np.random.default_rng([seed, 1])  # its own draws: the other edits unchanged
    surfaces = surface_forms([t for r in rows for t in (r["premise"], r["hypothesis"])])
    out = [{**r, "kind": f"nli_{r['label']}"} for r in rows]
    for r in rows:
        if r["label"] != "entailment":
            continue
        out.extend({**r, "hypothesis": text, "label": "edited", "kind": f"edit_{kind}"}
                   for kind, text in detail_edits(r["premise"], r["hypothesis"], rng,
                                                  EDITS_PER_CLAIM))
        for kind, text in (
                ("antonym", swap_antonym(r["premise"], r["hypothesis"], meaning_rng, surfaces)),
                ("quantity", change_quantity(r["premise"], r["hypothesis"], meaning_rng))):
            if text is not None and text.strip() != r["hypothesis"].strip():
                out.append({**r, "hypothesis": text, "label": "edited", "kind": f"edit_{kind}"})
        moved = move_detail(r["elsewhere"], r["hypothesis"], rng) if r["elsewhere"] else None
        if moved is not None and moved.strip() != r["hypothesis"].strip():
            out.append({**r, "hypothesis": moved, "label": "edited", "kind": "edit_moved"})
    return out


def train(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    rows = load(args.data, args.limit, args.seed)
    held = split(rows)
    rows = with_joined(with_edits(with_documents(
        [r for r, h in zip(rows, held, strict=True) if h], args.seed), args.seed), args.seed)
    logger.info("hallucination pairs (NLI-head validation premises and their edits): %d",
                len(rows))
    emb = embedder(args.cache_dir)
    signals = sentence_signals(
        HeadNLI(args.nli_head, embedder=emb), emb,
        [[r["hypothesis"]] for r in rows], [[r["context"]] for r in rows],
    )
    x = np.vstack(signals)
    y = np.array([r["label"] == "entailment" for r in rows], dtype=float)
    kinds = np.array([r["kind"] for r in rows])
    row_weights = kind_weights(kinds, y)
    weights, bias, mean, scale = fit_monotone(x, y, row_weights)
    cap = figure_cap(x, y, row_weights)
    quality = grouped_cv_auroc(x, y, [premise_key(r["premise"]) for r in rows], kinds)
    info = {
        "seed": args.seed,
        "limit_per_file": args.limit,
        "nli_head": str(args.nli_head),
        "signals": list(SIGNALS),
        FINGERPRINT: text_fingerprint(),
        "rows": len(rows),
        "supported_rows": int(y.sum()),
        "rows_by_kind": {k: int((kinds == k).sum()) for k in sorted(set(kinds.tolist()))},
        "l2": L2,
        "weights_on_standardised_signals": dict(zip(SIGNALS, np.round(weights, 4).tolist(),
                                                    strict=True)),
        "metrics": quality,
        "p_supported_at_full_support": round(float(
            logistic(((x.max(axis=0) - mean) / scale) @ weights + bias)), 4),
        FIGURE_CAP: cap,
        "rows_with_unstated_figure": int(unstated_figure(x).sum()),
        "supported_rows_with_unstated_figure": int((unstated_figure(x) & (y == 1)).sum()),
        "seconds": round(time.perf_counter() - started, 1),
    }
    out = args.out or SHIPPED / "hallucination"
    digest = save_head(
        out, name="hallucination", labels=("supported",), features=FEATURE_SET,
        layers=[(weights.reshape(-1, 1), np.array([bias]))], mean=mean, scale=scale, info=info,
        data={FIGURE_CAP: cap},
    )
    (out / "MODEL_CARD.md").write_text(model_card(info, digest), encoding="utf-8")
    logger.info("wrote %s (sha256 %s): %s", out, digest[:16], quality)
    return 0


def model_card(info: dict[str, Any], digest: str) -> str:
    """The model card, generated from what training measured."""
    m = info["metrics"]
    kinds = info["rows_by_kind"]
    lines = [
        "# assay hallucination head (`hallucination`)",
        "",
        "Generated by `python scripts/train_heads.py --head hallucination`; do not edit by hand.",
        "",
        "**What it is.** The combining weights of the `hallucination_score` evaluator: a logistic "
        f"regression with non-negative weights (monotone) over {len(info['signals'])} "
        "per-sentence support signals, giving P(answer sentence supported by the context). "
        "Signals and weights (on standardised signals): "
        + ", ".join(f"`{k}` {v}" for k, v in info["weights_on_standardised_signals"].items())
        + ". `figures_supported` is minus the number of the sentence's numbers and dates "
        "absent from the context (\"one\" used as a pronoun is not a number); "
        "`key_facts_supported` minus the number of its names absent from the context, of its "
        "negations that the closest context sentence does not share (with the figures, the "
        "`facts_key_unsupported_count` rule of `unsupported_facts`) and of "
        "its words absent from the context whose WordNet antonym the context uses. "
        "`aligned_support` is one minus the IDF-weighted share of its words and numbers that "
        "the context holds but not the window of two context sentences the sentence aligns "
        "with best (`assay.text.alignment`: a detail moved to the wrong place). "
        "`window_entailment` and `window_not_contradiction` are the NLI head's P(entailment) "
        "and 1 - P(contradiction) of the sentence against that window alone (against a whole "
        "passage, one changed detail weighs little). `nli_entailment` is the best P(entailment) "
        "over the passages; `nli_not_contradiction` is 1 - P(contradiction) against the passage "
        "holding that window only (the NLI head reads a premise about something else as a "
        "contradiction, so an unrelated retrieved passage must not count; the training "
        "documents are one passage each, where the two definitions agree).",
        "",
        f"**Figure cap.** A sentence that states a number or date its context lacks gets "
        f"P(supported) at most **{info[FIGURE_CAP]:.4f}**: the weighted share of supported "
        f"rows among the {info['rows_with_unstated_figure']:,} training rows with an unstated "
        f"figure ({info['supported_rows_with_unstated_figure']:,} of them supported: entailed "
        "hypotheses that word or round a figure differently, '66 percent' for 'two-thirds', "
        "'over 1,300' for 'over 1,350', or count what their premise lists; a duration in "
        "another unit, 'seven days' for 'a week', is supported). "
        "A linear head adds that evidence to the others, so a sentence copied from the context "
        "with one figure changed kept every other signal at full support and passed; the cap "
        "makes the unstated figure decisive (`assay.evaluators.hallucination_signals."
        "capped_at_figures`). It is stored in the weights file, under its sha256.",
        "",
        f"**Weights.** `weights.npz` sha256 `{digest}` (checked before every load).",
        "",
        "## Data",
        "",
        f"{info['rows']:,} (context, claim) rows, {info['supported_rows']:,} supported. NLI pairs "
        "of the grouped validation premises of the NLI head, which it never trained on, so its "
        "signals here are held-out values (entailment = supported; neutral and contradiction = "
        "unsupported), and synthetic *detail edits* of their entailed hypotheses "
        f"(`scripts/heads/edits.py`, at most {EDITS_PER_CLAIM} per hypothesis, of different "
        f"kinds: {', '.join(EDITS)}; plus one `moved` edit, a name, number or word taken from "
        "another premise of the row's document; one `antonym` edit, a word replaced by its WordNet "
        "antonym, and one `quantity` edit, a quantity or order word changed: 'all' -> 'some', "
        "'before' -> 'after'), unsupported: the edit is the only change; and "
        "*joined* claims, an entailed hypothesis joined with a hypothesis of another premise of "
        "its document (supported when that one is entailed, unsupported otherwise). "
        f"The context of a row is its premise among 0 to {MAX_OTHER_PREMISES} other premises "
        "of the same source file, one per line. Every kind of unsupported row has the same "
        "total weight in the fit. Rows by kind: "
        + ", ".join(f"{k} {n:,}" for k, n in kinds.items()) + ". Sources and licences: "
        + "; ".join(f"{k}: {v}" for k, v in LICENCES.items()) + ". Per-file limit "
        f"{info['limit_per_file'] or 'none (all rows)'}, seed {info['seed']}. No validation set "
        "of assay (SummEdits, FRANK, ...) was used.",
        "",
        "## Metrics",
        "",
        "5-fold cross-validated AUROC (folds grouped by premise; the cap fitted within each "
        f"fold) of the shipped combination: {m['capped_cv_auroc']:.3f} on all rows. "
        "Against each kind of unsupported row "
        "(that kind vs every supported row; same out-of-fold scores):",
        "",
        "| signal | all rows | " + " | ".join(m["combined_cv_auroc_by_kind"]) + " |",
        "|---|---:|" + "---:|" * len(m["combined_cv_auroc_by_kind"]),
        "| **combination with the figure cap (cross-validated; shipped)** | "
        f"**{m['capped_cv_auroc']:.3f}** | "
        + " | ".join(f"**{v:.3f}**" for v in m["capped_cv_auroc_by_kind"].values()) + " |",
        f"| linear combination alone (cross-validated) | {m['combined_cv_auroc']:.3f} | "
        + " | ".join(f"{v:.3f}" for v in m["combined_cv_auroc_by_kind"].values()) + " |",
        *(f"| `{name}` alone | {m['signal_auroc'][name]:.3f} | "
          + " | ".join(f"{v:.3f}" for v in m["signal_auroc_by_kind"][name].values()) + " |"
          for name in info["signals"]),
        "",
        "Out-of-domain figures (SummEdits, every domain unseen): "
        "`benchmarks/results/heads_validity.md`.",
        "",
        "## Limits",
        "",
        "- Fitted on short NLI hypotheses against documents of a few unrelated premises; "
        "answers are scored sentence by sentence, and a claim that needs two passages together "
        "is judged against each alone by the NLI signals.",
        "- `aligned_support` reads a faithful sentence that takes a single detail from a "
        "distant second passage as a moved detail (two details or more of one other passage "
        "count as a condensed passage, not as moved); alone, it is inverted on SummEdits' "
        "whole-e-mail summaries of sales e-mails.",
        "- A swapped role, or a word replaced by another word of the same context window, "
        "leaves every lexical signal intact; only the NLI head can see it, and it mostly does "
        "not (see the per-kind columns above). No signal sees a near-synonym that changes the "
        "meaning ('manager' for 'executive'): see the subgroup figure in "
        "`benchmarks/results/heads_validity.md`.",
        "- Quantity and order words ('all', 'some', 'before', 'after') are stop words to every "
        "lexical signal: only the NLI signals see a changed one (the `edit_quantity` column). "
        "The training documents are a few short premises, so the aligned window is nearly the "
        "whole passage there and the window signals were fitted where they add little; their "
        "use is on long contexts.",
        "- Its probability is fitted at even prior odds (the supported rows weigh as much as "
        "the unsupported ones; about one row in four is supported), not at a user's base rate. "
        "With every signal at its most supported value (a sentence copied from the context) "
        f"P(supported) is {info['p_supported_at_full_support']:.2f}, not 1: word-preserving "
        "edits (a swapped role, a word moved within the passage) look the same to these "
        "signals. Recalibrate with `assay calibrate` on labelled cases.",
        "",
    ]
    return "\n".join(lines)
