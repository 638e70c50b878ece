"""One module per CI environment: its variables and payload as a neutral `bot.model.Trigger`,
and the `base.Runner` that connects to the forge the CI serves (`connect`: a
`bot.forges.base.Connection`).

- `base`: the `Runner` protocol and what every runner shares.
- `github_actions`, `gitlab_ci`, `gitea_actions`, `bitbucket_pipelines`, `azure_pipelines`: one
  runner each; `merge_group` the GitHub merge queue's event.
- `environment`: which CI this run is in; `variables`: CI variables read by their form;
  `payload`: an event's payload file and its fields. This package is the only place CI
  variables are read.

May import the foundations (`model`, `errors`, `git`, `secrecy`), `bot.safety` (the runner's
file commands) and the forges: the protocols of `bot.forges.base` and `.repository`, and the
one forge package each runner builds its connection with. Never the flows or the commands,
which call it (`tests/test_layering.py`).
"""
