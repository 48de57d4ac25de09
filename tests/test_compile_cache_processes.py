"""The compile cache across processes: a second process hits and trains as the first; two
processes storing one entry at once leave a whole one (Note [safe cache entries] in
``hopc.compile_cache``)."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings

import torch
from cache_programs import COND, TRAINING, eager_cond

import hopc
from hopc import compile_cache
from hopc.compile_cache import CompileCacheWarning
from hopc.driver import CompileOptions

STORE_REPEATEDLY = """
import sys, hopc
from hopc import compile_cache
from hopc.driver import CompileOptions
module = hopc.parse(sys.argv[1])
slot = compile_cache.cache_slot(module, CompileOptions(), "cpu")
print(slot.key, flush=True)
sys.stdin.readline()
for _ in range(int(sys.argv[2])):
    slot.store(module)
"""
"""A process that stores the hop-level module ``argv[1]`` as its entry ``argv[2]`` times, once
it has printed its key and read a line."""

TRAIN_IN_A_PROCESS = """
import json, sys, torch, hopc
from hopc.compile_cache import COUNTS
x = torch.linspace(-1.0, 2.0, 12).reshape(3, 4).requires_grad_()
(y,) = hopc.compile(hopc.parse(sys.argv[1]))(x)
y.sum().backward()
print(json.dumps({"counts": [COUNTS.hits, COUNTS.misses], "tensors": [y.tolist(), x.grad.tolist()]}))
"""
"""A process that trains the hop-level module ``argv[1]`` a step: its compile cache's hits and
misses, its output and gradient."""


def test_a_second_process_hits_and_trains_as_the_first(compile_cache_dir):
    """A fresh process shares nothing with the one that stored the entry but the directory:
    its hit gives the values and gradients of the first process's miss, bit for bit."""
    processes = [subprocess.run([sys.executable, "-c", TRAIN_IN_A_PROCESS, TRAINING], capture_output=True,
                                text=True, check=True) for _ in range(2)]
    first, second = (json.loads(process.stdout.splitlines()[-1]) for process in processes)
    assert first["counts"] == [0, 1] and second["counts"] == [1, 0]
    assert second["tensors"] == first["tensors"]
    for got, expected in zip(second["tensors"], eager_cond(torch.linspace(-1.0, 2.0, 12).reshape(3, 4)), strict=True):
        torch.testing.assert_close(torch.tensor(got), expected)


def test_two_processes_storing_at_once_leave_one_whole_entry(compile_cache_dir):
    """Two processes store one entry over and over, at once, while this one reads it: every
    read finds no entry or a whole one, and both processes found the key this one finds."""
    module = hopc.parse(COND)
    slot = compile_cache.cache_slot(module, CompileOptions(), "cpu")
    command = [sys.executable, "-c", STORE_REPEATEDLY, COND, "20"]
    writers = [subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
               for _ in range(2)]
    keys = [writer.stdout.readline().strip() for writer in writers]
    for writer in writers:
        writer.stdin.write("go\n")
        writer.stdin.flush()
    loaded = []
    with warnings.catch_warnings():
        warnings.simplefilter("error", CompileCacheWarning)
        while any(writer.poll() is None for writer in writers):
            loaded.append(slot.load())
        loaded.append(slot.load())
    assert [writer.wait() for writer in writers] == [0, 0] and keys == [slot.key, slot.key]
    assert loaded[-1] is not None and [path.name for path in compile_cache_dir.iterdir()] == [slot.path.name]
    texts = {compile_cache.module_text(found) for found in loaded if found is not None}
    assert texts == {compile_cache.module_text(module)}
