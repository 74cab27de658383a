"""Analysis of evaluation results: leaderboards, problems and insights (data only, no rendering)."""

from assay.analyze.findings import find_insights, find_problems
from assay.analyze.leaderboard import LeaderboardBuilder

__all__ = ["LeaderboardBuilder", "find_insights", "find_problems"]
