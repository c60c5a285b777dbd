"""interpreter.run_parallel and the distributed ops: process groups, collectives, send/recv,
feeds, the run_parallel verifier, and bounded waits (deadlocks end in a diagnostic)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from shlo_cli.commands.interpret import run_interpret
from shlo_cli.commands.translate import translate
from shlo_cli.interpreter.processes import ProcessGrid, ProcessId


def run(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str,
        **options: object) -> tuple[int, str, str]:
    path = tmp_path / "t.mlir"
    path.write_text(text)
    code = run_interpret(str(path), **options)  # type: ignore[arg-type]
    out, err = capsys.readouterr()
    return code, out, err


def P(r: int, p: int) -> ProcessId:
    return ProcessId(r, p)


# ---- process groups -----------------------------------------------------------------------


def test_process_groups_follow_the_spec() -> None:
    grid = ProcessGrid(2, 2)
    assert grid.cross_replica([[0, 1]]) == [(P(0, 0), P(1, 0)), (P(0, 1), P(1, 1))]
    assert grid.cross_partition([[0, 1]]) == [(P(0, 0), P(0, 1)), (P(1, 0), P(1, 1))]
    assert grid.cross_replica_and_partition([[0, 1]]) == [
        (P(0, 0), P(1, 0), P(0, 1), P(1, 1))]
    assert grid.flattened_ids([[0, 3], [2, 1]]) == [(P(0, 0), P(1, 1)), (P(1, 0), P(0, 1))]


def test_rendezvous_meets_in_order_and_separates_successive_calls() -> None:
    grid = ProcessGrid(2, 1, timeout=5)
    group = (P(0, 0), P(1, 0))
    seen: dict[ProcessId, list[dict[ProcessId, list[int]]]] = {P(0, 0): [], P(1, 0): []}

    def body(me: ProcessId) -> None:
        for step in range(3):
            seen[me].append(grid.rendezvous("op", 0, group, me, [10 * step + me.replica_id]))

    threads = [threading.Thread(target=body, args=(p,)) for p in group]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for me in group:
        assert [s[P(0, 0)] + s[P(1, 0)] for s in seen[me]] == [[0, 1], [10, 11], [20, 21]]


# ---- collectives through the CLI ----------------------------------------------------------

GRID_3X2 = """
module {
  func.func @ids() -> (tensor<ui32>, tensor<ui32>) {
    %r = stablehlo.replica_id : tensor<ui32>
    %p = stablehlo.partition_id : tensor<ui32>
    return %r, %p : tensor<ui32>, tensor<ui32>
  }
  func.func @main() {
    %res:12 = "interpreter.run_parallel"() {
      programs = [[@ids, @ids], [@ids, @ids], [@ids, @ids]]
    } : () -> (tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>,
               tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>,
               tensor<ui32>, tensor<ui32>)
    check.expect_eq_const %res#0, dense<0> : tensor<ui32>
    check.expect_eq_const %res#1, dense<0> : tensor<ui32>
    check.expect_eq_const %res#2, dense<0> : tensor<ui32>
    check.expect_eq_const %res#3, dense<1> : tensor<ui32>
    check.expect_eq_const %res#6, dense<1> : tensor<ui32>
    check.expect_eq_const %res#7, dense<1> : tensor<ui32>
    check.expect_eq_const %res#10, dense<2> : tensor<ui32>
    check.expect_eq_const %res#11, dense<1> : tensor<ui32>
    func.return
  }
}
"""


def test_results_are_gathered_in_row_major_order(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                                 ) -> None:
    code, out, err = run(tmp_path, capsys, GRID_3X2)
    assert (code, err) == (0, "")


ALL_REDUCE_MAX = """
func.func @reduce(%x: tensor<3xf32>, %y: tensor<2xi32>) -> (tensor<3xf32>, tensor<2xi32>) {
  %r:2 = "stablehlo.all_reduce"(%x, %y) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %m = stablehlo.maximum %a, %b : tensor<f32>
      stablehlo.return %m : tensor<f32>
  }) {replica_groups = dense<[[0, 1, 2]]> : tensor<1x3xi64>}
     : (tensor<3xf32>, tensor<2xi32>) -> (tensor<3xf32>, tensor<2xi32>)
  return %r#0, %r#1 : tensor<3xf32>, tensor<2xi32>
}
func.func @main() -> (tensor<3xf32>, tensor<2xi32>) {
  %a = stablehlo.constant dense<[1.0, 9.0, -1.0]> : tensor<3xf32>
  %b = stablehlo.constant dense<[5.0, 2.0, -3.0]> : tensor<3xf32>
  %c = stablehlo.constant dense<[0.5, 2.5, 7.0]> : tensor<3xf32>
  %i = stablehlo.constant dense<[1, 8]> : tensor<2xi32>
  %j = stablehlo.constant dense<[4, -2]> : tensor<2xi32>
  %res:6 = "interpreter.run_parallel"(%a, %i, %b, %j, %c, %i) {
    programs = [[@reduce], [@reduce], [@reduce]]
  } : (tensor<3xf32>, tensor<2xi32>, tensor<3xf32>, tensor<2xi32>, tensor<3xf32>,
       tensor<2xi32>) -> (tensor<3xf32>, tensor<2xi32>, tensor<3xf32>, tensor<2xi32>,
       tensor<3xf32>, tensor<2xi32>)
  return %res#4, %res#5 : tensor<3xf32>, tensor<2xi32>
}
"""


def test_all_reduce_with_any_region_and_several_operands(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(tmp_path, capsys, ALL_REDUCE_MAX, interpreter_print_dense=True)
    assert (code, err) == (0, "")
    assert out == ("dense<[5.000000e+00, 9.000000e+00, 7.000000e+00]> : tensor<3xf32>\n"
                   "dense<[4, 8]> : tensor<2xi32>\n")


PER_ELEMENT_REGION = """
func.func @reduce(%x: tensor<3xi64>) -> tensor<3xi64> {
  %r = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<i64>, %b: tensor<i64>):
      %s = stablehlo.reshape %a : (tensor<i64>) -> tensor<i64>
      %m = stablehlo.subtract %s, %b : tensor<i64>
      stablehlo.return %m : tensor<i64>
  }) {replica_groups = dense<[[1, 0]]> : tensor<1x2xi64>} : (tensor<3xi64>) -> tensor<3xi64>
  return %r : tensor<3xi64>
}
func.func @main() -> tensor<3xi64> {
  %a = stablehlo.constant dense<[10, 20, 30]> : tensor<3xi64>
  %b = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi64>
  %res:2 = "interpreter.run_parallel"(%a, %b) {programs = [[@reduce], [@reduce]]}
    : (tensor<3xi64>, tensor<3xi64>) -> (tensor<3xi64>, tensor<3xi64>)
  return %res#1 : tensor<3xi64>
}
"""


def test_all_reduce_region_outside_the_fast_path_runs_per_element_in_process_order(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(tmp_path, capsys, PER_ELEMENT_REGION, interpreter_print_dense=True)
    assert (code, err) == (0, "")
    assert out == "dense<[9, 18, 27]> : tensor<3xi64>\n"  # process 0 minus process 1


FLATTENED_GATHER = """
func.func @gather(%x: tensor<1xi64>) -> tensor<2xi64> {
  %g = "stablehlo.all_gather"(%x) {
    all_gather_dim = 0 : i64, replica_groups = dense<[[0, 3], [2, 1]]> : tensor<2x2xi64>,
    channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, use_global_device_ids
  } : (tensor<1xi64>) -> tensor<2xi64>
  return %g : tensor<2xi64>
}
func.func @main() -> (tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) {
  %a = stablehlo.constant dense<[1]> : tensor<1xi64>
  %b = stablehlo.constant dense<[2]> : tensor<1xi64>
  %c = stablehlo.constant dense<[3]> : tensor<1xi64>
  %d = stablehlo.constant dense<[4]> : tensor<1xi64>
  %res:4 = "interpreter.run_parallel"(%a, %b, %c, %d) {
    programs = [[@gather, @gather], [@gather, @gather]]
  } : (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>)
    -> (tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>)
  return %res#0, %res#1, %res#2, %res#3 : tensor<2xi64>, tensor<2xi64>, tensor<2xi64>,
    tensor<2xi64>
}
"""


def test_flattened_ids_groups_span_replicas_and_partitions(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(tmp_path, capsys, FLATTENED_GATHER, interpreter_print_dense=True)
    assert (code, err) == (0, "")
    # flattened id = replica * 2 + partition: groups {(0,0),(1,1)} and {(1,0),(0,1)},
    # each gathered in the order the group lists its ids
    assert out.splitlines() == ["dense<[1, 4]> : tensor<2xi64>", "dense<[3, 2]> : tensor<2xi64>",
                                "dense<[3, 2]> : tensor<2xi64>", "dense<[1, 4]> : tensor<2xi64>"]


PERMUTE_CYCLE = """
func.func @permute(%x: tensor<2xi32>) -> tensor<2xi32> {
  %r = "stablehlo.collective_permute"(%x) {
    source_target_pairs = dense<[[0, 1], [1, 2], [2, 0]]> : tensor<3x2xi64>,
    channel_handle = #stablehlo.channel_handle<handle = 3, type = 1>
  } : (tensor<2xi32>) -> tensor<2xi32>
  return %r : tensor<2xi32>
}
func.func @main() -> (tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) {
  %a = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %b = stablehlo.constant dense<[3, 4]> : tensor<2xi32>
  %c = stablehlo.constant dense<[5, 6]> : tensor<2xi32>
  %d = stablehlo.constant dense<[7, 8]> : tensor<2xi32>
  %res:4 = "interpreter.run_parallel"(%a, %b, %c, %d) {
    programs = [[@permute, @permute, @permute, @permute]]
  } : (tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>)
    -> (tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>)
  return %res#0, %res#1, %res#2, %res#3 : tensor<2xi32>, tensor<2xi32>, tensor<2xi32>,
    tensor<2xi32>
}
"""


def test_collective_permute_cycle_across_partitions(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(tmp_path, capsys, PERMUTE_CYCLE, interpreter_print_dense=True)
    assert (code, err) == (0, "")
    assert out.splitlines() == ["dense<[5, 6]> : tensor<2xi32>", "dense<[1, 2]> : tensor<2xi32>",
                                "dense<[3, 4]> : tensor<2xi32>", "dense<0> : tensor<2xi32>"]


REDUCE_SCATTER = """
func.func @rs(%x: tensor<4xi32>) -> tensor<2xi32> {
  %r = "stablehlo.reduce_scatter"(%x) ({
    ^bb0(%a: tensor<i32>, %b: tensor<i32>):
      %m = stablehlo.multiply %a, %b : tensor<i32>
      stablehlo.return %m : tensor<i32>
  }) {scatter_dimension = 0 : i64, replica_groups = dense<[[1, 0]]> : tensor<1x2xi64>}
     : (tensor<4xi32>) -> tensor<2xi32>
  return %r : tensor<2xi32>
}
func.func @main() -> (tensor<2xi32>, tensor<2xi32>) {
  %a = stablehlo.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %b = stablehlo.constant dense<[5, 6, 7, 8]> : tensor<4xi32>
  %res:2 = "interpreter.run_parallel"(%a, %b) {programs = [[@rs], [@rs]]}
    : (tensor<4xi32>, tensor<4xi32>) -> (tensor<2xi32>, tensor<2xi32>)
  return %res#0, %res#1 : tensor<2xi32>, tensor<2xi32>
}
"""


def test_reduce_scatter_gives_each_process_its_part_by_group_index(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(tmp_path, capsys, REDUCE_SCATTER, interpreter_print_dense=True)
    assert (code, err) == (0, "")
    # group [1, 0]: replica 1 gets the first half of the product, replica 0 the second
    assert out.splitlines() == ["dense<[21, 32]> : tensor<2xi32>",
                                "dense<[5, 12]> : tensor<2xi32>"]


def test_distributed_ops_need_run_parallel(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(tmp_path, capsys, """
func.func @main() -> tensor<ui32> {
  %r = stablehlo.replica_id : tensor<ui32>
  return %r : tensor<ui32>
}""")
    assert code == 1
    assert "replica_id is only supported when run via interpreter.run_parallel" in err


# ---- feeds --------------------------------------------------------------------------------

INFEED_EMPTY = """
func.func @take(%t: !stablehlo.token) -> (tensor<i32>, !stablehlo.token) {
  %r:2 = "stablehlo.infeed"(%t) : (!stablehlo.token) -> (tensor<i32>, !stablehlo.token)
  return %r#0, %r#1 : tensor<i32>, !stablehlo.token
}
func.func @one() -> tensor<i32> {
  %c = stablehlo.constant dense<7> : tensor<i32>
  return %c : tensor<i32>
}
func.func @main() {
  %t = stablehlo.after_all : !stablehlo.token
  %r:4 = "interpreter.run_parallel"(%t, %t) {infeed = [@one], programs = [[@take], [@take]]}
    : (!stablehlo.token, !stablehlo.token)
    -> (tensor<i32>, !stablehlo.token, tensor<i32>, !stablehlo.token)
  func.return
}
"""


def test_an_exhausted_infeed_queue_is_a_diagnostic(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(tmp_path, capsys, INFEED_EMPTY)
    assert code == 1
    assert "stablehlo.infeed: the infeed queue is empty" in err
    assert "Traceback" not in err


def test_outfeed_queue_keeps_what_processes_push() -> None:
    grid = ProcessGrid(1, 1)
    grid.outfeed([1, 2])
    grid.outfeed([3])
    assert list(grid.outfeed_queue) == [[1, 2], [3]]


# ---- the run_parallel verifier ------------------------------------------------------------

VERIFY = """
func.func @f(%x: tensor<i32>) -> tensor<i32> {{
  return %x : tensor<i32>
}}
func.func @two() -> (tensor<i32>, tensor<i32>) {{
  %c = stablehlo.constant dense<1> : tensor<i32>
  return %c, %c : tensor<i32>, tensor<i32>
}}
func.func @main() {{
  %c = stablehlo.constant dense<1> : tensor<i32>
  {op}
  func.return
}}
"""


@pytest.mark.parametrize(("op", "message"), [
    ('"interpreter.run_parallel"() {programs = []} : () -> ()',
     "`programs` attribute cannot be empty"),
    ('%r:2 = "interpreter.run_parallel"(%c, %c) {programs = [[@f], [@f, @f]]} '
     ': (tensor<i32>, tensor<i32>) -> (tensor<i32>, tensor<i32>)',
     "Sizes of second dimension of `programs` should all match 1 but got 2"),
    ('"interpreter.run_parallel"() {programs = [[@nope]]} : () -> ()',
     'Function "nope" not found'),
    ('%r = "interpreter.run_parallel"() {programs = [[@f]]} : () -> tensor<i32>',
     "Number of inputs (0) should match the sum of the number of inputs of all programs (1)"),
    ('"interpreter.run_parallel"(%c) {programs = [[@f]]} : (tensor<i32>) -> ()',
     "Number of results (0) should match the sum of the number of results of all "
     "programs (1)"),
    ('%r = "interpreter.run_parallel"(%c) {infeed = [@two], programs = [[@f]]} '
     ': (tensor<i32>) -> tensor<i32>',
     'Function "two" should return 1 tensor but returns 2'),
    ('%r = "interpreter.run_parallel"(%c) {infeed = [], programs = [[@f]]} '
     ': (tensor<i32>) -> tensor<i32>',
     "infeed attribute is optional or should not be empty"),
])
def test_run_parallel_verifier(tmp_path: Path, capsys: pytest.CaptureFixture[str], op: str,
                               message: str) -> None:
    code, _, err = run(tmp_path, capsys, VERIFY.format(op=op))
    assert code == 1
    assert f"error: {message}" in err


# ---- bounded waits ------------------------------------------------------------------------

RECV_WITHOUT_SEND = """
func.func @recv(%t: !stablehlo.token) -> (tensor<2xi64>, !stablehlo.token) {
  %0, %1 = "stablehlo.recv"(%t) {
    channel_handle = #stablehlo.channel_handle<handle = 7, type = 3>, is_host_transfer = true
  } : (!stablehlo.token) -> (tensor<2xi64>, !stablehlo.token)
  return %0, %1 : tensor<2xi64>, !stablehlo.token
}
func.func @other(%t: !stablehlo.token) -> (tensor<2xi64>, !stablehlo.token) {
  %0, %1 = "stablehlo.recv"(%t) {
    channel_handle = #stablehlo.channel_handle<handle = 8, type = 3>, is_host_transfer = true
  } : (!stablehlo.token) -> (tensor<2xi64>, !stablehlo.token)
  return %0, %1 : tensor<2xi64>, !stablehlo.token
}
func.func @main() {
  %t = stablehlo.after_all : !stablehlo.token
  %r:4 = "interpreter.run_parallel"(%t, %t) {programs = [[@recv], [@other]]}
    : (!stablehlo.token, !stablehlo.token)
    -> (tensor<2xi64>, !stablehlo.token, tensor<2xi64>, !stablehlo.token)
  func.return
}
"""


def test_a_deadlock_is_reported_at_once_naming_every_waiting_process(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    start = time.monotonic()
    code, _, err = run(tmp_path, capsys, RECV_WITHOUT_SEND, timeout=30)
    assert code == 1
    assert time.monotonic() - start < 10  # found, not waited out
    assert "cannot complete: deadlock, every unfinished process is waiting ((0, 0) in " \
           "stablehlo.recv, (1, 0) in stablehlo.recv)" in err
    assert err.count("error:") == 1  # one diagnostic, the other process was released
    assert "Traceback" not in err


RECV_WHILE_OTHER_SPINS = """
func.func @recv(%t: !stablehlo.token) -> (tensor<2xi64>, !stablehlo.token) {
  %0, %1 = "stablehlo.recv"(%t) {
    channel_handle = #stablehlo.channel_handle<handle = 7, type = 3>, is_host_transfer = true
  } : (!stablehlo.token) -> (tensor<2xi64>, !stablehlo.token)
  return %0, %1 : tensor<2xi64>, !stablehlo.token
}
func.func @spin(%t: !stablehlo.token) -> (tensor<2xi64>, !stablehlo.token) {
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %big = stablehlo.constant dense<1000000000> : tensor<i64>
  %n = stablehlo.while(%i = %zero) : tensor<i64>
  cond {
    %c = stablehlo.compare LT, %i, %big : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %next = stablehlo.add %i, %one : tensor<i64>
    stablehlo.return %next : tensor<i64>
  }
  %v = stablehlo.broadcast_in_dim %n, dims = [] : (tensor<i64>) -> tensor<2xi64>
  return %v, %t : tensor<2xi64>, !stablehlo.token
}
func.func @main() {
  %t = stablehlo.after_all : !stablehlo.token
  %r:4 = "interpreter.run_parallel"(%t, %t) {programs = [[@recv], [@spin]]}
    : (!stablehlo.token, !stablehlo.token)
    -> (tensor<2xi64>, !stablehlo.token, tensor<2xi64>, !stablehlo.token)
  func.return
}
"""


def test_a_recv_with_no_sender_ends_in_a_diagnostic_within_the_timeout(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    start = time.monotonic()
    code, _, err = run(tmp_path, capsys, RECV_WHILE_OTHER_SPINS, timeout=0.3)
    assert code == 1
    assert time.monotonic() - start < 5  # the spinning process is not waited for
    assert "error: stablehlo.recv in process (0, 0) timed out after 0.3 s: no process sent " \
           "on channel 7" in err
    assert err.count("error:") == 1
    assert "Traceback" not in err


def test_translate_timeout_flag(tmp_path: Path) -> None:
    path = tmp_path / "dead.mlir"
    path.write_text(RECV_WHILE_OTHER_SPINS)
    result = CliRunner().invoke(translate, ["--interpret", "--timeout", "0.2", str(path)])
    assert result.exit_code == 1
    assert "timed out after 0.2 s" in result.output


MISMATCHED_GROUPS = """
func.func @a(%x: tensor<1xi64>) -> tensor<2xi64> {
  %r = "stablehlo.all_gather"(%x) {all_gather_dim = 0 : i64,
    replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>} : (tensor<1xi64>) -> tensor<2xi64>
  return %r : tensor<2xi64>
}
func.func @b(%x: tensor<1xi64>) -> tensor<2xi64> {
  %r = "stablehlo.concatenate"(%x, %x) {dimension = 0 : i64}
    : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  return %r : tensor<2xi64>
}
func.func @main() {
  %v = stablehlo.constant dense<[1]> : tensor<1xi64>
  %r:4 = "interpreter.run_parallel"(%v, %v, %v, %v) {programs = [[@a], [@b], [@a], [@a]]}
    : (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>)
    -> (tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>)
  func.return
}
"""


def test_mismatched_groups_fail_as_soon_as_the_partner_has_finished(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    start = time.monotonic()
    code, _, err = run(tmp_path, capsys, MISMATCHED_GROUPS, timeout=20)
    assert code == 1
    assert time.monotonic() - start < 10  # the partner is gone: no need to wait 20 s
    assert "stablehlo.all_gather in process (0, 0) cannot complete" in err
    assert "waiting for processes (1, 0) of group [(0, 0), (1, 0)]" in err


FAILING_PROCESS = """
func.func @fails(%x: tensor<i64>) -> tensor<i64> {
  check.expect_eq_const %x, dense<5> : tensor<i64>
  return %x : tensor<i64>
}
func.func @waits(%x: tensor<i64>) -> tensor<i64> {
  %r = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<i64>, %b: tensor<i64>):
      %s = stablehlo.add %a, %b : tensor<i64>
      stablehlo.return %s : tensor<i64>
  }) {replica_groups = dense<[[1, 2], [0, -1]]> : tensor<2x2xi64>} : (tensor<i64>) -> tensor<i64>
  return %r : tensor<i64>
}
func.func @stuck(%t: !stablehlo.token) -> (tensor<i64>, !stablehlo.token) {
  %0, %1 = "stablehlo.recv"(%t) {
    channel_handle = #stablehlo.channel_handle<handle = 9, type = 3>, is_host_transfer = true
  } : (!stablehlo.token) -> (tensor<i64>, !stablehlo.token)
  return %0, %1 : tensor<i64>, !stablehlo.token
}
func.func @main() {
  %x = stablehlo.constant dense<1> : tensor<i64>
  %t = stablehlo.after_all : !stablehlo.token
  %r:4 = "interpreter.run_parallel"(%x, %x, %t) {programs = [[@fails], [@waits], [@stuck]]}
    : (tensor<i64>, tensor<i64>, !stablehlo.token)
    -> (tensor<i64>, tensor<i64>, tensor<i64>, !stablehlo.token)
  func.return
}
"""


def test_a_failing_process_releases_the_others_at_once(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    start = time.monotonic()
    code, _, err = run(tmp_path, capsys, FAILING_PROCESS, timeout=30)
    assert code == 1
    assert time.monotonic() - start < 10  # released by the failure, not by the 30 s timeout
    assert "check.expect_eq_const failed" in err
    assert err.count("error:") == 1


COLLECTIVE_REDUCE_DYNAMIC_ROOT = """
func.func @cr(%x: tensor<2xf32>, %y: tensor<2xf32>, %root: tensor<2xi32>)
    -> (tensor<2xf64>, tensor<2xf64>) {
  %r:2 = "stablehlo.collective_reduce"(%x, %y, %root) ({
    ^bb0(%a: tensor<f64>, %b: tensor<f64>):
      %s = stablehlo.add %a, %b : tensor<f64>
      stablehlo.return %s : tensor<f64>
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, has_dynamic_root}
     : (tensor<2xf32>, tensor<2xf32>, tensor<2xi32>) -> (tensor<2xf64>, tensor<2xf64>)
  return %r#0, %r#1 : tensor<2xf64>, tensor<2xf64>
}
func.func @main() -> (tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>) {
  %a = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = stablehlo.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %root = stablehlo.constant dense<[1, 0]> : tensor<2xi32>
  %res:4 = "interpreter.run_parallel"(%a, %b, %root, %b, %a, %root) {
    programs = [[@cr], [@cr]]
  } : (tensor<2xf32>, tensor<2xf32>, tensor<2xi32>, tensor<2xf32>, tensor<2xf32>,
       tensor<2xi32>) -> (tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>)
  return %res#0, %res#1, %res#2, %res#3 : tensor<2xf64>, tensor<2xf64>, tensor<2xf64>,
    tensor<2xf64>
}
"""


def test_collective_reduce_with_dynamic_roots_and_a_promoted_result_type(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(tmp_path, capsys, COLLECTIVE_REDUCE_DYNAMIC_ROOT,
                         interpreter_print_dense=True)
    assert (code, err) == (0, "")
    # data operand 0 goes to group index 1 (replica 1), data operand 1 to replica 0
    assert out.splitlines() == [
        "dense<0.000000e+00> : tensor<2xf64>",
        "dense<[1.500000e+00, 2.250000e+00]> : tensor<2xf64>",
        "dense<[1.500000e+00, 2.250000e+00]> : tensor<2xf64>",
        "dense<0.000000e+00> : tensor<2xf64>"]


def test_reduce_scatter_reduces_in_the_promoted_result_type(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = REDUCE_SCATTER.replace("tensor<i32>", "tensor<i64>").replace(
        "-> tensor<2xi32>", "-> tensor<2xi64>").replace(
        "(tensor<2xi32>, tensor<2xi32>)", "(tensor<2xi64>, tensor<2xi64>)").replace(
        "return %r : tensor<2xi32>", "return %r : tensor<2xi64>").replace(
        "return %res#0, %res#1 : tensor<2xi32>, tensor<2xi32>",
        "return %res#0, %res#1 : tensor<2xi64>, tensor<2xi64>")
    code, out, err = run(tmp_path, capsys, text, interpreter_print_dense=True)
    assert (code, err) == (0, "")
    assert out.splitlines() == ["dense<[21, 32]> : tensor<2xi64>",
                                "dense<[5, 12]> : tensor<2xi64>"]


def test_a_process_in_no_group_is_a_diagnostic(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    text = """
func.func @g(%x: tensor<1xi64>) -> tensor<2xi64> {
  %r = "stablehlo.all_gather"(%x) {all_gather_dim = 0 : i64,
    replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<1xi64>) -> tensor<2xi64>
  return %r : tensor<2xi64>
}
func.func @main() {
  %v = stablehlo.constant dense<[1]> : tensor<1xi64>
  %r:3 = "interpreter.run_parallel"(%v, %v, %v) {programs = [[@g], [@g], [@g]]}
    : (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> (tensor<2xi64>, tensor<2xi64>, tensor<2xi64>)
  func.return
}
"""
    code, _, err = run(tmp_path, capsys, text)
    assert code == 1
    assert "error: Failed to find process group with process_id: (2, 0)" in err
    assert err.count("error:") == 1


def test_the_infeed_queue_is_shared_by_the_grid(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    text = INFEED_EMPTY.replace("infeed = [@one]", "infeed = [@one, @one]")
    code, _, err = run(tmp_path, capsys, text)
    assert (code, err) == (0, "")
