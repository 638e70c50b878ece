"""`reviewbot doctor`: why each tool does or does not run in a repository (`probe` gathers the
facts, `report` judges and renders them).

May import the foundations (`analyzer`, `config`, `errors`, `toolpath`) and the tools
(`bot.linters`, `bot.lsp`, `bot.structural`); never the run, publishing, the flows or a forge.
"""
