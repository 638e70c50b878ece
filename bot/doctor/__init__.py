"""`reviewbot doctor`: why each tool does or does not run in a repository (`probe` asks each
analyzer through the contract, `Analyzer.resolve` and `Analyzer.survey`, and reads
`.reviewbot.yml`; `report` judges and renders the facts).

May import the foundations (`analyzer`, `config`, `errors`, `toolpath`) and the tools'
registries and analyzers (`bot.linters`, `bot.lsp`, `bot.structural`), never one tool's
internals; never the run, publishing, the flows, the commands or a forge (the command that
hands it the registry is `bot.commands.doctor`).
"""
