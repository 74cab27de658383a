"""Agent evaluation: the sanity check of an agent's artifacts and chat session against a declared
specification, and the fact-check agent. The evaluators live in ``assay.evaluators.agent_sanity``
and ``assay.evaluators.fact_check``; see docs/agents.md."""

from assay.agents.sanity import ArtifactCheck, SanityReport, check_artifacts
from assay.agents.spec import ArtifactSpec, load_spec

__all__ = ["ArtifactCheck", "ArtifactSpec", "SanityReport", "check_artifacts", "load_spec"]
