"""Op definitions, one module per dialect or op family; importing a module registers its ops.

Every module below this package (and `shlo_cli.check_dialect`) is imported on first lookup,
so adding an op family is adding a file.
"""

from __future__ import annotations

import importlib
import pkgutil


def load_all() -> None:
    from .. import check_dialect

    for package in (__import__(__name__, fromlist=["_"]), check_dialect):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            importlib.import_module(info.name)
