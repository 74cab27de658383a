"""get_params of every registered calibrator: the constructor's parameters, in order, with the
values given; a calibrator rebuilt from them reports the same (what save/load relies on)."""

from __future__ import annotations

import inspect

import pytest

from assay.calibrate.persist import KINDS

NON_DEFAULT = {"C": 2.5, "centered": True, "l2": 0.3, "n_estimators": 7, "learning_rate": 0.5,
               "num_leaves": 4, "min_child_samples": 3, "seed": 11}


@pytest.mark.parametrize("kind", KINDS.names())
def test_get_params_round_trips_every_constructor_parameter(kind: str) -> None:
    cls = KINDS.get(kind)
    names = [n for n in inspect.signature(cls.__init__).parameters if n != "self"]
    given = {"metrics": ["token_f1"], "higher_is_better": [False], "pass_at": 3.0,
             **{n: v for n, v in NON_DEFAULT.items() if n in names}}
    params = cls(**given).get_params()
    assert list(params) == names
    assert params == given
    assert cls(**params).get_params() == params
