"""Speculative libm kernels in generated loops (interpreter/speculate.py): a loop whose
body computes tanh, exp, log and logistic of small f32 arrays gives the bits of the
general evaluator with speculation on, over random and special inputs (NaN payloads,
signed zeros, infinities, subnormals, overflow), across checkpoints; where a kept guess
is found wrong, or the speculative run raises, the loop runs again exactly from the last
checkpoint (or from its operands); `all_sure` tells a guess the C library's result rounds
differently from, and the speculative kernel's kept results are the kernel's own."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from loop_helpers import run_loops

from shlo_cli.dialects import libm, libm_f32
from shlo_cli.interpreter import loopgen, speculate

F32 = np.dtype(np.float32)
NAN_BITS = [0x7FC00000, 0xFFC00000, 0x7F800001, 0xFF800001, 0x7FC12345, 0xFFBFFFFF]
SPECIALS = [0.0, -0.0, np.inf, -np.inf, 1e-45, -1e-45, 1e-40, -3e-39, 88.72, 88.73, 100.0,
            3e38, -3e38, -103.97, -150.0, 1.0, -1.0, 11.09, 1e-30]


def _inputs(rng: np.random.Generator, shape: tuple[int, ...], specials: float,
            scales: tuple[float, ...] = (1e-30, 1e-3, 0.1, 1.0, 3.0, 80.0, 1e3)) -> np.ndarray:
    n = int(np.prod(shape))
    scale = rng.choice(scales, n)
    with np.errstate(all="ignore"):
        x = (rng.standard_normal(n) * scale).astype(np.float32)
    pool = np.concatenate([np.array(SPECIALS, np.float32),
                           np.array(NAN_BITS, np.uint32).view(np.float32)])
    where = rng.random(n) < specials
    x[where] = rng.choice(pool, int(where.sum()))
    return x.reshape(shape)


# h = tanh(x[i] + h) * 0.5 + log(|exp(x[i] * w)| + 1) - exp(h) / 4, 150 steps (more than
# speculate.EVERY: a checkpoint), the state also the sum of tanh(x[i] + h) + logistic(x[i] + h)
PER_STEP = 3  # speculative calls a step: tanh, exp(h), logistic (x's terms are hoisted)
PROGRAM = """
func.func @main(%xs: {XS}, %w: {T}) -> ({T}, {T}) {
  %zero = stablehlo.constant dense<0.0> : {T}
  %i0 = stablehlo.constant dense<0> : {I}
  %r:3 = stablehlo.while(%i = %i0, %h = %zero, %s = %zero) : {I}, {T}, {T}
  cond {
    %c = stablehlo.constant dense<150> : {I}
    %lt = stablehlo.compare LT, %i, %c, SIGNED : ({I}, {I}) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %z = stablehlo.constant dense<0> : {I}
    %row = stablehlo.dynamic_slice %xs, %i, %z, %z, sizes = [1, 1, {n}]
        : ({XS}, {I}, {I}, {I}) -> {ROW}
    %x = stablehlo.reshape %row : ({ROW}) -> {T}
    %a = stablehlo.add %x, %h : {T}
    %t = stablehlo.tanh %a : {T}
    %half = stablehlo.constant dense<0.5> : {T}
    %th = stablehlo.multiply %t, %half : {T}
    %xw = stablehlo.multiply %x, %w : {T}
    %e = stablehlo.exponential %xw : {T}
    %ea = stablehlo.abs %e : {T}
    %one = stablehlo.constant dense<1.0> : {T}
    %e1 = stablehlo.add %ea, %one : {T}
    %l = stablehlo.log %e1 : {T}
    %eh = stablehlo.exponential %h : {T}
    %four = stablehlo.constant dense<4.0> : {T}
    %q = stablehlo.divide %eh, %four : {T}
    %u = stablehlo.add %th, %l : {T}
    %hn = stablehlo.subtract %u, %q : {T}
    %g = stablehlo.logistic %a : {T}
    %tg = stablehlo.add %t, %g : {T}
    %sn = stablehlo.add %s, %tg : {T}
    %c1 = stablehlo.constant dense<1> : {I}
    %in = stablehlo.add %i, %c1 : {I}
    stablehlo.return %in, %hn, %sn : {I}, {T}, {T}
  }
  return %r#1, %r#2 : {T}, {T}
}
"""


def _program(n: int) -> str:
    text = PROGRAM
    for short, full in (("{XS}", "tensor<150x1x{n}xf32>"), ("{ROW}", "tensor<1x1x{n}xf32>"),
                        ("{T}", "tensor<1x{n}xf32>"), ("{I}", "tensor<i32>"), ("{n}", str(n))):
        text = text.replace(short, full)
    return text


def _same(a: list[Any], b: list[Any]) -> bool:
    return all(np.asarray(x).tobytes() == np.asarray(y).tobytes()
               for x, y in zip(a, b, strict=True))


def _spied(monkeypatch: pytest.MonkeyPatch, wrap: Any) -> list[int]:
    """Each speculative kernel the loop generator binds wrapped by `wrap(kernel, calls)`;
    `calls` (returned) counts their calls."""
    calls = [0]
    found = loopgen.speculative_kernels

    def spy(ns: dict[str, Any]) -> dict[str, Any]:
        return {name: wrap(fn, calls) for name, fn in found(ns).items()}
    monkeypatch.setattr(loopgen, "speculative_kernels", spy)
    return calls


def _counted(fn: Any, calls: list[int]) -> Any:
    def kernel(kept: list[Any], x: Any) -> Any:
        calls[0] += 1
        return fn(kept, x)
    return kernel


@pytest.mark.parametrize(("n", "specials"), [(8, 0.0), (32, 0.0), (32, 0.05), (300, 0.02)])
def test_speculating_loop_is_the_evaluator_bit_for_bit(
        n: int, specials: float, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(n)
    for _ in range(3):
        args = [_inputs(rng, (150, 1, n), specials), _inputs(rng, (1, n), specials)]
        want, _ = run_loops(_program(n), args, False, monkeypatch)
        with monkeypatch.context() as m:
            calls = _spied(m, _counted)
            got, sources = run_loops(_program(n), args, True, monkeypatch)
        assert calls[0] and sources and _same(got, want)


def test_a_loop_of_sure_guesses_runs_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Moderate inputs: every step runs speculatively, none again."""
    rng = np.random.default_rng(3)
    args = [_inputs(rng, (150, 1, 32), 0.0, (0.1, 1.0)), _inputs(rng, (1, 32), 0.0, (0.5,))]
    want, _ = run_loops(_program(32), args, False, monkeypatch)
    calls = _spied(monkeypatch, _counted)
    got, _ = run_loops(_program(32), args, True, monkeypatch)
    assert calls[0] == 2 * 150 * PER_STEP  # (two runs)
    assert _same(got, want)


