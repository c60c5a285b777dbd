"""A memory budget for the interpreter: refuse an allocation before numpy attempts it.

Result sizes are known from types, so an op whose results would not fit is refused with a
located diagnostic (op, shape, bytes) instead of ending in a MemoryError, a swap storm or an
OOM kill. The check runs once, when an op is bound into a plan (no per-call cost): the bound
kernel of an oversized op raises when (and only if) it runs. Kernels that build
intermediates larger than their inputs + outputs call `check_bytes` themselves.

The default budget is the smaller of a fraction of physical memory and what the process may
still map (RLIMIT_AS less the current address-space size, cgroup `memory.max` less current
usage), less headroom for the interpreter itself.
"""

from __future__ import annotations

import os
from _thread import _local  # threading.local, without importing threading

from .diagnostics import EvaluationError
from .registry import register_bind_hook
from .types import TensorType, Type, UnsupportedTypeError, numpy_dtype

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

PHYSICAL_FRACTION = 0.75
HEADROOM = 256 << 20  # bytes kept free for Python, numpy temporaries of small ops, printing


class _RunLimit(_local):
    """The budget of the run on this thread (set by `memory_limit`; None: the default):
    API calls in several threads each keep their own, as with the iteration cap."""

    value: int | None = None


_limit = _RunLimit()
_default: int | None = None


def physical_memory() -> int | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def _address_space_left() -> int | None:
    try:
        import resource
    except ImportError:
        return None
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY or soft <= 0:
        return None
    used = 0
    try:
        with open("/proc/self/statm") as f:
            used = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        pass
    return max(soft - used, 0)


def _cgroup_left() -> int | None:
    """cgroup v2 `memory.max - memory.current` of this process's cgroup (v1 fallback)."""
    candidates = []
    try:
        with open("/proc/self/cgroup") as f:
            for line in f:
                path = line.rstrip("\n").split(":", 2)[-1]
                candidates.append(("/sys/fs/cgroup" + path, "memory.max", "memory.current"))
    except OSError:
        pass
    candidates.append(("/sys/fs/cgroup", "memory.max", "memory.current"))
    candidates.append(("/sys/fs/cgroup/memory", "memory.limit_in_bytes",
                       "memory.usage_in_bytes"))
    for folder, max_name, cur_name in candidates:
        try:
            with open(os.path.join(folder, max_name)) as f:
                text = f.read().strip()
        except OSError:
            continue
        if not text.isdigit():
            return None  # "max": no limit at this level
        limit = int(text)
        if limit >= 1 << 60:
            return None
        current = 0
        try:
            with open(os.path.join(folder, cur_name)) as f:
                current = int(f.read().strip())
        except (OSError, ValueError):
            pass
        return max(limit - current, 0)
    return None


def default_limit() -> int:
    """The budget when none is given (computed once per process)."""
    global _default
    if _default is None:
        bounds = []
        physical = physical_memory()
        if physical:
            bounds.append(int(physical * PHYSICAL_FRACTION))
        for left in (_address_space_left(), _cgroup_left()):
            if left is not None:
                bounds.append(left - HEADROOM)
        _default = max(min(bounds), 0) if bounds else 1 << 62
    return _default


def run_limit() -> int | None:
    """The budget set for this thread's run (None: the default), to pass to its threads."""
    return _limit.value


def current_limit() -> int:
    return _limit.value if _limit.value is not None else default_limit()


class memory_limit:  # a class, not a contextlib generator: no contextlib at start-up
    """`with memory_limit(limit):` runs this thread with `limit` bytes as the budget (None:
    the default)."""

    def __init__(self, limit: int | None) -> None:
        self.limit = limit
        self.saved: int | None = None

    def __enter__(self) -> None:
        self.saved = _limit.value
        _limit.value = self.limit if self.limit is not None else self.saved

    def __exit__(self, *exc: object) -> None:
        _limit.value = self.saved


_UNITS = {"": 1, "b": 1, "k": 1 << 10, "kb": 1000, "kib": 1 << 10, "m": 1 << 20, "mb": 1000**2,
          "mib": 1 << 20, "g": 1 << 30, "gb": 1000**3, "gib": 1 << 30, "t": 1 << 40,
          "tb": 1000**4, "tib": 1 << 40}


def parse_size(text: str) -> int:
    """'4G', '512MiB', '1000000' -> bytes; ValueError on anything else."""
    import re

    m = re.fullmatch(r"\s*(\d+(?:\.\d*)?)\s*([a-zA-Z]*)\s*", text)
    if not m or m.group(2).lower() not in _UNITS:
        raise ValueError(f"invalid memory size '{text}' (e.g. 4G, 512M, 1000000)")
    return int(float(m.group(1)) * _UNITS[m.group(2).lower()])


def format_bytes(n: int) -> str:
    for unit, size in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:.2f} {unit}"
    return f"{n} B"


def type_bytes(t: Type) -> int:
    """Bytes a value of static tensor type `t` occupies (0 when unknown or dynamic)."""
    if not isinstance(t, TensorType) or not t.is_static:
        return 0
    try:
        itemsize = numpy_dtype(t.element).itemsize
    except UnsupportedTypeError:
        return 0
    return t.num_elements * itemsize


def refusal(what: str, shape_text: str, nbytes: int, limit: int) -> str:
    return (f"{what} needs {format_bytes(nbytes)} ({nbytes} bytes) for {shape_text}, over the "
            f"memory limit of {format_bytes(limit)} ({limit} bytes; see --memory-limit)")


class OverBudget(EvaluationError):
    """A kernel's temporary would exceed the budget; the engine prefixes the op's name."""

    name_op = True


def check_bytes(nbytes: int, what: str, shape_text: str) -> None:
    """Raise OverBudget when `nbytes` (an intermediate of a kernel) exceeds the budget."""
    limit = current_limit()
    if nbytes > limit:
        raise OverBudget(refusal(what, shape_text, nbytes, limit))


def check_elements(shape: tuple[int, ...], itemsize: int, what: str) -> None:
    """`check_bytes` for an array of `shape` with `itemsize`-byte elements."""
    n = itemsize
    for d in shape:
        n *= max(int(d), 0)
    if n > 1 << 20:  # small arrays are never refused; skip the formatting
        check_bytes(n, what, "x".join(str(d) for d in shape) or "a scalar")


def bind_budget_check(op: Any, opdef: Any, kwargs: dict[str, Any]) -> Any:
    """Binding hook: an op whose results exceed the budget binds to a refusing kernel."""
    total = 0
    for r in op.results:
        total += type_bytes(r.type)
    if total <= 1 << 20:
        return None
    limit = current_limit()
    if total <= limit:
        return None
    shapes = ", ".join(str(r.type) for r in op.results)
    message = refusal(f"'{op.name}'", shapes, total, limit)

    def refuse(*args: Any) -> Any:
        raise EvaluationError(message)

    return refuse


register_bind_hook(bind_budget_check, 40)
