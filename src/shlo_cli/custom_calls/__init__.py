"""`stablehlo.custom_call` targets the interpreter evaluates, and their registry.

`registry.register_target` declares a target (operand/result types, backend_config keys,
evaluator); `jax_lapack` and `jax_misc` hold the targets jax's CPU exports call.
"""

from .registry import (
    Config,
    Operand,
    Target,
    TargetCall,
    TargetError,
    call_target,
    lookup_target,
    register_target,
    registered_target_names,
    unregister_target,
)

__all__ = ["Config", "Operand", "Target", "TargetCall", "TargetError", "call_target",
           "lookup_target", "register_target", "registered_target_names", "unregister_target"]
