"""A block plan as one generated Python function: each op a line `vN = kN(vA, vB)`.

The generic plan loop pays, per op, for the step's attribute loads, an arity branch, an
itemgetter call on the environment dict and a dict store; in a scalar `while` body that is
as much as the kernel itself. Here a block's own values are local variables of a function
compiled once per plan; only what nested regions read (implicit captures) or what comes from
enclosing blocks goes through the shared environment dict. Constants (and small pure ops on
constants) are evaluated while compiling and become names of the function's globals: they
cost nothing per run. Locals holding large tensors are deleted after their last use, so
their buffers return to the allocator early (numpy reuses them for the next temporaries).

Each op is on its own line of the generated source, so a failing op is found from the
traceback's line number (`step_at`); no per-op bookkeeping is needed on the hot path.
"""

from __future__ import annotations

import functools
import itertools
import math
import operator
import re
import warnings
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from ..ir.core import Block, Operation, Region, Value
from ..ir.types import TensorType
from .batching import Chain, batch_groups, extend, group_line
from .blocked import chain_lines, find_chains, large_value
from .branches import BRANCHING, branch_lines
from .layouts import Layouts, row_like
from .pyscalar import (
    QUIETING,
    UNCLEAN,
    clean_value,
    exact_on_entry,
    expression,
    kind_of,
    plan_scalars,
    scalar_step_key,
)
from .ranges import Bound, Facts, analyse
from .row_writes import skipped_reshapes
from .scalar_writes import element_writes, owned_write
from .sigmoid import sigmoid_chains
from .splat import (
    runtime_splat_call,
    runtime_splats,
    splat_call,
    splat_position,
    splat_scalar,
)
from .steady import (
    holds_negative_zero,
    prepared,
    stacked_line,
    stacked_rows,
    steady_sums,
    steady_test,
)
from .zero_signs import signed_zero_sums

# Pure ops cheap enough to evaluate while compiling when all operands are constants, with
# results of at most this many elements (larger ones would stay alive for the whole run).
_FOLDABLE = frozenset(("stablehlo.constant", "stablehlo.broadcast_in_dim", "stablehlo.reshape",
                       "stablehlo.convert", "stablehlo.transpose", "stablehlo.iota",
                       "stablehlo.slice", "stablehlo.concatenate",
                       # elementwise ops on constants (a softmax's 1/sqrt(d), rotary
                       # embeddings' 10000 ** (iota / d) in a decoding loop, sinusoidal
                       # positions' sine and cosine of an iota)
                       *("stablehlo." + name for name in (
                           "add", "subtract", "multiply", "divide", "negate", "abs", "sqrt",
                           "rsqrt", "maximum", "minimum", "exponential", "log", "tanh",
                           "compare", "select", "and", "or", "not", "xor", "power", "sine",
                           "cosine", "tan", "atan2", "cbrt", "logistic", "log_plus_one",
                           "exponential_minus_one", "floor", "ceil", "round_nearest_even",
                           "round_nearest_afz", "sign", "remainder", "clamp", "is_finite",
                           "shift_left", "shift_right_arithmetic", "shift_right_logical",
                           "popcnt", "count_leading_zeros", "real", "imag", "complex"))))
_FOLD_LIMIT = 1 << 16
_COUNTER = itertools.count()
# Kernels that are bare numpy ufuncs warn from the generated function's frame; overflow to
# inf and the like are the ops' defined results (as in elementwise_numerics' filter).
_MODULE = "shlo_cli.interpreter.plan"
warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"shlo_cli\.interpreter\.plan$")


class CompiledBlock:
    """`run(frame, args)` -> the terminator's values; `step_at(tb)` -> the failing step."""

    __slots__ = ("run", "arity", "filename", "lines", "source")

    def __init__(self, run: Callable[[dict[Value, Any], Sequence[Any]], list[Any]],
                 arity: int, filename: str, lines: dict[int, Any], source: str) -> None:
        self.run = run
        self.source = source  # the generated code, for reading when debugging
        self.arity = arity
        self.filename = filename
        self.lines = lines

    def step_at(self, tb: Any) -> Any:
        """The step whose line raised, from a traceback through the generated function."""
        step = None
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == self.filename:
                step = self.lines.get(tb.tb_lineno, step)
            tb = tb.tb_next
        return step


def captured_values(block: Block) -> set[Value]:
    """Values read by ops inside the regions of `block`'s ops (at any depth)."""
    return region_reads(block.operations)


def region_reads(ops: Iterable[Operation]) -> set[Value]:
    """Values read by ops inside the regions of `ops` (at any depth)."""
    seen: set[Value] = set()
    stack = [r for op in ops for r in op.regions]
    while stack:
        region = stack.pop()
        for inner in region.blocks:
            for op in inner.operations:
                seen.update(op.operands)
                stack.extend(op.regions)
    return seen


