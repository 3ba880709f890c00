"""Each command of `mem`, in a module of its own: mem.cli.app.COMMANDS loads it when asked for."""
