"""The forge fakes' fixtures, for the forge rows of the fault tests, the apply flow's pull
request and a shard's part; and the bot's cancel state put back after each test (some send
real signals to the test process itself)."""

import pytest

from bot import proc
from tests.apply.conftest import pr, pr_template  # noqa: F401 (fixtures)
from tests.forges.conftest import fake, forge_for, sleeps  # noqa: F401 (fixtures)
from tests.run.test_shards import part_doc  # noqa: F401 (a fixture)


@pytest.fixture(autouse=True)
def _no_cancel_left(monkeypatch: pytest.MonkeyPatch) -> None:
    # A cancel lets only the thread that called it start processes from then on (bot.proc):
    # right for a run that ends there, not for the tests after it in this process.
    monkeypatch.setattr(proc, "_cancelled_by", None)
