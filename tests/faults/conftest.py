"""The forge fakes' fixtures, for the forge rows of the fault tests."""

from tests.forges.conftest import fake, forge_for, sleeps  # noqa: F401 (fixtures)
