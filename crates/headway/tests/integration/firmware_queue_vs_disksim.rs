//! The drive's own queue, per request, against the completions DiskSim 4.0 printed for the
//! same traces (a private DiskSim copy printing each completion; the traces are the first
//! requests of the oracle's `q4_mixed_*` workloads on the IBM 18ES, a drive queue of 4):
//! docs/fidelity.md, "the queue of four".

use crate::common;

/// Completion times (ms) by request id of `trace` (DiskSim ASCII) on the IBM 18ES, the drive
/// queue of 4 ordered by `policy`.
fn done_ms(trace_text: &str, policy: &str) -> Vec<f64> {
    let dir = common::scratch(&format!("fwq-disksim-{policy}"));
    let trace = dir.join("ibm18es.trace");
    std::fs::write(&trace, trace_text).unwrap();
    let done = common::replay_by_id("ibm18es", 4, policy, &trace)
        .into_iter()
        .map(|(_, done_ns)| done_ns as f64 / 1e6)
        .collect();
    std::fs::remove_dir_all(&dir).ok();
    done
}

/// Each (request, DiskSim's completion) within 0.01 ms. DiskSim's clock runs up to a
/// microsecond ahead of headway's by here (its spindle's period rounds differently); the
/// differences these tests guard are a revolution (8.33 ms) and a hit overhead (0.082 ms).
fn assert_as_disksim(done: &[f64], disksim: &[(usize, f64)]) {
    for &(id, want) in disksim {
        assert!(
            (done[id] - want).abs() < 0.01,
            "request {id} done at {:.6} ms, DiskSim {want:.6}",
            done[id]
        );
    }
}

/// `time_ms devno lbn sectors read`: the first requests of `q4_mixed_*` (seed 21).
const TRACE: &str = "0.000000 0 3263608 64 1
9.657120 0 3857992 8 1
32.338739 0 11941816 64 1
43.112776 0 12856424 64 0
48.602011 0 12856488 8 1
48.650933 0 9032400 1 0
51.652641 0 9032401 4 1
60.278919 0 9426784 8 1
66.401075 0 14390032 8 1
108.012030 0 12316416 2 1
109.405084 0 3737816 64 0
126.838388 0 402808 4 1
128.235493 0 2330176 8 1
130.942826 0 2330184 4 0
139.073874 0 2330188 8 1
145.050825 0 15008408 2 1
153.008199 0 4876136 64 0
153.014429 0 9716176 1 1
153.146321 0 764528 1 1
160.879831 0 3572544 32 0
172.457943 0 2467080 2 0
226.685813 0 2467082 1 0
245.096039 0 7312072 8 1
263.089175 0 14196824 8 1
263.784425 0 45472 64 1
276.256260 0 45536 1 1
";

/// A scheduling firmware chooses its next command when the write-back under way ends, and
/// ranks a read that continues the written blocks as DiskSim does: no wait at all, its first
/// sector passing under the head just then. Request 3 is a 64-block fast write; 4 a read
/// continuing it, queued with a write and a read continuing that (5, 6) and a read elsewhere
/// (7). Before, the choice was made a fraction of a nanosecond after the write-back's end, the
/// continuing read ranked a revolution away, and 7 went first: 4 completed at 78.751 ms.
#[test]
fn sptf_takes_the_read_continuing_a_write_back_at_its_end_as_disksim_does() {
    let done = done_ms(
        &TRACE
            .lines()
            .take(9)
            .map(|l| l.to_owned() + "\n")
            .collect::<String>(),
        "sptf",
    );
    assert_as_disksim(
        &done,
        &[
            (4, 62.084609),
            (5, 70.499141),
            (6, 79.353134),
            (7, 70.398141),
            (8, 93.320077),
        ],
    );
}

/// A read that waited in the drive's queue disconnected after its command overhead; when it
/// is taken up and finds its data in the buffer it reconnects and sends it, with no hit
/// overhead of its own. Request 25 (one block) arrives while 24 (64 blocks just before it) is
/// queued, and finds its block read ahead by 24. Before, it paid the read-hit overhead when
/// taken up and completed at 300.301 ms.
#[test]
fn a_queued_read_that_hits_pays_no_hit_overhead_as_in_disksim() {
    let done = done_ms(TRACE, "fcfs");
    assert_as_disksim(&done, &[(24, 300.118971), (25, 300.219971)]);
}
