"""Build the bundled banking RAG demo from its hand-written sources (deterministic).

Inputs (all under ``src/assay/demo/``):

- ``corpus/*.md``: the policy documents, one per file; the first line ``# Title`` names it.
- ``source/questions.toml``: the questions, expected answers, ground-truth chunk ids, the three
  models' hand-written answers, conditions, perturbation overrides and human labels.
- ``source/dialogues.toml``: conversations and agent trajectories with the three models' recorded
  replies and tool calls, labelled for knowledge retention and tool correctness.

Outputs (committed; ``tests/test_demo.py`` checks they equal a fresh build):

- ``chunks.jsonl``: one chunk per line (``id``, ``doc``, ``topic``, ``title``, ``text``).
  Chunks are built from :func:`assay.text.split_sentences`: consecutive sentences of one
  paragraph, at most ``MAX_SENTENCES`` per chunk; ids are ``<doc>#<n>`` counted from 1.
- ``suite.jsonl``: one case per (question, model), plus perturbed copies, then one case per
  (conversation, model) and per (trajectory, model).
- ``labels.csv``: the human labels (``id``, ``model``, ``correct``, ``grounded``, ``quality``).
- ``labels_random.csv``: the demo's random labelling round — a seeded uniform random sample of
  ``ROUND_SIZE`` questions, each labelled for all three models (``id``, ``model``, ``correct``,
  ``grounded``, ``made_by``). The plan declares it ``design = "random"``; the reviewer's
  hand-picked labels (the suite's ``labels``) are the ``unknown`` source.

How the round's labels were made (``made_by``): ``reviewer`` where the reviewer had labelled the
question; else ``construction`` where the answer's defects and retrieved context settle the truth
(:func:`construction_label`, checked to agree with every reviewer label it decides); else
``reading``: ``round_labels`` in ``questions.toml``, written by reading the answer.

Retrieval is simulated by a small BM25 retriever over the chunks, with per-model behaviour
and seeded noise (see ``MODELS``); latency and cost are derived from the token counts of the
prompt and the answer with per-model prices and seeded jitter. Run::

    python scripts/build_demo.py          # rewrite the outputs
    python scripts/build_demo.py --check  # exit 1 if the committed outputs are stale
"""

from __future__ import annotations

import csv
import io
import json
import math
import random
import sys
import tomllib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assay.text import split_sentences, words

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "src" / "assay" / "demo"
MAX_SENTENCES = 3
SEED = 20261121
PERTURBATIONS = ("typos", "casing")
#: Questions in the random labelling round (of 70).
ROUND_SIZE = 40

_STOP_WORDS = (
    "a an the and or of to in on for is are be can do does i my me we you your our us it its "
    "what which who how when where why if with by at from as this that there their them they "
    "will would should could much many any was were has have had not no yes than then so"
)
_STOP = frozenset(_STOP_WORDS.split())


@dataclass(frozen=True)
class ModelProfile:
    """How one simulated system retrieves, and what it costs."""

    name: str
    k: int  # chunks retrieved
    query_uses_answer: bool  # a strong reranker, simulated with the expected answer in the query
    swap: float  # probability that two adjacent ranks of the top k are swapped (a reranker slip)
    noise: float  # probability that one retrieved chunk is replaced by a random one
    price_in: float  # USD per 1,000 prompt tokens
    price_out: float  # USD per 1,000 answer tokens
    base_latency: float  # seconds before the first token
    per_token: float  # seconds per answer token


MODELS = (
    ModelProfile("faithful", 4, True, 0.20, 0.0, 0.0025, 0.0100, 0.85, 0.018),
    ModelProfile("hallucinating", 4, False, 0.20, 0.30, 0.0008, 0.0032, 0.55, 0.012),
    ModelProfile("terse", 3, False, 0.10, 0.10, 0.00015, 0.0006, 0.30, 0.007),
)


# ----------------------------------------------------------------------------- corpus → chunks


def build_chunks(corpus: Path) -> list[dict[str, str]]:
    """Split every document of ``corpus`` into sentence-based chunks with stable ids."""
    chunks: list[dict[str, str]] = []
    for path in sorted(corpus.glob("*.md")):
        doc = path.stem
        lines = path.read_text(encoding="utf-8").strip().splitlines()
        if not lines or not lines[0].startswith("# "):
            raise SystemExit(f"{path}: the first line must be '# Title'")
        title = lines[0][2:].strip()
        paragraphs = [p.strip() for p in "\n".join(lines[1:]).split("\n\n") if p.strip()]
        number = 0
        for paragraph in paragraphs:
            sentences = split_sentences(" ".join(paragraph.split()))
            for start in range(0, len(sentences), MAX_SENTENCES):
                number += 1
                chunks.append(
                    {
                        "id": f"{doc}#{number}",
                        "doc": doc,
                        "topic": doc.rsplit("-", 1)[0],
                        "title": title,
                        "text": " ".join(sentences[start : start + MAX_SENTENCES]),
                    }
                )
    return chunks


