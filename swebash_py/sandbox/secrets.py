"""The one secrets-path list, shared by the sandbox (masks) and the file tools.

``HOME_SECRETS`` are masked inside every sandbox when they exist;
``is_sensitive`` is the name-based test the file tools apply to every path
they touch (after resolving symlinks, and to the unresolved path too);
``is_secret_entry`` is the same test for one directory entry met by a walk
(the sandbox's index, ``pathindex.PathIndex``, masks every such entry at any depth
of the workspace and ``writable_roots``); ``workspace_secrets`` is the plain full
walk that index must agree with.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

# relative to $HOME: masked by the sandbox (the contract's list, and a few more)
HOME_SECRETS = (
    ".ssh", ".aws", ".gnupg", ".netrc", ".git-credentials", ".docker/config.json", ".kube",
    ".config/gh", ".npmrc", ".pypirc", ".pgpass", ".password-store", ".config/gcloud",
    ".azure",
)
SECRET_DIRS = (".ssh", ".aws", ".gnupg", ".kube", ".docker", ".password-store")
SECRET_SUBDIRS = ((".config", "gcloud"), (".config", "gh"), (".azure",))
SECRET_NAMES = frozenset({
    ".netrc", ".pgpass", ".git-credentials", ".npmrc", ".pypirc", ".htpasswd",
    "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk",
    "credentials", "credentials.json",
})
SECRET_SUFFIXES = (".pem", ".key", ".p12", ".pfx", ".keystore", ".jks")
_ENV_HARMLESS = (".example", ".sample", ".template", ".dist")
_BY_NAME = frozenset(SECRET_DIRS) | SECRET_NAMES
_SUBDIR_NAMES = frozenset(seq[-1] for seq in SECRET_SUBDIRS)


def is_env_file(name: str) -> bool:
    """``.env`` and ``.env.*`` (but not ``.env.example`` and friends)."""
    return name == ".env" or (name.startswith(".env.") and not name.endswith(_ENV_HARMLESS))


def is_sensitive(path: Path) -> bool:
    """Whether ``path`` looks like a secret (keys, credentials, ``.env``)."""
    parts = path.parts
    if any(part in SECRET_DIRS for part in parts):
        return True
    for seq in SECRET_SUBDIRS:
        n = len(seq)
        if any(tuple(parts[i:i + n]) == seq for i in range(len(parts) - n + 1)):
            return True
    name = path.name
    return name in SECRET_NAMES or name.endswith(SECRET_SUFFIXES) or is_env_file(name)


def exclusion_globs() -> tuple[str, ...]:
    """The list as ripgrep ``--glob`` exclusions (gitignore syntax), so a search
    need not even open a secret; ``.env.*`` is excluded whole (a harmless
    ``.env.example`` is then not searched: a glob cannot re-include it without
    turning into a whitelist)."""
    names = [*SECRET_DIRS, *sorted(SECRET_NAMES), ".env", ".env.*"]
    return (*(f"!{name}" for name in names), *(f"!*{suffix}" for suffix in SECRET_SUFFIXES),
            *(f"!**/{'/'.join(seq)}" for seq in SECRET_SUBDIRS if len(seq) > 1))


def home_secrets(home: Path) -> list[Path]:
    """The existing secrets paths under ``home``."""
    return [home / rel for rel in HOME_SECRETS if os.path.lexists(home / rel)]


def is_secret_entry(folder: str, name: str) -> bool:
    """``is_sensitive(Path(folder, name))`` for an entry of ``folder`` (relative to
    the walked root, ``""`` for the root itself), none of whose parts is secret:
    the index's per-entry test, without building a path for each of a large
    tree's names."""
    if name in _BY_NAME or name.endswith(SECRET_SUFFIXES):
        return True
    if name.startswith(".env"):
        return is_env_file(name)
    if name not in _SUBDIR_NAMES:  # the common case: no call, two lookups
        return False
    parents = tuple(folder.split(os.sep)) if folder else ()
    return any(seq[-1] == name and len(parents) >= len(seq) - 1
               and parents[len(parents) - len(seq) + 1:] == seq[:-1] for seq in SECRET_SUBDIRS)


def workspace_secrets(root: Path) -> Iterator[Path]:
    """The topmost secrets at any depth of ``root`` (``.git`` skipped, symlinks not
    followed, a secret directory not entered): a full walk, for tests and the bench."""
    stack: list[tuple[str, tuple[str, ...]]] = [(str(root), ())]
    while stack:
        top, parents = stack.pop()
        try:
            entries = list(os.scandir(top))
        except OSError:
            continue
        for entry in entries:
            if is_sensitive(Path(*parents, entry.name)):
                yield Path(entry.path)
            elif entry.name != ".git" and entry.is_dir(follow_symlinks=False):
                stack.append((entry.path, (*parents, entry.name)))
