"""Notebook execution and the self-contained HTML report.

``python -m twelveways.report rebuild --from data/reference --output reports/`` re-renders every
notebook and the report from stored results without running a benchmark; the workflow's
rules call the ``execute`` and ``render`` subcommands.  See :mod:`.commands`.
"""
