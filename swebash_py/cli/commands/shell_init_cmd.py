"""`ai shell-init bash|zsh|fish`: print the key-binding snippet to eval / source."""

from __future__ import annotations

from typing import Annotated

import typer

from swebash_py.config.settings import load_settings


def shell_init(
    shell: Annotated[str, typer.Argument(help="bash, zsh or fish")],
    key: Annotated[str | None, typer.Option(
        "--key", help="the key: alt-X or ctrl-X (default: the config key shell_init.key, "
                      "else alt-\\)")] = None,
) -> None:
    """Print a snippet binding a key that turns the wish on the command line into a
    suggested command, left on the line to edit (nothing runs).

    bash: eval "$(ai shell-init bash)"   zsh: eval "$(ai shell-init zsh)"
    fish: ai shell-init fish | source
    """
    from swebash_py.cli.shell_init import snippet

    chosen = key or load_settings().shell_init.key
    typer.echo(snippet(shell, chosen), nl=False)
