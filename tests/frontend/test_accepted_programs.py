"""Programs PyTorch accepts that hopc once refused (issue 10): each compiles and matches eager.

One test per program, written in the style of PyTorch's own HOP tests; each
runs the program eagerly and through ``hopc.compile`` on two or more input
sets (other sizes where a size is dynamic) and compares (``check_compile``).
``test_accepted_captures.py`` holds the programs that ``hopc.capture`` refused.
"""

import pytest
import torch
from frontend_harness import check_compile
from torch._higher_order_ops.scan import scan
from torch._higher_order_ops.while_loop import while_loop

import hopc
from hopc.backend.runtime import module_call
from hopc.ir.diagnostics import HopcError


@pytest.fixture(autouse=True)
def fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def classes(n, count=3):
    return torch.randint(0, count, (n,))


# ----------------------------------------------------------- item 8: torch.func.grad


def cross_entropy(w, x, target):
    return torch.nn.functional.cross_entropy(x @ w, target)


def test_func_grad_in_program():
    def program(x, target):
        return torch.func.grad(cross_entropy)(torch.ones(4, 3), x, target)

    check_compile(program, [(torch.randn(5, 4), classes(5)), (torch.randn(7, 4), classes(7))])


def test_func_grad_and_value_of_a_closure():
    def program(w, x, target):
        def loss(w):
            return (torch.tanh(x @ w) - target).pow(2).mean()
        return torch.func.grad_and_value(loss)(w)

    check_compile(program, [(torch.randn(4, 3), torch.randn(5, 4), torch.randn(5, 3)),
                            (torch.randn(4, 3), torch.randn(6, 4), torch.randn(6, 3))])


def test_chunked_cross_entropy_in_scan_body():
    """A scan over chunks whose body takes a gradient step: grad_and_value in a region."""
    def program(chunks, target):
        def step(w, chunk):
            grad, loss = torch.func.grad_and_value(cross_entropy)(w, chunk, target)
            return w - 0.1 * grad, loss
        return scan(step, torch.ones(4, 3), chunks)

    check_compile(program, [(torch.randn(2, 5, 4), classes(5)),
                            (torch.randn(3, 5, 4), classes(5))])


def test_func_grad_captured():
    module = hopc.capture(lambda x, t: torch.func.grad(cross_entropy)(torch.ones(4, 3), x, t),
                          (torch.randn(5, 4), classes(5)))
    text = str(module)
    assert "aten.nll_loss_backward" in text and "hop.constant" not in text


def test_nested_func_grad_is_a_located_error():
    def program(x):
        return torch.func.grad(torch.func.grad(lambda y: y.sin().sum()))(x)

    with pytest.raises(HopcError, match="transform nested in another") as failure:
        hopc.compile(program, fullgraph=True)(torch.randn(()))
    assert failure.value.location.file == __file__


# ------------------------------------------------ no raw exception escapes hopc.compile


def test_backend_bug_is_a_located_internal_error(monkeypatch):
    def broken_backend(*_, **__):
        raise ValueError("a bug in the backend")

    monkeypatch.setattr("hopc.frontend.compile.hopc_backend", broken_backend)
    with pytest.raises(HopcError, match="internal error.*ValueError: a bug") as failure:
        hopc.compile(torch.sin)(torch.randn(3))
    assert failure.value.location is not None


def test_runtime_bug_is_a_located_internal_error(monkeypatch):
    def program(x):
        return x.cos() + 1

    prepare = module_call.ModuleCall.__init__

    def broken_init(self, *args, **kwargs):
        prepare(self, *args, **kwargs)
        self._run = None  # calling it at the call is a TypeError inside hopc

    monkeypatch.setattr(module_call.ModuleCall, "__init__", broken_init)
    with pytest.raises(HopcError, match="internal error.*TypeError") as failure:
        hopc.compile(program)(torch.randn(3))
    assert failure.value.location is not None


def test_the_programs_own_exception_is_its_own():
    def program(x):
        y = x.sin()
        torch._dynamo.graph_break()
        if y.shape[0] == 3:
            raise KeyError("the program's own")
        return y

    with pytest.raises(KeyError, match="the program's own"):
        hopc.compile(program)(torch.randn(3))


# ------------------------------------------- item 5: cond on a one-element tensor


def test_cond_on_an_integer_tensor():
    def program(x):
        return torch.cond(torch.tensor(1), lambda x: x + 1, lambda x: x - 1, (x,))

    check_compile(program, [(torch.randn(3),), (torch.randn(5),), (torch.randn(7),)])


def test_cond_on_an_integer_tensor_computed_in_an_outer_branch():
    def program(x):
        def positive_sum(x):
            flag = (x.sum() > 0).int()
            return torch.cond(flag, lambda y: y * 2, lambda y: y * 3, (x,))
        return torch.cond(x.abs().sum() > 1, positive_sum, lambda x: x.cos(), (x,))

    check_compile(program, [(torch.tensor([1.0, 2.0, 3.0]),), (-torch.ones(5),),
                            (torch.full((2,), 0.1),)])


