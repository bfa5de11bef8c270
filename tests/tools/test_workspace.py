"""The workspace path policy: every way out is seen as outside."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from swebash_py.config.paths import config_path, data_dir
from swebash_py.errors import ToolFailed
from swebash_py.fs.workspace import mentions_secret, resolve
from swebash_py.tools.base import ToolContext
from swebash_py.tools.edit import EditFile, WriteFile
from swebash_py.tools.files import ReadFile
from tests.tools.conftest import call


def test_relative_path_inside(workspace: Path) -> None:
    rp = resolve("a/b.txt", workspace)
    assert rp.path == workspace / "a" / "b.txt"
    assert not rp.outside and not rp.sensitive and not rp.protected
    assert rp.shown(workspace) == "a/b.txt"


@pytest.mark.parametrize("raw", ["../x", "a/../../x", "../../etc/passwd"])
def test_dotdot_escape_is_outside(workspace: Path, raw: str) -> None:
    rp = resolve(raw, workspace)
    assert rp.outside
    assert rp.path == Path(os.path.normpath(workspace / raw))


def test_dotdot_that_stays_inside(workspace: Path) -> None:
    assert not resolve("a/../b", workspace).outside


def test_absolute_paths(workspace: Path) -> None:
    assert resolve("/etc/passwd", workspace).outside
    assert not resolve(str(workspace / "f"), workspace).outside
    assert not resolve(str(workspace), workspace).outside


def test_sibling_with_common_prefix_is_outside(workspace: Path) -> None:
    sibling = Path(str(workspace) + "2")
    sibling.mkdir()
    assert resolve(str(sibling / "f"), workspace).outside
    assert resolve(f"../{sibling.name}/f", workspace).outside


def test_symlink_out_resolves_to_target(workspace: Path, tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    (workspace / "link").symlink_to(tmp_path / "out")
    rp = resolve("link/f.txt", workspace)
    assert rp.outside
    assert rp.path == tmp_path / "out" / "f.txt"
    assert rp.shown(workspace) == str(tmp_path / "out" / "f.txt")


def test_symlink_inside_stays_inside(workspace: Path) -> None:
    (workspace / "real").mkdir()
    (workspace / "alias").symlink_to("real")
    rp = resolve("alias/x", workspace)
    assert not rp.outside and rp.path == workspace / "real" / "x"


async def test_dangling_symlink_then_write(workspace: Path, tmp_path: Path,
                                           ctx: ToolContext) -> None:
    target = tmp_path / "nowhere.txt"
    (workspace / "dangle").symlink_to(target)
    tool = WriteFile()
    preview = tool.preview(tool.Args(path="dangle", content="hi\n"), ctx)
    assert preview.outside and preview.paths == [target]
    assert not target.exists()  # preview writes nothing
    await call(tool, ctx, path="dangle", content="hi\n")
    assert target.read_text() == "hi\n"
    assert (workspace / "dangle").is_symlink()


@pytest.mark.parametrize("raw", ["a", "a/inner", "self"])
def test_symlink_loop_is_an_error(workspace: Path, raw: str) -> None:
    (workspace / "a").symlink_to("b")
    (workspace / "b").symlink_to("a")
    (workspace / "self").symlink_to("self")
    with pytest.raises(ToolFailed, match="symlink loop"):
        resolve(raw, workspace)


async def test_read_through_symlink_loop_fails_fast(workspace: Path, ctx: ToolContext) -> None:
    (workspace / "loop").symlink_to("loop")
    with pytest.raises(ToolFailed, match="symlink loop"):
        await call(ReadFile(), ctx, path="loop")


def test_hard_link_to_outside_file_is_outside_for_writes(workspace: Path, tmp_path: Path) -> None:
    outside = tmp_path / "secret.txt"
    outside.write_text("x")
    os.link(outside, workspace / "hl.txt")
    assert resolve("hl.txt", workspace, for_write=True).outside
    assert not resolve("hl.txt", workspace).outside
    (workspace / "single.txt").write_text("y")
    assert not resolve("single.txt", workspace, for_write=True).outside


@pytest.mark.parametrize("raw", ["~/.ssh/id_rsa", "~/.aws/credentials", "~/.gnupg/x", "~/.netrc",
                                 ".env", "app/.env.local", "certs/server.pem", "tls.key",
                                 "~/.config/gcloud/creds.json"])
def test_secrets_are_sensitive(workspace: Path, raw: str, monkeypatch: pytest.MonkeyPatch,
                               tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert resolve(raw, workspace).sensitive


@pytest.mark.parametrize("raw", ["src/main.py", ".env.example", "README.md", "keys.txt"])
def test_ordinary_files_are_not_sensitive(workspace: Path, raw: str) -> None:
    assert not resolve(raw, workspace).sensitive


def test_symlink_to_secret_is_sensitive(workspace: Path, tmp_path: Path) -> None:
    (tmp_path / ".ssh").mkdir()
    (tmp_path / ".ssh" / "config").write_text("Host x")
    (workspace / "innocent").symlink_to(tmp_path / ".ssh" / "config")
    assert resolve("innocent", workspace).sensitive


def test_config_and_data_are_protected(workspace: Path) -> None:
    assert resolve(str(config_path()), workspace).protected
    assert resolve(str(data_dir() / "sessions.db"), workspace).protected
    assert not resolve("config.toml", workspace).protected


async def test_write_tools_refuse_protected_paths(workspace: Path, ctx: ToolContext) -> None:
    config = config_path()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('model = "x"\n')
    (workspace / "cfg").symlink_to(config)
    preview = WriteFile().preview(WriteFile.Args(path="cfg", content="evil"), ctx)
    assert preview.protected
    with pytest.raises(ToolFailed, match="may not write"):
        await call(WriteFile(), ctx, path="cfg", content="evil")
    with pytest.raises(ToolFailed, match="may not write"):
        await call(EditFile(), ctx, path="cfg", old_text="x", new_text="y")
    with pytest.raises(ToolFailed, match="may not write"):
        await call(WriteFile(), ctx, path=str(data_dir() / "approvals.json"), content="{}")
    assert config.read_text() == 'model = "x"\n'
    assert not (data_dir() / "approvals.json").exists()


def test_command_secret_heuristic() -> None:
    assert mentions_secret("cat ~/.ssh/id_rsa")
    assert mentions_secret("source .env && run")
    assert mentions_secret("openssl x509 -in server.pem")
    assert not mentions_secret("ls -la src")
    assert not mentions_secret("echo keyboard")


def test_commands_naming_our_data_with_a_tilde_are_protected(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from swebash_py.fs.workspace import mentions_protected

    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("SWEBASH_HOME", str(tmp_path / ".local" / "share" / "swebash"))
    for command in ("tee -a ~/.local/share/swebash/approvals.json",
                    "cat $HOME/.local/share/swebash/approvals.json",
                    f"cat {tmp_path}/.local/share/swebash/x"):
        assert mentions_protected(command), command
    assert not mentions_protected("ls ~/.local/share")
