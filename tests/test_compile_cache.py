"""The persistent compile cache (``hopc.compile_cache``): a hit runs what the miss ran, what the
stages read changes the key, and a bad entry or directory is a miss or a located warning."""

from __future__ import annotations

import copy
import errno
import importlib.util
import os
import pathlib
import re
import sys
import warnings

import pytest
import torch
import torch.nn.functional as F
from cache_programs import COND, TRAINING, cache_counts, eager_cond

import hopc
from hopc import compile_cache, compile_cache_key, driver
from hopc.backend.runtime.executors import LoweringOptions
from hopc.compile_cache import COUNTS, CacheSlot, CompileCacheWarning, cache_key
from hopc.driver import CompileOptions
from hopc.ir.diagnostics import HOPC_PACKAGES, HopcError

pytestmark = pytest.mark.usefixtures("fresh_dynamo")


def _train(text: str, x: torch.Tensor, **options: object) -> tuple[torch.Tensor, torch.Tensor]:
    """The output of the hop-level module ``text`` compiled with ``options`` and the gradient of its sum."""
    x = x.clone().requires_grad_()
    (y,) = hopc.compile(hopc.parse(text), **options)(x)
    y.sum().backward()
    return y.detach(), x.grad


# ---------------------------------------------------------------- hits


def test_a_hit_trains_as_the_miss_without_running_the_host_stages(compile_cache_dir, monkeypatch):
    x = torch.randn(3, 4)
    hits, misses = cache_counts()
    miss = _train(TRAINING, x)
    assert cache_counts() == (hits, misses + 1)
    (entry,) = compile_cache_dir.glob("*.hopc")
    assert "func.func @backward" in entry.read_text()

    def not_run(*arguments):
        raise AssertionError("a hit runs no host-level stage")

    monkeypatch.setattr(driver, "to_functional", not_run)
    monkeypatch.setattr(driver, "to_differentiated", not_run)
    hit = _train(TRAINING, x)
    assert cache_counts() == (hits + 1, misses + 1)
    for from_hit, from_miss, from_eager in zip(hit, miss, eager_cond(x), strict=True):
        assert torch.equal(from_hit, from_miss)
        torch.testing.assert_close(from_hit, from_eager)


