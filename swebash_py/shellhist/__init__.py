"""The user's shell history, as ``ai shell-init``'s hooks record it per terminal.

The shell appends one raw line per finished command (no Python per prompt);
``store`` parses, redacts and trims it when ``ai`` reads it; ``context`` turns
it into what the model is shown. Below the CLI: the REPL and one-shot both use it.
"""
