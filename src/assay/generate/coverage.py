"""The coverage table: per topic, chunks, sampled chunks, questions asked for, written, kept and
dropped by reason; the same by query type and by TREC answer class. Data first
(:func:`coverage_rows`), rendering apart (:func:`coverage_markdown`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from assay.generate.questions import Candidate
from assay.generate.selection import REASONS
from assay.generate.taxonomy import TREC_CLASSES, trec_class
from assay.generate.topics import TopicModel


def _counts(candidates: Sequence[Candidate]) -> dict[str, Any]:
    reasons = Counter(c.dropped for c in candidates if c.dropped is not None)
    return {
        "requested": len(candidates),
        "generated": sum(1 for c in candidates if c.question),
        "kept": sum(1 for c in candidates if c.dropped is None),
        "dropped": sum(reasons.values()),
        "dropped_by_reason": {r: reasons[r] for r in REASONS if reasons[r]},
    }


def coverage_rows(model: TopicModel, candidates: Sequence[Candidate]) -> list[dict[str, Any]]:
    """One row per topic (noise last): ``topic_id``, ``label``, ``chunks``, ``sampled``
    (distinct chunks questions were drawn from), ``requested``, ``generated``, ``kept``,
    ``dropped``, ``dropped_by_reason`` and ``covered`` (at least one kept question).

    Example:
        >>> import numpy as np
        >>> from assay.generate.topics import Topic
        >>> from assay.generate.sampling import Slot
        >>> topics = [Topic(0, "fee", [], 2), Topic(1, "loan", [], 1)]
        >>> model = TopicModel(np.array([0, 0, 1]), topics, np.zeros((3, 2)))
        >>> kept = Candidate(Slot(0, 0, "factual", (1,)), "What fee?", "5 euros")
        >>> bad = Candidate(Slot(1, 1, "factual", (2,)), dropped="malformed")
        >>> rows = coverage_rows(model, [kept, bad])
        >>> [(r["label"], r["sampled"], r["kept"], r["covered"]) for r in rows]
        [('fee', 1, 1, True), ('loan', 1, 0, False)]
    """
    rows = []
    for topic in model.topics:
        own = [c for c in candidates if c.slot.topic_id == topic.id]
        counts = _counts(own)
        rows.append({
            "topic_id": topic.id,
            "label": topic.label,
            "chunks": topic.size,
            "sampled": len({i for c in own for i in c.slot.chunks}),
            **counts,
            "covered": counts["kept"] > 0,
        })
    return rows


def type_rows(candidates: Sequence[Candidate], types: Sequence[str]) -> list[dict[str, Any]]:
    """One row per query type: requested, generated, kept, dropped by reason.

    Example:
        >>> type_rows([], ["factual"])[0]["requested"]
        0
    """
    return [{"query_type": name,
             **_counts([c for c in candidates if c.slot.query_type == name])} for name in types]


def trec_rows(candidates: Sequence[Candidate]) -> list[dict[str, Any]]:
    """Kept questions per TREC coarse class (every class listed).

    Example:
        >>> [r["kept"] for r in trec_rows([])]
        [0, 0, 0, 0, 0, 0]
    """
    kept = Counter(trec_class(c.question or "") for c in candidates
                   if c.dropped is None and c.question)
    return [{"trec_class": code, "description": text.split(":")[0], "kept": kept[code]}
            for code, text in TREC_CLASSES.items()]


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(v).replace("|", "\\|") for v in row) + " |" for row in rows]
    return lines


def _reasons(row: Mapping[str, Any]) -> str:
    return ", ".join(f"{k} {v}" for k, v in row["dropped_by_reason"].items()) or "-"


def coverage_markdown(report: Mapping[str, Any]) -> str:
    """The coverage tables of a generation report as Markdown.

    Example:
        >>> report = {"coverage": [], "by_type": [], "by_trec_class": [], "summary": {}}
        >>> coverage_markdown(report).splitlines()[0]
        '# Generation coverage'
    """
    summary = report.get("summary", {})
    lines = ["# Generation coverage", ""]
    if summary:
        lines += [f"{summary.get('kept', 0)} questions kept of {summary.get('requested', 0)} "
                  f"requested ({summary.get('topics_covered', 0)}/{summary.get('topics', 0)} "
                  "topics covered).", ""]
    lines += ["## By topic", ""]
    lines += _table(
        ["topic", "label", "chunks", "sampled", "requested", "generated", "kept", "dropped",
         "dropped by reason"],
        [[r["topic_id"], r["label"], r["chunks"], r["sampled"], r["requested"], r["generated"],
          r["kept"], r["dropped"], _reasons(r)] for r in report["coverage"]],
    )
    lines += ["", "## By query type", ""]
    lines += _table(
        ["query type", "requested", "generated", "kept", "dropped", "dropped by reason"],
        [[r["query_type"], r["requested"], r["generated"], r["kept"], r["dropped"], _reasons(r)]
         for r in report["by_type"]],
    )
    lines += ["", "## By TREC answer class (kept questions)", ""]
    lines += _table(["class", "description", "kept"],
                    [[r["trec_class"], r["description"], r["kept"]]
                     for r in report["by_trec_class"]])
    failures = report.get("corpus", {}).get("failures", [])
    if failures:
        lines += ["", "## Unreadable files", ""]
        lines += [f"- `{f['path']}`: {f['reason']}" for f in failures]
    return "\n".join(lines) + "\n"
