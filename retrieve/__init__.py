"""Retrieve: the six-stage retrieval pipeline."""
