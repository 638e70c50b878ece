"""The hidden markers as Bitbucket keeps them hidden. Pure.

Bitbucket's Markdown shows no raw HTML, so an HTML comment (`<!-- reviewbot:… -->`, the form
every other forge hides) could be shown as text. What Markdown itself never renders is a link
reference definition: each marker goes to Bitbucket as a paragraph of its own,
`[//]: # "reviewbot:…"`, and comes back as the HTML comment it was, so that everything above
this module (markers, digests, the summary's state, the sticky summary's comparison) sees the
body it wrote, exactly.
"""

from __future__ import annotations

import re

_HTML = re.compile(r'<!-- (reviewbot:[^"\n]*?) -->')
# A definition cannot interrupt a paragraph: blank lines around it. Bitbucket may strip the
# trailing ones of a body.
_WIRE = re.compile(r'\n\n\[//\]: # "(reviewbot:[^"\n]*)"(?:\n\n|\s*\Z)')


def to_wire(body: str) -> str:
    """`body` as it is sent: each marker a link reference definition."""
    return _HTML.sub(lambda m: f'\n\n[//]: # "{m.group(1)}"\n\n', body)


def from_wire(raw: str) -> str:
    """A body as Bitbucket holds it, with its markers as the HTML comments they were."""
    return _WIRE.sub(lambda m: f"<!-- {m.group(1)} -->", raw)
