"""Validity of the groundedness-type metrics on SummEdits: AUROC for consistent (1) vs not (0).

Data: ``../shared/data/faithfulness/summedits`` (salesforce/factualNLG, Apache-2.0), five domains;
context = ``doc``, answer = ``summary``. Every score is oriented by its metric's declared direction
(higher = more consistent), so an AUROC below 0.5 means the signal is *inverted* on this data.
ROUGE-L and sentence BLEU of the summary against the document are computed the same way as
baselines. Each AUROC gets a 95% percentile bootstrap interval (label-stratified, seeded). A
logistic regression over the judge-free signals is then scored leave-one-domain-out (fit on four
domains, score the fifth) for a held-out estimate. Writes
``benchmarks/results/groundedness_validity.md``.

Run: ``python benchmarks/bench_groundedness_validity.py [--limit N] [--embedder SPEC]
[--n-boot B]`` (``--limit`` keeps the first N rows of each domain by id, a deterministic
subsample).
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from assay.calibrate.separation import auroc, auroc_ci, bootstrap_auroc, bootstrap_indices
from assay.data.case import TestCase
from assay.evaluators.base import Evaluator, Status
from assay.evaluators.embedding_bertscore import EmbContextBertScore
from assay.evaluators.embedding_groundedness import EmbGroundedness
from assay.evaluators.lexical_bleu import bleu_from_statistics, bleu_statistics
from assay.evaluators.lexical_rouge import rouge
from assay.evaluators.unsupported_facts import UnsupportedFacts
from results_file import publish

HERE = Path(__file__).resolve().parent
DATA = HERE.parents[1] / "shared" / "data" / "faithfulness" / "summedits"
OUT = HERE / "results" / "groundedness_validity.md"
BATCH = 256
SEED = 0
CONFIDENCE = 0.95
# The judge-free signals combined by the held-out model, fixed before the held-out run.
FEATURES = (
    "facts_key_unsupported_count",
    "facts_unsupported_count",
    "facts_support",
    "facts_numbers_support",
    "facts_names_support",
    "emb_groundedness_min",
    "emb_groundedness_mean",
    "rougeL_precision (baseline)",
)


def load(limit: int | None) -> pd.DataFrame:
    frames = []
    for path in sorted(DATA.glob("summedits_*.json")):
        frame = pd.read_json(path)
        frame["domain"] = path.stem.removeprefix("summedits_")
        frame = frame.sort_values("id", kind="stable")
        frames.append(frame.head(limit) if limit else frame)
    data = pd.concat(frames, ignore_index=True)
    data["label"] = data["label"].astype(int)
    return data


def run_evaluator(evaluator: Evaluator, cases: list[TestCase]) -> tuple[dict[str, list], float]:
    """Per metric the oriented value (None unless ok) of every case, and the seconds taken."""
    values: dict[str, list] = {m.name: [] for m in evaluator.metrics}
    start = time.perf_counter()
    for i in range(0, len(cases), BATCH):
        for result in evaluator.evaluate(cases[i : i + BATCH]):
            for spec in evaluator.metrics:
                outcome = result.outcomes.get(spec.name)
                ok = outcome is not None and outcome.status is Status.OK
                value = outcome.value if ok else None  # type: ignore[union-attr]
                if value is not None and not spec.higher_is_better:
                    value = -value
                values[spec.name].append(value)
    return values, time.perf_counter() - start


def baseline(data: pd.DataFrame, fn: Callable[[str, str], float]) -> tuple[list, float]:
    start = time.perf_counter()
    values = [fn(doc, summary) for doc, summary in zip(data["doc"], data["summary"], strict=True)]
    return values, time.perf_counter() - start


def as_array(values: list) -> np.ndarray:
    """Scores as floats, NaN where the metric was skipped (None)."""
    return np.array([np.nan if v is None else v for v in values], dtype=float)


def auroc_with_ci(labels: np.ndarray, scores: np.ndarray, n_boot: int) -> dict[str, Any] | None:
    """AUROC and its bootstrap interval over the scored (non-NaN) rows; None if undefined."""
    mask = ~np.isnan(scores)
    if mask.sum() < 2 or len(set(labels[mask])) < 2:
        return None
    return auroc_ci(scores[mask], labels[mask], n_boot=n_boot, confidence=CONFIDENCE, seed=SEED)


def make_model() -> Any:
    """Mean fill + missing-value indicators, standardisation, logistic regression (C = 1)."""
    from sklearn.impute import SimpleImputer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return make_pipeline(
        SimpleImputer(strategy="mean", add_indicator=True),
        StandardScaler(),
        LogisticRegression(max_iter=1000),
    )


def leave_one_domain_out(x: np.ndarray, labels: np.ndarray, domains: np.ndarray) -> np.ndarray:
    """P(consistent) for every row from a model fitted on the *other* domains only.

    Example:
        >>> rng = np.random.default_rng(0)
        >>> y = np.tile([0, 1], 60)
        >>> x = np.column_stack([y + rng.normal(size=120), rng.normal(size=120)])
        >>> p = leave_one_domain_out(x, y, np.repeat(["a", "b", "c"], 40))
        >>> bool(p[y == 1].mean() > p[y == 0].mean())
        True
    """
    out = np.empty(len(labels))
    for domain in np.unique(domains):
        test = domains == domain
        model = make_model().fit(x[~test], labels[~test])
        out[test] = model.predict_proba(x[test])[:, 1]
    return out


def paired_difference(
    labels: np.ndarray, first: np.ndarray, second: np.ndarray, n_boot: int
) -> tuple[float, float]:
    """Percentile interval of AUROC(first) − AUROC(second) on the same stratified resamples."""
    idx = bootstrap_indices(labels, n_boot, SEED)
    diffs = bootstrap_auroc(first, labels, idx) - bootstrap_auroc(second, labels, idx)
    tail = (1 - CONFIDENCE) / 2
    low, high = np.quantile(diffs, [tail, 1 - tail])
    return float(low), float(high)


def verdict(value: float | None) -> str:
    if value is None:
        return "–"
    if value >= 0.65:
        return "separates"
    if value >= 0.55:
        return "weak"
    if value > 0.45:
        return "no signal"
    return "inverted"


def fmt(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def fmt_ci(result: dict[str, Any] | None) -> str:
    if result is None:
        return "–"
    return f"{result['auroc']:.3f} ({result['ci_low']:.3f}–{result['ci_high']:.3f})"


def heldout_section(
    data: pd.DataFrame, columns: dict[str, np.ndarray], best: str, n_boot: int
) -> list[str]:
    """Markdown: held-out AUROC of the fitted combination next to `best` (scored on all rows)."""
    labels = data["label"].to_numpy()
    domains = data["domain"].to_numpy()
    x = np.column_stack([columns[name] for name in FEATURES])
    held_out = leave_one_domain_out(x, labels, domains)
    single = columns[best]  # scored on every row, so the two are paired row for row
    in_sample = make_model().fit(x, labels)
    in_sample_auc = auroc_with_ci(labels, in_sample.predict_proba(x)[:, 1], n_boot)
    lines = [
        "## Held-out estimate: leave one domain out",
        "",
        "A logistic regression (scikit-learn, default C = 1, no tuning) over the oriented, "
        "standardised judge-free signals "
        + ", ".join(f"`{name.removesuffix(' (baseline)')}`" for name in FEATURES)
        + " is fitted on four domains and scores the fifth; each domain is held out once. "
        "Missing values are explicit: `facts_numbers_support` and `facts_names_support` are "
        "skipped when the summary has no number or no name, so each such value is filled with "
        "the training domains' mean and a 0/1 *skipped* indicator column is added (scikit-learn "
        "`SimpleImputer(add_indicator=True)`), fitted on the training domains only. The feature "
        "list was fixed before this run and nothing is tuned, so no label of the held-out domain "
        "reaches its model.",
        "",
        f"| held-out domain | n | best single scored on all rows: {best} (no fitting) | "
        "combination (fit on the other 4) | combination − single (paired 95% CI) |",
        "|---|---:|---:|---:|---:|",
    ]
    per_domain = []
    for domain in sorted(set(domains)):
        mask = domains == domain
        y = labels[mask]
        one = auroc_with_ci(y, single[mask], n_boot)
        combo = auroc_with_ci(y, held_out[mask], n_boot)
        low, high = paired_difference(y, held_out[mask], single[mask], n_boot)
        assert one is not None and combo is not None
        per_domain.append((one["auroc"], combo["auroc"]))
        lines.append(
            f"| {domain} | {int(mask.sum())} | {fmt_ci(one)} | {fmt_ci(combo)} | "
            f"{combo['auroc'] - one['auroc']:+.3f} ({low:+.3f} to {high:+.3f}) |"
        )
    one_all = auroc_with_ci(labels, single, n_boot)
    combo_all = auroc_with_ci(labels, held_out, n_boot)
    assert one_all is not None and combo_all is not None
    low, high = paired_difference(labels, held_out, single, n_boot)
    singles, combos = (np.array(v) for v in zip(*per_domain, strict=True))
    lines += [
        f"| **pooled** | {len(labels)} | {fmt_ci(one_all)} | {fmt_ci(combo_all)} | "
        f"{combo_all['auroc'] - one_all['auroc']:+.3f} ({low:+.3f} to {high:+.3f}) |",
        f"| mean of domains | | {singles.mean():.3f} | {combos.mean():.3f} | "
        f"{combos.mean() - singles.mean():+.3f} |",
        "",
        f"Pooled = the held-out predictions of all five folds ranked together (five different "
        f"models, so this also mixes their scales; the per-domain rows are the cleaner figures). "
        f"For contrast, the same model fitted and scored on all rows (**not** held out) reaches "
        f"{fmt_ci(in_sample_auc)}, which shows how much fitting on the scored rows flatters it.",
        "",
        f"What is held out and what is not. The combination column is a genuine held-out "
        f"estimate of the *fitting*: its weights never saw the labels of the domain they score. "
        f"The `{best}` column has no fitted parameter at all, so each per-domain value is "
        f'already "unfitted" and equals its entry in the first table; but that metric (its '
        f"key-fact list and local negation check) and the choice of it as best were made after "
        f"looking at all five domains, and no split of this data can undo that. Nor do the "
        f"intervals allow for picking the best of {len(columns)} scores.",
        "",
    ]
    names = sorted(set(domains))
    combo_below = [d for d, (_, c) in zip(names, per_domain, strict=True) if c < 0.65]
    single_below = [d for d, (s, _) in zip(names, per_domain, strict=True) if s < 0.65]
    goal = (
        f"**Goal (AUROC above 0.65) on held-out data.** Pooled, the combination's held-out AUROC "
        f"is {combo_all['auroc']:.3f} (95% CI {combo_all['ci_low']:.3f}–"
        f"{combo_all['ci_high']:.3f}): "
    )
    if combo_all["ci_low"] > 0.65:
        goal += "the goal holds, with the whole interval above 0.65."
    elif combo_all["auroc"] > 0.65:
        goal += "above 0.65 as a point estimate, but the interval reaches below 0.65."
    else:
        goal += "the goal is **not** met."
    goal += (
        f" Ranked within each held-out domain (as when the model meets one new domain), its "
        f"mean AUROC is {combos.mean():.3f}, "
        + (
            "and it is below 0.65 on " + ", ".join(combo_below) + "."
            if combo_below
            else "and every held-out domain is above 0.65."
        )
        + (
            " Pooling ranks summaries across domains that differ in base rate and score level, "
            "which pulls the pooled figure below the per-domain mean."
            if combo_all["auroc"] < combos.mean()
            else ""
        )
        + f" The best single score, with nothing fitted, is "
        f"{one_all['auroc']:.3f} pooled and {singles.mean():.3f} on average per domain"
        + (", below 0.65 on " + ", ".join(single_below) + "." if single_below else ".")
    )
    return [*lines, goal, ""]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--limit", type=int, default=None, help="rows per domain (by id)")
    parser.add_argument("--embedder", default="minilm", help="embedder spec")
    parser.add_argument("--n-boot", type=int, default=2000, help="bootstrap resamples")
    args = parser.parse_args()
    if not DATA.is_dir():
        print(f"SummEdits not found at {DATA}; see shared/data/README.md", file=sys.stderr)
        return 1
    data = load(args.limit)
    cases = [
        TestCase(id=str(row.id), actual_answer=row.summary, retrieved_context=[row.doc])
        for row in data.itertuples()
    ]
    columns: dict[str, np.ndarray] = {}
    timings: dict[str, float] = {}
    sources: dict[str, str] = {}
    for evaluator in (
        EmbGroundedness(embedder=args.embedder),
        EmbContextBertScore(embedder=args.embedder),
        UnsupportedFacts(),
    ):
        values, seconds = run_evaluator(evaluator, cases)
        for name, column in values.items():
            columns[name], timings[name], sources[name] = as_array(column), seconds, evaluator.name
    baselines = {
        "rougeL_precision (baseline)": lambda d, s: rouge(d, s, ["rougeL"])["rougeL"].precision,
        "rougeL_f1 (baseline)": lambda d, s: rouge(d, s, ["rougeL"])["rougeL"].fmeasure,
        "bleu (baseline)": lambda d, s: bleu_from_statistics(bleu_statistics(s, d)),
    }
    for name, fn in baselines.items():
        column, timings[name] = baseline(data, fn)
        columns[name], sources[name] = as_array(column), "lexical"
    labels = data["label"].to_numpy()
    domains = sorted(data["domain"].unique())
    start = time.perf_counter()
    rows = []
    for name, scores in columns.items():
        overall = auroc_with_ci(labels, scores, args.n_boot)
        per_domain = []
        for domain in domains:
            mask = (data["domain"] == domain).to_numpy()
            scored = mask & ~np.isnan(scores)
            ok = len(set(labels[scored])) == 2
            per_domain.append(auroc(scores[scored], labels[scored]) if ok else None)
        rows.append((name, overall, int((~np.isnan(scores)).sum()), per_domain))
    rows.sort(key=lambda r: -(r[1]["auroc"] if r[1] else 0))
    lines = [
        "# Groundedness validity on SummEdits",
        "",
        f"AUROC of each score for consistent (label 1) vs inconsistent (label 0) summaries; "
        f"{len(data):,} rows ({int(labels.sum()):,} consistent) from {len(domains)} domains"
        + (
            f", **subsample: first {args.limit} rows per domain by id**"
            if args.limit
            else ", all rows"
        )
        + f". Context = document, answer = summary; embedder `{args.embedder}`. "
        "Generated by `python benchmarks/bench_groundedness_validity.py`; do not edit by hand.",
        "",
        'Scores are oriented so that higher means "more consistent" (counts are negated): '
        "AUROC 0.5 is chance, below 0.5 the signal is inverted. Verdict (on the point estimate): "
        "≥ 0.65 separates, 0.55–0.65 weak, 0.45–0.55 no signal, < 0.45 inverted. The interval "
        f"is a {CONFIDENCE:.0%} percentile bootstrap ({args.n_boot:,} resamples stratified by "
        f"label, seed {SEED}, `assay.calibrate.separation.auroc_ci`) over the rows the metric "
        "scored. None of these scores is fitted to the labels; the per-domain columns are "
        "point estimates.",
        "",
        "| metric | evaluator | AUROC (95% CI) | verdict | n scored | "
        + " | ".join(domains)
        + " |",
        "|---|---|---:|---|---:|" + "---:|" * len(domains),
    ]
    for name, overall, n, per_domain in rows:
        point = overall["auroc"] if overall else None
        lines.append(
            f"| {name} | {sources[name]} | {fmt_ci(overall)} | {verdict(point)} | {n} | "
            + " | ".join(fmt(v) for v in per_domain)
            + " |"
        )
    best_name, best = rows[0][0], rows[0][1]
    assert best is not None
    clears = "above" if best["ci_low"] > 0.65 else "not entirely above"
    lines += [
        "",
        f"Best single score (not held out): **{best_name}** at AUROC {fmt_ci(best)}; its "
        f"interval is {clears} the goal of 0.65.",
        "",
        "SummEdits edits keep the summary a fluent paraphrase of the document while changing a "
        "fact (an entity, number, negation or antonym), so whole-sentence similarity barely moves: "
        "sentence-embedding groundedness sees topical overlap, not the changed detail, and "
        "token-level similarity does not see it either (a swapped entity or antonym stays close "
        "in embedding space). Its consistent summaries are often *more* reworded than the "
        "inconsistent ones, which is why every overlap measure (ROUGE-L, BLEU, the share of "
        "supported content words) sits at or below chance. Only the unsupported *key* facts "
        "(names, numbers, dates, negations) separate the labels.",
        "",
        "Caveat: the key-fact count and the local negation check (a negation counts as supported "
        "only when the best-matching context sentence is negated too) were added after a first "
        "run on this data, where the key-fact count scored 0.624; the table above is therefore "
        "not a held-out figure. The next section gives one for a fitted combination.",
        "",
        # The single score to compare with: the best one that scored every row.
        *heldout_section(data, columns, next(r[0] for r in rows if r[2] == len(data)), args.n_boot),
        "## Time per evaluator",
        "",
        "| evaluator | seconds |",
        "|---|---:|",
    ]
    stats_seconds = time.perf_counter() - start
    seen = set()
    for name in columns:
        key = sources[name] if sources[name] != "lexical" else name
        if key not in seen:
            seen.add(key)
            lines.append(f"| {key} | {timings[name]:.1f} |")
    lines += [
        f"| bootstrap intervals + leave-one-domain-out fits | {stats_seconds:.1f} |",
        "",
        f"{platform.python_implementation()} {platform.python_version()}, {platform.machine()}; "
        "embedding times include model loading and encoding unless the on-disk cache was warm.",
        "",
    ]
    publish(OUT, lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
