"""What a project brings: AGENTS.md instructions, custom slash commands, and
the trust that a project's own ``.swebash/`` settings need before they count."""
