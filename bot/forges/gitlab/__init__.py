"""GitLab: the merge request side (`change`), the repository side, its limits and notes."""