def _fold(step: Any, consts: dict[Value, Any]) -> Any:
    """The step's value when it is a foldable pure op on constants, else None."""
    op: Operation = step.op
    if (op.name not in _FOLDABLE or op.regions or len(op.results) != 1
            or any(v not in consts for v in op.operands)):
        return None
    t = op.results[0].type
    if not (isinstance(t, TensorType) and t.is_static and math.prod(t.shape) <= _FOLD_LIMIT):
        return None
    try:
        with np.errstate(all="ignore"):
            value = step.fn(*[consts[v] for v in op.operands])
    except Exception:  # noqa: BLE001 - it fails at run time instead, where it is reported
        return None
    if isinstance(value, np.ndarray):
        if value.base is not None or value.flags.writeable:
            value = value.copy()  # own memory, then frozen: kernels copy read-only operands
        value.flags.writeable = False
        if value.ndim == 0:  # a numpy scalar: 0-d kernels take the scalar operators' path
            return value[()]
    elif not isinstance(value, np.generic):
        return None
    return value


class BlockCode:
    """One block's part of a generated function: `entry` stores the block's captured
    arguments for nested regions, `outer` reads values of enclosing blocks from the
    environment (once per run of the function), `lines` are the steps (each with the step
    its line runs), `returned` the terminator's operands as expressions."""

    __slots__ = ("entry", "outer", "lines", "returned", "locals", "scalar_args",
                 "clean_returned", "scalar", "fixes", "observed", "lists", "stores")

    def __init__(self) -> None:
        self.entry: list[str] = []
        self.outer: list[str] = []
        self.lines: list[tuple[str, Any]] = []
        self.returned: list[str] = []
        self.locals: set[str] = set()  # the names of step results
        # Scalar mode (pyscalar.py): the arguments held as Python scalars whose every use
        # takes one; whether each returned value is a Python scalar computed here.
        self.scalar_args: set[int] = set()
        self.clean_returned: list[bool] = []
        # Which lines are Python-scalar lines (pure: they may run twice), which of them
        # redo a float result that is NaN, and the float results read after the block or
        # as numpy values (a NaN among them: a NaN was computed in the block).
        self.scalar: set[int] = set()
        self.fixes: set[int] = set()
        self.observed: list[str] = []
        self.lists: dict[str, str] = {}  # the arrays read through lists: name -> list name
        self.stores: set[int] = set()  # lines writing an owned vector's element (observed)


