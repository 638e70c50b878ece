"""Fixtures shared with the forge tests."""

from tests.forges.conftest import sleeps  # noqa: F401 (a fixture)
