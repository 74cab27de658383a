"""Active bias probes of judge evaluators: verbosity (padded answer) and context order.

The correlational check of :mod:`assay.analyze.judge_checks` sees whether scores follow answer
length across cases, which longer answers may deserve. These probes change *one* case in a way
that must not change a sound judge's score, ask the judge again, and compare the pair:

* **verbosity**: the same answer with content-free padding appended (:data:`PADDING`: no fact,
  no claim), for every judge evaluator that reads ``actual_answer``. LLM judges are known to
  prefer longer answers of the same content (Zheng et al. 2023, "Judging LLM-as-a-Judge",
  §3.3 verbosity bias; Saito et al. 2023, "Verbosity Bias in Preference Labeling by LLMs").
* **position**: the retrieved contexts in reverse order, for judge evaluators that read
  ``retrieved_context`` and whose definition does not depend on rank (:data:`RANK_AWARE` are left
  out: context precision *is* rank-aware, and a summary's source is one document in reading
  order). A judge that favours what it reads first gives another score (Wang et al. 2023,
  "Large Language Models are not Fair Evaluators", position bias).

No assay judge compares two answers in one prompt, so the pairwise position probe (A/B asked in
both orders) has nothing to probe yet; the order probed here is the order of the listed contexts.

Each probe is a problem (``judge_verbosity_probe`` / ``judge_position_probe``, medium) on at
least :data:`MIN_PAIRS` pairs both scored when: verbosity, the padded answer scores higher on
average by :data:`MIN_SHIFT` or in significantly more cases than lower (one-sided sign test,
p < 0.05); position, the mean absolute change reaches :data:`MIN_SHIFT` or the score moves (by
more than :data:`TIE`) in :data:`MIN_CHANGED` of the cases. Otherwise it is a ``judge_probe``
insight saying what was probed and found. Pairs where either score is missing are not counted.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, cast

from assay.data.case import TestCase
from assay.evaluators.base import Evaluator, Status
from assay.rundir.records import Finding

#: Content-free padding: politeness and restatement, no fact and no claim.
PADDING = (
    " I hope this answers your question clearly and completely. To summarise, the answer above "
    "is what applies in your situation. If anything is unclear, please do not hesitate to ask "
    "again, and I will be glad to explain it in more detail."
)
#: Judge evaluators whose definition depends on the order of the contexts.
RANK_AWARE = frozenset({"judge_context_precision", "judge_ragas", "judge_summarization"})
MIN_PAIRS = 5
MIN_SHIFT = 0.1
#: Position: a judge whose score moves in this share of the cases is order-sensitive.
MIN_CHANGED = 0.2
#: A change smaller than this is counted as no change by the sign test.
TIE = 0.05


@dataclass(frozen=True)
class ProbeResult:
    """The paired scores of one probe of one judge evaluator's primary metric."""

    evaluator: str
    metric: str
    kind: str  # "verbosity" or "position"
    plain: list[float]
    probed: list[float]

    @property
    def shifts(self) -> list[float]:
        """Probed minus plain score, per pair."""
        return [b - a for a, b in zip(self.plain, self.probed, strict=True)]

    def summary(self) -> dict[str, Any]:
        """Pairs, mean shift (signed for verbosity, absolute for position), cases up / down and,
        for verbosity, the one-sided sign-test p-value (None below two untied pairs)."""
        from scipy.stats import binomtest

        shifts = self.shifts
        up = sum(s > TIE for s in shifts)
        down = sum(s < -TIE for s in shifts)
        if self.kind == "verbosity":
            mean = sum(shifts) / len(shifts) if shifts else 0.0
            p_value = binomtest(up, up + down, 0.5, alternative="greater").pvalue \
                if up + down >= 2 else None
        else:  # no direction to test: how much and how often the order moves the score
            mean = sum(abs(s) for s in shifts) / len(shifts) if shifts else 0.0
            p_value = None
        return {"pairs": len(shifts), "mean_shift": round(mean, 4), "up": up, "down": down,
                "p_value": None if p_value is None else float(p_value)}


def pad(case: TestCase) -> TestCase:
    """The case with :data:`PADDING` after its answer.

    Example:
        >>> pad(TestCase(id="a", actual_answer="5 euros.")).actual_answer.startswith("5 euros. I")
        True
    """
    return case.model_copy(update={"actual_answer": (case.actual_answer or "") + PADDING})


def reverse_contexts(case: TestCase) -> TestCase:
    """The case with its retrieved contexts (and their ids) in reverse order."""
    update: dict[str, Any] = {"retrieved_context": list(reversed(case.retrieved_context or []))}
    if case.context_ids:
        update["context_ids"] = list(reversed(case.context_ids))
    return case.model_copy(update=update)


def _primary(evaluator: Evaluator) -> str:
    return next((m.name for m in evaluator.metrics if m.primary), evaluator.metrics[0].name)


