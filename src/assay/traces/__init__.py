"""Import OpenTelemetry traces (OTLP JSON) as test cases."""

from assay.traces.otlp import ImportReport, import_otlp, read_otlp_spans

__all__ = ["ImportReport", "import_otlp", "read_otlp_spans"]