# ----------------------------------------------------------------------------- retrieval


def _terms(text: str) -> list[str]:
    return [w for w in words(text) if w not in _STOP]


class BM25:
    """Okapi BM25 (k1=1.5, b=0.75) over the chunk texts, titles included."""

    def __init__(self, chunks: list[dict[str, str]], k1: float = 1.5, b: float = 0.75) -> None:
        self.ids = [c["id"] for c in chunks]
        self.docs = [Counter(_terms(c["title"] + " " + c["text"])) for c in chunks]
        self.lengths = [sum(d.values()) for d in self.docs]
        self.avg = sum(self.lengths) / len(self.lengths)
        df: Counter[str] = Counter()
        for d in self.docs:
            df.update(d.keys())
        n = len(self.docs)
        self.idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}
        self.k1, self.b = k1, b

    def rank(self, query: str) -> list[str]:
        """All chunk ids, best first (ties broken by id, so the order is deterministic)."""
        q = _terms(query)
        scores = []
        for i, d in enumerate(self.docs):
            norm = self.k1 * (1 - self.b + self.b * self.lengths[i] / self.avg)
            s = sum(
                self.idf.get(t, 0.0) * d[t] * (self.k1 + 1) / (d[t] + norm) for t in q if t in d
            )
            scores.append((-round(s, 9), self.ids[i]))
        return [cid for _, cid in sorted(scores)]


def retrieve(
    bm25: BM25, profile: ModelProfile, question: str, expected: str, rng: random.Random
) -> list[str]:
    """The ``profile.k`` chunk ids one simulated system retrieves for ``question``."""
    query = f"{question} {expected}" if profile.query_uses_answer else question
    top = bm25.rank(query)[: profile.k]
    if rng.random() < profile.swap:
        i = rng.randrange(len(top) - 1)
        top[i], top[i + 1] = top[i + 1], top[i]
    if rng.random() < profile.noise:
        others = [cid for cid in bm25.ids if cid not in top]
        top[rng.randrange(len(top))] = rng.choice(others)
    return top


# ----------------------------------------------------------------------------- perturbations


def typos(text: str, rng: random.Random, rate: float = 0.12) -> str:
    """Swap two adjacent letters in about ``rate`` of the words longer than three letters."""
    out = []
    for token in text.split(" "):
        letters = [i for i, ch in enumerate(token) if ch.isalpha()]
        if len(letters) > 3 and rng.random() < rate * 2:
            i = rng.choice(letters[1:-2])
            chars = list(token)
            chars[i], chars[i + 1] = chars[i + 1], chars[i]
            token = "".join(chars)
        out.append(token)
    return " ".join(out)


def perturb(kind: str, text: str, rng: random.Random) -> str:
    """Apply perturbation ``kind`` to a question."""
    if kind == "typos":
        return typos(text, rng)
    if kind == "casing":
        return text.upper()
    raise SystemExit(f"unknown perturbation {kind!r}")


# ----------------------------------------------------------------------------- latency and cost


def _tokens(text: str) -> int:
    """A rough sub-word token count (1.3 tokens per word), as a pricing page would estimate."""
    return math.ceil(1.3 * len(words(text)))


def latency_and_cost(
    profile: ModelProfile, question: str, context: list[str], answer: str, rng: random.Random
) -> tuple[float, float]:
    """Seeded latency (seconds) and cost (USD) of one call of the simulated system."""
    prompt = 150 + _tokens(question) + sum(_tokens(c) for c in context)  # 150: system prompt
    output = _tokens(answer)
    latency = (
        profile.base_latency + 0.0004 * prompt + profile.per_token * output
    ) * rng.lognormvariate(0, 0.25)
    cost = prompt / 1000 * profile.price_in + output / 1000 * profile.price_out
    return round(latency, 3), round(cost, 7)


# ----------------------------------------------------------------------------- suite


def load_questions(path: Path) -> list[dict[str, Any]]:
    """The hand-written questions, checked for the fields every question needs."""
    questions: list[dict[str, Any]] = tomllib.loads(path.read_text(encoding="utf-8"))["q"]
    needed = ("id", "topic", "type", "question", "expected", *(m.name for m in MODELS))
    seen: set[str] = set()
    for q in questions:
        missing = [k for k in needed if k not in q]
        if missing or q["id"] in seen:
            raise SystemExit(f"{path}: question {q.get('id')!r}: missing {missing} or duplicate id")
        seen.add(q["id"])
    return questions


