"""The commands of `reviewbot` (`bot.cli` maps each name to its module): each registers its
arguments (`common` the shared ones), turns its `Namespace` into the typed options of
`bot.options` and calls a flow.

The top of the package: may import anything below it (the flows, the CI runners, the run,
publishing), never a forge's SDK (`tests/test_layering.py`).
"""
