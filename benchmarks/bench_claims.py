"""Courtesy lines and questions in answers: do the groundedness scores still rank answers right?

Question: a bank's chatbot wraps its answers in sentences that assert nothing ("Thank you for
your question.", "Is there anything else I can help you with?"). The sentence-level
groundedness scores read the least supported sentence, so such a line can make a faithful answer
look like a hallucination. Design note 0051 sets these sentences aside (``sentences="claims"``,
the default of ``hallucination_score``). Measured here, end to end through the evaluators:

1. *The rule on real text*: how many sentences of declarative corpora it sets aside (SummEdits
   summaries, the bundled demo's answers, references and passages, the NLI heads' training
   sentences), by kind, with examples; and how many of this script's wrapper lines it
   recognises.
2. *Ranking under wrapping*: SummEdits (consistent vs inconsistent summaries) and the demo's
   human ``grounded`` labels, as given, with each answer wrapped at random (an opening line
   with probability 1/2, a closing line with probability 1/2, independent of the label; seeded)
   and, with probability 1/2, as a Markdown list under a heading (numbered or bulleted), AUROC
   per evaluator with every sentence scored (``"all"``) and with claims only.

The wrapper lines were written for this benchmark after the rule (assay's developers, from
common chatbot phrasing), so the coverage figure is optimistic; some lines are meant to fall
outside the rule (a courtesy that makes a checkable claim, "Our branches are here for you.").

Writes ``benchmarks/results/claims.md``. Run: ``python benchmarks/bench_claims.py``
"""

from __future__ import annotations

import argparse
import platform
import random
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "scripts"))

from assay.calibrate.separation import auroc  # noqa: E402
from assay.data.case import TestCase  # noqa: E402
from assay.evaluators.base import Evaluator  # noqa: E402
from assay.evaluators.embedding_groundedness import EmbGroundedness  # noqa: E402
from assay.evaluators.hallucination import HallucinationScore  # noqa: E402
from assay.evaluators.nli_faithfulness import NLIFaithfulness  # noqa: E402
from assay.evaluators.nli_groundedness import NLIGroundedness  # noqa: E402
from assay.evaluators.unsupported_facts import UnsupportedFacts  # noqa: E402
from assay.text.claims import KINDS, answer_sentences, not_a_claim, without_particles  # noqa: E402
from assay.text.markup import plain  # noqa: E402
from assay.text.sentences import split_sentences  # noqa: E402
from bench_groundedness_validity import as_array, load, run_evaluator  # noqa: E402
from results_file import publish  # noqa: E402

SHARED = HERE.parents[1] / "shared" / "data"
OUT = HERE / "results" / "claims.md"
SEED = 0
OPENINGS = (
    "Thank you for your question!",
    "Hello, and thanks for getting in touch.",
    "Hi there!",
    "Good afternoon.",
    "Great question.",
    "Sure, I can help with that.",
    "Thanks for reaching out to us today.",
    "I understand your concern.",
    "Happy to help!",
    "Of course!",
    "Let me look into that for you.",
    "Welcome to online banking support.",
)
CLOSINGS = (
    "Is there anything else I can help you with?",
    "I hope this helps!",
    "Let me know if you have any other questions.",
    "Have a great day!",
    "Would you like more details?",
    "Feel free to ask if anything is unclear.",
    "Can I help you with anything else today?",
    "Thank you for banking with us.",
    "Kind regards, Customer Support",
    "Our team is always here for you.",
    "Does that answer your question?",
    "We appreciate your patience.",
)
HEADINGS = ("## Answer", "**Summary**", "### Details", "Key points:")
#: label -> (evaluator factory taking the ``sentences`` mode, the metric read)
EVALUATORS: dict[str, tuple[Callable[[str], Evaluator], str]] = {
    "hallucination_score": (lambda mode: HallucinationScore(sentences=mode), "hallucination_score"),
    "nli_groundedness_min (sentence head)": (
        lambda mode: NLIGroundedness(sentences=mode),
        "nli_groundedness_min",
    ),
    "nli_groundedness_min (token head)": (
        lambda mode: NLIGroundedness("head-token", sentences=mode),
        "nli_groundedness_min",
    ),
    "nli_faithfulness (sentence head)": (
        lambda mode: NLIFaithfulness(sentences=mode),
        "nli_faithfulness",
    ),
    "emb_groundedness_min": (lambda mode: EmbGroundedness(sentences=mode), "emb_groundedness_min"),
    "facts_support (unsupported_facts)": (
        lambda mode: UnsupportedFacts(sentences=mode),
        "facts_support",
    ),
}


def wrapped(answers: list[str], seed: int) -> list[str]:
    """Each answer with an opening line (p = 1/2) and a closing line (p = 1/2), seeded."""
    rng = random.Random(seed)
    out = []
    for answer in answers:
        opening = rng.choice(OPENINGS) if rng.random() < 0.5 else ""
        closing = rng.choice(CLOSINGS) if rng.random() < 0.5 else ""
        out.append(" ".join(p for p in (opening, answer.strip(), closing) if p))
    return out


