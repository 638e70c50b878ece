"""Gitea and Forgejo: the pull request side (`change.py`), the repository side
(`repository.py`), the conversation host (`host.py`) over one client (`api.py`)."""
