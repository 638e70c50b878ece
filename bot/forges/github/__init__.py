"""GitHub: the pull request side (`change`), the conversation host (`host`), the repository
side (`repository`), the one connection and its retry rules (`api`, `graphql`), which marked
comments are the bot's own (`own`), and commits to pull requests (`commits`)."""