def block_code(arguments: Sequence[Value], arg_names: Sequence[str], steps: Sequence[Any],
               terminator: Sequence[Value] | None, block: Block, fold: bool,
               ns: dict[str, Any], p: str, scalars: Collection[int] | None = None,
               returned_scalars: Collection[int] = (),
               bounds: Mapping[Value, Bound] | None = None,
               invariant: Collection[Value] | None = None,
               earlier: Mapping[Value, str] | None = None,
               plan_region: Callable[[Region], Any] | None = None,
               steady: Collection[Value] | None = None,
               owned: Collection[Value] = (), exact: Collection[int] = ()) -> BlockCode:
    """The code of one planned block, its arguments named `arg_names`, every other name it
    defines (in the function's locals and in `ns`, its globals) prefixed by `p`. With
    `scalars` (argument indices: those arguments are Python scalars), 0-d steps run on
    Python scalars where pyscalar.py can (scalar mode); the terminator operands at
    `returned_scalars` are then returned as Python scalars; `bounds`, of integer
    arguments, are propagated through them (ranges.py). Vectors the block does not change
    (`invariant` arguments, values of enclosing blocks) whose elements it reads by Python
    ints are read from lists (`lists`: the caller makes them, `x.tolist()`: a list item
    costs a fifth of `x.item(i)`); `earlier` values are locals the function defines before
    the block's code (loopgen.py's condition invariants), read as enclosing values are;
    with `plan_region` (a region's plan), if and case ops run their branches inline
    (branches.py). With `steady` (the block is a loop's body: these arguments and the
    values of enclosing blocks keep their values through one execution of the loop), the
    work steady.py finds on such operands runs once, in `outer`. `owned` arguments are
    vectors the caller owns (loopgen.py): their element writes are item assignments;
    `exact` float `scalars` are known to be no NaN (exact as Python floats)."""
    # (inlined copies of conditionals read the block's values too: inline.py)
    captured = captured_values(block) | region_reads(step.op for step in steps)
    names: dict[Value, str] = dict(zip(arguments, arg_names, strict=True))
    names.update(earlier or {})
    py: dict[Value, str] = {}  # scalar mode: values' Python-scalar names
    # ... those computed here, which may be converted back (pyscalar.py; a value converted
    # from numpy is left to its numpy name: it may be a 0-d array, not a numpy scalar)
    clean: set[Value] = set()
    if scalars is not None:
        for i in scalars:
            v = arguments[i]
            py[v] = names.pop(v)
            if exact_on_entry(v) or i in exact:
                clean.add(v)
    consts: dict[Value, Any] = {}
    code = BlockCode()
    step_names = code.locals  # locals holding step results (may be deleted early)
    outer: list[Value] = []

    def ref(v: Value) -> str:
        name = names.get(v)
        if name is None and v in py:  # (only where scalar planning let a use through)
            kind = kind_of(v)
            assert kind is not None
            ns[f"_N{kind.dtype.name}"] = kind.to_numpy
            return f"_N{kind.dtype.name}({py[v]})"
        if name is None:  # defined in an enclosing block: read once, at entry
            k = len(outer)
            name = names[v] = f"{p}o{k}"
            ns[f"{p}O{k}"] = v
            outer.append(v)
            code.outer.append(f"{p}o{k} = frame[{p}O{k}]")
        return name

    groups: dict[int, int] = {}  # batching.py: first step -> members (consecutive steps)
    if fold:
        steps, groups = batch_groups(steps, captured)
    # Last use of each value (terminator uses count as the end).
    last: dict[Value, int] = {}
    for i, step in enumerate(steps):
        for v in step.op.operands:
            last[v] = i
    kept = set(terminator or ()) | captured
    layouts = Layouts(steps, kept) if fold else None

    for i, v in enumerate(arguments):
        if v in captured:
            code.entry.append(f"frame[{p}A{i}] = {arg_names[i]}")
            ns[f"{p}A{i}"] = v
    emitted = code.lines
    chains = find_chains(steps) if fold else {}
    chained = {i for start, (end, _) in chains.items() for i in range(start, end)}
    reads = _element_reads(steps, kept, chained) if fold else {}
    signed = signed_zero_sums(steps, kept, chained) if fold else set()
    is_steady = steady_test(steady, arguments, steps) if steady is not None else None
    unsigned = steady_sums(steps, kept, signed | chained, is_steady) if is_steady else {}
    aliased: set[str] = set()  # names standing for more than one value
    scalar_steps: dict[int, str] = {}
    to_numpy: set[Value] = set()  # values that numpy kernels (and the like) read
    # a loop's output element written from a Python scalar (scalar_writes.py): the update
    # steps taking one -> the value's name
    writes = element_writes(steps, kept, chained | set(reads)) if scalars is not None else {}
    makers = {w.maker: j for j, w in writes.items()}
    written: dict[int, str] = {}
    if scalars is not None:
        scalar_steps, to_numpy, code.scalar_args = plan_scalars(
            arguments, scalars, steps, terminator or (), returned_scalars, captured,
            chained | set(reads), reads, lambda step: _returns_operand(step, captured), writes,
            exact)
    facts = analyse(steps, scalar_steps, bounds or {}, kept) if scalars is not None else Facts()

    def pref(v: Value, i: int) -> str:
        """v as a Python scalar for step i: converted where needed (a constant once, a
        value of an enclosing block or a `steady` one once per run, any other value once,
        before step i)."""
        name = py.get(v)
        if name is not None:
            return name
        kind = kind_of(v)
        assert kind is not None
        if v in consts:
            value = kind.to_py(consts[v])
            name = py[v] = f"{p}P{len(py)}"
            ns[name] = value
            return name
        source = ref(v)
        name = py[v] = f"{p}u{len(py)}"
        line = f"{name} = {kind.to_py.__name__}({source})"
        if source.startswith(f"{p}o") or v in (earlier or ()) or v in (steady or ()):
            # (once per run: a value of an enclosing block, or a loop's unchanged one)
            code.outer.append(line)
        else:
            code.scalar.add(len(emitted))
            emitted.append((line, steps[i]))
        return name

    def folded(i: int, step: Any) -> Value | None:
        """The step's result, now the constant `{p}C{i}`, when it folds (else None)."""
        value = _fold(step, consts) if fold else None
        if value is None:
            return None
        result: Value = step.op.results[0]
        consts[result] = value
        if clean_value(value):  # (pyscalar.py: exact as a Python scalar)
            clean.add(result)
        names[result] = f"{p}C{i}"
        ns[f"{p}C{i}"] = value
        return result

    groups = {i: n for i, n in groups.items() if chained.isdisjoint(range(i, i + n))}
    seconds = {k for i, n in groups.items() for k in range(i + 1, i + n)}
    around: dict[int, Chain] = {}  # groups' runs extended to the ufuncs before and after
    if groups:
        known: dict[Value, Any] = {}
        for step in steps:  # (the constants folded below, ahead of their steps)
            if _fold(step, known) is not None:
                known[step.op.results[0]] = _fold(step, known)

        def splat(step: Any) -> tuple[int, Any] | None:
            at = splat_position(step, known)
            return None if at is None else (at, splat_scalar(known[step.op.operands[at]]))
        out = chained | set(reads) | set(scalar_steps) | set(groups) | seconds
        for i, n in groups.items():
            around[i] = extend(steps, range(i, i + n), kept, out, splat)
            out |= around[i].steps()
            seconds |= around[i].steps()
    runtime = runtime_splats(steps, chained | set(reads) | set(reads.values()) | set(
        scalar_steps) | set(groups) | seconds, kept) if fold else set()
    splatted: dict[Value, Value] = {}  # such a broadcast's result -> its 0-d operand
    stacked = stacked_rows(steps, lambda i: i not in chained and i not in reads and i not in (
        scalar_steps) and i not in seconds and i not in groups and i not in runtime
        and steps[i].op.results[0] not in captured, is_steady) if is_steady else {}
    later = {j for group in stacked.values() for j in group[1:]}
    sigmoids = sigmoid_chains(steps, _fold, kept, captured, chained | set(reads) | set(
        scalar_steps) | set(groups) | seconds | runtime | set(stacked) | later) if fold else {}
    later |= {j for _, fused in sigmoids.values() for j in fused}
    computed: dict[tuple[Any, ...], Value] = {}  # scalar steps by what they compute
    skipped = skipped_reshapes(steps, kept, lambda i: i not in chained and i not in reads
                               and i not in scalar_steps and i not in seconds and i not in
                               groups and i not in runtime and i not in stacked
                               and i not in makers) if fold else set()
    for i, step in enumerate(steps):
        if i in seconds or i in facts.dead or i in later:  # computed with its group's first
            continue  # step; unread
        if i in stacked:  # (steady.py: one product of a row by stacked weights)
            line, products = stacked_line(steps, stacked[i], ref, code.outer, ns, p)
            for j, name in zip(stacked[i], products, strict=True):
                names[steps[j].op.results[0]] = name
            step_names.update(products)
            emitted.append((line, step))
            continue
        if i in sigmoids:  # (sigmoid.py: negate, exponential, add, divide in one call)
            ns[f"{p}K{i}"], result = sigmoids[i][0], steps[sigmoids[i][1][-1]].op.results[0]
            if layouts is not None and step.op.operands[0] in layouts.contiguous:
                ns[f"{p}K{i}"] = sigmoids[i][0].contiguous  # type: ignore[attr-defined]
            if layouts is not None and row_like(result):  # (a ufunc's result)
                layouts.contiguous.add(result)
            names[result] = f"{p}v{i}"
            step_names.add(names[result])
            emitted.append((f"{p}v{i} = {p}K{i}({ref(step.op.operands[0])})", step))
            continue
        if i in groups:
            y = f"{p}y{i}"
            line, blocks = group_line(steps, range(i, i + groups[i]), around[i], y, p, ref,
                                      ns, splat)
            rows = _shape(steps[blocks[0]].op.results[0])[0]
            for n, k in enumerate(blocks):
                result = steps[k].op.results[0]
                names[result] = f"{p}v{k}"
                step_names.add(names[result])
                line += f"; {p}v{k} = {y}[{n * rows}:{(n + 1) * rows}]"
            emitted.append((line, step))
            continue
        if i in scalar_steps and scalar_steps[i] != "same":
            result = step.op.results[0]
            if i in facts.decided or i in facts.picked:
                if i in facts.decided:  # a constant, a select on it is what it picks
                    py[result] = str(facts.decided[i])
                    clean.add(result)
                else:
                    v = step.op.operands[facts.picked[i]]
                    py[result] = pref(v, i)
                    if v in clean:
                        clean.add(result)
                if result in to_numpy:  # (a picking select's predicate may be dropped)
                    kind = kind_of(result)
                    assert kind is not None
                    ns[f"_N{kind.dtype.name}"] = kind.to_numpy
                    names[result] = f"{p}v{i}"
                    code.scalar.add(len(emitted))
                    emitted.append((f"{p}v{i} = _N{kind.dtype.name}({py[result]})", step))
                continue
            if folded(i, step) is not None:
                continue
            scalar_args = [pref(v, i) for v in step.op.operands]
            tag = scalar_steps[i]
            key = scalar_step_key(step, tag, scalar_args, consts)
            if result not in to_numpy and key in computed:  # a repeat: the earlier name
                py[result] = py[computed[key]]
                if computed[key] in clean:
                    clean.add(result)
                continue
            computed.setdefault(key, result)
            py[result] = f"{p}s{i}"
            passed = step.op.operands[1:] if tag == "select" else step.op.operands
            if tag not in UNCLEAN and (tag in QUIETING or all(v in clean for v in passed)):
                clean.add(result)
            second = step.op.operands[1] if len(step.op.operands) == 2 else None
            constant = consts.get(second) if second is not None else None
            lines = expression(scalar_steps[i], step, scalar_args, f"{p}s{i}", ns,
                               f"{p}K{i}", None if constant is None
                               or np.asarray(constant).dtype.kind not in "iu"
                               else int(constant), i not in facts.no_wrap)
            if result in to_numpy:
                kind = kind_of(result)
                assert kind is not None
                ns[f"_N{kind.dtype.name}"] = kind.to_numpy
                names[result] = f"{p}v{i}"
                lines.append(f"{p}v{i} = _N{kind.dtype.name}({p}s{i})")
                if kind.is_float:
                    code.observed.append(f"{p}s{i}")
            if tag == "to_bits" and kind_of(step.op.operands[0]).is_float:  # type: ignore[union-attr]
                # (a NaN redone before its bits are read)
                code.observed.append(scalar_args[0])
            fix = f"if {p}s{i} != {p}s{i}:"
            for line in lines:
                if line.startswith(fix):
                    code.fixes.add(len(emitted))
                code.scalar.add(len(emitted))
                emitted.append((line, step))
            continue
        if i in chains:
            stop, kinds = chains[i]
            emitted += chain_lines(steps, i, stop, kinds, names, ref, ns, last, kept,
                                    captured, p, step_names)
        if i in chained or reads.get(i, i) < i:  # a read's reshape: done with its slice
            continue
        j = makers.get(i, -1)
        if j >= 0 and writes[j].value in py and writes[j].value in clean \
                and _in_place(steps[j], j, last, kept, names, step_names, aliased):
            written[j] = py[writes[j].value]  # (the one-element vector: not made)
            continue
        row = step.op.operands[0] if i in skipped else None
        if row is not None and (ref(row) not in step_names or not large_value(row)):
            names[step.op.results[0]] = ref(row)  # a row write takes the row (row_writes.py)
            aliased.add(ref(row))
            continue
        if scalar_steps.get(i) == "same":  # an identity on a Python scalar
            v = step.op.operands[0]
            py[step.op.results[0]] = py[v]
            if v in clean:
                clean.add(step.op.results[0])
            if v not in names:
                continue
        if fold and _returns_operand(step, captured):
            v = step.op.operands[0]
            name = ref(v)
            if name not in step_names or not large_value(v):  # (large step locals are deleted)
                names[step.op.results[0]] = name  # the same value: a second name for it
                if v in consts:  # (and a constant still: what reads it folds)
                    consts[step.op.results[0]] = consts[v]
                aliased.add(name)
                continue
        j = reads.get(i, -1)  # a fused read folds with its reshape (a constant's x[k])
        sliced = _fold(step, consts) if fold and j > i else None
        made = folded(i, step) if j < i or (sliced is not None and _fold(
            steps[j], {step.op.results[0]: sliced}) is not None) else None
        if made is not None:
            for k, fixed in [(i, made)] + ([(j, folded(j, steps[j]))] if j > i else []):
                if fixed is not None and fixed in captured:
                    ns[f"{p}R{k}"] = fixed
                    code.entry.append(f"frame[{p}R{k}] = {p}C{k}")
            continue
        if i in runtime:  # made by its readers, where one needs it (splat.py)
            ns[f"{p}K{i}"], ns["_ndarray"] = step.fn, np.ndarray
            splatted[step.op.results[0]] = step.op.operands[0]
            names[step.op.results[0]] = f"{p}K{i}({ref(step.op.operands[0])})"
            continue
        if plan_region is not None and step.op.name in BRANCHING and step.op.operands:
            pick = step.op.operands[0]  # (the branches inline: branches.py)
            branched = branch_lines(step, i, py[pick] if pick in py and pick not in names
                                    else ref(pick), names, p, ns, plan_region, captured,
                                    functools.partial(block_code, plan_region=plan_region))
            if branched is not None:
                emitted += branched[0]
                names.update(zip(step.op.results, branched[1], strict=True))
                step_names.update(branched[1])
                continue
        if i in written:  # x, the Python scalar, the index (a Python int where it is one)
            spot = writes[i].index
            at = py[spot] if spot in py and spot not in names else ref(spot)
            if step.op.operands[0] in owned and at == py.get(spot):  # (the loop's own copy)
                x = names[step.op.results[0]] = ref(step.op.operands[0])
                aliased.add(x)
                code.stores.add(len(emitted))
                if kind_of(writes[i].value).is_float:  # type: ignore[union-attr]
                    code.observed.append(written[i])
                emitted.append((owned_write(step, x, written[i], at, facts.within(
                    spot, 0, _shape(step.op.results[0])[0] - 1)), step))
                continue
            args = ", ".join([ref(step.op.operands[0]), written[i], at])
        else:
            args = ", ".join(ref(v) for v in step.op.operands)
        ints = 1 if i in reads else getattr(step.fn, "int_starts", None)
        if ints is not None and scalars is not None and i not in written:  # (starts too)
            args = ", ".join(py[v] if k >= ints and v in py and v not in names else ref(v)
                             for k, v in enumerate(step.op.operands))
        element = getattr(step.fn, "element", None) if i in reads else None
        top = getattr(element, "top", None)
        index = step.op.operands[-1] if top is not None else None
        if top is not None and index in py and kind_of(index) is not None:  # x[i], Python int i
            x, at, got = ref(step.op.operands[0]), f"{p}j{i}", f"{p}s{i}"
            result = steps[reads[i]].op.results[0]
            py[result] = got
            read = f"{x}.item"
            if invariant is not None and (step.op.operands[0] in invariant or (
                    step.op.operands[0] not in arguments and x.startswith(f"{p}o"))):
                read = code.lists.setdefault(x, f"{p}L{len(code.lists)}")
            line = (f"{at} = {py[index]} if 0 <= {py[index]} <= {top} else "
                    f"(0 if {py[index]} < 0 else {top}); {got} = {read}({at})")
            if facts.within(index, 0, int(top)):  # in bounds: no clamp
                at = py[index]
                line = f"{got} = {read}({at})"
            if read != f"{x}.item":
                line = line.replace(f"{read}({at})", f"{read}[{at}]")
            if result in to_numpy:
                names[result] = f"{p}v{i}"
                line += f"; {p}v{i} = {x}[{at}]"
            if result in captured:  # read by a nested region: from the frame
                ns[f"{p}R{i}"] = result
                line += f"; frame[{p}R{i}] = {p}v{i}"
            code.scalar.add(len(emitted))
            emitted.append((line, step))
            continue
        if i in reads:  # the slice and its reshape as one element (or row) read
            ns[f"{p}E{i}"] = element or step.fn.row
            call = f"{p}E{i}({args})"
            results = steps[reads[i]].op.results
            indexed = (_indexed_rows(step, i, ref, py, facts, p, invariant) if not element
                       else None)
            if layouts is not None and not element:  # (a row is C-contiguous, writeable)
                layouts.contiguous.update(results)
            if indexed is not None:  # x[i] of a sequence read once per loop
                code.outer.append(indexed[0])
                call = f"{indexed[1]} if {p}r{i} is not None else {call}"
        elif i in written:
            ns[f"{p}K{i}"] = step.fn.in_place.write_element
            call = f"{p}K{i}({args})"
            results = step.op.results
        elif _in_place(step, i, last, kept, names, step_names, aliased):
            ns[f"{p}K{i}"] = step.fn.in_place
            emit = getattr(step.fn.in_place, "emit", None)  # (names hold no ", ")
            call = emit and emit(f"{p}K{i}", args.split(", "), ns) or f"{p}K{i}({args})"
            results = step.op.results
        else:
            ns[f"{p}K{i}"] = step.fn
            operands = [ref(v) for v in step.op.operands]
            if is_steady is not None and hasattr(step.fn, "prepare"):
                args = prepared(step, i, is_steady, ref, code.outer, ns, p) or args
                operands = args.split(", ")  # (the prepared operand's name: no ", ")
            normalize = ", False" if i in signed else ""
            if i in unsigned:  # (steady.py: normalized where the addend holds a -0.0)
                ns["_SIGNED"] = holds_negative_zero
                code.outer.append(f"{p}z{i} = _SIGNED({ref(unsigned[i])})")
                normalize = f", {p}z{i}"
            call = f"{p}K{i}({args}{normalize})"
            results = step.op.results
            position = splat_position(step, consts) if fold else None
            spots = [k for k, v in enumerate(step.op.operands) if v in splatted]
            spare = layouts.ufunc_line(step, names, step_names, aliased) if (
                layouts is not None and not normalize and not spots) else None
            if position is not None:
                call = splat_call(step, i, position, consts, ref, ns, p, layouts is not None and
                                  step.op.operands[1 - position] in layouts.contiguous, spare)
            elif spots:
                call = runtime_splat_call(f"{p}K{i}", [ref(v) for v in step.op.operands],
                                          spots[0], ref(splatted[step.op.operands[spots[0]]]))
            elif layouts is not None and (view := layouts.slice_line(step, f"{p}K{i}", ref, ns)):
                call = view  # (layouts.py: the view test decided here)
            elif spare is not None:  # (layouts.py: into a dead temporary's buffer)
                call = f"{p}K{i}({args}, {spare})"
            elif len(results) == 1 and results[0] not in captured:
                call = _inline(step, f"{p}K{i}", operands, ns, f"{p}v{i}",
                               normalize[2:]) or call
        stores = []
        if len(results) == 1:
            names[results[0]] = f"{p}v{i}"
            step_names.add(names[results[0]])
            line = f"{p}v{i} = {call}"
        elif results:
            line = f"r = {call}"
            for j, r in enumerate(results):
                names[r] = f"{p}v{i}_{j}"
                step_names.add(names[r])
                stores.append(f"{p}v{i}_{j} = r[{j}]")
        else:
            line = call
        for j, r in enumerate(results):
            if r in captured:
                ns[f"{p}R{i}_{j}"] = r
                stores.append(f"frame[{p}R{i}_{j}] = {names[r]}")
        dead = [names[v] for v in step.op.operands
                if last.get(v) == i and v not in kept and large_value(v) and v in names
                and names[v] in step_names]
        if dead:
            stores.append(f"del {', '.join(dict.fromkeys(dead))}")
        emitted.append(("; ".join([line] + stores) if stores else line, step))
    # (a requested value that is no Python scalar: the loop drops that scalar and retries)
    code.returned = [py[v] if k in returned_scalars and v in py else ref(v)
                     for k, v in enumerate(terminator or ())]
    code.clean_returned = [v in clean for v in terminator or ()]
    for v in terminator or ():
        kind = kind_of(v)
        if kind is not None and kind.is_float and py.get(v, "").startswith(f"{p}s"):
            code.observed.append(py[v])
    return code