def _case(
    q: dict[str, Any],
    profile: ModelProfile,
    bm25: BM25,
    texts: dict[str, str],
    *,
    case_id: str,
    question: str,
    answer: str,
    perturbation: str | None = None,
) -> dict[str, Any]:
    rng = random.Random(f"{SEED}:{profile.name}:{case_id}")
    ids = retrieve(bm25, profile, question, q["expected"], rng)
    context = [texts[cid] for cid in ids]
    latency, cost = latency_and_cost(profile, question, context, answer, rng)
    case: dict[str, Any] = {
        "id": case_id,
        "model": profile.name,
        "question": question,
        "expected_answer": q["expected"],
        "retrieved_context": context,
        "context_ids": ids,
    }
    if q.get("relevant"):
        case["relevant_ids"] = {cid: float(g) for cid, g in q["relevant"].items()}
    case["actual_answer"] = answer
    if q.get("condition"):
        case["condition"] = q["condition"]
    case["topic"] = q["topic"]
    case["query_type"] = q["type"]
    if perturbation:
        case["perturbation"] = perturbation
        case["parent_id"] = q["id"]
    label = q.get("labels", {}).get(profile.name)
    if label and not perturbation:
        correct, grounded, quality = label
        case["labels"] = {"correct": correct, "grounded": grounded, "quality": quality}
    case["latency_s"] = latency
    case["cost_usd"] = cost
    defects = q.get("defects", {}).get(profile.name)
    if perturbation and answer != q[profile.name]:  # an overridden answer has its own defects
        defects = q.get("perturbed_defects", {}).get(perturbation, {}).get(profile.name)
    if defects:
        case["metadata"] = {"defects": defects}
    return case


def build_cases(
    questions: list[dict[str, Any]], chunks: list[dict[str, str]]
) -> list[dict[str, Any]]:
    """Every (question, model) case, then the perturbed copies."""
    texts = {c["id"]: c["text"] for c in chunks}
    for q in questions:
        unknown = [cid for cid in q.get("relevant", {}) if cid not in texts]
        if unknown:
            raise SystemExit(f"question {q['id']}: unknown relevant chunk ids {unknown}")
    bm25 = BM25(chunks)
    cases = [
        _case(q, p, bm25, texts, case_id=q["id"], question=q["question"], answer=q[p.name])
        for q in questions
        for p in MODELS
    ]
    for q in questions:
        for kind in q.get("perturb", []):
            if kind not in PERTURBATIONS:
                raise SystemExit(f"question {q['id']}: unknown perturbation {kind!r}")
            text = perturb(kind, q["question"], random.Random(f"{SEED}:{kind}:{q['id']}"))
            overrides = q.get("perturbed", {}).get(kind, {})
            for p in MODELS:
                answer = overrides.get(p.name, q[p.name])
                cases.append(
                    _case(
                        q,
                        p,
                        bm25,
                        texts,
                        case_id=f"{q['id']}~{kind}",
                        question=text,
                        answer=answer,
                        perturbation=kind,
                    )
                )
    return cases


def _check_models(table: dict[str, Any], kind: str, keys: tuple[str, ...]) -> None:
    missing = [f"{m.name}.{k}" for m in MODELS for k in keys if k not in table.get(m.name, {})]
    if missing:
        raise SystemExit(f"{kind} {table.get('id')!r}: missing {missing}")


