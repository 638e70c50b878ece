"""GitHub: the pull request side (`change`), the repository side (`repository`), the one
connection and its retry rules (`api`, `limits`, `graphql`), and commits to pull requests
(`commits`)."""
