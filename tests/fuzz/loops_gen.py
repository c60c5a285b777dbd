"""Random JAX programs whose loops look like exported models' loops (tests/fuzz/loops.py).

A program is drawn from its seed alone: `build(seed, size)` picks the argument shapes and
dtypes with one generator and returns the function, which draws its body from a second
generator seeded afresh at each trace (jax traces a function more than once: export, then
XLA's own run; every trace must be the same program). `size` bounds the number of body
ops, so a failing program can be shrunk by rebuilding it smaller.

Templates: `lax.scan` (forward/reverse, xs of rank 1-3, a transposed sequence, unroll),
`lax.fori_loop` (static bounds: jax makes a scan of it; dynamic ones: a while; 0 trips,
negative starts), `lax.while_loop` with data-dependent conditions, counted while loops
(`k < bound`, `<=`, a flipped `>`, `!=`; steps 1-3; i8/u8/i16/i32/i64 counters near their
types' edges; a twin counter starting equal or not), 0-d-only variants (pyscalar's Python
numbers), LSTM/GRU steps (gates sliced from one projection), and any of them inside a
`lax.cond`. Bodies are random: elementwise math, selects, reductions, dots (`x @ W`,
`W @ x`, batched), cumsum/sort/argmax/gathers at data-dependent indices, reads at
counter-derived indices (`x[i]`, `x[n-1-i]`, `x[-1-i]`, clamped dynamic slices), writes
(`.at[i].set`, dynamic_update_slice into zeros, a constant or an argument also returned),
nested loops and `lax.cond` inside bodies, integer accumulators that wrap. Sizes are small
(1-4 features), sometimes deep enough (9-47) that dots take the BLAS paths (scan_inputs.py's
stacked matmul). `sink_constants` puts the constants jax 0.10 hoists out of loops back into
their regions (as older exports and hand-written programs have them), for half the programs.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

FLOATS = ["float32"] * 6 + ["float64", "float64", "bfloat16", "float16"]
INTS = ["int32"] * 4 + ["int8", "int64", "uint8", "uint32", "int16"]


@dataclass
class Spec:
    """One generated program: `fn(*args)` and its inputs; `x64` when it needs jax's 64-bit
    mode (f64/i64 values)."""

    fn: Callable[..., Any]
    args: list[np.ndarray]
    x64: bool
    template: str
    sink: bool = False  # constants copied into the loops' regions (sink_constants)


def np_dtype(name: str) -> np.dtype:
    if name == "bfloat16":
        import ml_dtypes
        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(name)


def edge_array(rng: np.random.Generator, shape: tuple[int, ...], dtype: str,
               rate: float) -> np.ndarray:
    """Values of `dtype`, about `rate` of them edge values: NaNs (several payloads, both
    signs), signed zeros, infinities, subnormals, huge and tiny values, integer extremes."""
    dt = np_dtype(dtype)
    size = int(np.prod(shape))
    if dt == np.bool_:
        return rng.random(shape) < 0.5
    if dt.kind in "iu":
        info = np.iinfo(dt)
        out = rng.integers(-5 if info.min else 0, 6, size).astype(dt)
        edges = np.array([int(info.min), int(info.max), 0, 1, int(info.max) - 1,
                          int(info.min) + 1, 2], dt)
    else:
        import ml_dtypes
        info = ml_dtypes.finfo(dt)
        out = rng.standard_normal(size).astype(dt)
        bits = {2: np.uint16, 4: np.uint32, 8: np.uint64}[dt.itemsize]
        quiet = {  # quiet NaNs of several payloads and signs, and a signalling one
            2: [0x7E00, 0x7E01, 0xFE00, 0x7C01] if dtype == "float16"
            else [0x7FC0, 0x7FC1, 0xFFC0, 0x7F81],
            4: [0x7FC00000, 0x7FC00001, 0xFFC00000, 0x7F800001],
            8: [0x7FF8000000000000, 0x7FF8000000000001, 0xFFF8000000000000,
                0x7FF0000000000001]}[dt.itemsize]
        nans = np.array(quiet, bits).view(dt)
        edges = np.concatenate([nans, np.array(
            [0.0, -0.0, np.inf, -np.inf, float(info.smallest_subnormal),
             -float(info.smallest_subnormal), float(info.max), -float(info.max),
             float(info.tiny), 1.0, -1.0, 0.5], dt)])
    mask = rng.random(size) < rate
    out[mask] = edges[rng.integers(0, len(edges), int(mask.sum()))]
    return out.reshape(shape)


class Body:
    """Draws random body computations on jax values; `pool` holds the values in scope."""

    def __init__(self, rng: np.random.Generator, fdt: str, idt: str, budget: int) -> None:
        import jax.numpy as jnp
        self.jnp = jnp
        self.rng = rng
        self.fdt = np_dtype(fdt)
        self.idt = np_dtype(idt)
        self.budget = budget
        self.pool: list[Any] = []

    def chance(self, p: float) -> bool:
        return bool(self.rng.random() < p)

    def pick(self, seq: Any) -> Any:
        return seq[int(self.rng.integers(0, len(seq)))]

    def having(self, shape: tuple[int, ...] | None, kind: str) -> list[Any]:
        return [v for v in self.pool if (shape is None or v.shape == shape)
                and _kind(v.dtype) == kind]

    def value(self, shape: tuple[int, ...], kind: str = "f", depth: int = 0) -> Any:
        """A value of `shape` and kind f(loat)/i(nt)/b(ool) computed from the pool."""
        jnp = self.jnp
        dt = {"f": self.fdt, "i": self.idt, "b": np.dtype(bool)}[kind]
        if depth > 3 or self.budget <= 0 or self.chance(0.3):
            return self.leaf(shape, kind)
        self.budget -= 1
        r = self.rng.random()
        if kind == "b":
            if r < 0.7:
                k = self.pick("fi")
                a, b = self.value(shape, k, depth + 1), self.value(shape, k, depth + 1)
                return self.pick([jnp.less, jnp.greater_equal, jnp.equal, jnp.not_equal])(a, b)
            return self.pick([jnp.logical_and, jnp.logical_or, jnp.logical_xor])(
                self.value(shape, "b", depth + 1), self.value(shape, "b", depth + 1))
        if r < 0.12:
            return jnp.where(self.value(shape, "b", depth + 1), self.value(shape, kind, depth + 1),
                             self.value(shape, kind, depth + 1))
        if r < 0.22:
            return self.reduced(shape, kind, depth)
        if r < 0.3 and kind == "f" and shape in ((), ) + self.vec_shapes():
            return self.dotted(shape, depth)
        if r < 0.33 and kind != "b":
            return self.structured(shape, kind, depth)
        if r < 0.38:  # a conversion from the other kind
            other = self.value(shape, "i" if kind == "f" else "f", depth + 1)
            if kind == "i" and self.chance(0.7):  # mostly finite: clip first
                other = jnp.nan_to_num(jnp.clip(other, -1000, 1000))
            return other.astype(dt)
        a = self.value(shape, kind, depth + 1)
        if kind == "f":
            if r < 0.6:
                op = self.pick(["tanh", "exp", "log", "sigmoid", "relu", "abs", "sqrt", "neg",
                                "clip", "sin", "square", "log1p", "floor", "rsqrt", "expm1",
                                "cbrt", "round", "sign", "ceil", "finite", "clamp"])
                return _unary(jnp, op, a)
            b = self.value(shape, kind, depth + 1)
            op = self.pick(["+", "-", "*", "/", "max", "min", "+", "*", "pow", "fmod",
                            "atan2", "copysign"])
            return _binary(jnp, op, a, b)
        b = self.value(shape, kind, depth + 1)
        op = self.pick(["+", "-", "*", "max", "min", "&", "^", "<<", ">>", "//", "%", "neg",
                        "div", "rem", "abs", "not", "clamp", "+", "*"])
        return _int_binary(jnp, op, a, b)

    def structured(self, shape: tuple[int, ...], kind: str, depth: int) -> Any:
        """Ops of other kinds on a pool vector: cumsum, sort, argmax, a gather at
        data-dependent indices (clamped), a reversal."""
        jnp = self.jnp
        vecs = [v for v in self.pool if v.ndim == 1 and v.shape[0] and _kind(v.dtype) == kind]
        if not vecs:
            return self.leaf(shape, kind)
        v = self.pick(vecs)
        ints = self.having((), "i")
        at = self.pick(ints) if ints else jnp.asarray(-1, self.idt)
        op = self.pick(["cumsum", "sort", "argmax", "take", "flip", "cummax"])
        if op == "argmax":
            out = jnp.argmax(v)
        elif op == "take":  # x[k] at a data-dependent k: negative wraps, beyond clamps
            out = jnp.take(v, at.astype(np.int32), mode="clip") if self.chance(0.5) else v[at]
        else:
            out = {"cumsum": jnp.cumsum, "sort": jnp.sort, "flip": jnp.flip,
                   "cummax": lambda x: jax_lax().cummax(x)}[op](v)
        if out.shape != shape:
            out = out.sum() if not shape else jnp.broadcast_to(out.reshape(-1)[:1], shape) \
                if out.ndim else jnp.broadcast_to(out, shape)
        return out.astype({"f": self.fdt, "i": self.idt}[kind])

    def vec_shapes(self) -> tuple[tuple[int, ...], ...]:
        return tuple(sorted({v.shape for v in self.pool if v.ndim == 1}))

    def leaf(self, shape: tuple[int, ...], kind: str) -> Any:
        jnp = self.jnp
        dt = {"f": self.fdt, "i": self.idt, "b": np.dtype(bool)}[kind]
        same = self.having(shape, kind)
        if same and self.chance(0.8):
            return self.pick(same)
        scalars = self.having((), kind)
        if scalars and self.chance(0.6):
            return jnp.broadcast_to(self.pick(scalars), shape)
        others = [v for v in self.pool if v.shape == shape]
        if others and self.chance(0.5):
            return self.pick(others).astype(dt)
        if kind == "b":
            return jnp.full(shape, self.chance(0.5), dt)
        const = self.pick([0.0, 1.0, -1.0, 0.5, 2.0, 3.0, -0.0] if kind == "f" else [0, 1, -1, 7])
        return jnp.full(shape, const, dt)

    def reduced(self, shape: tuple[int, ...], kind: str, depth: int) -> Any:
        """A reduction of a larger pool value to `shape` (sum, max, min, mean, prod)."""
        jnp = self.jnp
        bigger = [v for v in self.pool if _kind(v.dtype) == kind and v.ndim == len(shape) + 1
                  and (not shape or v.shape[1:] == shape or v.shape[:-1] == shape)]
        if not bigger:
            return self.leaf(shape, kind)
        v = self.pick(bigger)
        axis = 0 if (shape and v.shape[1:] == shape) else v.ndim - 1
        if not shape and v.ndim == 1:
            axis = 0
        op = self.pick(["sum", "max", "min", "mean", "prod"] if kind == "f"
                       else ["sum", "max", "min"])
        if v.shape[axis] == 0 and op in ("max", "min"):
            op = "sum"
        return getattr(jnp, op)(v, axis=axis).astype(v.dtype)

    def dotted(self, shape: tuple[int, ...], depth: int) -> Any:
        """A dot: vector @ matrix, matrix @ vector, vector . vector, or batched."""
        mats = [m for m in self.having(None, "f") if m.ndim == 2]
        vecs = self.having(None, "f")
        options = []
        for m in mats:
            for v in vecs:
                if v.ndim == 1 and v.shape[0] == m.shape[0] and m.shape[1:] == shape:
                    options.append(lambda v=v, m=m: v @ m)
                if v.ndim == 1 and v.shape[0] == m.shape[1] and m.shape[:1] == shape:
                    options.append(lambda v=v, m=m: m @ v)
                if v.ndim == 2 and v.shape[1] == m.shape[0] and shape == (v.shape[0], m.shape[1]):
                    options.append(lambda v=v, m=m: v @ m)
        if not shape:
            for v in vecs:
                if v.ndim == 1:
                    options.append(lambda v=v: self.jnp.dot(v, v))
        if not options:
            return self.leaf(shape, "f")
        return self.pick(options)()


def jax_lax() -> Any:
    from jax import lax
    return lax


def _kind(dt: Any) -> str:
    dt = np.dtype(dt)
    return "b" if dt == np.bool_ else ("i" if dt.kind in "iu" else "f")


def _unary(jnp: Any, op: str, a: Any) -> Any:
    import jax
    table: dict[str, Callable[[Any], Any]] = {
        "tanh": jnp.tanh, "exp": jnp.exp, "log": jnp.log, "sigmoid": jax.nn.sigmoid,
        "relu": lambda x: jnp.maximum(x, 0), "abs": jnp.abs, "sqrt": jnp.sqrt,
        "neg": jnp.negative, "clip": lambda x: jnp.clip(x, -2.0, 3.0), "sin": jnp.sin,
        "square": jnp.square, "log1p": jnp.log1p, "floor": jnp.floor,
        "rsqrt": jax.lax.rsqrt, "expm1": jnp.expm1, "cbrt": jnp.cbrt, "round": jnp.round,
        "sign": jnp.sign, "ceil": jnp.ceil, "finite": lambda x: jnp.where(jnp.isfinite(x), x, 1),
        "clamp": lambda x: jax.lax.clamp(jnp.asarray(-1.5, x.dtype), x, jnp.asarray(2.5, x.dtype))}
    return table[op](a).astype(a.dtype)


def _binary(jnp: Any, op: str, a: Any, b: Any) -> Any:
    table: dict[str, Callable[[Any, Any], Any]] = {
        "+": jnp.add, "-": jnp.subtract, "*": jnp.multiply, "/": jnp.divide,
        "max": jnp.maximum, "min": jnp.minimum, "pow": lambda x, y: jnp.power(x, 2.0),
        "fmod": jnp.fmod, "atan2": jnp.arctan2, "copysign": jnp.copysign}
    return table[op](a, b).astype(a.dtype)


def _recur(jnp: Any, rng: np.random.Generator, old: Any, new: Any) -> Any:
    """Mostly a function of the old carried value and the new one (an RNN's h = f(h, x)):
    a carried value rarely passes on unchanged."""
    new = new.astype(old.dtype)
    if rng.random() < 0.25:
        return new
    kind = _kind(old.dtype)
    if kind == "b":
        return jnp.logical_xor(old, new)
    ops = ["+", "-", "*", "max"] + (["/", "min"] if kind == "f" else ["^", "+"])
    op = ops[int(rng.integers(0, len(ops)))]
    return (_binary if kind == "f" else _int_binary)(jnp, op, old, new)


def _lax_div(x: Any, y: Any) -> Any:
    """Truncating integer division (stablehlo.divide), divisor made nonzero."""
    from jax import lax
    return lax.div(x, y | 1)


def _lax_rem(x: Any, y: Any) -> Any:
    from jax import lax
    return lax.rem(x, y | 1)


def _lax_clamp(x: Any, y: Any) -> Any:
    from jax import lax
    return lax.clamp(lax.min(y, x), x, lax.max(y, x))


def _int_binary(jnp: Any, op: str, a: Any, b: Any) -> Any:
    b = b.astype(a.dtype)
    bits = a.dtype.itemsize * 8
    table: dict[str, Callable[[Any, Any], Any]] = {
        "+": jnp.add, "-": jnp.subtract, "*": jnp.multiply, "max": jnp.maximum,
        "min": jnp.minimum, "&": jnp.bitwise_and, "^": jnp.bitwise_xor,
        "<<": lambda x, y: jnp.left_shift(x, jnp.bitwise_and(y, bits - 1)),
        ">>": lambda x, y: jnp.right_shift(x, jnp.bitwise_and(y, bits - 1)),
        "//": lambda x, y: x // (y | 1), "%": lambda x, y: x % (y | 1),
        "neg": lambda x, y: -x, "div": _lax_div, "rem": _lax_rem, "abs": lambda x, y: jnp.abs(x),
        "not": lambda x, y: ~x,
        "clamp": lambda x, y: _lax_clamp(x, y)}
    return table[op](a, b).astype(a.dtype)


TEMPLATES = ["scan", "scan", "fori_static", "fori_dynamic", "while", "scan_nested",
             "while_counted", "while_counted", "scan_scalar", "fori_scalar",
             "while_counted_scalar", "lstm", "gru"]


def build(seed: int, size: int = 12) -> Spec:
    """The program of `seed`; `size` bounds the ops drawn per body (smaller: a shrink)."""
    rng = np.random.default_rng(seed)
    pick = lambda seq: seq[int(rng.integers(0, len(seq)))]  # noqa: E731
    fdt, idt = pick(FLOATS), pick(INTS)
    ctr = "int64" if rng.random() < 0.1 else "int32"  # the counters' dtype
    x64 = "64" in fdt + idt + ctr
    t = int(pick([0, 1, 2, 2, 3, 3, 4, 5, 6, 9]))
    f, h = int(rng.integers(1, 5)), int(rng.integers(1, 5))
    if rng.random() < 0.15:  # dots deeper than gemm.SEQUENTIAL_DEPTH: BLAS paths
        f, h = int(rng.integers(9, 48)), int(rng.integers(2, 40))
    rate = float(pick([0.0, 0.02, 0.1, 0.3]))
    template = pick(TEMPLATES)
    scalar = template.endswith("_scalar")  # 0-d values only: pyscalar's Python numbers
    feat = () if scalar else (f,) if template in ("lstm", "gru") else pick(
        [(), (f,), (f,), (f, h)])
    transposed = len(feat) == 1 and rng.random() < 0.25
    xs_shape = (feat[0], t) if transposed else (t, *feat)
    shapes = [("xs", xs_shape, fdt), ("W", (f, h), fdt), ("U", (h, h), fdt), ("b", (h,), fdt),
              ("s", (), fdt), ("iv", (t,), idt), ("h0", (h,), fdt), ("c0", (), fdt),
              ("k0", (), idt)]
    args = [edge_array(rng, shape, dt, rate) for _, shape, dt in shapes]
    n = int(pick([0, 1, 2, 3, t, t, t + 1, -1, 5]))
    lo = int(pick([0, 0, 0, 1, -2, 2]))
    args += [np.array(n, ctr), np.array(lo, ctr)]
    body_seed = int(rng.integers(0, 2**32))
    carry_mask = [bool(rng.random() < p) for p in (0.6, 0.6, 0.5, 0.3, 0.25, 0.25)]
    if not any(carry_mask):
        carry_mask[1] = True
    if scalar:
        carry_mask[0] = False
        carry_mask[1] = carry_mask[1] or not any(carry_mask)
    reverse = bool(rng.random() < 0.3)
    unroll = int(pick([1, 1, 1, 1, 2, 3]))
    static = (int(pick([0, 0, -2, 1, 3])), int(pick([-1, 0, 1, 2, 3, 5])))
    inner_trips = int(pick([0, 1, 2, 3]))
    counted = _counted_choice(rng, x64)
    buf_init = pick(["zeros", "constant", "argument"])

    def fn(xs: Any, w: Any, u: Any, b: Any, s: Any, iv: Any, h0: Any, c0: Any, k0: Any,
           n_: Any, lo_: Any) -> Any:
        import jax
        import jax.numpy as jnp
        from jax import lax

        brng = np.random.default_rng(body_seed)
        body = Body(brng, fdt, idt, size)
        other = "int8" if idt != "int8" else "int32"
        choices = (h0, c0, k0, c0 * s, k0 > 0, k0.astype(other))
        carries = tuple(c for c, keep in zip(choices, carry_mask, strict=True) if keep)
        ambient = [s] if scalar else [w, u, b, s]

        def update(carry: tuple[Any, ...], extra: list[Any], nested: bool) -> tuple[Any, ...]:
            body.budget = size
            body.pool = [*carry, *extra, *ambient]
            new = [_recur(jnp, brng, c, body.value(c.shape, _kind(c.dtype))) for c in carry]
            if nested and brng.random() < 0.5:
                k = int(brng.integers(0, len(new)))
                new[k] = _inner(jax, body, new[k], inner_trips, brng)
            if brng.random() < 0.25:
                k = int(brng.integers(0, len(new)))
                pred = body.value((), "b")
                one, two = body.value(new[k].shape, _kind(new[k].dtype)), new[k]
                new[k] = lax.cond(pred, lambda o: o[0].astype(o[1].dtype),
                                  lambda o: jnp.abs(o[1]) if _kind(o[1].dtype) == "f" else o[1],
                                  (one, two))
            return tuple(new)

        def reads(i: Any) -> list[Any]:
            """Reads at counter-derived indices: x[i], x[t-1-i], x[-1-i], clamped slices."""
            seq = xs.T if transposed else xs
            out = [i.astype(idt)]
            if t:
                out.append(pick_read(brng, seq, i, t, lax))
                out.append(iv[(t - 1 - i) if brng.random() < 0.5 else i])
            return out

        if template in ("lstm", "gru"):
            return _gated(jnp, lax, template, xs.T if transposed else xs, w, u, b, h0,
                          reverse, unroll)
        if template.startswith("scan"):
            seq = xs.T if transposed else xs

            def step(carry: Any, x: Any) -> Any:
                parts = list(x)
                if brng.random() < 0.6:  # a projection of the step's input alone
                    body.budget, body.pool = 3, [*parts, *ambient]
                    x0 = parts[0]
                    proj = (x0 @ w if x0.shape == (f,) and brng.random() < 0.7
                            else x0 * s + body.value(x0.shape, "f"))
                    act = body.pick(["tanh", "sigmoid", "relu", "exp", "neg", "abs"])
                    parts.append(_unary(jnp, act, proj + b if proj.shape == (h,) else proj))
                new = update(carry, parts, template == "scan_nested")
                y = body.value(pick_shape(brng, body), "f")
                return new, y

            carry, ys = lax.scan(step, carries, (seq, iv), reverse=reverse, unroll=unroll)
            return carry, ys
        if template.startswith("fori"):
            buf = {"zeros": lambda: jnp.zeros((max(t, 1), h), fdt),
                   "constant": lambda: jnp.asarray(
                       np.arange(max(t, 1) * h).reshape(max(t, 1), h), fdt),
                   "argument": lambda: u if u.shape[0] >= 1 else jnp.zeros((1, h), fdt)
                   }[buf_init]()

            def fbody(i: Any, state: Any) -> Any:
                carry, acc = state
                new = update(carry, reads(i), True)
                v = body.value((h,), "f")
                if brng.random() < 0.5:
                    acc = lax.dynamic_update_index_in_dim(acc, v, i if brng.random() < 0.5
                                                          else 2 * i - 1, 0)
                else:
                    acc = acc.at[i].set(v)
                return new, acc

            if template == "fori_static":
                return lax.fori_loop(static[0], static[1], fbody, (carries, buf)), buf
            return lax.fori_loop(lo_, n_, fbody, (carries, buf)), buf
        if template.startswith("while_counted"):
            def test(carry: tuple[Any, ...]) -> Any:
                body.budget = 3
                body.pool = [*carry, *ambient]
                return body.value((), "b")
            # (drawn apart: the other programs stay those of their seeds)
            early = np.random.default_rng(body_seed ^ 0x5EED).random() < 0.5
            return _counted_while(jnp, lax, counted, update, reads, lo_, n_, carries,
                                  test if early else None)
        limit = jnp.minimum(n_, 7)

        def cond(state: Any) -> Any:
            k, carry = state
            body.budget = 3
            body.pool = [*carry, *ambient]
            return jnp.logical_and(k < limit, jnp.logical_or(body.value((), "b"), k < 2))

        def wbody(state: Any) -> Any:
            k, carry = state
            return k + jnp.asarray(1, k.dtype), update(carry, reads(k), True)

        return lax.while_loop(cond, wbody, (lo_, carries))

    sink = bool(rng.random() < 0.5)
    if rng.random() < 0.12:  # the loops inside a lax.cond's branches
        def branched(*a: Any) -> Any:
            from jax import lax
            return lax.cond(a[4] > 0, lambda o: fn(*o), lambda o: fn(-o[0], *o[1:]), a)
        return Spec(branched, args, x64, template + "+cond", sink)
    return Spec(fn, args, x64, template, sink)


def _gated(jnp: Any, lax: Any, template: str, xs: Any, w: Any, u: Any, b: Any, h0: Any,
           reverse: bool, unroll: int) -> Any:
    """An LSTM or GRU over xs: one gates projection sliced into its gates (hoist.py's
    sibling slices, batching.py's paired exps, scan_inputs.py's x @ W)."""
    import jax
    n = 4 if template == "lstm" else 3
    w4 = jnp.concatenate([w * k for k in (1.0, 0.5, -1.0, 2.0)[:n]], axis=1)
    u4 = jnp.concatenate([u * k for k in (1.0, -0.5, 0.25, 1.5)[:n]], axis=1)
    b4 = jnp.concatenate([b + k for k in range(n)])
    hd = h0.shape[0]
    sig = jax.nn.sigmoid

    def step(carry: Any, x: Any) -> Any:
        hh, cc = carry
        xp = x @ w4 + b4
        if template == "lstm":
            g = xp + hh @ u4
            i, f, gg, o = (g[k * hd:(k + 1) * hd] for k in range(4))
            cc = sig(f) * cc + sig(i) * jnp.tanh(gg)
            hh = sig(o) * jnp.tanh(cc)
        else:
            hu = hh @ u4
            r = sig(xp[:hd] + hu[:hd])
            z = sig(xp[hd:2 * hd] + hu[hd:2 * hd])
            nn = jnp.tanh(xp[2 * hd:] + r * hu[2 * hd:])
            hh = (1 - z) * nn + z * hh
        return (hh.astype(h0.dtype), cc.astype(h0.dtype)), hh

    return lax.scan(step, (h0, h0 * 0.5), xs, reverse=reverse, unroll=unroll)


def _counted_choice(rng: np.random.Generator, x64: bool) -> dict[str, Any]:
    """A counted while loop's shape: counter dtype, step, comparison, bound, start offset,
    whether a second counter starts equal (ranges.py's versioning and aliasing)."""
    pick = lambda seq: seq[int(rng.integers(0, len(seq)))]  # noqa: E731
    dtype = pick(["int32", "int32", "int8", "uint8", "int16"] + (["int64"] if x64 else []))
    info = np.iinfo(dtype)
    step = int(pick([1, 1, 1, 2, 3]))
    compare = pick(["<", "<", "<=", ">(flipped)", "!="])
    top = int(info.max) - step - 1
    bound = int(pick([0, 1, 3, 5, 6, top, top - 100, -1, -3]))
    bound = max(min(bound, top), int(info.min) + 5)
    start = int(pick([0, 0, bound - 4, bound - 40, -3, int(info.min), bound + 1]))
    start = max(min(start, int(info.max) - 2), int(info.min))
    if start < bound - 150:
        start = bound - 150
    return {"dtype": dtype, "step": step, "compare": compare, "bound": bound,
            "start": start, "twin": pick(["same", "same", "other", "none"])}


def _counted_while(jnp: Any, lax: Any, c: dict[str, Any], update: Callable[..., Any],
                   reads: Callable[[Any], list[Any]], lo_: Any, n_: Any,
                   carries: tuple[Any, ...], test: Callable[[Any], Any] | None) -> Any:
    """`while k < bound: k += step` (or <=, a flipped >, !=), maybe with a twin counter,
    the body reading at the counters; with `test`, `while k < bound and test(carry)` (an
    early exit: interpreter/exit_tests.py)."""
    dt = np_dtype(c["dtype"])
    # (made inside the regions: a constant made outside is carried by the while)
    k0 = (lo_.astype(dt) + jnp.asarray(c["start"], dt)).astype(dt)
    twin = {"same": k0, "other": (n_.astype(dt) + jnp.asarray(c["start"], dt)).astype(dt),
            "none": None}[c["twin"]]

    def cond(state: Any) -> Any:
        k, bound = state[0], jnp.asarray(c["bound"], dt)
        bounded = {"<": lambda: k < bound, "<=": lambda: k <= bound,
                   ">(flipped)": lambda: bound > k,
                   "!=": lambda: (k != bound) & (k < bound)}[c["compare"]]()
        return bounded if test is None else bounded & test(state[2])

    def wbody(state: Any) -> Any:
        k, j, carry = state
        step = jnp.asarray(c["step"], dt)
        index = k if j is None else j
        return (k + step, None if j is None else j + step,
                update(carry, reads(index.astype(jnp.int32)), True))

    return lax.while_loop(cond, wbody, (k0, twin, carries))


def pick_read(rng: np.random.Generator, seq: Any, i: Any, t: int, lax: Any) -> Any:
    """One row of `seq` at an index derived from the counter `i`."""
    r = rng.random()
    if r < 0.3:
        return seq[i]
    if r < 0.5:
        return seq[t - 1 - i]
    if r < 0.65:
        return seq[-1 - i]
    if r < 0.8:
        return lax.dynamic_index_in_dim(seq, 2 * i + 1, 0, keepdims=False)
    return lax.dynamic_slice_in_dim(seq, i, min(2, t), 0).sum(0).astype(seq.dtype)


def pick_shape(rng: np.random.Generator, body: Body) -> tuple[int, ...]:
    shapes = sorted({v.shape for v in body.pool})
    return shapes[int(rng.integers(0, len(shapes)))]


def _inner(jax: Any, body: Body, value: Any, trips: int, rng: np.random.Generator) -> Any:
    """`value` through an inner fori_loop or scan of a few steps."""
    lax = jax.lax
    kind = _kind(value.dtype)

    def ibody(j: Any, v: Any) -> Any:
        saved = body.pool
        body.pool = [v, j.astype(body.idt), *saved]
        body.budget = 4
        out = body.value(v.shape, kind).astype(v.dtype)
        body.pool = saved
        return out

    if rng.random() < 0.5:
        return lax.fori_loop(0, trips, ibody, value)
    return lax.fori_loop(0, trips + 1, ibody, value, unroll=False)


_CONST = re.compile(r"^\s*(%[\w.$-]+) = (stablehlo\.constant [^\n]*?)(?: loc\(.*\))?$")
_NAME = r"(?![\w.$-])"


def sink_constants(text: str) -> str:
    """The module with each function-level constant a while region reads copied into that
    region (renamed), as older jax versions and hand-written programs place them: jax 0.10
    hoists them all to the function's top, where the loop compiler sees a bound like
    `i < 5` only as a value of the frame (ranges.py's versioning needs the constant)."""
    lines = text.split("\n")
    consts: dict[str, str] = {}
    out: list[str] = []
    k = 0
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith("func.func"):
            consts = {}
        m = _CONST.match(line)
        if m and line.startswith("    %"):  # a top-level statement of a function body
            consts[m.group(1)] = m.group(2)
        if line.rstrip().endswith(("cond {", "} do {")):
            end = _region_end(lines, i)
            span = "\n".join(lines[i + 1:end])
            used = [n for n in consts if re.search(re.escape(n) + _NAME, span)]
            out.append(line)
            indent = " " * (len(line) - len(line.lstrip()) + 2)
            region = lines[i + 1:end]
            for name in used:
                k += 1
                new = f"{name}_sunk{k}"
                out.append(f"{indent}{new} = {consts[name]}")
                region = [re.sub(re.escape(name) + _NAME, new, r) for r in region]
            out.extend(region)
            i = end
            continue
        out.append(line)
        i += 1
    return "\n".join(out)


def _region_end(lines: list[str], start: int) -> int:
    """The index of the line closing the region opened on line `start` (`}` or `} do {`)."""
    depth = 1
    for j in range(start + 1, len(lines)):
        s = lines[j].strip()
        if s.startswith("}"):
            depth -= 1
            if depth == 0:
                return j
            s = s[1:]
        depth += s.count("{") - s.count("}")
    return len(lines)
