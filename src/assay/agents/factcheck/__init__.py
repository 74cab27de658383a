"""The fact-check agent: claim extraction, evidence search with tools, verdicts under step and
cost limits. Nothing heavy is imported here."""

from assay.agents.factcheck.agent import AgentLimits, ClaimCheck, FactCheckAgent, FactCheckReport
from assay.agents.factcheck.tools import (
    BM25,
    CorpusSearch,
    Evidence,
    SearchTool,
    ToolCall,
    WebSearch,
    call_tool,
)

__all__ = [
    "BM25",
    "AgentLimits",
    "ClaimCheck",
    "CorpusSearch",
    "Evidence",
    "FactCheckAgent",
    "FactCheckReport",
    "SearchTool",
    "ToolCall",
    "WebSearch",
    "call_tool",
]
