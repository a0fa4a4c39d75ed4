"""The practical-equivalence margin's default, apart from :mod:`.verdicts` (NumPy, SciPy): the command lines
that offer ``--margin`` state it in their help before the analysis stack loads."""

#: Practical-equivalence margin: ratios within ±2 % are "the same" (criterion's noise threshold is 1-2 %).
DEFAULT_MARGIN = 0.02