def _in_place(step: Any, i: int, last: dict[Value, int], kept: set[Value],
              names: dict[Value, str], step_names: set[str], aliased: set[str]) -> bool:
    """Whether step i may take its kernel's `in_place` variant (in_place.py): its first
    operand is read for the last time here, from a local variable (a step result or a
    block argument) that names no other value (the kernel checks that nothing else holds
    the array)."""
    if not hasattr(step.fn, "in_place") or not step.op.operands:
        return False
    x = step.op.operands[0]
    name = names.get(x)
    return (last.get(x) == i and x not in kept and name is not None
            and (name in step_names or name[0] == "a") and name not in aliased
            and step.op.operands.count(x) == 1)


def _indexed_rows(step: Any, i: int, ref: Callable[[Value], str], py: dict[Value, str],
                  facts: Facts, p: str, invariant: Collection[Value] | None = None
                  ) -> tuple[str, str] | None:
    """(the line before the loop that checks an enclosing value's rows, the row read
    `x[i]`) for a row read of a value of an enclosing block (or an `invariant` argument:
    a carried value the loop passes on unchanged) at a Python int index known to be in
    bounds (a scan's `xs[t]`), or None: the row kernel's clamp and layout checks once per
    loop, not per step (a Keras GRU carries its sequence through the loop)."""
    row = getattr(step.fn, "row", None)
    top = getattr(row, "top", None)
    if top is None or len(step.op.operands) < 2:
        return None
    x, index = step.op.operands[0], step.op.operands[1]
    if index not in py or kind_of(index) is None or not facts.within(index, 0, int(top)):
        return None
    name = ref(x)
    if not name.startswith(f"{p}o") and (invariant is None or x not in invariant):
        return None  # (read once per loop)
    return f"{p}r{i} = {p}E{i}.rows_of({name})", f"{p}r{i}[{py[index]}]"


