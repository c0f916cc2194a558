"""Ingest: extract, chunk, index and embed documents."""
