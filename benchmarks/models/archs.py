"""Real architectures at batch 1, params as arguments (issue 13's "suite of real
architectures"): written in plain jax.numpy + lax the way Keras applications compute them at
inference (batch norm with moving statistics, relu6, same padding), small enough that each
exported file stays a few KB (no dense constants: every weight is an argument).

Input markers in SPECS: "float32:pos" (batch-norm variances, positive), "int32:N" (token ids
below N); `defs.inputs` reads them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Shape = tuple[int, ...]


def _conv_specs(kh: int, cin: int, cout: int, bn: bool = True) -> list[tuple[Shape, str]]:
    out: list[tuple[Shape, str]] = [((kh, kh, cin, cout), "float32")]
    if bn:  # gamma, beta, moving mean, moving variance
        out += [((cout,), "float32"), ((cout,), "float32"), ((cout,), "float32"),
                ((cout,), "float32:pos")]
    return out


def _resnet_specs() -> list[tuple[Shape, str]]:
    specs: list[tuple[Shape, str]] = [((1, 32, 32, 3), "float32")]
    specs += _conv_specs(3, 3, 16)
    for _ in range(2):  # two identity blocks at 16 channels
        specs += _conv_specs(3, 16, 16) + _conv_specs(3, 16, 16)
    # a downsampling block to 32 channels with a 1x1 projection shortcut
    specs += _conv_specs(3, 16, 32) + _conv_specs(3, 32, 32) + _conv_specs(1, 16, 32)
    specs += _conv_specs(3, 32, 32) + _conv_specs(3, 32, 32)
    return specs + [((32, 10), "float32"), ((10,), "float32")]


_MOBILE = [(16, 32, 1), (32, 64, 2), (64, 64, 1), (64, 128, 2), (128, 128, 1)]


def _mobilenet_specs() -> list[tuple[Shape, str]]:
    specs: list[tuple[Shape, str]] = [((1, 64, 64, 3), "float32")]
    specs += _conv_specs(3, 3, 16)
    for cin, cout, _ in _MOBILE:  # depthwise 3x3 (HWIO with I = 1) + pointwise 1x1
        specs += _conv_specs(3, 1, cin) + _conv_specs(1, cin, cout)
    return specs + [((128, 10), "float32"), ((10,), "float32")]


_GROWTH, _DENSE_LAYERS = 12, 4


def _densenet_specs() -> list[tuple[Shape, str]]:
    specs: list[tuple[Shape, str]] = [((1, 32, 32, 3), "float32")]
    specs += _conv_specs(3, 3, 24, bn=False)
    channels = 24
    for block in range(2):
        for _ in range(_DENSE_LAYERS):  # BN-relu-conv1x1 (bottleneck 4k), BN-relu-conv3x3
            specs += [((channels,), "float32")] * 3 + [((channels,), "float32:pos")]
            specs += _conv_specs(1, channels, 4 * _GROWTH, bn=False)
            specs += [((4 * _GROWTH,), "float32")] * 3 + [((4 * _GROWTH,), "float32:pos")]
            specs += _conv_specs(3, 4 * _GROWTH, _GROWTH, bn=False)
            channels += _GROWTH
        if block == 0:  # transition: BN-relu-conv1x1 (halving channels) + 2x2 avg pool
            specs += [((channels,), "float32")] * 3 + [((channels,), "float32:pos")]
            specs += _conv_specs(1, channels, channels // 2, bn=False)
            channels //= 2
    return specs + [((channels,), "float32")] * 3 + [((channels,), "float32:pos")] + [
        ((channels, 10), "float32"), ((10,), "float32")]


_SEQ, _VOCAB, _D, _HEADS, _LAYERS = 32, 1000, 64, 4, 2
_NEXT_C, _EFF_C, _GRU_STEPS, _GRU_H = 32, 16, 64, 64
_DEC_T, _GRAPH_N, _GRAPH_E = 128, 256, 2048
_LOCAL_T = 256
_VIT_D, _VIT_PATCH = 64, 16
_UNET_C = (3, 16, 32, 64)
_BI_STEPS, _BI_H = 40, 32
_RNN_STEPS, _RNN_H = 100, 32
_GEN_T, _GEN_V = 32, 100  # greedy decoding: steps (the KV cache's length), vocabulary


def _convnext_specs() -> list[tuple[Shape, str]]:
    c = _NEXT_C
    block = [((7, 7, 1, c), "float32"), ((c,), "float32:pos"), ((c,), "float32"),
             ((c, 4 * c), "float32"), ((4 * c,), "float32"), ((4 * c, c), "float32"),
             ((c,), "float32"), ((c,), "float32")]
    return [((1, 64, 64, 3), "float32"), ((4, 4, 3, c), "float32")] + block * 3


def _efficient_specs() -> list[tuple[Shape, str]]:
    c = _EFF_C
    block = [((1, 1, c, 4 * c), "float32"), ((3, 3, 1, 4 * c), "float32"),
             ((4 * c, 4), "float32"), ((4,), "float32"), ((4, 4 * c), "float32"),
             ((4 * c,), "float32"), ((1, 1, 4 * c, c), "float32"), ((c,), "float32"),
             ((c,), "float32"), ((c,), "float32"), ((c,), "float32:pos")]
    return [((1, 64, 64, 3), "float32"), ((3, 3, 3, c), "float32")] + block * 3

def _vit_specs() -> list[tuple[Shape, str]]:
    d = _VIT_D
    layer = [((d, d), "float32")] * 4 + [((d, 4 * d), "float32"), ((4 * d, d), "float32")]
    return ([((1, 64, 64, 3), "float32"), ((_VIT_PATCH, _VIT_PATCH, 3, d), "float32"),
             ((17, d), "float32"), ((d,), "float32")] + layer * 2 + [((d, 10), "float32")])


def _unet_specs() -> list[tuple[Shape, str]]:
    c0, c1, c2, c3 = _UNET_C
    return [((1, 64, 64, c0), "float32"), ((3, 3, c0, c1), "float32"),
            ((3, 3, c1, c2), "float32"), ((3, 3, c2, c3), "float32"),
            ((2, 2, c3, c2), "float32"), ((3, 3, 2 * c2, c2), "float32"),
            ((2, 2, c2, c1), "float32"), ((3, 3, 2 * c1, c1), "float32"),
            ((1, 1, c1, 2), "float32")]


def _bilstm_specs() -> list[tuple[Shape, str]]:
    h = _BI_H
    direction = [((16, 4 * h), "float32"), ((h, 4 * h), "float32"), ((4 * h,), "float32")]
    return [((_BI_STEPS, 1, 16), "float32")] + direction * 2 + [((2 * h, 5), "float32")]


SPECS: dict[str, tuple[list[tuple[Shape, str]], str]] = {
    "resnet": (_resnet_specs(), "ResNet-style: stem + 4 basic residual blocks (BN, relu, "
               "1x1 projection), 32x32x3, batch 1"),
    "mobilenet": (_mobilenet_specs(), "MobileNet-style: stem + 5 depthwise-separable blocks "
                  "(BN, relu6), 64x64x3, batch 1"),
    "densenet": (_densenet_specs(), "DenseNet-style: 2 dense blocks of 4 bottleneck layers "
                 "(growth 12, concat) + transition, 32x32x3, batch 1"),
    "lstm": ([((1, _SEQ, 16), "float32"), ((16, 256), "float32"), ((64, 256), "float32"),
              ((256,), "float32"), ((64, 10), "float32"), ((10,), "float32")],
             "LSTM (lax.scan) over 32 steps, input 16, hidden 64, dense head, batch 1"),
    "classifier": ([((1, _SEQ), f"int32:{_VOCAB}"), ((_VOCAB, _D), "float32"),
                    ((_SEQ, _D), "float32")]
                   + [((_D,), "float32"), ((_D,), "float32"), ((_D, 3 * _D), "float32"),
                      ((_D, _D), "float32"), ((_D,), "float32"), ((_D,), "float32"),
                      ((_D, 4 * _D), "float32"), ((4 * _D, _D), "float32")] * _LAYERS
                   + [((_D, 2), "float32"), ((2,), "float32")],
                   "transformer text classifier: token + position embedding, 2 post-norm "
                   "layers (d 64, 4 heads, gelu), mean pool, batch 1, 32 tokens"),
    "convnext": (_convnext_specs(), "ConvNeXt-style: 4x4/4 stem + 3 blocks (depthwise 7x7, "
                 "layer norm, 4x MLP with exact erf gelu, layer scale), 64x64x3, batch 1"),
    "efficientnet": (_efficient_specs(), "EfficientNet-style: stem + 3 MBConv blocks (1x1 "
                     "expand, depthwise 3x3, swish, squeeze-excite, BN), 64x64x3, batch 1"),
    "gru": ([((_GRU_STEPS, 1, 32), "float32")]
            + [((32, _GRU_H), "float32"), ((_GRU_H, _GRU_H), "float32")] * 3,
            "GRU (lax.scan) over 64 steps, input 32, hidden 64, all hidden states summed"),
    "decoder": ([((_DEC_T,), "int32:500"), ((500, _D), "float32")]
                + [((_D, _D), "float32")] * 4,
                "causal self-attention decoder layer: embedding gather, -1e9 mask, softmax, "
                "top_k 8, cumsum gathered at the top positions, 128 tokens"),
    "gnn": ([((_GRAPH_N, 32), "float32"), ((_GRAPH_E,), f"int32:{_GRAPH_N}"),
             ((_GRAPH_E,), f"int32:{_GRAPH_N}"), ((32, 32), "float32")],
            "graph message passing: gather of 2048 edge sources, segment sum (scatter-add) "
            "onto 256 nodes, argsort by the first feature"),
    "dropout_mlp": ([((64, 128), "float32"), ((128, 256), "float32"), ((256, 10), "float32")],
                    "MLP with training-mode dropout (threefry random bits, rate 0.1), batch 64"),
    "mlp_bf16": ([((32, 128), "float32"), ((128, 256), "float32"), ((256, 256), "float32"),
                  ((256, 10), "float32")],
                 "bf16 MLP (tanh gelu), f32 in and out, batch 32"),
    "vae": ([((32, 256), "float32"), ((256, 128), "float32"), ((128, 32), "float32"),
             ((128, 32), "float32"), ((32, 128), "float32"), ((128, 256), "float32")],
            "VAE step: encoder, reparameterized jax.random.normal sample (erf_inv), decoder, "
            "sigmoid reconstruction loss + KL, batch 32"),
    "local_attn": ([((_LOCAL_T, _D), "float32")] + [((_D, _D), "float32")] * 4
                   + [((_D, 100), "float32"), ((_LOCAL_T,), "int32:100")],
                   "sliding-window causal attention (window 32, -inf mask), 256 tokens, then a "
                   "100-class head: log_softmax cross-entropy and argmax accuracy"),
    "vit": (_vit_specs(), "ViT-style: 16x16/16 patch embedding of 64x64x3, class token, 2 "
            "pre-norm layers (d 64, 4 heads, tanh gelu), batch 1"),
    "unet": (_unet_specs(), "U-Net-style: 3 conv levels with 2x2 max pools, 2 up levels with "
             "2x2/2 transposed convs and skip concats, 64x64x3, batch 1"),
    "bilstm": (_bilstm_specs(), "bidirectional LSTM (a forward and a reverse lax.scan) over 40 "
               "steps, input 16, hidden 32, dense head on every step, batch 1"),
    "lstm_bf16": ([((1, _SEQ, 16), "float32"), ((16, 256), "float32"), ((64, 256), "float32"),
                   ((256,), "float32"), ((64, 10), "float32"), ((10,), "float32")],
                  "the LSTM computed in bf16 from f32 arguments (Keras' mixed_bfloat16 policy), "
                  "f32 result"),
    "mobilenet_bf16": (_mobilenet_specs(), "the MobileNet computed in bf16 from f32 arguments "
                       "(Keras' mixed_bfloat16 policy), f32 result"),
    "simple_rnn": ([((_RNN_STEPS, 1, 8), "float32"), ((8, _RNN_H), "float32"),
                    ((_RNN_H, _RNN_H), "float32"), ((_RNN_H,), "float32"),
                    ((_RNN_H, 3), "float32")],
                   "Keras SimpleRNN (tanh) over 100 steps, input 8, hidden 32, softmax head, "
                   "batch 1"),
    "gpt_decode": ([((_GEN_V, _D), "float32"), ((_GEN_T, _D), "float32")]
                   + [((_LAYERS, _D, _D), "float32")] * 4
                   + [((_LAYERS, _D, 4 * _D), "float32"), ((_LAYERS, 4 * _D, _D), "float32"),
                      ((), f"int32:{_GEN_V}")],
                   "GPT-style greedy decoding (fori_loop) of 32 tokens: 2 pre-norm layers "
                   "(d 64, 4 heads, gelu), KV cache updated in place, causal -1e9 mask, "
                   "tied embedding head, argmax"),
}


def functions() -> dict[str, Callable[..., Any]]:
    """The JAX functions (imports jax)."""
    import jax
    import jax.numpy as jnp

    lax = jax.lax
    dn = ("NHWC", "HWIO", "NHWC")

    def conv(x: Any, k: Any, stride: int = 1, groups: int = 1) -> Any:
        return lax.conv_general_dilated(x, k, (stride, stride), "SAME", dimension_numbers=dn,
                                        feature_group_count=groups)

    def bn(x: Any, gamma: Any, beta: Any, mean: Any, var: Any) -> Any:
        return (x - mean) * lax.rsqrt(var + 1e-3) * gamma + beta

    def conv_bn(x: Any, p: list[Any], stride: int = 1, groups: int = 1) -> Any:
        k, *stats = (p.pop(0) for _ in range(5))
        return bn(conv(x, k, stride, groups), *stats)

    def resnet(x: Any, *params: Any) -> Any:
        p = list(params)
        y = jax.nn.relu(conv_bn(x, p))
        for _ in range(2):
            h = jax.nn.relu(conv_bn(y, p))
            y = jax.nn.relu(conv_bn(h, p) + y)
        h = jax.nn.relu(conv_bn(y, p, 2))
        h = conv_bn(h, p)
        y = jax.nn.relu(h + conv_bn(y, p, 2))
        h = jax.nn.relu(conv_bn(y, p))
        y = jax.nn.relu(conv_bn(h, p) + y)
        w, b = p
        return y.mean(axis=(1, 2)) @ w + b

    def mobilenet(x: Any, *params: Any) -> Any:
        p = list(params)
        y = jax.nn.relu6(conv_bn(x, p, 2))
        for cin, _, stride in _MOBILE:
            y = jax.nn.relu6(conv_bn(y, p, stride, groups=cin))
            y = jax.nn.relu6(conv_bn(y, p))
        w, b = p
        return jax.nn.softmax(y.mean(axis=(1, 2)) @ w + b)

    def densenet(x: Any, *params: Any) -> Any:
        p = list(params)
        y = conv(x, p.pop(0))

        def bn_relu(h: Any) -> Any:
            return jax.nn.relu(bn(h, *(p.pop(0) for _ in range(4))))

        for block in range(2):
            for _ in range(_DENSE_LAYERS):
                h = conv(bn_relu(y), p.pop(0))
                h = conv(bn_relu(h), p.pop(0))
                y = jnp.concatenate([y, h], axis=-1)
            if block == 0:
                y = conv(bn_relu(y), p.pop(0))
                y = lax.reduce_window(y, 0.0, lax.add, (1, 2, 2, 1), (1, 2, 2, 1), "VALID") / 4
        y = bn_relu(y)
        w, b = p
        return y.mean(axis=(1, 2)) @ w + b

    def lstm(xs: Any, wx: Any, wh: Any, b: Any, wo: Any, bo: Any) -> Any:
        def step(carry: Any, x: Any) -> Any:
            h, c = carry
            gates = x @ wx + h @ wh + b
            i, f, g, o = jnp.split(gates, 4, axis=-1)
            c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
            h = jax.nn.sigmoid(o) * jnp.tanh(c)
            return (h, c), None

        zeros = jnp.zeros((xs.shape[0], 64), xs.dtype)
        (h, _), _ = lax.scan(step, (zeros, zeros), jnp.swapaxes(xs, 0, 1))
        return h @ wo + bo

    def classifier(tokens: Any, embed: Any, pos: Any, *params: Any) -> Any:
        p = list(params)

        def norm(h: Any, g: Any, b: Any) -> Any:
            mu = h.mean(-1, keepdims=True)
            var = ((h - mu) ** 2).mean(-1, keepdims=True)
            return (h - mu) * lax.rsqrt(var + 1e-6) * g + b

        x = embed[tokens[0]] + pos
        for _ in range(_LAYERS):
            g1, b1, wqkv, wo, g2, b2, w1, w2 = (p.pop(0) for _ in range(8))
            q, k, v = jnp.split((x @ wqkv).reshape(_SEQ, 3, _HEADS, _D // _HEADS), 3, axis=1)
            att = jax.nn.softmax(jnp.einsum("qhd,khd->hqk", q[:, 0], k[:, 0])
                                 / jnp.sqrt(jnp.float32(_D // _HEADS)), axis=-1)
            x = norm(x + jnp.einsum("hqk,khd->qhd", att, v[:, 0]).reshape(_SEQ, _D) @ wo,
                     g1, b1)
            x = norm(x + jax.nn.gelu(x @ w1) @ w2, g2, b2)
        w, b = p
        return jax.nn.softmax(x.mean(0) @ w + b)[None]

    def layer_norm(h: Any, g: Any, b: Any) -> Any:
        mu = h.mean(-1, keepdims=True)
        return (h - mu) * lax.rsqrt(((h - mu) ** 2).mean(-1, keepdims=True) + 1e-6) * g + b

    def convnext(x: Any, stem: Any, *params: Any) -> Any:
        p = list(params)
        h = lax.conv_general_dilated(x, stem, (4, 4), "VALID", dimension_numbers=dn)
        for _ in range(3):
            dw, g, b, w1, b1, w2, b2, scale = (p.pop(0) for _ in range(8))
            y = layer_norm(conv(h, dw, groups=_NEXT_C), g, b)
            y = jax.nn.gelu(y @ w1 + b1, approximate=False)
            h = h + (y @ w2 + b2) * scale
        return h.mean(axis=(1, 2))

    def efficientnet(x: Any, stem: Any, *params: Any) -> Any:
        p = list(params)
        h = jax.nn.swish(conv(x, stem, 2))
        for _ in range(3):
            expand, dw, w1, b1, w2, b2, project, *stats = (p.pop(0) for _ in range(11))
            y = jax.nn.swish(conv(h, expand))
            y = jax.nn.swish(conv(y, dw, groups=4 * _EFF_C))
            s = y.mean(axis=(1, 2), keepdims=True)
            y = y * jax.nn.sigmoid(jax.nn.swish(s @ w1 + b1) @ w2 + b2)
            h = h + bn(conv(y, project), *stats)
        return h.mean(axis=(1, 2))

    def gru(xs: Any, wz: Any, uz: Any, wr: Any, ur: Any, wh: Any, uh: Any) -> Any:
        def step(h: Any, x: Any) -> Any:
            z = jax.nn.sigmoid(x @ wz + h @ uz)
            r = jax.nn.sigmoid(x @ wr + h @ ur)
            h = (1 - z) * h + z * jnp.tanh(x @ wh + (r * h) @ uh)
            return h, h

        _, hs = lax.scan(step, jnp.zeros((1, _GRU_H), xs.dtype), xs)
        return hs.sum(0)

    def decoder(tokens: Any, embed: Any, wq: Any, wk: Any, wv: Any, wo: Any) -> Any:
        h = embed[tokens]
        heads = [(h @ w).reshape(_DEC_T, _HEADS, _D // _HEADS).transpose(1, 0, 2)
                 for w in (wq, wk, wv)]
        s = jnp.einsum("hqd,hkd->hqk", heads[0], heads[1]) / 4.0
        s = jnp.where(jnp.tril(jnp.ones((_DEC_T, _DEC_T), bool)), s, -1e9)
        o = jnp.einsum("hqk,hkd->hqd", jax.nn.softmax(s, -1), heads[2])
        o = o.transpose(1, 0, 2).reshape(_DEC_T, _D) @ wo
        top, at = lax.top_k(o.sum(-1), 8)
        return jnp.cumsum(o, 0)[at].sum(0) + top.sum()

    def gnn(features: Any, src: Any, dst: Any, w: Any) -> Any:
        summed = jnp.zeros_like(features).at[dst].add(features[src] @ w)
        return summed[jnp.argsort(summed[:, 0])].sum(0)

    def dropout_mlp(x: Any, w1: Any, w2: Any) -> Any:
        h = jax.nn.relu(x @ w1)
        keep = jax.random.bernoulli(jax.random.PRNGKey(42), 0.9, h.shape)
        return jnp.where(keep, h / 0.9, 0) @ w2

    def mlp_bf16(x: Any, w1: Any, w2: Any, w3: Any) -> Any:
        x, w1, w2, w3 = (a.astype(jnp.bfloat16) for a in (x, w1, w2, w3))
        h = jax.nn.gelu(jax.nn.gelu(x @ w1) @ w2)
        return (h @ w3).astype(jnp.float32)

    def vae(x: Any, w1: Any, w_mu: Any, w_logvar: Any, w3: Any, w4: Any) -> Any:
        h = jax.nn.relu(x @ w1)
        mu, logvar = h @ w_mu, h @ w_logvar
        eps = jax.random.normal(jax.random.PRNGKey(7), mu.shape)
        z = mu + jnp.exp(0.5 * logvar) * eps
        logits = jax.nn.relu(z @ w3) @ w4
        reconstruction = -jnp.sum(x * jax.nn.log_sigmoid(logits)
                                  + (1 - x) * jax.nn.log_sigmoid(-logits))
        kl = -0.5 * jnp.sum(1 + logvar - mu ** 2 - jnp.exp(logvar))
        return reconstruction + kl

    def local_attn(x: Any, wq: Any, wk: Any, wv: Any, wo: Any, w_cls: Any,
                   labels: Any) -> Any:
        q, k, v = (x @ w for w in (wq, wk, wv))
        s = (q @ k.T) / 8.0
        i, j = jnp.arange(_LOCAL_T)[:, None], jnp.arange(_LOCAL_T)[None, :]
        s = jnp.where((j <= i) & (i - j < 32), s, -jnp.inf)
        h = x + (jax.nn.softmax(s, -1) @ v) @ wo
        logits = h @ w_cls
        log_p = jax.nn.log_softmax(logits, -1)
        loss = -jnp.take_along_axis(log_p, labels[:, None], 1).mean()
        accuracy = (jnp.argmax(logits, -1) == labels).mean()
        return loss, accuracy

    def vit(x: Any, patch: Any, pos: Any, cls: Any, *params: Any) -> Any:
        p = list(params)
        d = _VIT_D
        h = lax.conv_general_dilated(x, patch, (_VIT_PATCH, _VIT_PATCH), "VALID",
                                     dimension_numbers=dn).reshape(-1, d)
        h = jnp.concatenate([cls[None], h], 0) + pos
        ones, zeros = jnp.ones(d), jnp.zeros(d)
        for _ in range(2):
            wq, wk, wv, wo, w1, w2 = (p.pop(0) for _ in range(6))
            y = layer_norm(h, ones, zeros)
            q, k, v = ((y @ w).reshape(-1, _HEADS, d // _HEADS).transpose(1, 0, 2)
                       for w in (wq, wk, wv))
            att = jax.nn.softmax(q @ k.transpose(0, 2, 1) / jnp.sqrt(jnp.float32(d // _HEADS)))
            h = h + (att @ v).transpose(1, 0, 2).reshape(-1, d) @ wo
            h = h + jax.nn.gelu(layer_norm(h, ones, zeros) @ w1) @ w2
        return layer_norm(h, ones, zeros)[0] @ p[0]

    def unet(x: Any, c1: Any, c2: Any, c3: Any, u1: Any, c4: Any, u2: Any, c5: Any,
             out: Any) -> Any:
        def pool(h: Any) -> Any:
            return lax.reduce_window(h, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")

        def up(h: Any, k: Any) -> Any:
            return lax.conv_transpose(h, k, (2, 2), "SAME", dimension_numbers=dn)

        a = jax.nn.relu(conv(x, c1))
        b = jax.nn.relu(conv(pool(a), c2))
        c = jax.nn.relu(conv(pool(b), c3))
        d = jax.nn.relu(conv(jnp.concatenate([up(c, u1), b], -1), c4))
        e = jax.nn.relu(conv(jnp.concatenate([up(d, u2), a], -1), c5))
        return conv(e, out)

    def lstm_steps(xs: Any, wx: Any, wh: Any, b: Any, reverse: bool) -> Any:
        def step(carry: Any, x: Any) -> Any:
            h, c = carry
            i, f, g, o = jnp.split(x @ wx + h @ wh + b, 4, axis=-1)
            c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
            h = jax.nn.sigmoid(o) * jnp.tanh(c)
            return (h, c), h

        zeros = jnp.zeros((1, _BI_H), xs.dtype)
        return lax.scan(step, (zeros, zeros), xs, reverse=reverse)[1]

    def bilstm(xs: Any, *params: Any) -> Any:
        wx, wh, b, wx_back, wh_back, b_back = params[:6]
        forward = lstm_steps(xs, wx, wh, b, reverse=False)
        backward = lstm_steps(xs, wx_back, wh_back, b_back, reverse=True)
        return jnp.concatenate([forward, backward], -1)[:, 0] @ params[6]

    def simple_rnn(xs: Any, wx: Any, wh: Any, b: Any, head: Any) -> Any:
        def step(h: Any, x: Any) -> Any:
            return jnp.tanh(x @ wx + h @ wh + b), None

        h, _ = lax.scan(step, jnp.zeros((1, _RNN_H), xs.dtype), xs)
        return jax.nn.softmax(h @ head)

    def gpt_decode(embed: Any, pos: Any, wq: Any, wk: Any, wv: Any, wo: Any, w1: Any,
                   w2: Any, token: Any) -> Any:
        heads, width = _HEADS, _D // _HEADS

        def norm(x: Any) -> Any:
            mean = x.mean(-1, keepdims=True)
            return (x - mean) / jnp.sqrt(((x - mean) ** 2).mean(-1, keepdims=True) + 1e-5)

        def step(i: Any, carry: Any) -> Any:
            token, keys, values, out = carry
            x = embed[token] + pos[i]
            for layer in range(_LAYERS):
                h = norm(x)
                q, k, v = ((h @ w[layer]).reshape(heads, width) for w in (wq, wk, wv))
                keys = lax.dynamic_update_slice(keys, k[None, None], (layer, i, 0, 0))
                values = lax.dynamic_update_slice(values, v[None, None], (layer, i, 0, 0))
                s = jnp.einsum("hd,thd->ht", q, keys[layer]) / jnp.sqrt(float(width))
                s = jnp.where(jnp.arange(_GEN_T)[None] <= i, s, -1e9)
                o = jnp.einsum("ht,thd->hd", jax.nn.softmax(s, -1), values[layer])
                x = x + o.reshape(_D) @ wo[layer]
                x = x + jax.nn.gelu(norm(x) @ w1[layer]) @ w2[layer]
            token = jnp.argmax(norm(x) @ embed.T).astype(jnp.int32)
            return token, keys, values, out.at[i].set(token)

        cache = jnp.zeros((_LAYERS, _GEN_T, heads, width), embed.dtype)
        start = (token, cache, cache, jnp.zeros(_GEN_T, jnp.int32))
        return lax.fori_loop(0, _GEN_T, step, start)[3]

    def mixed_bf16(fn: Callable[..., Any]) -> Callable[..., Any]:
        """`fn` as Keras' mixed_bfloat16 policy runs a model: its f32 arguments rounded to
        bf16, every op in bf16, the result widened to f32."""
        def run(*args: Any) -> Any:
            narrow = (a.astype(jnp.bfloat16) if a.dtype == jnp.float32 else a for a in args)
            return fn(*narrow).astype(jnp.float32)
        return run

    return {"resnet": resnet, "mobilenet": mobilenet, "densenet": densenet, "lstm": lstm,
            "classifier": classifier, "convnext": convnext, "efficientnet": efficientnet,
            "gru": gru, "decoder": decoder, "gnn": gnn, "dropout_mlp": dropout_mlp,
            "mlp_bf16": mlp_bf16, "vae": vae, "local_attn": local_attn, "vit": vit,
            "unet": unet, "bilstm": bilstm, "simple_rnn": simple_rnn,
            "lstm_bf16": mixed_bf16(lstm), "mobilenet_bf16": mixed_bf16(mobilenet),
            "gpt_decode": gpt_decode}
