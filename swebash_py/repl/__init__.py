"""The interactive shell: prompt-toolkit input, slash commands, `!` commands."""
