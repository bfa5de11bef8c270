"""The rule an "always" answer remembers for a command (the contract's "At the terminal").

For each simple command of a cleanly parsed line, the rule is its program —
with the subcommand for tools that have them (``git stash``, ``npm test``) —
and any arguments: ``run_command(mkdir:*)``. The every-part rule of
``RuleSet.allowing`` still holds: ``mkdir:*`` admits ``mkdir b2`` and not
``mkdir b1; rm -rf x``.

Where "any arguments" would admit something the user never saw, the rule is
the exact text instead:

* shells and interpreters (``sh -c``, ``python -c``): their arguments are code;
* deleters (``rm``, ``kubectl delete``, ``git clean``), elevators (``sudo``),
  network tools, and programs whose flags run other programs (``tar
  --to-command``, ``rsync -e``, ``sed``'s ``e``);
* a tool with subcommands called without one (``git``, ``git -C dir ...``), and a
  runner subcommand (``npm run``, ``uv run``) whose target is not a plain name;
* anything with a redirect to or from a file, a substitution or an expansion
  (the whole line, matched as typed: ``RuleSet.allowing``'s exact text).

A remembered prefix rule is "careful" (``rules.RuleSet.with_allow``): it does
not admit a command that carries a risk warning of its own (``git push
--force`` under ``git push:*``, ``mkdir /etc/x`` under ``mkdir:*``).
"""

from __future__ import annotations

import os
import shlex

from swebash_py.approvals.shellparse import SHELLS, UNKNOWN, WRAPPERS, Analysis, is_interpreter

# tools whose first argument names what they do (the rule keeps it)
SUBCOMMAND_TOOLS = frozenset({
    "git", "npm", "pnpm", "yarn", "bun", "deno", "cargo", "go", "rustup", "docker", "podman",
    "kubectl", "helm", "pip", "pip3", "uv", "poetry", "pipenv", "pdm", "hatch", "conda",
    "apt", "apt-get", "brew", "systemctl", "gh", "dotnet", "bundle", "rake", "mvn", "gradle",
    "./gradlew", "make", "just", "terraform", "composer", "mix", "stack", "cabal", "swift",
    "flutter", "dart", "tox", "nox", "npx", "pytest", "jj", "hg", "svn",
})
# subcommands that run a named script or program: the rule keeps that name too
RUNNERS = frozenset({"run", "exec", "x", "dlx", "execute", "run-script", "test-script"})
# subcommands that delete: like ``rm``, their rule is the exact text (``kubectl delete``)
DELETING_SUBCOMMANDS = frozenset({"delete", "rm", "rmi", "remove", "destroy", "prune", "purge",
                                  "uninstall", "clean", "drop", "kill", "wipe", "erase"})
# programs whose arguments are code, delete, elevate, reach the network, or can
# name a program to run: their rule is the exact text
EXACT_PROGRAMS = frozenset({
    "rm", "rmdir", "shred", "unlink", "dd", "wipefs", "truncate", "srm",  # deleters
    "sudo", "doas", "su", "pkexec", "runuser",  # elevators
    "curl", "wget", "nc", "ncat", "netcat", "ssh", "scp", "sftp", "rsync", "ftp", "telnet",
    "socat",  # network
    "awk", "gawk", "mawk", "nawk", "sed", "gsed", "tar", "zip", "unzip", "sort", "less",
    "more", "man", "vi", "vim", "nvim", "emacs", "nano", "ed", "git-shell", "find",
    "chmod", "chown", "chgrp", "kill", "pkill", "killall", "crontab", "at",
    "npx", "uvx", "pipx", "bunx", "pnpx", "ipython", "R", "Rscript", "systemd-run",  # runners
})
# subcommands that run code they are given (a container's command, a shell in a
# pod, git's `submodule foreach` / `rebase -x`): their rule is the exact text too
CODE_SUBCOMMANDS = frozenset({
    ("docker", "run"), ("docker", "exec"), ("podman", "run"), ("podman", "exec"),
    ("kubectl", "exec"), ("kubectl", "run"), ("kubectl", "debug"), ("git", "submodule"),
    ("git", "rebase"), ("git", "bisect"), ("git", "filter-branch"),
})


def command_rules(analysis: Analysis, command: str, tool: str) -> list[str] | None:
    """The rules "always" remembers for ``command`` (None: no rule can be made,
    so "always" runs it once)."""
    if not analysis.commands:
        return None
    if (not analysis.clean or analysis.read_paths or analysis.write_paths
            or any(UNKNOWN in word for argv in analysis.commands for word in argv)):
        exact = exact_rule(command, tool)
        return [exact] if exact else None
    return list(dict.fromkeys(_simple_rule(argv, tool) for argv in analysis.commands))


def exact_rule(command: str, tool: str) -> str | None:
    """``tool(TEXT)`` matching exactly ``command``'s text, when the rule syntax can
    hold it (one line, not read back as a prefix, not empty)."""
    from swebash_py.approvals.rules import parse_rule

    text = command.strip()
    if not text or text == "*" or text.endswith((":*", " *")):
        return None
    rule = f"{tool}({text})"
    try:
        parsed = parse_rule(rule)
    except ValueError:
        return None
    return rule if parsed.exact == text and not parsed.prefix else None


def _simple_rule(argv: list[str], tool: str) -> str:
    """``tool(program [subcommand]:*)``, or the exact words (see the module docstring)."""
    kept = _kept_words(argv)
    if kept is None:
        return f"{tool}({shlex.join(argv)})"
    return f"{tool}({shlex.join(kept)}:*)"


def _kept_words(argv: list[str]) -> list[str] | None:
    """The words a prefix rule keeps, or None when the exact words must be kept."""
    program = argv[0]
    name = os.path.basename(program)
    if (name in EXACT_PROGRAMS or name in SHELLS or name in WRAPPERS or is_interpreter(name)
            or name.startswith("mkfs") or not _plain(program)):
        return None
    if name not in SUBCOMMAND_TOOLS and program not in SUBCOMMAND_TOOLS:
        return [program]
    if len(argv) < 2 or not _plain(argv[1]):
        return None  # `git`, `git -C dir status`: no subcommand to name
    if argv[1] in DELETING_SUBCOMMANDS or (name, argv[1]) in CODE_SUBCOMMANDS:
        return None
    if argv[1] not in RUNNERS:
        return argv[:2]
    if len(argv) < 3 or not _plain(argv[2]):
        return None
    target = os.path.basename(argv[2])
    if target in SHELLS or target in WRAPPERS or is_interpreter(target) or \
            target in EXACT_PROGRAMS:
        return None  # `uv run python -c ...`: code again
    return argv[:3]


def _plain(word: str) -> bool:
    """A word a rule may name: no option, no glob, no quoting needed beyond shlex's."""
    return bool(word) and not word.startswith(("-", "+")) and not any(
        ch in word for ch in "*?[]{}$`\\'\" \t")
