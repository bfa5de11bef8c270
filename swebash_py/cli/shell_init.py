"""`ai shell-init bash|zsh|fish`: a snippet that binds a key to "wish -> command".

The key (default Alt-\\) sends the text on the shell's command line to
``ai -s`` with stdout captured (so ``ai`` prints the bare command, no menu)
and replaces the line with the suggestion, cursor at the end, nothing run.
An empty line, a failure or an empty answer leave the line as it was.

Keys are written portably: ``alt-X`` or ``ctrl-X`` (one character), and
converted to each shell's own notation here.
"""

from __future__ import annotations

import re

from swebash_py.errors import UsageError

SHELLS = ("bash", "zsh", "fish")
DEFAULT_KEY = "alt-\\"
_KEY = re.compile(r"^(alt|ctrl)-(.)$", re.IGNORECASE)

_BASH = r'''# swebash: {key} turns the wish on the command line into a command (nothing runs)
__swebash_wish() {{
    local wish="$READLINE_LINE" cmd
    [[ -n "${{wish//[[:space:]]/}}" ]] || return 0
    cmd=$(SHELL=bash command ai -s -- "$wish" </dev/null) || return 0
    [[ -n "$cmd" ]] || return 0
    READLINE_LINE="$cmd"
    READLINE_POINT=$(LC_ALL=C; printf '%s' "${{#cmd}}")
}}
bind -m emacs -x '"{seq}": __swebash_wish'
bind -m vi-insert -x '"{seq}": __swebash_wish'
'''

_ZSH = r'''# swebash: {key} turns the wish on the command line into a command (nothing runs)
__swebash_wish() {{
    local wish="$BUFFER" cmd
    [[ -n "${{wish//[[:space:]]/}}" ]] || return 0
    zle -M "ai: thinking..."
    cmd=$(SHELL=zsh command ai -s -- "$wish" </dev/null)
    local code=$?
    zle -M ""
    if (( code == 0 )) && [[ -n "$cmd" ]]; then
        BUFFER="$cmd"
        CURSOR=${{#BUFFER}}
    fi
    zle reset-prompt
}}
zle -N __swebash_wish
bindkey -M emacs '{seq}' __swebash_wish
bindkey -M viins '{seq}' __swebash_wish
'''

_FISH = r'''# swebash: {key} turns the wish on the command line into a command (nothing runs)
function __swebash_wish
    set -l wish (commandline | string collect)
    string trim -- "$wish" | string length -q; or return 0
    set -l cmd (SHELL=fish command ai -s -- "$wish" </dev/null | string collect)
    if test $status -eq 0; and test -n "$cmd"
        commandline -r -- $cmd
        commandline -C (string length -- "$cmd")
    end
    commandline -f repaint
end
bind {seq} __swebash_wish
bind -M insert {seq} __swebash_wish
'''

_TEMPLATES = {"bash": _BASH, "zsh": _ZSH, "fish": _FISH}


def snippet(shell: str, key: str = DEFAULT_KEY) -> str:
    """The text to ``eval`` / ``source`` in ``shell`` (UsageError if unknown)."""
    if shell not in SHELLS:
        raise UsageError(f"unknown shell '{shell}': use one of {', '.join(SHELLS)}")
    return _TEMPLATES[shell].format(key=key, seq=key_sequence(shell, key))


def key_sequence(shell: str, key: str) -> str:
    """``alt-X`` / ``ctrl-X`` in the notation of ``shell``'s bind command."""
    found = _KEY.match(key.strip())
    if not found or not found.group(2).isprintable() or found.group(2) in "'\" ":
        raise UsageError(f"invalid key '{key}': write alt-X or ctrl-X (X one character, "
                         "not a quote or space)")
    kind, char = found.group(1).lower(), found.group(2)
    if kind == "ctrl":
        if not char.isalpha():
            raise UsageError(f"invalid key '{key}': ctrl- takes a letter")
        return {"bash": f"\\C-{char.lower()}", "zsh": f"^{char.upper()}",
                "fish": f"\\c{char.lower()}"}[shell]
    escaped = "\\\\" if char == "\\" else char
    if shell == "zsh":
        return f"^[{escaped}"
    if shell == "fish" and not char.isalnum() and char != "\\":
        escaped = "\\" + char  # fish needs punctuation escaped in a bare word
    return f"\\e{escaped}"
