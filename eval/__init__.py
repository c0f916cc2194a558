"""Evaluation: golden sets, ranking metrics and the release gates (``kb eval``)."""
