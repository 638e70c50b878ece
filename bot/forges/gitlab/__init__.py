"""GitLab: the shared client (`client`: python-gitlab, our retries, a dry run's recording), the
merge request side (`change`), the project side (`repository`), the conversation host
(`host`), notes and their positions (`notes`), commits to merge requests (`merge_requests`)."""
