"""`Context`: what a kernel may receive beyond its operands (`ctx=` in its signature), and
the kernel's view of its process in `interpreter.run_parallel` (`Process`, the `Grid` protocol).

It lives below the dialects so ops that talk to the running program (`interpreter.print`,
collectives, `cross-replica-sum`, ...) take it without importing the interpreter; the
interpreter creates one Context per process, and interpreter/processes.py implements `Grid`.
"""

from __future__ import annotations

from _thread import allocate_lock  # threading.Lock, without importing threading
from collections.abc import Sequence
from typing import Any, NamedTuple, Protocol

from .core import Module, Operation
from .record import Struct


class Runner(Protocol):
    """The running interpreter as kernels see it: its module, calls into its functions, and
    running a grid of processes (`interpreter.run_parallel`)."""

    module: Module

    def lookup_function(self, name: str) -> Operation: ...
    def call(self, func: Operation, args: Sequence[Any]) -> list[Any]: ...
    def run_grid(self, programs: Sequence[Sequence[Operation]], inputs: Sequence[Any],
                 infeed: Sequence[str] = ()) -> list[list[Any]]: ...


class Context:
    """The running interpreter, the output stream, the process identity (None outside
    `interpreter.run_parallel`), run options, and a lock so concurrent processes print whole
    tensors."""

    print_lock = allocate_lock()

    def __init__(self, interpreter: Runner, stdout: Any = None,
                 process: Any = None, options: dict[str, Any] | None = None) -> None:
        self.interpreter = interpreter
        self.stdout = stdout
        self.process = process
        self.options = options or {}


class ProcessId(NamedTuple):
    """(replica_id, partition_id); ordered row-major like the spec's process grid."""

    replica_id: int
    partition_id: int

    def __str__(self) -> str:
        return f"({self.replica_id}, {self.partition_id})"


ProcessGroup = tuple[ProcessId, ...]


class Grid(Protocol):
    """The process grid as kernels use it: process groups (spec: cross_replica, ...),
    rendezvous, channels and the infeed/outfeed queues."""

    num_replicas: int
    num_partitions: int

    def cross_replica(self, replica_groups: Sequence[Sequence[int]]) -> list[ProcessGroup]: ...
    def cross_partition(self, partition_groups: Sequence[Sequence[int]],
                        ) -> list[ProcessGroup]: ...
    def cross_replica_and_partition(self, replica_groups: Sequence[Sequence[int]],
                                    ) -> list[ProcessGroup]: ...
    def flattened_ids(self, flattened_id_groups: Sequence[Sequence[int]],
                      ) -> list[ProcessGroup]: ...
    def rendezvous(self, op_name: str, channel_id: int, group: ProcessGroup,
                   process: ProcessId, operands: Sequence[Any]) -> dict[ProcessId, list[Any]]: ...
    def send(self, op_name: str, channel_id: int, process: ProcessId,
             values: Sequence[Any]) -> None: ...
    def recv(self, op_name: str, channel_id: int, process: ProcessId) -> list[Any]: ...
    def infeed(self, op_name: str) -> str: ...
    def outfeed(self, values: Sequence[Any]) -> None: ...


class Process(Struct):
    """What a kernel sees of its process: its id and the grid it belongs to."""

    id: ProcessId
    grid: Grid

    def __init__(self, id: ProcessId, grid: Grid) -> None:
        self.id = id
        self.grid = grid

    @property
    def replica_id(self) -> int:
        return self.id.replica_id

    @property
    def partition_id(self) -> int:
        return self.id.partition_id

    def rendezvous(self, op_name: str, channel_id: int, group: ProcessGroup,
                   operands: Sequence[Any]) -> dict[ProcessId, list[Any]]:
        return self.grid.rendezvous(op_name, channel_id, group, self.id, operands)
