"""Compare two result sets and say whether a re-run reproduced a stored one.

Stages: :mod:`sides` (what each side holds), :mod:`table` (samples per configuration),
:mod:`verdicts` (ratio, CI, test, FDR, verdict), :mod:`stated` (configurations a side holds only as
its publisher's stated summary), :mod:`noise` (the A/A noise floor),
:mod:`explain` (environment differences that could explain a difference), :mod:`build` (the
whole record), :mod:`reproduce` (claims and headline numbers), :mod:`render` and :mod:`cli`.
"""
