"""One module per CI environment: its variables and payload as a neutral `bot.model.Trigger`."""
