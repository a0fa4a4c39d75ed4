"""Helpers for the report tests: a synthetic result set and a headless-Chromium page check."""