def _returns_operand(step: Any, captured: set[Value]) -> bool:
    """A kernel returning its operand itself (an identity convert): no call, its result
    is another name for the operand's value."""
    op = step.op
    return (getattr(step.fn, "returns_operand", False) and len(op.operands) == 1
            and len(op.results) == 1 and op.results[0] not in captured)


# Kernels that are Python's operators, written as the operators themselves (the same call:
# a < b is operator.lt(a, b)); 0-d loops are dominated by call overhead.
_OPERATORS = {operator.add: "+", operator.sub: "-", operator.mul: "*", operator.lt: "<",
              operator.le: "<=", operator.gt: ">", operator.ge: ">=", operator.eq: "==",
              operator.ne: "!="}


def _inline(step: Any, kernel: str, args: list[str], ns: dict[str, Any], target: str,
            normalize: str = "") -> str | None:
    """The expression computing `step` without calling its kernel, or None: an operator
    kernel's operator; a select kernel that `picks` on a 0-d pred, the pick; a kernel
    with `inline = (symbol, types)` is the operator, redone by the kernel where the
    result is one of `types` and NaN (0-d float arithmetic, specialize_scalar._float_op:
    the NaN's sign is the ufunc's); a kernel with `emit` writes its own (the `normalize`
    argument's expression passed on: specialize_dot.dot_line)."""
    fn = step.fn
    emit = getattr(fn, "emit", None)
    if emit is not None:
        return emit(kernel, args + [normalize] if normalize else args, ns)  # type: ignore[no-any-return]
    try:
        symbol = _OPERATORS.get(fn)
    except TypeError:  # unhashable kernel
        return None
    if symbol is not None and len(args) == 2:
        return f"{args[0]} {symbol} {args[1]}"
    if getattr(fn, "picks", False) and len(args) == 3:  # select on a 0-d pred
        p, t, f = args
        return f"({t} if {p} else {f}) if {p}.ndim == 0 else {kernel}({p}, {t}, {f})"
    inline = getattr(fn, "inline", None)
    if inline is None or len(args) != 2:
        return None
    symbol, types = inline
    ns[f"{kernel}T"] = types
    expr = f"{args[0]} {symbol} {args[1]}"
    return (f"{expr}; {target} = {kernel}({args[0]}, {args[1]}) "
            f"if {target}.__class__ in {kernel}T and {target} != {target} else {target}")


