"""`ai shell-init bash|zsh|fish`: print the key-binding snippet to eval / source."""

from __future__ import annotations

from typing import Annotated

import typer

from swebash_py.cli.settings import load_settings


def shell_init(
    shell: Annotated[str, typer.Argument(help="bash, zsh or fish")],
    key: Annotated[str | None, typer.Option(
        "--key", help="the key: alt-X or ctrl-X (default: the config key shell_init.key, "
                      "else alt-\\)")] = None,
) -> None:
    """Print a snippet binding a key that turns the wish on the command line into a
    suggested command, left on the line to edit (nothing runs); on an empty line
    after a failed command, `ai fix`'s corrected command. It also records this
    terminal's commands for `ai fix` (`[shell_init] history = false`: not).

    bash: eval "$(ai shell-init bash)"   zsh: eval "$(ai shell-init zsh)"
    fish: ai shell-init fish | source
    """
    from swebash_py.cli.shell_init import snippet

    settings = load_settings().shell_init
    chosen = key or settings.key
    directory = None
    if settings.history:
        from swebash_py.shellhist.store import history_dir, prune
        from swebash_py.store.faults import ensure_data_dir

        directory = ensure_data_dir(history_dir())  # the shell only appends to files in it
        prune(directory)
    typer.echo(snippet(shell, chosen, directory), nl=False)
