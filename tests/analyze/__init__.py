"""Tests of assay.analyze."""
