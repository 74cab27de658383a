"""The scripted reply to ``simulate_user`` requests (answered by the ``"scripted"`` judge, which
finds it in :data:`~assay.backends.llm.scripted.TASK_REPLIES`).

Deterministic and model-free, for tests, the docs' examples and ``assay run --judge scripted``:
the simulated user asks the scenario's goals in order (its sentences, or clauses joined by
"then"), calls the goal met when the last reply holds 60 % of the expected outcome's content
words, and stops when every goal was asked.
"""

from __future__ import annotations

import json
import re

from assay.backends.llm.protocol import JudgeRequest
from assay.backends.llm.scripted import overlap

_GOALS = re.compile(r"(?<=[.!?;])\s+|,?\s+then\s+", re.IGNORECASE)


def simulate_user_reply(request: JudgeRequest) -> str:
    """The scripted simulated user's next move.

    Example:
        >>> from assay.data.case import TestCase
        >>> from assay.runner.simulated_user import simulate_request
        >>> case = TestCase(id="c", scenario="Asks the fee. Then asks about limits.")
        >>> simulate_user_reply(simulate_request(case, [], 4).request)
        '{"goal_met": false, "stop": false, "message": "Asks the fee?"}'
    """
    v = request.variables
    goal, last = str(v.get("outcome", "")), str(v.get("last_reply", ""))
    if goal and last and overlap(goal, last) >= 0.6:
        return json.dumps({"goal_met": True, "stop": False, "message": ""})
    goals = [g.strip() for g in _GOALS.split(str(v["scenario"])) if g and g.strip()]
    asked = int(v.get("user_turns", 0))
    if asked >= len(goals):
        return json.dumps({"goal_met": False, "stop": True, "message": ""})
    text = goals[asked].rstrip(".!;")
    message = text if text.endswith("?") else text + "?"
    return json.dumps({"goal_met": False, "stop": False, "message": message})
