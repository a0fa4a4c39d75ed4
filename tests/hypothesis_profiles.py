"""How many examples a property test draws, per test tier: Hypothesis profiles.

`make test` (what CI runs) loads the ``full`` profile, Hypothesis's defaults: every property test draws its
full count.  `make test-fast` loads ``fast`` (``--hypothesis-profile=fast``): a quarter of each count, at
least ``FAST_FLOOR``, so the tier meant for every edit stays within its minute while every property is still
drawn and checked.  A test states its full count as ``@settings(max_examples=examples(40))``.
"""

from __future__ import annotations

from hypothesis import settings

FULL, FAST = "full", "fast"
#: The fast tier draws this share of each full count...
FAST_SHARE = 4
#: ...and never fewer examples than this.
FAST_FLOOR = 5

settings.register_profile(FULL, settings.get_profile("default"))
settings.register_profile(FAST, max_examples=settings.get_profile("default").max_examples // FAST_SHARE)


def examples(full: int) -> int:
    """``full`` under the full profile; under the fast one the same share of it as the profile's own count
    (read when the test module is imported, after pytest loaded the profile)."""
    share = settings.default.max_examples / settings.get_profile(FULL).max_examples
    return full if share >= 1 else max(FAST_FLOOR, round(full * share))
