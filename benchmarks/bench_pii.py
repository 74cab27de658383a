"""Span-level precision and recall of the PII detectors on Presidio's synthetic data, and the
scanning speed of the PII and secrets detectors in MB/s.

Data: ``../shared/data/pii/presidio_synth_v2.json`` (microsoft/presidio-research, MIT). A predicted
span is a true positive under the *exact* criterion when a labelled span of the same entity type
has the same boundaries (after trimming surrounding whitespace and punctuation), and under the
*overlap* criterion when it overlaps a labelled span of the same type (each labelled span matched
at most once). Writes ``benchmarks/results/pii.md``.

Run: ``python benchmarks/bench_pii.py``
"""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from assay.safety import PII_TYPES, find_pii, find_secrets
from assay.safety.pii import PHONE_REGIONS, _phone_ok
from results_file import publish

HERE = Path(__file__).resolve().parent
DATA = HERE.parents[1] / "shared" / "data" / "pii" / "presidio_synth_v2.json"
PROSE = HERE.parents[1] / "shared" / "data" / "faithfulness" / "summedits"
JAILBREAK = HERE.parents[1] / "shared" / "data" / "jailbreak" / "gptfuzz_responses_train.csv"
OUT = HERE / "results" / "pii.md"
_TRIM = " \t\r\n.,;:!?()[]\"'"


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start] in _TRIM:
        start += 1
    while end > start and text[end - 1] in _TRIM:
        end -= 1
    return start, end


def evaluate(rows: list[dict], types: tuple[str, ...] = PII_TYPES) -> dict[str, dict[str, int]]:
    """Per entity type: labelled spans, predictions, exact and overlap true positives."""
    stats: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for row in rows:
        text = row["full_text"]
        gold: dict[str, list[tuple[int, int]]] = defaultdict(list)
        for span in row["spans"]:
            if span["entity_type"] in types:
                gold[span["entity_type"]].append(
                    _trim(text, span["start_position"], span["end_position"])
                )
        predicted: dict[str, list[tuple[int, int]]] = defaultdict(list)
        for finding in find_pii(text, types):
            predicted[finding.kind].append(_trim(text, finding.start, finding.end))
        for kind in types:
            g, p = gold.get(kind, []), predicted.get(kind, [])
            stats[kind]["gold"] += len(g)
            stats[kind]["predicted"] += len(p)
            stats[kind]["exact"] += len(set(g) & set(p))
            unmatched = list(g)
            for ps, pe in p:
                hit = next((s for s in unmatched if s[0] < pe and ps < s[1]), None)
                if hit is not None:
                    unmatched.remove(hit)
                    stats[kind]["overlap"] += 1
    return stats


def _ratio(a: int, b: int) -> str:
    return f"{a / b:.3f}" if b else "–"


def _rate(scan: Callable[[str], object], texts: list[str], repeat: int = 3) -> float:
    """MB/s (UTF-8 bytes) of ``scan`` over ``texts``, best of ``repeat`` cold-cache passes."""
    megabytes = sum(len(t.encode()) for t in texts) / 1e6
    best = float("inf")
    for _ in range(repeat):
        _phone_ok.cache_clear()  # no pass may profit from a previous pass's phone look-ups
        start = time.perf_counter()
        for text in texts:
            scan(text)
        best = min(best, time.perf_counter() - start)
    return megabytes / best


def speed(rows: list[dict]) -> list[tuple[str, float, float]]:
    """(scan, MB/s on the short texts, MB/s on the texts joined into ~64 kB documents)."""
    texts = [row["full_text"] for row in rows]
    documents, current = [], ""
    for text in texts:
        current += text + "\n"
        if len(current) > 64_000:
            documents.append(current)
            current = ""
    documents.append(current)
    no_phone = [t for t in PII_TYPES if t != "PHONE_NUMBER"]
    scans: list[tuple[str, Callable[[str], object]]] = [
        ("find_pii (all types)", find_pii),
        ("find_pii without PHONE_NUMBER", lambda t: find_pii(t, no_phone)),
        ("find_secrets", find_secrets),
        ("find_pii + find_secrets", lambda t: (find_pii(t), find_secrets(t))),
    ]
    return [(name, _rate(scan, texts), _rate(scan, documents)) for name, scan in scans]


def secret_false_positives(rows: list[dict]) -> list[str]:
    """Table rows: secrets reported in texts that hold none (Presidio, SummEdits documents)."""
    corpora = {"Presidio synthetic texts": [row["full_text"] for row in rows]}
    if PROSE.is_dir():
        docs: set[str] = set()
        for path in sorted(PROSE.glob("*.json")):
            docs.update(r["doc"] for r in json.loads(path.read_text(encoding="utf-8")))
        corpora["SummEdits source documents (news, podcasts, meetings, sales)"] = sorted(docs)
    out = []
    for name, texts in corpora.items():
        megabytes = sum(len(t.encode()) for t in texts) / 1e6
        counts: dict[str, int] = defaultdict(int)
        for text in texts:
            for finding in find_secrets(text):
                counts[finding.kind] += 1
        listed = ", ".join(f"{k}: {v}" for k, v in sorted(counts.items())) or "none"
        out.append(
            f"| {name} | {len(texts):,} | {megabytes:.2f} | {sum(counts.values())} | {listed} |"
        )
    return out


