"""Test cases and suites: the model, readers and writers."""

from assay.data.case import CASE_FIELDS, TestCase
from assay.data.dialogue import ToolCall, Trajectory, Turn
from assay.data.suite import TestSuite, read_suite, write_suite

__all__ = [
    "CASE_FIELDS",
    "TestCase",
    "TestSuite",
    "ToolCall",
    "Trajectory",
    "Turn",
    "read_suite",
    "write_suite",
]
