"""Subcommands: config, sessions, tools."""
