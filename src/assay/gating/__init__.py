"""CI gating: fail a build when a run misses its thresholds; JUnit XML export.

Three ways in: :func:`assert_run_passes` in a team's own tests; the pytest plugin
(``pytest --assay-run RUN_DIR``, registered automatically when assay is installed); and
``assay junit RUN_DIR`` for CI systems that read JUnit XML.
"""

from assay.gating.check import GateResult, RunGateError, assert_run_passes, check_run
from assay.gating.junit import junit_xml, write_junit

__all__ = [
    "GateResult",
    "RunGateError",
    "assert_run_passes",
    "check_run",
    "junit_xml",
    "write_junit",
]
