"""Inference: from a question to SQL (schema pruning, the ask pipeline)."""
