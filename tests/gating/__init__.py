"""Tests of assay.gating."""
