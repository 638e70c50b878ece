from __future__ import annotations

import json
from pathlib import Path

from bot.render import codequality, sarif
from bot.render.files import Output, rendered
from tests.forges.builders import change, finding, result, verdict

REVIEW = result("c" * 40, [verdict(finding("a.py", 3), "fp-1")], [change("a.py", range(1, 5))])


def test_each_file_asked_for_is_rendered_from_the_one_result_with_its_option() -> None:
    out = rendered(REVIEW, sarif=Path("r.sarif"), code_quality=Path("cq.json"))
    assert out == (Output(Path("r.sarif"), "--sarif", sarif.dumps(REVIEW)),
                   Output(Path("cq.json"), "--code-quality", codequality.dumps(REVIEW)))
    assert json.loads(out[1].data)[0]["check_name"] == "ruff/F841"


def test_nothing_asked_for_renders_nothing() -> None:
    assert rendered(REVIEW) == ()
    assert [o.flag for o in rendered(REVIEW, code_quality=Path("cq.json"))] == ["--code-quality"]