def _element_reads(steps: Sequence[Any], kept: set[Value], chained: set[int]
                   ) -> dict[int, int]:
    """Dynamic slices of one index along the first dimension whose only use is a reshape
    dropping that unit dimension, slice index -> reshape index and back: `x[i]` of a
    fori_loop over a vector (a size-1 slice with an `element` kernel, a reshape to 0-d that
    `reads_element`) or of a scan over a stack (a slice kernel with a `row` variant, a
    `plain_reshape`), one read instead of a slice and a reshape."""
    uses: dict[Value, int] = {}
    for step in steps:
        for v in step.op.operands:
            uses[v] = uses.get(v, 0) + 1
    producer = {step.op.results[0]: j for j, step in enumerate(steps)
                if len(step.op.results) == 1
                and (hasattr(step.fn, "element") or hasattr(step.fn, "row"))}
    reads: dict[int, int] = {}
    for i, step in enumerate(steps):
        if len(step.op.operands) != 1 or len(step.op.results) != 1:
            continue
        v = step.op.operands[0]
        j = producer.get(v)
        if j is None or uses[v] != 1 or v in kept or i in chained or j in chained:
            continue
        fn = steps[j].fn
        if hasattr(fn, "element"):
            if not getattr(step.fn, "reads_element", False):
                continue
        elif not (getattr(step.fn, "plain_reshape", False)
                  and _shape(step.op.results[0]) == _shape(v)[1:]):
            continue
        reads[j], reads[i] = i, j
    return reads