def demo_labelled() -> tuple[list[TestCase], np.ndarray]:
    """The demo's answers with a human ``grounded`` label, and the labels."""
    from assay.calibrate.dataset import read_labels
    from assay.data.suite import read_suite
    from assay.demo import demo_labels_path, demo_suite_path

    labels = read_labels(demo_labels_path(), label="grounded")
    grounded = {(r.case_id, r.model): int(r.label) for r in labels.itertuples()}
    cases = [
        c
        for c in read_suite(demo_suite_path()).cases
        if c.actual_answer and c.retrieved_context and (c.id, c.model) in grounded
    ]
    return cases, np.array([grounded[(c.id, c.model)] for c in cases])


def demo_sentences() -> list[str]:
    """Distinct sentences of the demo's answers, reference answers and passages."""
    from assay.demo import demo_texts

    return list(dict.fromkeys(s for t in demo_texts() for s in answer_sentences(t)[0]))


def nli_sentences(limit: int | None) -> list[str]:
    """Distinct premises and hypotheses of the NLI heads' training files (a seeded sample)."""
    from heads.nli import load as load_nli

    rows = load_nli(SHARED / "training", None, SEED)
    random.Random(SEED).shuffle(rows)
    texts = [t for r in rows[:limit] for t in (r["premise"], r["hypothesis"])]
    return list(dict.fromkeys(s for t in texts for s in answer_sentences(t)[0]))


def rule_section(corpora: dict[str, list[str]]) -> list[str]:
    lines = [
        "## The rule on declarative text",
        "",
        "| corpus | sentences | "
        + " | ".join(f"set aside: {k}" for k in KINDS)
        + " | claims read without opening particles | examples |",
        "|---|---:|" + "---:|" * (len(KINDS) + 1) + "---|",
    ]
    for name, sentences in corpora.items():
        kinds = [(s, not_a_claim(s)) for s in sentences]
        count = Counter(k for _, k in kinds if k)
        # as answer_sentences reads a claim: Markdown stripped, then the particles
        particles = [s for s, k in kinds if k is None and without_particles(plain(s)) != plain(s)]
        examples = "; ".join(
            [
                f"“{s[:60]}” ({k})"
                for kind in reversed(KINDS)
                for s, k in [x for x in kinds if x[1] == kind][:3]
            ]
            + [f"“{s[:60]}” (particle)" for s in particles[:3]]
        )
        lines.append(
            f"| {name} | {len(sentences):,} | "
            + " | ".join(str(count[k]) for k in KINDS)
            + f" | {len(particles)} | {examples or '–'} |"
        )
    missed = [w for w in OPENINGS + CLOSINGS if not_a_claim(w) is None]
    lines += [
        "",
        f"Wrapper lines recognised: {len(OPENINGS + CLOSINGS) - len(missed)} of "
        f"{len(OPENINGS + CLOSINGS)}; kept as claims: " + "; ".join(f"“{w}”" for w in missed) + ".",
    ]
    return lines


def scores_of(
    make: Callable[[str], Evaluator], metric: str, mode: str, cases: list[TestCase]
) -> np.ndarray:
    """Oriented scores (higher = grounded; NaN when not scored) of ``cases``."""
    values, _ = run_evaluator(make(mode), cases)
    return as_array(values[metric])


def as_markdown(answers: list[str], seed: int) -> list[str]:
    """Each answer, with probability 1/2, as a Markdown list under a heading, seeded."""
    rng = random.Random(seed)
    out = []
    for answer in answers:
        if rng.random() < 0.5:
            out.append(answer.strip())
            continue
        numbered = rng.random() < 0.5
        items = [
            f"{k}. {s}" if numbered else f"- {s}"
            for k, s in enumerate(split_sentences(answer), start=1)
        ]
        out.append("\n".join([rng.choice(HEADINGS), *items]))
    return out


#: How the answers are presented: name -> transform of the answer texts.
PRESENTATIONS: dict[str, Callable[[list[str], int], list[str]]] = {
    "as given": lambda answers, seed: [a.strip() for a in answers],
    "wrapped": wrapped,
    "Markdown": as_markdown,
}


