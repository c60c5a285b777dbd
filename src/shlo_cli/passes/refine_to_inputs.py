"""A dynamically shaped entry function refined to the shapes it is called with.

jax exports with symbolic shapes (`b, 8`) type their values `tensor<?x8xf32>`; the
interpreter's kernels are specialized at plan time from static types, so every `?` op of
such a module takes the general (slow) evaluator. Knowing the argument shapes of a call, the
module can be refined once per shape signature, as XLA does before compiling: a *clone* gets
the argument types (`--stablehlo-refine-arguments`), its calls inlined (a jax
`global_constant` helper called with two dimension values cannot be refined in place), then
`--stablehlo-refine-shapes` and `--stablehlo-canonicalize-dynamism`. The refined module is
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

from ..ir.clone import clone_op
from ..ir.core import Module, Operation
from ..ir.types import DYNAMIC, TensorType, TupleType, Type, UnrankedTensorType

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
    from .stablehlo_canonicalize_dynamism import stablehlo_canonicalize_dynamism
    from .stablehlo_refine_arguments import refine_arguments, target_function
    from .stablehlo_refine_shapes import stablehlo_refine_shapes

    try:
        clone = clone_module(module)
        func = target_function(clone)
        if func is None or not _is_entry(clone, func):
            return None
        refine_arguments(func, list(types))
        inline(clone)
        stablehlo_refine_shapes(clone)
        stablehlo_canonicalize_dynamism(clone)
        verify_module(clone)
    except Exception:  # noqa: BLE001 - a pass's diagnostic or bug: run the original instead
        return None
    return clone if fully_static(clone) else None


def _is_entry(module: Module, func: Operation) -> bool:
    """The function the passes refine is the one the interpreter runs (`main`, else the only
    function): both rules agree unless a module has no `main`."""
    funcs = module.functions()
    return func.symbol_name == "main" or len(funcs) == 1
