"""Experiments: the code of the protocols behind the results in docs/ (`python -m experiments.<name>`); accuracy,
not speed (that is `benchmarks/`)."""
