"""Bitbucket Cloud, over its REST API 2.0: the pull request side (`change.py`), the
conversation's host (`host.py`), the repository side (`repository.py`) and the sweep's pulls
(`pulls.py`), over one connection (`api.py`); `relay.py` turns a comment's webhook into the
custom pipeline that runs its commands."""
