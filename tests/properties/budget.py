"""How many examples the verdict properties run: a small sample, the same on every run, in the
test suite; 10,000 each, drawn afresh, when REVIEWBOT_PROPERTIES=deep (scripts/deep-properties).

A property names its sample size with `examples(n)`; the deep profile replaces it."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

DEEP_EXAMPLES = 10_000
PROFILES = ("ci", "deep")

# No example database: a run leaves nothing behind, and a failure is reproduced from the seed
# and blob hypothesis prints.
settings.register_profile("ci", derandomize=True, deadline=None, database=None, print_blob=True)
settings.register_profile(
    "deep", max_examples=DEEP_EXAMPLES, derandomize=False, deadline=None, database=None,
    print_blob=True, suppress_health_check=[HealthCheck.too_slow])

PROFILE = os.environ.get("REVIEWBOT_PROPERTIES", "ci")
if PROFILE not in PROFILES:
    raise RuntimeError(f"REVIEWBOT_PROPERTIES must be one of {', '.join(PROFILES)}, not {PROFILE!r}")


def examples(n: int) -> settings:
    """The settings of a property that runs `n` examples in the test suite."""
    profile = settings.get_profile(PROFILE)
    return profile if PROFILE == "deep" else settings(profile, max_examples=n)