def _shape(value: Value) -> tuple[int, ...]:
    t = value.type
    return tuple(t.shape) if isinstance(t, TensorType) else ()


class Source:
    """A generated function's source, line by line, with the step each line runs."""

    def __init__(self, head: str) -> None:
        self.src = [head]
        self.lines: dict[int, Any] = {}

    def add(self, text: str, indent: int, step: Any = None) -> None:
        self.src.append("    " * indent + text)
        if step is not None:
            self.lines[len(self.src)] = step

    def compile(self, ns: dict[str, Any], name: str, arity: int,
                local: bool = False) -> CompiledBlock:
        """With `local`, the globals the function reads become keyword-only parameters
        with those values as defaults: local variables, which a long loop reads for less."""
        filename = f"<shlo plan {next(_COUNTER)}>"
        if local:
            used = sorted(set(re.findall(r"\b[A-Za-z_]\w*", "\n".join(self.src[1:])))
                          & ns.keys() - {"__name__", "__builtins__"})
            if used:
                bound = ", ".join(f"{k}={k}" for k in used)
                self.src[0] = self.src[0].replace("):", f", *, {bound}):", 1)
        source = "\n".join(self.src) + "\n"
        exec(compile(source, filename, "exec"), ns)  # noqa: S102 - our own code
        return CompiledBlock(ns[name], arity, filename, self.lines, source)


def compile_block(arguments: Sequence[Value], steps: Sequence[Any],
                  terminator: Sequence[Value] | None, block: Block,
                  fold: bool, plan_region: Callable[[Region], Any] | None = None
                  ) -> CompiledBlock:
    """Generate and compile the function for one planned block (see the module doc)."""
    ns: dict[str, Any] = {"__name__": _MODULE}
    arg_names = [f"a{i}" for i in range(len(arguments))]
    code = block_code(arguments, arg_names, steps, terminator, block, fold, ns, "",
                      plan_region=plan_region)
    src = Source("def block(frame, args):")
    if arguments:
        src.add(f"{', '.join(arg_names)}{',' if len(arguments) == 1 else ''} = args", 1)
    for line in code.entry + code.outer:
        src.add(line, 1)
    for line, step in code.lines:
        src.add(line, 1, step)
    src.add(f"return [{', '.join(code.returned)}]", 1)
    return src.compile(ns, "block", len(arguments))
