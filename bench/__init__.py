"""Benchmarks, each run side by side with what it is compared to (see each folder's README)."""