def encoding_false_positives() -> list[str]:
    """Table rows: encoding-guardrail leaks and decoded segments on ordinary model outputs."""
    import csv

    from assay.data.case import TestCase
    from assay.evaluators.encoding_guardrail import EncodingGuardrail

    corpora: dict[str, list[str]] = {}
    if PROSE.is_dir():
        summaries: set[str] = set()
        for path in sorted(PROSE.glob("*.json")):
            summaries.update(r["summary"] for r in json.loads(path.read_text(encoding="utf-8")))
        corpora["SummEdits summaries"] = sorted(summaries)
    if JAILBREAK.is_file():
        with JAILBREAK.open(encoding="utf-8", newline="") as handle:
            corpora["GPTFuzz model responses"] = [row["Response"] for row in csv.DictReader(handle)]
    out = []
    for name, texts in corpora.items():
        cases = [TestCase(id=str(i), actual_answer=t) for i, t in enumerate(texts)]
        results = EncodingGuardrail().evaluate(cases)
        leaks = sum(r.outcomes["encoding_leak"].value or 0 for r in results)
        segments = sum(r.outcomes["encoded_segments"].value or 0 for r in results)
        out.append(f"| {name} | {len(texts):,} | {leaks:.0f} | {segments:.0f} |")
    return out


def main() -> int:
    if not DATA.is_file():
        print(f"PII data not found at {DATA}; see shared/data/README.md", file=sys.stderr)
        return 1
    rows = json.loads(DATA.read_text(encoding="utf-8"))
    stats = evaluate(rows)
    try:  # person names need the optional spaCy model (pip install 'assay[ner]')
        stats.update(evaluate(rows, ("PERSON",)))
        types = (*PII_TYPES, "PERSON")
    except ImportError as exc:
        print(f"PERSON not scored: {exc}", file=sys.stderr)
        types = PII_TYPES
    rates = speed(rows)
    lines = [
        "# PII detection: span-level precision and recall",
        "",
        f"Data: Presidio synthetic set v2 ({len(rows):,} texts). Generated by "
        "`python benchmarks/bench_pii.py`; do not edit by hand.",
        "",
        "| entity type | labelled | predicted | precision (exact) | recall (exact) "
        "| precision (overlap) | recall (overlap) |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for kind in types:
        s = stats[kind]
        lines.append(
            f"| {kind} | {s['gold']} | {s['predicted']} | {_ratio(s['exact'], s['predicted'])} "
            f"| {_ratio(s['exact'], s['gold'])} | {_ratio(s['overlap'], s['predicted'])} "
            f"| {_ratio(s['overlap'], s['gold'])} |"
        )
    lines += [
        "",
        "Exact: same type and same boundaries (surrounding whitespace and punctuation trimmed). "
        "Overlap: same type and overlapping spans, each labelled span matched once. "
        "PERSON is opt-in (spaCy `en_core_web_sm` 3.8.0 NER, `assay[ner]`); LOCATION, "
        "ORGANIZATION and other types without an offline detector are not scored.",
        "",
        "## Secrets reported in texts without secrets",
        "",
        "Neither corpus contains keys, tokens or passwords, so every finding is a false positive.",
        "",
        "| corpus | texts | MB | findings | by type |",
        "|---|---:|---:|---:|---|",
        *secret_false_positives(rows),
        "",
        "## Encoding guardrail on ordinary outputs",
        "",
        "Answers without planted encodings: leaks are false positives (checked with the PII and "
        "secrets detectors); segments are base16/base64/URL-encoded spans that decoded to text.",
        "",
        "| corpus | answers | leaks | decoded segments |",
        "|---|---:|---:|---:|",
        *encoding_false_positives(),
        "",
        "## Scanning speed",
        "",
        f"Single thread, {platform.python_implementation()} {platform.python_version()}, "
        f"{platform.machine()}, load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; "
        "best of 3 passes over the same texts (phone cache cleared "
        "before each pass).",
        "",
        "| scan | MB/s, one call per text | MB/s, ~64 kB documents |",
        "|---|---:|---:|",
        *[f"| {name} | {short:.2f} | {joined:.2f} |" for name, short, joined in rates],
        "",
        "Phone numbers dominate: every phone-like span is parsed by `phonenumbers` in up to "
        f"{len(PHONE_REGIONS)} regions. The data are dense in PII, so typical answers scan faster.",
        "",
    ]
    publish(OUT, lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
