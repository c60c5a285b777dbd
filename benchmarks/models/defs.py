"""The benchmark models as JAX functions, with seeded random inputs.

`generate.py` exports each one to StableHLO text (`NAME.mlir`, committed next to this file);
`make bench` interprets those files and, when jax is installed, times `jax.jit` of the same
function on the same inputs. Only `inputs()` runs without jax (numpy only).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from archs import SPECS as ARCH_SPECS
from archs import functions as arch_functions

# name -> (input shapes and dtypes, description)
SPECS: dict[str, tuple[list[tuple[tuple[int, ...], str]], str]] = {
    "cnn": ([((8, 32, 32, 3), "float32"), ((3, 3, 3, 16), "float32"), ((16,), "float32"),
             ((3, 3, 16, 32), "float32"), ((32,), "float32"), ((32, 10), "float32")],
            "2 convs (3x3, stride 1 and 2) + relu + avg pool + dense, batch 8, 32x32"),
    "rnn_scalar": ([((1000,), "float32"), ((3,), "float32")],
                   "1,000-step scalar RNN: fori_loop, h = tanh(w*h + u*x[i] + b)"),
    "mlp_train": ([((64, 32), "float32"), ((64, 10), "float32"), ((32, 128), "float32"),
                   ((128, 10), "float32")],
                  "fori_loop of 20 SGD steps of a 2-layer MLP (batch 64, hidden 128)"),
    "transformer": ([((64, 128), "float32"), ((2, 128, 384), "float32"),
                     ((2, 128, 128), "float32"), ((2, 128, 256), "float32"),
                     ((2, 256, 128), "float32")],
                    "2 pre-norm layers, seq 64, d 128, 4 heads, gelu MLP"),
    "sort_scan": ([((262144,), "float32")],
                  "sort, argsort and cumsum of 256k floats"),
}
# The real-architecture suite (archs.py): batch 1, every weight an argument.
ARCHS = tuple(ARCH_SPECS)
SPECS.update(ARCH_SPECS)


def inputs(name: str, seed: int = 0) -> list[np.ndarray]:
    """Seeded random arguments for model `name` (scaled so nothing overflows)."""
    rng = np.random.default_rng(seed)
    shapes, _ = SPECS[name]
    out = []
    for shape, spec in shapes:
        dtype, _, marker = spec.partition(":")
        if dtype.startswith("int"):  # token ids below the vocabulary size
            out.append(rng.integers(0, int(marker), shape).astype(dtype))
            continue
        scale = 1.0 / np.sqrt(shape[-2]) if len(shape) >= 2 and name != "cnn" else 0.3
        x = rng.standard_normal(shape) * scale
        out.append((np.abs(x) + 0.5 if marker == "pos" else x).astype(dtype))
    return out


def functions() -> dict[str, Callable[..., Any]]:
    """The JAX functions (imports jax)."""
    import jax
    import jax.numpy as jnp

    def cnn(x, k1, b1, k2, b2, w):
        dn = ("NHWC", "HWIO", "NHWC")
        y = jax.lax.conv_general_dilated(x, k1, (1, 1), "SAME", dimension_numbers=dn) + b1
        y = jax.nn.relu(y)
        y = jax.lax.conv_general_dilated(y, k2, (2, 2), "SAME", dimension_numbers=dn) + b2
        y = jax.nn.relu(y)
        y = jax.lax.reduce_window(y, 0.0, jax.lax.add, (1, 2, 2, 1), (1, 2, 2, 1), "VALID") / 4
        return y.mean(axis=(1, 2)) @ w

    def rnn_scalar(xs, p):
        def step(i, h):
            return jnp.tanh(p[0] * h + p[1] * xs[i] + p[2])
        return jax.lax.fori_loop(0, 1000, step, jnp.float32(0.0))

    def mlp_train(x, y, w1, w2):
        def loss(params):
            a, b = params
            h = jnp.tanh(x @ a)
            return jnp.mean((h @ b - y) ** 2)

        def step(_, params):
            grads = jax.grad(loss)(params)
            return tuple(p - 0.05 * g for p, g in zip(params, grads, strict=True))
        return jax.lax.fori_loop(0, 20, step, (w1, w2))

    def transformer(x, wqkv, wo, w1, w2):
        def norm(h):
            mu = h.mean(-1, keepdims=True)
            var = ((h - mu) ** 2).mean(-1, keepdims=True)
            return (h - mu) * jax.lax.rsqrt(var + 1e-5)
        for layer in range(2):
            qkv = norm(x) @ wqkv[layer]
            q, k, v = jnp.split(qkv.reshape(64, 3, 4, 32), 3, axis=1)
            q, k, v = q[:, 0], k[:, 0], v[:, 0]
            att = jax.nn.softmax(jnp.einsum("qhd,khd->hqk", q, k) / np.sqrt(32.0), axis=-1)
            x = x + jnp.einsum("hqk,khd->qhd", att, v).reshape(64, 128) @ wo[layer]
            x = x + jax.nn.gelu(norm(x) @ w1[layer]) @ w2[layer]
        return x

    def sort_scan(x):
        return jnp.sort(x), jnp.argsort(x), jnp.cumsum(x)

    return {"cnn": cnn, "rnn_scalar": rnn_scalar, "mlp_train": mlp_train,
            "transformer": transformer, "sort_scan": sort_scan, **arch_functions()}