def conversation_cases(conversations: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One case per (conversation, model): the policy as a system turn, then user and assistant
    turns alternating; ``labels.knowledge_retained`` from the reviewer."""
    cases = []
    for conv in conversations:
        _check_models(conv, "conversation", ("assistant", "retained"))
        for profile in MODELS:
            replies = conv[profile.name]["assistant"]
            if len(replies) != len(conv["user"]):
                raise SystemExit(f"conversation {conv['id']!r}: {profile.name} has "
                                 f"{len(replies)} replies for {len(conv['user'])} user turns")
            turns = [{"role": "system", "content": conv["policy"]}]
            for user, reply in zip(conv["user"], replies, strict=True):
                turns += [{"role": "user", "content": user},
                          {"role": "assistant", "content": reply}]
            cases.append({"id": conv["id"], "model": profile.name, "turns": turns,
                          "topic": conv["topic"], "query_type": "conversation",
                          "labels": {"knowledge_retained": conv[profile.name]["retained"]}})
    return cases


def trajectory_cases(trajectories: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One case per (trajectory, model): the task as the question, the recorded tool calls and
    final answer, the expected calls and outcome; ``labels.tools_correct`` from the reviewer."""
    cases = []
    for traj in trajectories:
        _check_models(traj, "trajectory", ("steps", "answer", "tools_correct"))
        for profile in MODELS:
            run = traj[profile.name]
            cases.append({
                "id": traj["id"], "model": profile.name, "question": traj["task"],
                "trajectory": {"steps": run["steps"], "final_answer": run["answer"],
                               "expected_tools": traj["expected"]},
                "expected_outcome": traj["outcome"], "topic": traj["topic"],
                "query_type": "agent", "labels": {"tools_correct": run["tools_correct"]},
            })
    return cases


# ----------------------------------------------------------------------------- labelling round


def round_questions(questions: list[dict[str, Any]]) -> set[str]:
    """The question ids of the random labelling round: a seeded uniform sample of ROUND_SIZE."""
    ids = sorted(q["id"] for q in questions)
    return set(random.Random(f"{SEED}:label-round").sample(ids, ROUND_SIZE))


def construction_label(case: dict[str, Any]) -> tuple[int | None, int | None]:
    """(correct, grounded) of an answer where its construction settles them, None where not.

    Correct: 0 with an invented, wrong or unsafe defect; 1 with none; unsettled when the answer
    is incomplete or leaks personal data (a reviewer judges whether what is left answers the
    question). Grounded: 0 with an invented, wrong, unsafe or PII defect, or when none of the
    chunks that answer the question (grade 2) was retrieved; 1 for a clean answer with every such
    chunk retrieved (or none needed); unsettled when only some were retrieved.
    """
    defects = set(case.get("metadata", {}).get("defects", []))
    needed = [cid for cid, grade in (case.get("relevant_ids") or {}).items() if grade >= 2]
    retrieved = [cid in case["context_ids"] for cid in needed]
    correct = (
        0 if defects & {"invented", "wrong", "unsafe"}
        else None if defects & {"incomplete", "pii"} else 1
    )  # fmt: skip
    if defects & {"invented", "wrong", "unsafe", "pii"} or (needed and not any(retrieved)):
        grounded: int | None = 0
    else:
        grounded = 1 if all(retrieved) else None
    return correct, grounded


def round_labels(cases: list[dict[str, Any]], questions: list[dict[str, Any]]) -> str:
    """``labels_random.csv``: every model's labels on the round's questions, with how each was
    made; the construction is first checked against every reviewer label it settles."""
    by_id = {q["id"]: q for q in questions}
    chosen = round_questions(questions)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["id", "model", "correct", "grounded", "made_by"])
    for case in cases:
        if "perturbation" in case or case["id"] not in by_id:
            continue
        built = construction_label(case)
        hand = case.get("labels")
        if hand:
            given = (hand["correct"], hand["grounded"])
            if any(b is not None and b != g for b, g in zip(built, given, strict=True)):
                raise SystemExit(f"{case['id']} {case['model']}: construction {built} disagrees "
                                 f"with the reviewer's {given}")
        if case["id"] not in chosen:
            continue
        read = by_id[case["id"]].get("round_labels", {}).get(case["model"])
        if hand:
            row, made_by = [hand["correct"], hand["grounded"]], "reviewer"
        elif None not in built:
            row, made_by = list(built), "construction"
        elif read:
            row, made_by = list(read), "reading"
        else:
            raise SystemExit(f"question {case['id']} ({case['model']}) is in the labelling round "
                             f"but its construction {built} does not settle it: add round_labels")
        writer.writerow([case["id"], case["model"], *row, made_by])
    return out.getvalue()


def _jsonl(records: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


def _labels_csv(cases: list[dict[str, Any]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["id", "model", "correct", "grounded", "quality"])
    for case in cases:
        if case.get("labels") and "correct" in case["labels"]:
            lab = case["labels"]
            writer.writerow(
                [case["id"], case["model"], lab["correct"], lab["grounded"], lab["quality"]]
            )
    return out.getvalue()


def build(demo: Path = DEMO) -> dict[str, str]:
    """The generated files (name relative to ``demo`` → content), built from the sources."""
    chunks = build_chunks(demo / "corpus")
    questions = load_questions(demo / "source" / "questions.toml")
    cases = build_cases(questions, chunks)
    sample = round_labels(cases, questions)
    dialogues = tomllib.loads((demo / "source" / "dialogues.toml").read_text(encoding="utf-8"))
    cases += conversation_cases(dialogues["conversation"])
    cases += trajectory_cases(dialogues["trajectory"])
    return {
        "chunks.jsonl": _jsonl(chunks),
        "suite.jsonl": _jsonl(cases),
        "labels.csv": _labels_csv(cases),
        "labels_random.csv": sample,
    }


def main(argv: list[str]) -> int:
    """Write the generated files, or with ``--check`` report which ones are stale."""
    outputs = build()
    if "--check" in argv:
        stale = [n for n, text in outputs.items() if (DEMO / n).read_text(encoding="utf-8") != text]
        for name in stale:
            print(f"stale: {DEMO / name} (run python scripts/build_demo.py)")
        return 1 if stale else 0
    for name, text in outputs.items():
        (DEMO / name).write_text(text, encoding="utf-8")
        print(f"wrote {DEMO / name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