def ranking_section(
    sets: dict[str, tuple[list[TestCase], np.ndarray]],
) -> tuple[list[str], dict[tuple[str, str, str, str], float]]:
    """The AUROC table, and the AUROCs by (evaluator, mode, set, presentation)."""
    header = " | ".join(f"{name} {shown}" for name in sets for shown in PRESENTATIONS)
    lines = [
        "## Ranking with and without courtesy lines and Markdown",
        "",
        "AUROC, grounded (1) against not (0); oriented so that higher = grounded.",
        "",
        f"| evaluator | sentences | {header} |",
        "|---|---|" + "---:|" * (len(sets) * len(PRESENTATIONS)),
    ]
    found: dict[tuple[str, str, str, str], float] = {}
    for label, (make, metric) in EVALUATORS.items():
        for mode in ("all", "claims"):
            cells = []
            for name, (cases, y) in sets.items():
                answers = [c.actual_answer or "" for c in cases]
                for shown, transform in PRESENTATIONS.items():
                    shown_cases = [
                        TestCase(
                            id=c.id,
                            model=c.model,
                            actual_answer=a,
                            retrieved_context=c.retrieved_context,
                        )
                        for c, a in zip(cases, transform(answers, SEED), strict=True)
                    ]
                    s = scores_of(make, metric, mode, shown_cases)
                    keep = ~np.isnan(s)
                    found[(label, mode, name, shown)] = auroc(s[keep], y[keep])
                    cells.append(f"{found[(label, mode, name, shown)]:.3f}")
            lines.append(f"| {label} | {mode} | " + " | ".join(cells) + " |")
    return lines, found


def reading(found: dict[tuple[str, str, str, str], float]) -> list[str]:
    """The figures of ``hallucination_score`` in words."""

    def cell(mode: str, name: str, shown: str) -> str:
        return f"{found[('hallucination_score', mode, name, shown)]:.3f}"

    missed = sum(not_a_claim(w) is None for w in OPENINGS + CLOSINGS)
    return [
        "**Reading.** With every sentence scored, the courtesy lines take "
        f"`hallucination_score`'s AUROC from {cell('all', 'demo', 'as given')} to "
        f"{cell('all', 'demo', 'wrapped')} on the demo's labelled answers and from "
        f"{cell('all', 'SummEdits', 'as given')} to {cell('all', 'SummEdits', 'wrapped')} on "
        f"SummEdits, and Markdown lists to {cell('all', 'demo', 'Markdown')} and "
        f"{cell('all', 'SummEdits', 'Markdown')}; with claims only (its default now) the wrapped "
        f"answers score {cell('claims', 'demo', 'wrapped')} and "
        f"{cell('claims', 'SummEdits', 'wrapped')}, the Markdown ones "
        f"{cell('claims', 'demo', 'Markdown')} and {cell('claims', 'SummEdits', 'Markdown')}. "
        f"What is left of the courtesy effect is the {missed} wrapper lines the rule keeps as "
        "claims (listed above): a courtesy that is phrased as a statement cannot be told from a "
        "claim by a rule, and it is the least supported sentence of an otherwise grounded "
        "answer. The reference evaluators (HCAT's and H2O Sonar's groundedness, faithfulness) "
        'score every sentence by default, as their definitions do; `sentences="claims"` '
        "gives them the same protection.",
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="SummEdits rows per domain")
    parser.add_argument(
        "--nli-rows", type=int, default=None, help="NLI training pairs read (default: all)"
    )
    args = parser.parse_args(argv)
    if not SHARED.is_dir():
        print(f"shared data not found at {SHARED}; see shared/data/README.md", file=sys.stderr)
        return 1
    summedits = load(args.limit)
    summedits_cases = [
        TestCase(id=str(i), actual_answer=s, retrieved_context=[d])
        for i, (d, s) in enumerate(zip(summedits["doc"], summedits["summary"], strict=True))
    ]
    demo_cases, demo_y = demo_labelled()
    corpora = {
        "SummEdits summaries": list(
            dict.fromkeys(s for t in summedits["summary"] for s in answer_sentences(t)[0])
        ),
        "demo answers, references, passages": demo_sentences(),
        "NLI training sentences"
        + (f" ({args.nli_rows:,} pairs)" if args.nli_rows else ""): nli_sentences(args.nli_rows),
    }
    lines = [
        '# Courtesy lines, questions and Markdown in answers (`sentences="claims"`)',
        "",
        f"Written by `benchmarks/bench_claims.py` (seed {SEED}); Python "
        f"{platform.python_version()}, {platform.machine()}. SummEdits: {len(summedits_cases):,} "
        f"summaries ({int(summedits['label'].sum()):,} consistent); demo: {len(demo_cases)} "
        f"answers with a human `grounded` label ({int(demo_y.sum())} grounded). Wrapped: each "
        f"answer gets one of {len(OPENINGS)} opening lines with probability 1/2 and one of "
        f"{len(CLOSINGS)} closing lines with probability 1/2, independently of its label. "
        f"Markdown: with probability 1/2, each sentence a numbered or bulleted item under one "
        f"of the headings {', '.join(f'“{h}”' for h in HEADINGS)}.",
        "",
        *rule_section(corpora),
        "",
    ]
    table, found = ranking_section(
        {
            "SummEdits": (summedits_cases, summedits["label"].to_numpy()),
            "demo": (demo_cases, demo_y),
        }
    )
    lines += [*table, "", *reading(found)]
    publish(OUT, lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
