"""The publishing wing: everything between a review's result and what the world sees of it.

It holds where each finding goes (`placement`: the values, an `Item` for each finding and
what a run did, `Placed`; `policy`: the rules, inline, file or summary, and the caps), the
reconciliation of the forge's comments with this run (`sync`), the pages about the whole
review (`summary`: the sticky summary, the check run's report, the job summary), the merge
queue's word on a change (`queue`), the files and lines besides the forge (`outputs`: SARIF
and Code Quality written, why the gate did not pass; `report`: the JSON document of
`review --format json`), and the gate itself (`gate`). One value carries a review to the
world: the publication (`publication`: the findings placed with their comment bodies, the
output files rendered, a merge queue's note), built once and handed to the forge's and the
runner's sinks (`sinks`); `offer` adds the conversation's part, and `turn` is what a flow
decided, published in one place.

What it may import: the core below it (the model, the settings, the workspace's texts, the
staged plan of `bot.apply`), the pure renderers (`bot.render`, which also holds what it
shares with the forges: a forge's dialect, a comment's body, the order of findings), the
conversation's state, and the forge protocols (`bot.forges.base`, `bot.forges.repository`);
never a forge package, the CI runners (the runner sink declares what it needs of one), the
flows or the commands. Nothing below it imports it. A local review imports a few of its
modules (the gate, the outputs, the JSON report), so this file imports nothing.
"""
