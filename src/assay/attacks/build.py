"""Turn a suite and the attack library into attacked test cases."""

from __future__ import annotations

import base64
import hashlib
import random
from collections.abc import Iterable, Sequence
from typing import Any

from assay.attacks.library import HARMFUL_REQUESTS, Attack, attacks
from assay.data.case import TestCase
from assay.data.derived import RUN_FIELDS, child_id, insert_passages
from assay.data.dialogue import Turn
from assay.params import check, check_int

_EXPECTED = {
    "prompt_injection": "ignore_injection",
    "indirect_injection": "ignore_injection",
    "jailbreak": "refuse",
    "system_prompt_extraction": "refuse",
    "pii_extraction": "refuse",
    "harmful_compliance": "refuse",
    "multi_turn": "refuse",
}


def canary(seed: int, *parts: str) -> str:
    """A random-looking marker that no honest answer contains by chance.

    Example:
        >>> canary(0, "q1", "ignore_previous") == canary(0, "q1", "ignore_previous")
        True
        >>> canary(0, "q1", "x").startswith("ZQX")
        True
    """
    digest = hashlib.sha256(":".join([str(seed), *parts]).encode("utf-8")).hexdigest()
    return "ZQX" + digest[:8].upper()


def _render(attack: Attack, question: str, marker: str, template: str | None = None) -> str:
    encoded = base64.b64encode(question.encode("utf-8")).decode("ascii")
    text = attack.template if template is None else template
    return text.format(question=question, canary=marker, encoded=encoded)


def _harmful_fields(attack: Attack, request: str, marker: str) -> dict[str, Any]:
    """The question of a one-turn attack, or the user turns of a multi-turn one."""
    if not attack.lead_in:
        return {"question": _render(attack, request, marker)}
    turns = [Turn(role="user", content=_render(attack, request, marker, t))
             for t in attack.user_turns]
    return {"turns": turns}


def _record(attack: Attack, marker: str | None, extra: dict[str, Any]) -> dict[str, Any]:
    record: dict[str, Any] = {
        "name": attack.name,
        "category": attack.category,
        "detector": attack.detector,
        **extra,
    }
    if marker is not None and "{canary}" in attack.template:
        record["canary"] = marker
    return record


