"""Names shared by both argument parsers, importable for nothing."""

SUBCOMMANDS = ("config", "sessions", "tools")
