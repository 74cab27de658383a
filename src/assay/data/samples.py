"""Repeated samples of a case: k answers of a non-deterministic system to the same input.

``repeat_cases`` turns each case into k cases ``{id}#sample{j}`` (j = 1..k) with ``sample = j``
and ``sample_of = id``; everything else, ``parent_id`` included, is kept. Downstream the samples
of one case are one unit, never k independent cases:

* resampling (intervals, tests) draws them as one cluster — with the case's perturbations and
  attacks, the cluster of their parent question (:func:`question_of`);
* a perturbed sample is compared with the parent's sample of the same index;
* the flakiness analysis groups them by ``sample_of`` (:mod:`assay.analyze.repeats`), and the
  verdict counts each sampled case once (:mod:`assay.verdict.assess`).

``parent_id`` is not used for the link: it means "perturbation of" to the robustness evaluators
(design note 0029).
"""

from __future__ import annotations

from collections.abc import Sequence

from assay.data.case import TestCase
from assay.errors import InvalidInputError
from assay.params import check_int

#: Joins a case id and a sample index into the sample's id.
SEPARATOR = "#sample"


def sample_id(case_id: str, sample: int) -> str:
    """The id of sample ``sample`` of case ``case_id``.

    Example:
        >>> sample_id("q1", 3)
        'q1#sample3'
    """
    return f"{case_id}{SEPARATOR}{sample}"


def question_of(case: TestCase) -> str:
    """The question a case answers, the unit of resampling: the parent of a perturbation or
    attack, else the case sampled, else the case itself.

    Example:
        >>> question_of(TestCase(id="q1~typos#sample2", parent_id="q1", sample=2,
        ...                      sample_of="q1~typos"))
        'q1'
    """
    return case.parent_id or case.sample_of or case.id


def judge_sample(case: TestCase) -> int:
    """The index of a case's judgement among repeated ones: 0 for a case that is no sample (and
    for sample 1), ``j - 1`` for sample j. Judge evaluators put it on their requests, so every
    sample asks the judge afresh (cache key and seed of its own) and a judge's
    non-determinism shows across samples (``assay evaluate --judge-repeats``).

    Example:
        >>> judge_sample(TestCase(id="q")), judge_sample(TestCase(id="q#sample3", sample=3,
        ...                                                        sample_of="q"))
        (0, 2)
    """
    return case.sample - 1 if case.sample else 0


def repeat_cases(cases: Sequence[TestCase], repeats: int) -> list[TestCase]:
    """Each case ``repeats`` times as linked samples (``repeats=1`` returns the cases unchanged).

    Raises:
        InvalidInputError: a case is already a sample (repeating samples would nest them).

    Example:
        >>> [(c.id, c.sample, c.sample_of) for c in repeat_cases([TestCase(id="q")], 2)]
        [('q#sample1', 1, 'q'), ('q#sample2', 2, 'q')]
    """
    check_int(repeats, "repeats", "repeat_cases")
    if repeats == 1:
        return list(cases)
    out: list[TestCase] = []
    for case in cases:
        if case.sample is not None:
            raise InvalidInputError(
                f"case {case.id!r} is already sample {case.sample} of {case.sample_of!r}; "
                "repeat the original suite instead"
            )
        out.extend(
            case.model_copy(update={"id": sample_id(case.id, j), "sample": j, "sample_of": case.id})
            for j in range(1, repeats + 1)
        )
    return out
