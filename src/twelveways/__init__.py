"""Twelve Ways: benchmarking that checks itself against the SC15 rules and the DL fallacies."""

__version__ = "0.1.0"
