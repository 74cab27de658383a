"""Tests of assay.report."""
