"""The cache directories hopc writes code into and imports from are private to the user.

Note [private directories] in ``hopc.backend.private_directory``.
"""

import os
import stat

import pytest

from hopc.backend import private_directory as private
from hopc.backend.private_directory import private_directory, read_private_file, write_private_file
from hopc.backend.triton import launcher
from hopc.ir.diagnostics import HopcError


def test_fresh_directory_is_created_0700(tmp_path):
    created = private_directory(tmp_path / "parent" / "cache")
    assert stat.S_IMODE(os.lstat(created).st_mode) == 0o700


def test_existing_private_directory_is_used(tmp_path):
    (tmp_path / "cache").mkdir(mode=0o700)
    assert private_directory(tmp_path / "cache") == tmp_path / "cache"


def test_world_writable_directory_is_refused(tmp_path):
    (tmp_path / "cache").mkdir()
    os.chmod(tmp_path / "cache", 0o777)
    with pytest.raises(HopcError, match=r"cache: group or others may write to it \(mode 0777\)"):
        private_directory(tmp_path / "cache")


def test_symbolic_link_in_place_of_the_directory_is_refused(tmp_path):
    (tmp_path / "elsewhere").mkdir(mode=0o700)
    (tmp_path / "cache").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(HopcError, match="cache: it is a symbolic link"):
        private_directory(tmp_path / "cache")


def test_directory_of_another_user_is_refused(tmp_path, monkeypatch):
    (tmp_path / "cache").mkdir(mode=0o700)
    owner = os.getuid()
    monkeypatch.setattr(private.os, "getuid", lambda: owner + 1)
    with pytest.raises(HopcError, match=f"cache: it belongs to user id {owner}, not to this user"):
        private_directory(tmp_path / "cache")


def test_file_in_place_of_the_directory_is_refused(tmp_path):
    (tmp_path / "cache").write_text("")
    with pytest.raises(HopcError, match="cache: it is not a directory"):
        private_directory(tmp_path / "cache")


def test_refusal_names_the_remedy_and_the_users_line(tmp_path):
    os.chmod(tmp_path, 0o777)
    with pytest.raises(HopcError, match="set SOME_VARIABLE") as refused:
        private_directory(tmp_path, "set SOME_VARIABLE")
    assert refused.value.location.file == __file__


def test_write_replaces_a_planted_link_without_writing_through_it(tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("precious")
    (tmp_path / "kernel.py").symlink_to(victim)
    assert read_private_file(tmp_path / "kernel.py") is None
    write_private_file(tmp_path / "kernel.py", "generated")
    assert victim.read_text() == "precious"
    assert not (tmp_path / "kernel.py").is_symlink()
    assert read_private_file(tmp_path / "kernel.py") == "generated"


def test_triton_cache_defaults_under_the_users_cache(tmp_path, monkeypatch):
    monkeypatch.delenv(launcher.CACHE_ENVIRONMENT, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    directory = launcher.cache_directory()
    assert directory == tmp_path / "hopc" / "triton"
    assert stat.S_IMODE(os.lstat(directory).st_mode) == 0o700


def test_triton_cache_refuses_a_shared_configured_directory(tmp_path, monkeypatch):
    os.chmod(tmp_path, 0o777)
    monkeypatch.setenv(launcher.CACHE_ENVIRONMENT, str(tmp_path))
    with pytest.raises(HopcError, match=f"{launcher.CACHE_ENVIRONMENT} to a directory of your own"):
        launcher.cache_directory()
