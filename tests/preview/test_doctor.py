"""`ai doctor` says whether commands run as previews, and why not."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from tests.e2e.conftest import run_ai
from tests.preview.conftest import needs_overlay

KEY = {"OPENAI_API_KEY": "sk-doctor-test"}


def path_without(tmp_path: Path, missing: str) -> str:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("sh", "bash", "rg", "git", "bwrap", "unshare", "true", "cat", "id"):
        if name != missing and (found := shutil.which(name)):
            os.symlink(found, bin_dir / name)
    return str(bin_dir)


@needs_overlay
def test_previews_work_here(workspace: Path) -> None:
    result = run_ai("doctor", cwd=workspace, env=KEY)
    assert "ok    preview: unshare + overlay (userxattr) + bwrap" in result.stdout
    assert "1024 MB tmpfs (preview_max_mb)" in result.stdout


@needs_overlay
def test_without_unshare_it_says_why_and_what_happens(workspace: Path, tmp_path: Path,
                                                      fake_provider: Any) -> None:
    # doctor contacts the provider (#29): the fake one answers, so only the preview is at issue
    result = run_ai("doctor", cwd=workspace, env={
        **KEY, "PATH": path_without(tmp_path, "unshare"), "SWEBASH_MODEL": "openai/x",
        "SWEBASH_API_BASE": fake_provider.url})
    assert "warn  preview: unavailable: unshare (util-linux) was not found" in result.stdout
    assert "commands that would ask, ask before they run" in result.stdout
    assert result.returncode == 0  # informs; the sandbox itself works


def test_turned_off(workspace: Path, tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text("[sandbox]\npreview = false\n")
    result = run_ai("doctor", cwd=workspace, env={**KEY, "SWEBASH_CONFIG": str(config)})
    assert "warn  preview: off ([sandbox] preview = false)" in result.stdout
