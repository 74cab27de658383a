"""Tests of assay.calibrate."""