@pytest.mark.parametrize("mode", ["training", "no_grad", "freeze"])
def test_a_hit_runs_a_dynamo_frame_as_the_miss(compile_cache_dir, mode):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.BatchNorm1d(8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
    model.train(mode != "freeze")
    grad = mode == "training"
    x = torch.randn(5, 4)
    hits, misses = cache_counts()
    runs = []
    for _ in range(2):
        torch._dynamo.reset()
        compiled_model = copy.deepcopy(model)
        with torch.set_grad_enabled(grad):
            out = hopc.compile(compiled_model, freeze=mode == "freeze")(x)
        if grad:
            out.sum().backward()
        runs.append([out.detach(), compiled_model[1].running_mean.clone(),
                     *(parameter.grad for parameter in compiled_model.parameters() if grad)])
    assert cache_counts() == (hits + 1, misses + 1)
    eager_model = copy.deepcopy(model)
    with torch.set_grad_enabled(grad):
        expected = eager_model(x)
    for from_hit, from_miss in zip(runs[1], runs[0], strict=True):
        assert torch.equal(from_hit, from_miss)
    torch.testing.assert_close(runs[1][0], expected)
    torch.testing.assert_close(runs[1][1], eager_model[1].running_mean)


def test_the_report_says_whether_the_frame_hit(compile_cache_dir, tmp_path):
    reports = tmp_path / "reports"
    for _ in range(2):
        _train(TRAINING, torch.randn(3, 4), report_dir=reports)
    first, second = sorted(reports.glob("*.html"))[:2]
    assert re.search(r"miss: no entry \w+\.hopc; stored \(\d+ hits?, \d+ miss(es)? in this process\)",
                     first.read_text())
    page = second.read_text()
    assert "Compile cache" in page and "hit: " in page and "in this process" in page
    assert "differentiated (cached)" in page


def test_a_forward_of_one_result_that_saves_nothing_reads_back_and_hits(compile_cache_dir):
    """Its function's result attributes are all empty: left out, so that the entry reads back
    (xDSL prints ``-> (T)`` for an empty dictionary and parses it back without one)."""
    x = torch.randn(3, requires_grad=True)
    hits, misses = cache_counts()
    with warnings.catch_warnings():
        warnings.simplefilter("error", CompileCacheWarning)
        for _ in range(2):
            torch._dynamo.reset()
            hopc.compile(lambda t: t * 2)(x).sum().backward()
    assert cache_counts() == (hits + 1, misses + 1)
    torch.testing.assert_close(x.grad, torch.full((3,), 4.0))


# ---------------------------------------------------------------- misses


def test_what_the_stages_read_is_in_the_key(monkeypatch):
    module = hopc.parse(COND)
    options = CompileOptions()
    key = cache_key(module, options, "cpu", "")
    assert cache_key(hopc.parse(COND), options, "cpu", "") == key
    assert cache_key(module, CompileOptions(print_ir_after_all=True, report_dir="reports"), "cpu", "") == key
    changed = [
        cache_key(module, CompileOptions(executor="aten"), "cpu", ""),
        cache_key(module, CompileOptions(lowering=LoweringOptions(conds_as_selects="never")), "cpu", ""),
        cache_key(module, CompileOptions(freeze=True), "cpu", ""),
        cache_key(module, CompileOptions(verify_each=True), "cpu", ""),
        cache_key(module, options, "cuda", ""),
        cache_key(module, options, "cpu", "[['Eq(s0, 4)'], [], [], []]"),
        cache_key(hopc.parse(COND.replace("aten.sin", "aten.tanh")), options, "cpu", ""),
        cache_key(hopc.parse("\n" + COND), options, "cpu", ""),  # each op a line lower
    ]
    monkeypatch.setattr(compile_cache_key, "versions", lambda: "torch 0.0")
    changed.append(cache_key(module, options, "cpu", ""))
    assert len({key, *changed}) == len(changed) + 1


def test_a_changed_option_version_or_program_misses(compile_cache_dir, monkeypatch):
    x = torch.randn(3, 4)
    _train(TRAINING, x)
    hits, misses = cache_counts()
    _train(TRAINING, x, executor="aten")
    _train(TRAINING.replace("aten.sin", "aten.tanh"), x)
    monkeypatch.setattr(compile_cache_key, "versions", lambda: "hopc of another day")
    _train(TRAINING, x)
    assert cache_counts() == (hits, misses + 3)
    assert len(list(compile_cache_dir.glob("*.hopc"))) == 4


def test_guards_the_stages_add_are_stored_and_replayed(compile_cache_dir, monkeypatch):
    """``glu``'s derivative guards the frame that ``x.shape[1]`` is even (Note [replayed guards] in
    ``hopc.compile_cache_key``): the entry keeps that guard, and the hit adds it to its frame again,
    so that the hit's frame ends with the miss's shape facts, guards included, and Dynamo guards
    the hit as it guarded the miss."""
    from hopc.frontend import dynamo_backend

    facts_after = []
    graph_call = dynamo_backend.graph_call

    def recording(*arguments, **keywords):
        call = graph_call(*arguments, **keywords)
        facts_after.append(compile_cache_key.frame_facts())
        return call

    monkeypatch.setattr(dynamo_backend, "graph_call", recording)
    hits, misses = cache_counts()
    results, value = [], torch.randn(3, 8)
    for _ in range(2):
        torch._dynamo.reset()
        x = value.clone().requires_grad_()
        y = hopc.compile(lambda x: F.glu(x, 1), dynamic=True)(x)
        y.sum().backward()
        results.append((y.detach(), x.grad))
    assert cache_counts() == (hits + 1, misses + 1)
    (entry,) = compile_cache_dir.glob("*.hopc")
    guards_line = entry.read_text().split("\n")[2]
    assert guards_line.startswith("guards [") and "FloorDiv" in guards_line
    assert facts_after[0] == facts_after[1] and "//2" in facts_after[1]
    assert torch.equal(results[0][0], results[1][0]) and torch.equal(results[0][1], results[1][1])
    torch.testing.assert_close(results[1][0], F.glu(value, 1))


def test_an_entry_whose_guards_do_not_hold_is_a_warned_miss(compile_cache_dir):
    """A guard that is false of the frame's sizes (only a corrupt or foreign entry has one) is
    refused, not assumed."""
    def gated(x):
        return F.glu(x, 1)

    hopc.compile(gated, dynamic=True)(torch.randn(3, 8, requires_grad=True))
    for entry in compile_cache_dir.iterdir():  # the module entries and the graph's call entry
        header, _, body = entry.read_text().partition("\n\n")
        kind, key = header.split("\n")[0], header.split("\n")[1].removeprefix("key ")
        entry.write_text(compile_cache._entry_text(kind, key, ["Eq(Integer(1), Integer(2))"], body))
    torch._dynamo.reset()
    hits = COUNTS.hits
    with pytest.warns(CompileCacheWarning, match="its guards cannot be added"):
        hopc.compile(gated, dynamic=True)(torch.randn(3, 8, requires_grad=True))
    assert COUNTS.hits == hits


def test_a_miss_stores_its_text_without_parsing_it(compile_cache_dir, monkeypatch):
    def not_run(text):
        raise AssertionError("a miss does not parse its entry back (Note [safe cache entries])")

    monkeypatch.setattr(compile_cache, "parse_cached", not_run)
    _train(TRAINING, torch.randn(3, 4))
    (entry,) = compile_cache_dir.glob("*.hopc")
    assert "func.func @backward" in entry.read_text()


def test_an_entry_that_does_not_read_back_is_a_located_warning_and_a_miss(compile_cache_dir, monkeypatch):
    """A parser that disagrees with the printer (here: one adding an attribute) makes a module
    that prints otherwise than the entry; the hit is refused (Note [safe cache entries])."""
    from xdsl.dialects.builtin import UnitAttr

    parse_cached = compile_cache.parse_cached

    def disagreeing(text):
        module = parse_cached(text)
        module.attributes["hop.not_in_the_entry"] = UnitAttr()
        return module

    x = torch.randn(3, 4)
    _train(TRAINING, x)
    monkeypatch.setattr(compile_cache, "parse_cached", disagreeing)
    hits, misses = cache_counts()
    with pytest.warns(CompileCacheWarning, match="the printer and the parser disagree") as caught:
        result = _train(TRAINING, x)
    assert caught[0].filename == __file__
    assert cache_counts() == (hits, misses + 1)
    for got, expected in zip(result, eager_cond(x), strict=True):
        torch.testing.assert_close(got, expected)


def test_the_cache_is_off_under_hopc_cache_0(compile_cache_dir, monkeypatch):
    monkeypatch.setenv("HOPC_CACHE", "0")
    counts = cache_counts()
    _train(TRAINING, torch.randn(3, 4))
    assert cache_counts() == counts and not compile_cache_dir.exists()
    monkeypatch.setenv("HOPC_CACHE", "yes")
    with pytest.raises(HopcError, match="HOPC_CACHE is 0 \\(no compile cache\\) or 1, not 'yes'"):
        _train(TRAINING, torch.randn(3, 4))


# ---------------------------------------------------------------- bad entries and directories


def _entry_with_body(entry: pathlib.Path, body: str) -> str:
    """An entry of ``entry``'s key holding ``body``, checksummed as a good one is."""
    key = entry.name.removesuffix(compile_cache.ENTRY_SUFFIX)
    return compile_cache._entry_text(compile_cache.ENTRY_HEADER, key, [], body)


NOT_VERIFYING = """
func.func @forward(%x: !hop.tensor<[2], f32>) -> !hop.tensor<[3], f32> {
  func.return %x : !hop.tensor<[2], f32>
}
"""

CORRUPTIONS = {
    "truncated": lambda entry, text: text[: len(text) * 2 // 3],
    "changed": lambda entry, text: text.replace("aten.cos", "aten.sin"),
    "not_text": lambda entry, text: "\udcff garbage",
    "another_key": lambda entry, text: text.replace(entry.stem, "0" * 64),
    "not_ir": lambda entry, text: _entry_with_body(entry, "func.func @forward( {"),
    "not_verifying": lambda entry, text: _entry_with_body(entry, NOT_VERIFYING),
}


@pytest.mark.parametrize("corruption", CORRUPTIONS)
def test_a_corrupt_entry_is_a_located_warning_and_a_miss(compile_cache_dir, corruption):
    x = torch.randn(3, 4)
    _train(TRAINING, x)
    (entry,) = compile_cache_dir.glob("*.hopc")
    corrupt = CORRUPTIONS[corruption](entry, entry.read_text())
    entry.write_bytes(corrupt.encode("utf-8", errors="surrogateescape"))
    hits, misses = cache_counts()
    with pytest.warns(CompileCacheWarning, match="hopc ignores the compile cache entry") as caught:
        result = _train(TRAINING, x)
    assert caught[0].filename == __file__
    assert cache_counts() == (hits, misses + 1)
    for got, expected in zip(result, eager_cond(x), strict=True):
        torch.testing.assert_close(got, expected)
    with warnings.catch_warnings():
        warnings.simplefilter("error", CompileCacheWarning)
        _train(TRAINING, x)  # the miss stored a whole entry again
    assert cache_counts() == (hits + 1, misses + 1)


def test_an_entry_that_is_a_link_is_a_miss_and_replaced_not_followed(compile_cache_dir, tmp_path):
    x = torch.randn(3, 4)
    _train(TRAINING, x)
    (entry,) = compile_cache_dir.glob("*.hopc")
    victim = tmp_path / "victim.txt"
    victim.write_text("the user's own file")
    entry.unlink()
    entry.symlink_to(victim)
    hits, misses = cache_counts()
    _train(TRAINING, x)
    assert cache_counts() == (hits, misses + 1)
    assert victim.read_text() == "the user's own file" and not entry.is_symlink()


def test_a_read_only_directory_serves_hits_and_warns_where_it_cannot_store(compile_cache_dir, monkeypatch):
    x = torch.randn(3, 4)
    _train(TRAINING, x)
    compile_cache_dir.chmod(0o500)
    try:
        hits, misses = cache_counts()
        with warnings.catch_warnings():
            warnings.simplefilter("error", CompileCacheWarning)
            _train(TRAINING, x)
        assert cache_counts() == (hits + 1, misses)
        if os.geteuid() == 0:  # root writes to a read-only directory all the same: say it cannot
            def refused(path, text):
                raise PermissionError(errno.EACCES, "Permission denied", str(path))

            monkeypatch.setattr(compile_cache, "write_private_file", refused)
        with pytest.warns(CompileCacheWarning, match="cannot store the compile cache entry .*Permission denied"):
            result = _train(TRAINING.replace("aten.sin", "aten.tanh"), x)
        assert len(list(compile_cache_dir.glob("*.hopc"))) == 1
        torch.testing.assert_close(result[0], torch.where(x.sum() > 0, x.tanh(), x.cos()) * 2)
    finally:
        compile_cache_dir.chmod(0o700)


def test_a_directory_of_another_user_is_refused_with_a_located_warning(compile_cache_dir, monkeypatch):
    compile_cache_dir.mkdir(mode=0o700)
    if os.geteuid() == 0:
        os.chown(compile_cache_dir, 12345, 12345)
    else:  # only root can give a directory away: make this user another one instead
        user = os.getuid()
        monkeypatch.setattr(os, "getuid", lambda: user + 1)
    counts = cache_counts()
    with pytest.warns(CompileCacheWarning, match="will not use the directory .*: it belongs to user id") as caught:
        result = _train(TRAINING, torch.ones(3, 4))
    assert caught[0].filename == __file__
    assert cache_counts() == counts and not list(compile_cache_dir.iterdir())
    torch.testing.assert_close(result[0], eager_cond(torch.ones(3, 4))[0])


def test_a_symlinked_directory_is_refused(compile_cache_dir, tmp_path, monkeypatch):
    target = tmp_path / "elsewhere"
    target.mkdir(mode=0o700)
    compile_cache_dir.symlink_to(target)
    with pytest.warns(CompileCacheWarning, match="it is a symbolic link"):
        _train(TRAINING, torch.randn(3, 4))
    assert not list(target.iterdir())


def test_an_entry_is_written_whole_or_not_at_all(compile_cache_dir):
    """A store is a rename of a whole file: a reader never sees part of one (Note [safe cache entries])."""
    module = hopc.parse(COND)
    slot = compile_cache.cache_slot(module, CompileOptions(), "cpu")
    assert isinstance(slot, CacheSlot) and slot.path is not None and slot.load() is None
    slot.store(module)
    written = slot.path.read_bytes()
    assert written.startswith(b"hopc-compile-cache 2\nkey ")
    assert not [path for path in compile_cache_dir.iterdir() if path != slot.path]  # no temporary file left
    assert compile_cache.module_text(slot.load()) == compile_cache.module_text(module)
    assert slot.path.stat().st_mode & 0o777 == 0o600 and compile_cache_dir.stat().st_mode & 0o777 == 0o700


def test_the_source_digest_covers_every_hopc_module():
    folders = tuple(folder for package in HOPC_PACKAGES
                    for folder in importlib.util.find_spec(package).submodule_search_locations)
    loaded = [module.__file__ for name, module in sys.modules.items()
              if name.split(".")[0] == "hopc" and getattr(module, "__file__", None)]
    assert loaded and all(file.startswith(folders) for file in loaded)
