"""Benchmarks of ALBERT Lab against reference implementations (`python -m benchmarks.<name>`)."""
