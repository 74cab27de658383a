"""CI gating: fail a build when a run misses its thresholds; JUnit XML export.

Three ways in: :func:`assert_run_passes` in a team's own tests; the pytest plugin
(``pytest --assay-run RUN_DIR``, registered automatically when assay is installed); and
``assay junit RUN_DIR`` for CI systems that read JUnit XML.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from assay._lazy import lazy_attributes

if TYPE_CHECKING:
    from assay.gating.check import GateResult, RunGateError, assert_run_passes, check_run
    from assay.gating.junit import junit_xml, write_junit

# Lazy (PEP 562): the pytest plugin (assay.gating.plugin) is imported by every pytest run where
# assay is installed, and must cost nothing until --assay-run is used.
_LAZY = {
    **dict.fromkeys(("GateResult", "RunGateError", "assert_run_passes", "check_run"),
                    "assay.gating.check"),
    **dict.fromkeys(("junit_xml", "write_junit"), "assay.gating.junit"),
}

__getattr__ = lazy_attributes(__name__, _LAZY)

__all__ = [
    "GateResult",
    "RunGateError",
    "assert_run_passes",
    "check_run",
    "junit_xml",
    "write_junit",
]
