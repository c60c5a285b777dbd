"""The process grid of `interpreter.run_parallel`: process ids, groups, rendezvous, channels.

Every process runs in its own thread. Processes meet only here: in a rendezvous (collectives),
on a send/recv channel, or on the shared infeed/outfeed queues. Every wait is bounded by the
grid's timeout and is released at once when another process fails (`abort`), so a program
that cannot make progress ends with a diagnostic naming the op and the processes involved
instead of hanging.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..ir.context import ProcessGroup, ProcessId
from .engine import EvaluationError, _Abort

DEFAULT_TIMEOUT = 30.0




class ProcessAborted(_Abort):
    """This process was released because another process failed; the other one reports."""


def _names(ids: Iterable[ProcessId]) -> str:
    return ", ".join(str(p) for p in ids) or "none"


@dataclass
class _Slot:
    """One meeting of a group: what each member brought, and who has not left yet."""

    members: frozenset[ProcessId]
    values: dict[ProcessId, list[Any]] = field(default_factory=dict)
    leaving: int = 0


@dataclass
class _Message:
    values: list[Any]
    sender: ProcessId
    taken: bool = False


class ProcessGrid:
    """num_replicas x num_partitions processes sharing rendezvous slots, channels and feeds."""

    def __init__(self, num_replicas: int, num_partitions: int,
                 infeed: Sequence[str] = (), timeout: float = DEFAULT_TIMEOUT) -> None:
        self.num_replicas = num_replicas
        self.num_partitions = num_partitions
        self.timeout = timeout
        self.infeed_queue: deque[str] = deque(infeed)
        self.outfeed_queue: deque[list[Any]] = deque()
        self._cond = threading.Condition()
        self._slots: dict[Hashable, _Slot] = {}
        self._sequence: dict[Hashable, int] = {}
        self._channels: dict[int, deque[_Message]] = {}
        self.failure: tuple[ProcessId, BaseException] | None = None
        self.finished: set[ProcessId] = set()
        self.stop = threading.Event()  # set on the first failure; interpreters check it
        self._waiting: dict[ProcessId, tuple[str, Callable[[], bool]]] = {}
        self._all = frozenset(ProcessId(r, p) for r in range(num_replicas)
                              for p in range(num_partitions))

    # ---- process groups (spec: cross_replica, cross_partition, ...) ----------------------

    def cross_replica(self, replica_groups: Sequence[Sequence[int]]) -> list[ProcessGroup]:
        return [tuple(ProcessId(r, p) for r in group)
                for group in replica_groups for p in range(self.num_partitions)]

    def cross_partition(self, partition_groups: Sequence[Sequence[int]]) -> list[ProcessGroup]:
        return [tuple(ProcessId(r, p) for p in group)
                for group in partition_groups for r in range(self.num_replicas)]

    def cross_replica_and_partition(self, replica_groups: Sequence[Sequence[int]],
                                    ) -> list[ProcessGroup]:
        return [tuple(ProcessId(r, p) for p in range(self.num_partitions) for r in group)
                for group in replica_groups]

    def flattened_ids(self, flattened_id_groups: Sequence[Sequence[int]]) -> list[ProcessGroup]:
        return [tuple(ProcessId(i // self.num_partitions, i % self.num_partitions)
                      for i in group) for group in flattened_id_groups]

    def contains(self, process: ProcessId) -> bool:
        return 0 <= process.replica_id < self.num_replicas \
            and 0 <= process.partition_id < self.num_partitions

    # ---- failure -------------------------------------------------------------------------

    def abort(self, process: ProcessId, error: BaseException) -> None:
        """Record the first failure and wake every waiting process so it can stop."""
        with self._cond:
            if self.failure is None:
                self.failure = (process, error)
            self.stop.set()
            self._cond.notify_all()

    def finish(self, process: ProcessId) -> None:
        """`process` ended: whoever still waits for it can stop waiting."""
        with self._cond:
            self.finished.add(process)
            self._cond.notify_all()

    def _wait(self, process: ProcessId, op_name: str, ready: Callable[[], bool],
              deadline: float, hopeless: Callable[[], bool] = lambda: False) -> str:
        """Wait (holding the condition) until `ready()`: "ready", "timeout", or "hopeless"
        (the processes it waits for have ended). Raises ProcessAborted when another process
        failed, and EvaluationError when every unfinished process waits for nothing that
        can come (a deadlock)."""
        self._waiting[process] = (op_name, ready)
        try:
            while not ready():
                if self.failure is not None:
                    raise ProcessAborted()
                if hopeless():
                    return "hopeless"
                self._check_deadlock(process, op_name)
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return "timeout"
                self._cond.wait(remaining)
            return "ready"
        finally:
            del self._waiting[process]

    def _check_deadlock(self, process: ProcessId, op_name: str) -> None:
        if set(self._waiting) | self.finished != self._all:
            return  # someone is still computing and may unblock the others
        if any(ready() for _, ready in self._waiting.values()):
            return
        waiting = ", ".join(f"{p} in {name}" for p, (name, _) in sorted(self._waiting.items()))
        raise EvaluationError(
            f"{op_name} in process {process} cannot complete: deadlock, every unfinished "
            f"process is waiting ({waiting})")

    def _others_finished(self, process: ProcessId) -> bool:
        return len(self.finished - {process}) == self.num_replicas * self.num_partitions - 1

    def _timeout_text(self) -> str:
        return f"{self.timeout:g} s"

    # ---- rendezvous ----------------------------------------------------------------------

    def rendezvous(self, op_name: str, channel_id: int, group: ProcessGroup,
                   process: ProcessId, operands: Sequence[Any]) -> dict[ProcessId, list[Any]]:
        """Every member of `group` contributes `operands`; each gets everyone's values.

        The n-th rendezvous of a process on (op, channel, group) meets the n-th of the others.
        """
        members = frozenset(group)
        if len(members) == 1:
            return {process: list(operands)}
        missing_ids = [p for p in members if not self.contains(p)]
        if missing_ids:
            raise EvaluationError(
                f"{op_name}: process group [{_names(group)}] names processes outside the "
                f"{self.num_replicas}x{self.num_partitions} process grid: {_names(missing_ids)}")
        key = (op_name, channel_id, tuple(sorted(members)))
        deadline = time.monotonic() + self.timeout
        with self._cond:
            index = self._sequence.get((key, process), 0)
            self._sequence[(key, process)] = index + 1
            slot = self._slots.setdefault((key, index), _Slot(members))
            slot.values[process] = list(operands)
            self._cond.notify_all()
            outcome = self._wait(process, op_name, lambda: len(slot.values) == len(members),
                                 deadline,
                                 lambda: bool((members - set(slot.values)) & self.finished))
            if outcome != "ready":
                arrived = sorted(slot.values)
                absent = sorted(members - set(slot.values))
                reason = (f"timed out after {self._timeout_text()}" if outcome == "timeout"
                          else "cannot complete: a process it waits for has finished")
                raise EvaluationError(
                    f"{op_name} in process {process} {reason}; waiting for processes "
                    f"{_names(absent)} of group [{_names(group)}] on channel {channel_id} "
                    f"(arrived: {_names(arrived)})")
            slot.leaving += 1
            if slot.leaving == len(members):
                del self._slots[(key, index)]
            counts = {len(v) for v in slot.values.values()}
            if len(counts) != 1:
                raise EvaluationError(
                    f"{op_name}: mismatched number of operands per process in group "
                    f"[{_names(group)}]")
            return dict(slot.values)

    # ---- send / recv ---------------------------------------------------------------------

    def send(self, op_name: str, channel_id: int, process: ProcessId,
             values: Sequence[Any]) -> None:
        """Hand `values` to the next recv on `channel_id`; returns once it was taken."""
        deadline = time.monotonic() + self.timeout
        message = _Message(list(values), process)
        with self._cond:
            self._channels.setdefault(channel_id, deque()).append(message)
            self._cond.notify_all()
            outcome = self._wait(process, op_name, lambda: message.taken, deadline,
                                 lambda: self._others_finished(process))
            if outcome != "ready":
                self._channels[channel_id].remove(message)
                reason = (f"timed out after {self._timeout_text()}" if outcome == "timeout"
                          else "cannot complete: every other process has finished")
                raise EvaluationError(
                    f"{op_name} in process {process} {reason}: no process received on "
                    f"channel {channel_id}")

    def recv(self, op_name: str, channel_id: int, process: ProcessId) -> list[Any]:
        """The values of the next send on `channel_id`."""
        deadline = time.monotonic() + self.timeout
        with self._cond:
            queue = self._channels.setdefault(channel_id, deque())
            outcome = self._wait(process, op_name, lambda: bool(queue), deadline,
                                 lambda: self._others_finished(process))
            if outcome != "ready":
                reason = (f"timed out after {self._timeout_text()}" if outcome == "timeout"
                          else "cannot complete: every other process has finished")
                raise EvaluationError(
                    f"{op_name} in process {process} {reason}: no process sent on "
                    f"channel {channel_id}")
            message = queue.popleft()
            message.taken = True
            self._cond.notify_all()
            return message.values

    # ---- infeed / outfeed ----------------------------------------------------------------

    def infeed(self, op_name: str) -> str:
        """The next function name of the grid's infeed queue."""
        with self._cond:
            if not self.infeed_queue:
                raise EvaluationError(f"{op_name}: the infeed queue is empty")
            return self.infeed_queue.popleft()

    def outfeed(self, values: Sequence[Any]) -> None:
        with self._cond:
            self.outfeed_queue.append(list(values))
