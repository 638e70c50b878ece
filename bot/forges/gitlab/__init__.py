"""GitLab: the merge request side and the repository side (`change`), the conversation host
(`host`), notes and their positions (`notes`), commits to merge requests (`merge_requests`)."""
