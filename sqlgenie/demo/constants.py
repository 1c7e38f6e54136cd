"""Limits and defaults of the demo dataset (no heavy imports: the CLI reads them at start-up)."""

MIN_SCALE = 1_000
MAX_SCALE = 10_000_000
DEFAULT_SCALE = 100_000
DEFAULT_SEED = 42
