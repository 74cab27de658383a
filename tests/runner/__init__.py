"""Tests of assay.runner against a loopback RAG service."""
