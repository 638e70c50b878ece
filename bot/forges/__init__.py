"""The forges: the only code that talks to GitHub, GitLab, Gitea (and Forgejo) or Bitbucket
Cloud. One package per forge (`github/`, `gitlab/`, `gitea/`, `bitbucket/`); the flows see only
the protocols and values of `base.py` and `repository.py`, never an SDK object or a URL.

What a new forge provides
-------------------------
A forge is one package here and one runner under `bot/ci/`. The package provides:

- `change.py`: the change, one class that satisfies `base.Change`: what the publish step
  needs (`load` our earlier comments by their hidden markers, the lines the forge's diff takes
  comments on, post one review, edit, delete, resolve, the sticky summary, the status report,
  and its markdown `Dialect`: how suggestions are fenced, how long a body may be) and what a
  conversation needs (`pull_request`: where its head is now; when it moved, the bot's own
  summary body, the ref its head is fetched from, the forge's names for roles, who added a
  label, the apply commit's default author);
- `host.py`: the conversation's data and pure helpers that `change.py` answers with (role
  names, what a push starts, the default author), and `push_env(token, server)`: the
  credentials for one git process, never written to a config file;
- `repository.py`: `repository.Repository` (replies made once, reactions, the
  collaborator-permission check, labels, notes found by marker, tracking issues, a file at a
  ref), and `base.Pulls` (the change a commit came in with).

Every member is required: a forge that cannot do something does a documented no-op (and
says so where a user would look for it). Values in and out are the frozen dataclasses of
`base.py` and `repository.py`.

The seams it builds on, shared by every forge:

- `transport.py`: one JSON request in, one response out over httpx, retried by `judge` (a
  rate-limited request is waited out, a write whose answer was lost is `Uncertain`, a 403 on
  a write is `ReadOnly`); a forge supplies its base URL, headers and a judge that wraps the
  shared one. An SDK-backed forge keeps its SDK behind its own `call` with the same rules
  (`backoff.retry`, the SDK's own retries off);
- `limits.py`: the one reading of Retry-After and rate-limit headers, and the backoffs;
- `backoff.py`: the one retry loop;
- `sticky.py` and `replies.py`: a summary or note edited in place and made exactly once, a
  reply made once, whatever answers are lost;
- `meanwhile.py`: a comment deleted between the read and the write;
- `hunks.py`: the head lines of a unified diff's hunks (what `diff_lines` answers);
- the dry run: the forge's real code runs, and `transport.Recording` at its one way out
  records every write instead of sending it (Gitea's transport, GitLab's `_write`, GitHub's
  PyGithub requester and GraphQL mutations: `github/recording.py`); a new forge records at its
  own way out the same way, the change's writes and the repository's (notes, replies, labels,
  issues) in one list. `Connection.recorded` is that list, which the publishing step (and the
  sweep) prints as one JSON document.

Its runner under `bot/ci/` (`ci.base.Runner`) reads the CI's event into a `Trigger` and
builds the `base.Connection` (`connect`): the repository, the `Change` (when the run is about
one), `Pulls`, `push_env`, and on a dry run the recorded writes. The fakes under `tests/forges/`
check every request a test sends against the forge's published API description; a new forge
brings its fake and its description with it.

May import the foundations (`model`, `errors`, `config`, `positions`), the pure renderers
(`bot.render`: a forge's markdown dialect, the summary's marker) and `bot.revisions` (the
diff's lines a comment may take); a forge's SDK only here and in the CI. Never the flows, the
commands or the CI, which call it, nor publishing, which stands on it (`tests/test_layering.py`).
The core and the flows see only `base.py` and `repository.py`; a CI runner builds its own
forge's connection.
"""