def _pairs(evaluator: Evaluator, cases: Sequence[TestCase], change: Any) -> tuple[list[float],
                                                                                 list[float]]:
    metric = _primary(evaluator)
    plain = evaluator.evaluate(list(cases))
    probed = evaluator.evaluate([change(c) for c in cases])
    a_out, b_out = [], []
    for a, b in zip(plain, probed, strict=True):
        oa, ob = a.outcomes[metric], b.outcomes[metric]
        if oa.status is Status.OK and ob.status is Status.OK and None not in (oa.value, ob.value):
            a_out.append(float(cast(float, oa.value)))
            b_out.append(float(cast(float, ob.value)))
    return a_out, b_out


def probe_sample(chunks: Iterable[Sequence[TestCase]], n: int, seed: int = 0
                 ) -> list[TestCase]:
    """Up to ``n`` unperturbed cases with an answer and up to ``n`` with two or more contexts,
    drawn uniformly (seeded reservoir sampling) from a suite streamed in chunks: what
    :func:`probe_judges` may need, without holding the suite.

    Example:
        >>> cases = [TestCase(id=str(i), actual_answer="a") for i in range(100)]
        >>> len(probe_sample([cases[:50], cases[50:]], 5))
        5
    """
    rng = random.Random(seed)
    pools: dict[str, list[TestCase]] = {"answer": [], "contexts": []}
    seen = dict.fromkeys(pools, 0)
    for chunk in chunks:
        for case in chunk:
            if case.parent_id:
                continue
            for pool, usable in (("answer", bool(case.actual_answer)),
                                 ("contexts", len(case.retrieved_context or []) >= 2)):
                if not usable:
                    continue
                seen[pool] += 1
                if len(pools[pool]) < n:
                    pools[pool].append(case)
                else:
                    slot = rng.randrange(seen[pool])
                    if slot < n:
                        pools[pool][slot] = case
    unique = {(c.id, c.model): c for pool in pools.values() for c in pool}
    return list(unique.values())


def probe_judges(evaluators: Sequence[Evaluator], cases: Sequence[TestCase], n: int,
                 seed: int = 0) -> list[ProbeResult]:
    """Run the verbosity and position probes on up to ``n`` cases per judge evaluator.

    Cases are drawn (seeded) among the unperturbed cases the probe applies to: an answer for
    verbosity; at least two contexts for position. The plain scores come from the judge's cache
    when the run already asked them.
    """
    rng = random.Random(seed)
    originals = [c for c in cases if not c.parent_id]
    out: list[ProbeResult] = []
    for evaluator in (e for e in evaluators if e.family == "judge"):
        metric = _primary(evaluator)
        probes = []
        if "actual_answer" in evaluator.requires:
            probes.append(("verbosity", pad, [c for c in originals if c.actual_answer]))
        if "retrieved_context" in evaluator.requires and evaluator.name not in RANK_AWARE:
            probes.append(("position", reverse_contexts,
                           [c for c in originals if len(c.retrieved_context or []) >= 2]))
        for kind, change, eligible in probes:
            chosen = rng.sample(eligible, min(n, len(eligible)))
            plain, probed = _pairs(evaluator, chosen, change)
            out.append(ProbeResult(evaluator.name, metric, kind, plain, probed))
    return out


def probe_findings(results: Sequence[ProbeResult]) -> tuple[list[Finding], list[Finding]]:
    """Problems (bias found) and insights (probed, none found, or too few pairs)."""
    problems: list[dict[str, Any]] = []
    insights: list[dict[str, Any]] = []
    for result in results:
        s = result.summary()
        where = {"evaluator": result.evaluator, "metric": result.metric}
        what = ("the answer padded with content-free sentences" if result.kind == "verbosity"
                else "the retrieved contexts in reverse order")
        head = f"Judge evaluator {result.evaluator}, {result.kind} probe ({what})"
        evidence = {"probe": result.kind, **s}
        if s["pairs"] < MIN_PAIRS:
            insights.append({"kind": "judge_probe", **where, "evidence": evidence,
                             "message": f"{head}: only {s['pairs']} pairs scored (at least "
                                        f"{MIN_PAIRS} needed); not decided."})
            continue
        if result.kind == "verbosity":
            significant = s["p_value"] is not None and s["p_value"] < 0.05
            biased = (s["mean_shift"] >= MIN_SHIFT or significant) and s["up"] > s["down"]
            found = (f"mean score change {s['mean_shift']:+.3f}; higher in {s['up']}, lower in "
                     f"{s['down']} of {s['pairs']} cases")
        else:
            changed = s["up"] + s["down"]
            biased = s["mean_shift"] >= MIN_SHIFT or changed / s["pairs"] >= MIN_CHANGED
            found = (f"mean absolute score change {s['mean_shift']:.3f}; changed in "
                     f"{changed} of {s['pairs']} cases")
        p_text = "" if s["p_value"] is None else f", sign test p {s['p_value']:.2g}"
        if biased:
            problems.append({
                "kind": f"judge_{result.kind}_probe", "severity": "medium", **where,
                "evidence": evidence,
                "message": f"{head}: {found}{p_text}. The same content scored differently: "
                           "the judge's scores carry this bias; check them against human "
                           "labels or use another judge.",
            })
        else:
            insights.append({"kind": "judge_probe", **where, "evidence": evidence,
                             "message": f"{head}: no bias found ({found}{p_text})."})
    return cast(list[Finding], problems), cast(list[Finding], insights)
