"""numpy and ml_dtypes as lazily executed modules, for the command-line tools.

Importing numpy and ml_dtypes costs ~100 ms of CPU, more than everything else a tool launch
does, yet only commands that compute (interpreting, folding) need them. The op modules import
numpy at the top for their evaluators; rather than moving every such import into functions,
the tools register numpy and ml_dtypes as lazy modules before anything imports them: `import
numpy as np` then binds a module object whose code runs on the first access to an attribute it
does not have yet (`np.float32`, `np.asarray(...)`). (`importlib.util.LazyLoader` loads on
*any* attribute access, and every later `import numpy` reads
`numpy.__spec__`, so it would load on the second import statement; here `__spec__`,
`__name__`, `__path__` are already set.)

Code on the parse/verify/print/bytecode path takes care never to touch such an attribute, so
those launches never load numpy; module-level tables of numpy objects in the op modules are
built on first use (`lazy(...)`, `numpy_function(...)`).
"""

from __future__ import annotations

import importlib
import sys
import types
from importlib.machinery import ModuleSpec

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar

    T = TypeVar("T")

LAZY_MODULES = ("numpy", "ml_dtypes")


def install() -> None:
    """Make the first import of each of LAZY_MODULES lazy (no-op for one already imported)."""
    for name in LAZY_MODULES:
        if name in sys.modules:
            continue
        spec = _find_spec(name)
        if spec is None or spec.loader is None:
            continue
        # (`importlib.util` would import contextlib, functools and collections: ~2 ms)
        module = importlib._bootstrap.module_from_spec(spec)
        module.__class__ = _LazyModule
        sys.modules[name] = module
    if not any(isinstance(f, _RunPackageFirst) for f in sys.meta_path):
        sys.meta_path.insert(0, _RunPackageFirst())


def _find_spec(name: str) -> ModuleSpec | None:
    """The spec the import system's finders give top-level module `name`, else None
    (`importlib.util.find_spec` of a name not imported yet)."""
    for finder in sys.meta_path:
        find = getattr(finder, "find_spec", None)
        spec = find(name, None) if find is not None else None
        if spec is not None:
            return spec
    return None


class _LazyModule(types.ModuleType):
    """A module whose code has not run yet: the first missing attribute runs it."""

    def __getattr__(self, attr: str) -> object:
        _run(self)
        return getattr(self, attr)


def _run(module: types.ModuleType) -> None:
    """Execute a lazy module's code (once)."""
    if type(module) is not _LazyModule:
        return
    spec: ModuleSpec = object.__getattribute__(module, "__spec__")
    module.__class__ = types.ModuleType  # type: ignore[assignment]  # an ordinary module now
    assert spec.loader is not None
    spec.loader.exec_module(module)
    for fn in _AFTER_LOAD.pop(spec.name, ()):
        fn()


_AFTER_LOAD: dict[str, list[Callable[[], None]]] = {}  # lazy module -> what `after_load` put off


def after_load(name: str, fn: Callable[[], None]) -> None:
    """Call `fn` once module `name`'s code has run: now, unless `name` is a lazy module not run
    yet (then right after it runs). For set-up only computing needs, such as warning filters
    for numpy (`warnings.filterwarnings` with a module pattern imports `re`: ~4 ms)."""
    module = sys.modules.get(name)
    if module is not None and type(module) is _LazyModule:
        _AFTER_LOAD.setdefault(name, []).append(fn)
    else:
        fn()


class _RunPackageFirst:
    """Import hook: a submodule of a lazy package (`numpy._core`, imported by ml_dtypes'
    C extension or by `import numpy.linalg`) first runs the package's own code, as a normal
    import does; the submodule that code imported is then handed back as it is."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> ModuleSpec | None:
        root = name.partition(".")[0]
        package = sys.modules.get(root)
        if root == name or type(package) is not _LazyModule:
            return None
        assert package is not None
        _run(package)
        found = sys.modules.get(name)
        if found is None or found.__spec__ is None:
            return None  # not imported by the package: the ordinary finders load it
        loader: Any = _AlreadyLoaded(found.__spec__)
        return ModuleSpec(name, loader)


class _AlreadyLoaded:
    """Loader of a module that is in sys.modules already: keeps it and its own spec."""

    def __init__(self, spec: ModuleSpec) -> None:
        self.spec = spec

    def create_module(self, spec: ModuleSpec) -> types.ModuleType:
        return sys.modules[spec.name]

    def exec_module(self, module: types.ModuleType) -> None:
        module.__spec__ = self.spec  # the import machinery set ours


def is_loaded(name: str = "numpy") -> bool:
    """Whether `name`'s code has run (a lazy module not yet touched does not count)."""
    module = sys.modules.get(name)
    if module is None:
        return False
    return type(module).__name__ != "_LazyModule"


class _Lazy:
    """Stands for the value `factory()` returns, built on first use: membership, indexing,
    iteration, `|`, calls and attributes go to that value."""

    __slots__ = ("_factory", "_value")

    def __init__(self, factory: Callable[[], Any]) -> None:
        self._factory: Callable[[], Any] | None = factory
        self._value: Any = None

    def _get(self) -> Any:
        if self._factory is not None:
            self._value = self._factory()
            self._factory = None
        return self._value

    def __contains__(self, item: object) -> bool:
        return item in self._get()

    def __getitem__(self, key: Any) -> Any:
        return self._get()[key]

    def __iter__(self) -> Any:
        return iter(self._get())

    def __len__(self) -> int:
        return len(self._get())

    def __or__(self, other: Any) -> Any:
        return self._get() | _unwrap(other)

    def __ror__(self, other: Any) -> Any:
        return _unwrap(other) | self._get()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._get()(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._get(), name)

    def __repr__(self) -> str:
        return repr(self._get())


def _unwrap(value: Any) -> Any:
    return value._get() if isinstance(value, _Lazy) else value


def lazy(factory: Callable[[], T]) -> T:
    """A module-level table of numpy objects (dtypes, ufuncs) built on its first use, so
    importing the module does not load numpy."""
    table: Any = _Lazy(factory)
    return table


class _LazyFunction(_Lazy):
    __slots__ = ("_name",)

    def __init__(self, factory: Callable[[], Any], name: str) -> None:
        super().__init__(factory)
        self._name = name

    @property
    def __name__(self) -> str:  # without loading numpy (docstrings name the function)
        return str(self._name)

    @property  # type: ignore[misc]
    def __class__(self) -> type:  # `isinstance(f, np.ufunc)` holds as for the function
        return type(self._get())


def numpy_function(name: str) -> Any:
    """`numpy.<name>` (dotted: `fft.fftn`), looked up on its first use."""

    def find() -> Any:
        module, _, attr = f"numpy.{name}".rpartition(".")
        return getattr(importlib.import_module(module), attr)

    return lazy_function(find, name.rpartition(".")[2])


def lazy_function(factory: Callable[[], Any], name: str) -> Any:
    """The function `factory()` returns, built on its first call; its `__name__` is known
    before (kernels name themselves after the numpy function they wrap)."""
    return _LazyFunction(factory, name)
