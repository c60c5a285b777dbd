"""A dynamically shaped entry function refined to the shapes it is called with.

jax exports with symbolic shapes (`b, 8`) type their values `tensor<?x8xf32>`; the
interpreter's kernels are specialized at plan time from static types, so every `?` op of
such a module takes the general (slow) evaluator. Knowing the argument shapes of a call, the
module can be refined once per shape signature, as XLA does before compiling: a *clone* gets
the argument types (`--stablehlo-refine-arguments`), its calls inlined (a jax
`global_constant` helper called with two dimension values cannot be refined in place; a
composite becomes a call of its decomposition first, whose `?` types would otherwise no
longer match the refined operands), then `--stablehlo-refine-shapes` and
`--stablehlo-canonicalize-dynamism`; a `@stablehlo.dynamic_reduce_window` custom call whose
window operands became constants is then a `stablehlo.reduce_window` (XLA's extension of
those passes; jax's cumsum along a symbolic dimension), refined again. The refined module is
used only when it verifies and has no dynamic type left anywhere: a half-refined module mixes
static and dynamic operands and ran slower than the original in measurements. Anything else
(a pass diagnostic, a composite whose decomposition stays dynamic, a pass bug) means "run
the original": refinement is an optimization and never changes a result or a message.

The interpreter may not import passes (the layer rule), so the front ends above both hand
`RefinedModules.get` to `interpreter.run.evaluate`, which asks only for an entry function
with a dynamic argument type.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from ..ir import registry
from ..ir.attributes import ArrayAttr, DenseArrayAttr, DenseElementsAttr, SymbolRefAttr
from ..ir.clone import clone_op, clone_region, replace_uses
from ..ir.core import Module, Operation
from ..ir.types import DYNAMIC, I64, TensorType, TupleType, Type, UnrankedTensorType

# Shape signatures remembered per module (least recently used dropped first): a server
# calling with a few batch sizes refines each once; a scan over many sizes stays bounded.
DEFAULT_LIMIT = 8


class RefinedModules:
    """`module` refined per shape signature (the entry's argument types of a call); None
    where refinement failed or left dynamic types (cached too: a failure is not retried)."""

    def __init__(self, module: Module, limit: int = DEFAULT_LIMIT) -> None:
        self.module = module
        self.limit = limit
        self._cache: OrderedDict[tuple[Type, ...], Module | None] = OrderedDict()
        self.refinements = 0  # how many times the passes ran (tests count cache misses)

    def get(self, module: Module, types: Sequence[Type]) -> Module | None:
        """The module refined to `types`, else None (run `module` itself)."""
        if module is not self.module:  # not the module this cache was made for
            return None
        key = tuple(types)
        if key in self._cache:
            self._cache.move_to_end(key)
            return self._cache[key]
        self.refinements += 1
        refined = refine_to_types(module, key)
        self._cache[key] = refined
        if len(self._cache) > self.limit:
            self._cache.popitem(last=False)
        return refined


def has_dynamic_type(t: Type) -> bool:
    """True for a tensor with a `?` dimension or no rank (nested in tuples too)."""
    if isinstance(t, TensorType):
        return DYNAMIC in t.shape
    if isinstance(t, UnrankedTensorType):
        return True
    if isinstance(t, TupleType):
        return any(has_dynamic_type(x) for x in t.types)
    return False


def fully_static(module: Module) -> bool:
    """No op result or block argument of any function has a dynamic type."""
    for func in module.functions():
        for op in func.walk():
            if any(has_dynamic_type(r.type) for r in op.results):
                return False
            for region in op.regions:
                for block in region.blocks:
                    if any(has_dynamic_type(a.type) for a in block.arguments):
                        return False
    return True


def clone_module(module: Module) -> Module:
    """A deep copy the passes may rewrite; the source text and file name stay, so run-time
    diagnostics quote the same lines."""
    return Module(clone_op(module.op, {}), module.resources, module.filename, module.source)


def refine_to_types(module: Module, types: Sequence[Type]) -> Module | None:
    """A fully static clone of `module` whose entry function takes `types`, else None."""
    from ..ir.verifier import verify_module
    from .inline import inline
    from .legalize_composite_to_call import legalize_composite_to_call
    from .stablehlo_canonicalize_dynamism import stablehlo_canonicalize_dynamism
    from .stablehlo_refine_arguments import refine_arguments, target_function
    from .stablehlo_refine_shapes import stablehlo_refine_shapes

    try:
        clone = clone_module(module)
        func = target_function(clone)
        if func is None or not _is_entry(clone, func):
            return None
        legalize_composite_to_call(clone)
        refine_arguments(func, list(types))
        inline(clone)
        stablehlo_refine_shapes(clone)
        stablehlo_canonicalize_dynamism(clone)
        if static_reduce_windows(clone):
            stablehlo_refine_shapes(clone)
            stablehlo_canonicalize_dynamism(clone)
        drop_passing_assertions(clone)
        verify_module(clone)
    except Exception:  # noqa: BLE001 - a pass's diagnostic or bug: run the original instead
        return None
    return clone if fully_static(clone) else None


def _is_entry(module: Module, func: Operation) -> bool:
    """The function the passes refine is the one the interpreter runs (`main`, else the only
    function): both rules agree unless a module has no `main`."""
    funcs = module.functions()
    return func.symbol_name == "main" or len(funcs) == 1


DYNAMIC_REDUCE_WINDOW = "stablehlo.dynamic_reduce_window"


def drop_passing_assertions(module: Module) -> None:
    """jax's `@shape_assertion` checks whose predicate refinement folded to true can never
    fail: each would still cost a custom-call dispatch per run. Failing ones stay."""
    from .shape_facts import constant_attr

    for func in module.functions():
        for op in list(func.walk()):
            target = op.attr("call_target_name") if op.name == "stablehlo.custom_call" else None
            if target is None or target.value != "shape_assertion" or not op.operands \
                    or op.results:
                continue
            pred = constant_attr(op.operands[0])
            if pred is not None and pred.value.size == 1 and bool(pred.value.reshape(-1)[0]) \
                    and op.parent is not None:
                op.parent.operations.remove(op)


def static_reduce_windows(module: Module) -> bool:
    """Each `@stablehlo.dynamic_reduce_window` custom call with constant window operands
    becomes a `stablehlo.reduce_window` (its body the reducer function's); True if any."""
    changed = False
    for func in module.functions():
        for op in list(func.walk()):
            target = op.attr("call_target_name") if op.name == "stablehlo.custom_call" else None
            if target is not None and target.value == DYNAMIC_REDUCE_WINDOW:
                changed |= _as_reduce_window(module, func, op)
    return changed


def _as_reduce_window(module: Module, func: Operation, call: Operation) -> bool:
    from .shape_facts import match_ints

    inputs = (len(call.operands) - 5) // 2
    if inputs < 1 or len(call.operands) != 2 * inputs + 5 or len(call.results) != inputs:
        return False
    window = [match_ints(v) for v in call.operands[2 * inputs:]]
    called = call.attr("called_computations")
    reducer = module.lookup(called.elements[0].root) if isinstance(called, ArrayAttr) \
        and len(called.elements) == 1 and isinstance(called.elements[0], SymbolRefAttr) \
        else None
    if any(w is None for w in window) or reducer is None or reducer.name != "func.func":
        return False
    sizes, strides, base, dilations, padding = (list(w or ()) for w in window)
    rank = len(sizes)
    ranks = {len(t.shape) if isinstance(t, TensorType) else -1 for t in call.operand_types[:inputs]}
    pad_type = call.operands[-1].type
    if ranks != {rank} or any(len(w) != rank or min(w, default=1) < 1
                              for w in (strides, base, dilations)) \
            or min(sizes, default=0) < 0 or not isinstance(pad_type, TensorType) \
            or pad_type.shape != (rank, 2):
        return False  # the custom call's own error, at run time
    body = clone_region(reducer.regions[0], {})
    terminator = body.entry.operations[-1]
    if terminator.name != "func.return":
        return False
    body.entry.operations[-1] = Operation(
        "stablehlo.return", list(terminator.operands), [], location=terminator.location,
        opdef=registry.lookup("stablehlo.return"))
    body.entry.operations[-1].parent = body.entry
    properties = {
        "window_dimensions": DenseArrayAttr(I64, tuple(sizes)),
        "window_strides": DenseArrayAttr(I64, tuple(strides)),
        "base_dilations": DenseArrayAttr(I64, tuple(base)),
        "window_dilations": DenseArrayAttr(I64, tuple(dilations)),
        "padding": DenseElementsAttr(TensorType((rank, 2), I64),
                                     np.array(padding, np.int64).reshape(rank, 2))}
    new = Operation("stablehlo.reduce_window", list(call.operands[:2 * inputs]),
                    call.result_types, properties, {}, [body], location=call.location,
                    opdef=registry.lookup("stablehlo.reduce_window"))
    block = call.parent
    if block is None:
        return False
    block.operations[block.operations.index(call)] = new
    new.parent = block
    replace_uses(func, dict(zip(call.results, new.results, strict=True)))
    return True