def test_a_wrong_guess_runs_the_loop_again_from_the_last_checkpoint(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Speculative results made wrong from a step after the first checkpoint on (their
    kept entries marked doubtful): the results are still the evaluator's, and the steps
    before that checkpoint are not run again exactly."""
    spoiled_from = speculate.EVERY + 10
    assert spoiled_from < 150
    rng = np.random.default_rng(5)
    args = [_inputs(rng, (150, 1, 32), 0.0, (0.1, 1.0)), _inputs(rng, (1, 32), 0.0, (0.5,))]
    want, _ = run_loops(_program(32), args, False, monkeypatch)
    wrong = object()

    def spoiled(fn: Any, calls: list[int]) -> Any:
        def kernel(kept: list[Any], x: Any) -> Any:
            calls[0] += 1
            out = fn(kept, x)
            if calls[0] > PER_STEP * (spoiled_from + 150):  # (the second run's)
                kept.append((wrong, x, out))
                return out + np.float32(1)
            return out
        return kernel
    found = speculate.all_sure
    monkeypatch.setattr(speculate, "all_sure",
                        lambda kept: all(k[0] is not wrong for k in kept) and found(kept))
    exact_steps = [0]
    real = speculate.speculating

    def counting(faster: Any, exact: Any, interpreter: Any, cap: Any) -> Any:
        def counted(frame: Any, args: Any) -> Any:
            exact_steps[0] += 150 - int(args[0])  # (the counter: steps still to run)
            return exact(frame, args)
        return real(faster, counted, interpreter, cap)
    monkeypatch.setattr(loopgen, "speculating", counting)
    _spied(monkeypatch, spoiled)
    got, _ = run_loops(_program(32), args, True, monkeypatch)
    assert _same(got, want)
    # from the checkpoint at the start of step EVERY (counter EVERY - 1); the first run: none
    assert exact_steps[0] == 150 - (speculate.EVERY - 1)


def test_a_raising_speculative_run_runs_again_exactly(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(6)
    args = [_inputs(rng, (150, 1, 8), 0.0, (0.1, 1.0)), _inputs(rng, (1, 8), 0.0, (0.5,))]
    want, _ = run_loops(_program(8), args, False, monkeypatch)

    def raising(fn: Any, calls: list[int]) -> Any:
        def kernel(kept: list[Any], x: Any) -> Any:
            calls[0] += 1
            if calls[0] % 97 == 0:
                raise FloatingPointError("spoiled")
            return fn(kept, x) + np.float32(calls[0] > 200)
        return kernel
    calls = _spied(monkeypatch, raising)
    got, _ = run_loops(_program(8), args, True, monkeypatch)
    assert calls[0] and _same(got, want)


def test_checks_set_run_the_exact_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    """With a stop, deadline or cap set, the exact loop runs (it checks them per step)."""
    seen: list[str] = []
    exact = speculate.speculating(lambda *a: seen.append("speculative"),
                                  lambda frame, args: seen.append("exact"),
                                  type("I", (), {"stop": None, "deadline": 1.0})(),
                                  lambda: None)
    exact(None, [])
    capped = speculate.speculating(lambda *a: seen.append("speculative"),
                                   lambda frame, args: seen.append("exact"),
                                   type("I", (), {"stop": None, "deadline": None})(),
                                   lambda: 10)
    capped(None, [])
    assert seen == ["exact", "exact"]


def test_a_loop_of_few_steps_pauses_speculating() -> None:
    """A speculative run keeping fewer than FEW guesses makes the next PAUSE runs exact
    ones; then the loop speculates again, and keeps on while its runs keep enough."""
    seen: list[str] = []
    x = np.ones((1, 4), np.float32)
    unquieted = libm.native_kernel(libm.tanh, F32).unquieted  # type: ignore[attr-defined]
    kept_per_run = [1]

    def faster(frame: Any, args: Any, kept: list[Any], held: list[Any]) -> str:
        seen.append("speculative")
        for _ in range(kept_per_run[0]):
            unquieted.speculative(kept, x)
        return "out"

    def exact(frame: Any, args: Any) -> str:
        seen.append("exact")
        return "out"
    run = speculate.speculating(faster, exact, type("I", (), {"stop": None, "deadline": None})(),
                                lambda: None)
    for _ in range(speculate.PAUSE + 2):
        assert run(None, []) == "out"
    assert seen == ["speculative"] + ["exact"] * speculate.PAUSE + ["speculative"]
    seen.clear()
    kept_per_run[0] = speculate.FEW
    for _ in range(speculate.PAUSE + 3):
        run(None, [])
    assert seen == ["exact"] * speculate.PAUSE + ["speculative"] * 3


def test_only_loops_free_of_effects_are_repeated() -> None:
    """A custom_call (any effect) anywhere in the loop keeps the exact loop alone."""
    from shlo_cli.ir.parser import parse_source

    def loop_ops(text: str) -> list[Any]:
        ops = list(parse_source(text).op.walk())
        loop = next(op for op in ops if op.name == "stablehlo.while")
        return [op for region in loop.regions for block in region.blocks
                for op in block.operations]
    plain = _program(8)
    assert speculate.repeatable(loop_ops(plain))
    called = plain.replace(
        "%sn = stablehlo.add %s, %tg : tensor<1x8xf32>",
        "%sn0 = stablehlo.add %s, %tg : tensor<1x8xf32>\n"
        "    %sn = stablehlo.custom_call @effect(%sn0) : (tensor<1x8xf32>) -> tensor<1x8xf32>")
    assert not speculate.repeatable(loop_ops(called))
    for text, free in ((plain, True), (called, False)):  # (the while op's own regions)
        loop = next(op for op in parse_source(text).op.walk() if op.name == "stablehlo.while")
        assert speculate.repeatable([loop]) is free


def test_all_sure_tells_a_wrong_rounding() -> None:
    """A kept guess within the margin of a rounding boundary is sure only where the kernel's
    own result is the guess rounded once; guesses away from boundaries are sure; NaN and
    infinite guesses are not."""
    kernel = libm.native_kernel(libm.tanh, F32)
    unquieted = kernel.unquieted  # type: ignore[attr-defined]
    x = np.array([[0.5, -0.25, 1.5]], np.float32)
    exact = unquieted(x)
    guess = np.tanh(x.astype(np.float64))
    assert libm_f32.all_sure([(unquieted, x, guess)])
    # the midpoint between the result and its upper neighbour, on the far side from the
    # kernel's result: doubtful, and rounds away from it
    up = np.nextafter(exact, np.float32(np.inf))
    mid = (exact.astype(np.float64) + up.astype(np.float64)) / 2
    beyond = mid * (1 + 2.0 ** -45 * np.sign(mid))
    assert beyond.astype(np.float32).tobytes() != exact.tobytes()
    assert not libm_f32.all_sure([(unquieted, x, guess), (unquieted, x, beyond)])
    short = mid * (1 - 2.0 ** -45 * np.sign(mid))  # doubtful too, but rounds as the kernel
    assert short.astype(np.float32).tobytes() == exact.tobytes()
    assert libm_f32.all_sure([(unquieted, x, short), (unquieted, x, guess)])
    for special in (np.nan, np.inf):
        odd = guess.copy()
        odd[0, 1] = special
        assert not libm_f32.all_sure([(unquieted, x, odd)])


def test_speculative_kernel_keeps_what_the_kernel_returns() -> None:
    """The speculative form's result is its kept guess rounded once; where all_sure finds
    it sure it is the kernel's; inputs outside the fast path keep nothing."""
    rng = np.random.default_rng(9)
    for fn in (libm.tanh, libm.exp, libm.log):
        unquieted = libm.native_kernel(fn, F32).unquieted  # type: ignore[attr-defined]
        speculative = unquieted.speculative
        for size in (1, 8, 64, libm_f32.SMALL):
            x = _inputs(rng, (size,), 0.1)
            kept: list[Any] = []
            with np.errstate(all="ignore"):
                out = speculative(kept, x)
                want = unquieted(x)
                rounded = kept[0][2].astype(np.float32)
                sure = libm_f32.all_sure(kept)
            assert len(kept) == 1 and kept[0][1] is x
            assert out.tobytes() == rounded.tobytes()
            if sure:
                assert out.tobytes() == want.tobytes()
            else:  # (a NaN or overflow in the input: the kernel's redo)
                assert out.tobytes() != want.tobytes() or not np.isfinite(kept[0][2]).all()
        for other in (np.zeros(0, np.float32), np.float32(0.5), np.ones(4, np.float64),
                      np.ones(libm_f32.SMALL + 1, np.float32)):
            kept = []
            with np.errstate(all="ignore"):
                got = speculative(kept, other)
            assert not kept and np.asarray(got).tobytes() == np.asarray(unquieted(other)).tobytes()



@pytest.mark.parametrize(("n", "specials"), [(8, 0.0), (32, 0.05), (300, 0.02)])
def test_inline_guesses_keep_what_the_kernels_keep(
        n: int, specials: float, monkeypatch: pytest.MonkeyPatch) -> None:
    """The speculative loop's tanh and exp written out (speculate.inline_guesses): the
    evaluator's bits; and, on inputs whose guesses are all sure, per step one kept entry
    each (the exact kernel, its operand, the double guess of its result) beside the
    logistic's, all tested in the checkpoint's pass and the final one."""
    rng = np.random.default_rng(n + 1)
    moderate = specials == 0.0
    args = ([_inputs(rng, (150, 1, n), 0.0, (0.1, 1.0)), _inputs(rng, (1, n), 0.0, (0.5,))]
            if moderate else [_inputs(rng, (150, 1, n), specials),
                              _inputs(rng, (1, n), specials)])
    want, _ = run_loops(_program(n), args, False, monkeypatch)
    tested: list[int] = []  # (the kept entries' kernels)
    found = speculate.all_sure

    def spy(kept: list[Any]) -> bool:
        for kernel, x, guess in kept:
            assert guess.dtype == np.float64 and guess.shape == x.shape
            if moderate:  # (the kernel's result is the guess rounded)
                assert kernel(x).tobytes() == guess.astype(F32).tobytes()
            tested.append(id(kernel))
        return found(kept)
    monkeypatch.setattr(speculate, "all_sure", spy)
    written: list[str] = []
    inline = loopgen.inline_guesses

    def recorded(*a: Any) -> list[str]:
        written.extend(inline(*a))
        return written[-len(a[0]):]
    monkeypatch.setattr(loopgen, "inline_guesses", recorded)
    got, _ = run_loops(_program(n), args, True, monkeypatch)
    assert _same(got, want)
    assert sum("G.append(" in line for line in written) == 2 * 2  # (tanh, exp(h); 2 loops)
    if moderate:  # (two runs: the tanh's 150 guesses each, exp's 150 and the logistic's)
        assert sorted(tested.count(k) for k in set(tested)) == [2 * 150, 2 * 2 * 150]