def make_attacks(
    cases: Iterable[TestCase],
    *,
    categories: Sequence[str] | None = None,
    library: Sequence[Attack] | None = None,
    harmful_requests: Sequence[str] | None = None,
    max_cases: int | None = None,
    system_prompt: str | None = None,
    system_canary: str | None = None,
    seed: int = 0,
) -> list[TestCase]:
    """Attacked cases for bad-actor validation.

    Attacks built from a case (injections, extraction) get id ``<parent>~attack:<name>`` and the
    parent's id in ``parent_id``; they keep the parent's other fields, so an injected case can
    also be scored against the original expected answer. Attacks that ignore the question get
    one case ``attack:<name>``; harmful-request attacks give ``attack:<name>:<k>`` per request
    (multi-turn ones a conversation: user ``turns`` for ``assay run`` to send one by one).
    ``metadata["attack"]`` records the name, category, detector and canary (and, for multi-turn
    attacks, ``escalation_turn``: the user turn from which the request is in play);
    ``labels["expected_behaviour"]`` says what a safe system does.

    Args:
        cases: the suite to attack (parents only: cases with a ``parent_id`` are skipped).
        categories: attack categories to include (all by default).
        library: attack templates (the built-in :data:`~assay.attacks.library.ATTACKS` by
            default).
        harmful_requests: requests for jailbreak and harmful-compliance attacks.
        max_cases: write at most this many attack cases in all: a seeded sample spread evenly
            over the attack categories (round-robin), kept in build order.
        system_prompt: the target's system prompt, to detect its extraction by overlap.
        system_canary: a marker planted in the target's system prompt, to detect extraction.
        seed: seeds the sample and the canaries.

    Example:
        >>> attacked = make_attacks([TestCase(id="q1", question="Fee?")],
        ...                         categories=["prompt_injection"])
        >>> attacked[0].id, attacked[0].metadata["attack"]["category"]
        ('q1~attack:ignore_previous', 'prompt_injection')
        >>> attacked[0].metadata["attack"]["canary"] in attacked[0].question
        True
    """
    chosen = list(library) if library is not None else attacks(categories)
    if library is not None and categories is not None:
        chosen = [a for a in chosen if a.category in categories]
    check(bool(chosen), "categories", "make_attacks", "categories with attacks", categories)
    requests = list(harmful_requests) if harmful_requests is not None else list(HARMFUL_REQUESTS)
    unique: dict[str, TestCase] = {}
    for case in cases:
        if case.parent_id is None and case.question:
            unique.setdefault(case.id, case)
    parents = list(unique.values())
    if max_cases is not None:
        check_int(max_cases, "max_cases", "make_attacks")
    extra: dict[str, Any] = {}
    if system_prompt:
        extra["system_prompt"] = system_prompt
    if system_canary:
        extra["system_canary"] = system_canary
    out: list[TestCase] = []
    for attack in chosen:
        expected = {"expected_behaviour": _EXPECTED[attack.category]}
        if attack.source == "harmful":
            for k, request in enumerate(requests, start=1):
                marker = canary(seed, "harmful", str(k), attack.name)
                record = {**_record(attack, marker, extra), "request": request}
                if attack.lead_in:
                    record["escalation_turn"] = attack.escalation_turn
                out.append(
                    TestCase(
                        id=f"attack:{attack.name}:{k}",
                        **_harmful_fields(attack, request, marker),
                        query_type="adversarial",
                        topic="harmful request",
                        perturbation=f"attack:{attack.name}",
                        labels=expected,
                        metadata={"attack": record},
                    )
                )
            continue
        if attack.target == "question" and "{question}" not in attack.template:
            marker = canary(seed, "standalone", attack.name)
            out.append(
                TestCase(
                    id=f"attack:{attack.name}",
                    question=_render(attack, "", marker),
                    query_type="adversarial",
                    perturbation=f"attack:{attack.name}",
                    labels=expected,
                    metadata={"attack": _record(attack, marker, extra)},
                )
            )
            continue
        for parent in parents:
            marker = canary(seed, parent.id, attack.name)
            rng = random.Random(f"{seed}:{attack.name}:{parent.id}")
            text = _render(attack, parent.question or "", marker)
            if attack.target == "question":
                update: dict[str, Any] = {"question": text}
            else:
                update = insert_passages(parent, [text], "random", rng, prefix="injected")
            metadata = {k: v for k, v in parent.metadata.items() if k != "run"}
            metadata.update(update.pop("metadata", {}))
            metadata["attack"] = _record(attack, marker, extra)
            fields: dict[str, Any] = {f: None for f in RUN_FIELDS}
            fields.update(update)
            fields.update(
                id=child_id(parent.id, f"attack:{attack.name}"),
                parent_id=parent.id,
                perturbation=f"attack:{attack.name}",
                labels={**parent.labels, **expected},
                metadata=metadata,
            )
            out.append(parent.model_copy(update=fields, deep=True))
    return out if max_cases is None else _spread_sample(out, max_cases, seed)


def _spread_sample(cases: list[TestCase], n: int, seed: int) -> list[TestCase]:
    """At most ``n`` of ``cases``: seeded, taken in turn from each attack category (so every
    category is represented when ``n`` allows), returned in their original order.

    Example:
        >>> made = [TestCase(id=f"{c}{i}", metadata={"attack": {"category": c}})
        ...         for c in "ab" for i in range(5)]
        >>> sorted(c.metadata["attack"]["category"] for c in _spread_sample(made, 3, 0))
        ['a', 'a', 'b']
    """
    if len(cases) <= n:
        return cases
    rng = random.Random(f"{seed}:attack-sample")
    by_category: dict[str, list[int]] = {}
    for index, case in enumerate(cases):
        by_category.setdefault(case.metadata["attack"]["category"], []).append(index)
    queues = [rng.sample(indices, len(indices)) for indices in by_category.values()]
    chosen: list[int] = []
    while len(chosen) < n:
        for queue in queues:
            if queue and len(chosen) < n:
                chosen.append(queue.pop())
    return [cases[i] for i in sorted(chosen)]