def test_cond_on_a_one_element_float_tensor():
    def program(x, flag):
        return torch.cond(flag, lambda x: x.sin(), lambda x: x.cos(), (x,))

    check_compile(program, [(torch.randn(3), torch.zeros(1, 1)), (torch.randn(3), torch.ones(1, 1)),
                            (torch.randn(4), torch.full((1, 1), 0.5))])


def test_cond_on_an_integer_tensor_captured():
    module = hopc.capture(lambda x, flag: torch.cond(flag, torch.sin, torch.cos, (x,)),
                          (torch.randn(3), torch.tensor([2])))
    assert "aten.ne.Scalar" in str(module) and "aten.reshape" in str(module)


# --------------------------------------------------- item 6: while_loop int carries


def test_while_loop_carrying_a_python_int():
    def program(x):
        return while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x + 1), (0, x))

    compiled = check_compile(program, [(torch.randn(3),), (torch.randn(5),), (torch.randn(6),)])
    count, _ = compiled(torch.randn(4))
    assert type(count) is int and count == 3


def test_while_loop_int_carries_inside_pytrees():
    def program(x):
        def body(state):
            return ({"step": state["step"] + 1, "x": state["x"] * 2, "pair": (state["pair"][1],
                                                                             state["pair"][0])},)
        return while_loop(lambda state: state["step"] < 4, body,
                          ({"step": 1, "x": x, "pair": (2, 5)},))

    check_compile(program, [(torch.randn(3),), (torch.randn(5),)])


def test_while_loop_returning_constants_and_int_carries():
    def program(x, limit):
        def body(i, k, x):
            return i + 1, 7, x + i
        i, k, y = while_loop(lambda i, k, x: i < limit, body, (0, 7, x))
        return i, k, y, 5

    check_compile(program, [(torch.randn(2), 3), (torch.randn(4), 5), (torch.randn(6), 0)])


def test_while_loop_int_carry_used_as_a_size():
    def program(x):
        def body(i, total):
            return i + 1, total + x[:i].sum()
        return while_loop(lambda i, total: i < x.shape[0], body, (1, torch.zeros(())))

    check_compile(program, [(torch.randn(3),), (torch.randn(5),), (torch.randn(8),)])


def test_while_loop_carry_changing_size_is_refused_as_pytorch_does():
    def program(x):
        return while_loop(lambda x: x.sum() < 100, lambda x: (torch.cat([x, x]),), (x,))

    with pytest.raises(HopcError, match="same metadata") as failure:
        hopc.compile(program)(torch.ones(2))
    assert failure.value.location.file == __file__


# ------------------------------------- item 7: in place on a while_loop result


def test_in_place_on_a_while_loop_result_that_may_run_no_iteration():
    def program(x):
        (out,) = while_loop(lambda x: x.sum() < 10, lambda x: (x * 2,), (x,))
        return out.sin_()

    check_compile(program, [(torch.full((3,), 20.0),), (torch.ones(3),), (torch.ones(5) * 4,)])


def test_a_while_loop_that_runs_no_iteration_returns_a_new_tensor():
    def program(x):
        return while_loop(lambda x: x.sum() < 10, lambda x: (x * 2,), (x,))[0]

    x = torch.full((3,), 20.0)
    out = hopc.compile(program)(x)
    assert out.data_ptr() != x.data_ptr()
    out.add_(1)
    assert torch.equal(x, torch.full((3,), 20.0))


# --------------------------------------------- item 9: record_function ranges kept


def profiled_ranges(compiled, args):
    """The record_function ranges (name -> interval) and aten::sin intervals of one call."""
    with torch.profiler.profile() as profile:
        compiled(*args)
    ranges = {e.name: e.time_range for e in profile.events() if e.name in ("outer", "inner")}
    sines = [e.time_range for e in profile.events() if e.name == "aten::sin"]
    return ranges, sines


def test_record_function_range_appears_under_the_profiler():
    def program(x):
        with torch.profiler.record_function("outer"):
            y = x.sin()
            with torch.profiler.record_function("inner", "a=1"):
                y = y + 1
        return y * 2

    compiled = check_compile(program, [(torch.randn(3),), (torch.randn(5),)])
    ranges, sines = profiled_ranges(compiled, (torch.randn(6),))
    assert set(ranges) == {"outer", "inner"}
    outer, inner = ranges["outer"], ranges["inner"]
    assert outer.start <= inner.start and inner.end <= outer.end
    assert any(outer.start <= sine.start and sine.end <= outer.end for sine in sines)


def test_record_function_range_inside_a_cond_branch():
    def program(x):
        def positive(x):
            with torch.profiler.record_function("inner"):
                return x.sin()
        return torch.cond(x.sum() > 0, positive, lambda x: x.cos(), (x,))

    compiled = check_compile(program, [(torch.ones(3),), (-torch.ones(5),)])
    assert "inner" in profiled_ranges(compiled, (torch.ones(4),))[0]
    assert "inner" not in profiled_ranges(compiled, (-torch.ones(4),))[0]
    module = hopc.capture(program, (torch.ones(3),))
    assert str(module).count("profiler.record_function_enter \"inner\"") == 1
