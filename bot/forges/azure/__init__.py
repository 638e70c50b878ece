"""Azure DevOps Repos: the pull request side (`change.py`), the repository side
(`repository.py`), the conversation host (`host.py`) and the sweep's pulls (`pulls.py`) over
one client (`api.py`); sizes, versions and the markdown dialect in `limits.py`."""
