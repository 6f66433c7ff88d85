//! Unit tests of a pipe's mechanics: the DRR share of the two sub-queues and the token
//! bucket's pacing.

use super::*;
use crate::packet::{Arena, Packet, PktKind};

/// Two backlogged sub-queues are served 95 : 5 in bytes (spec §5.3.6), not strictly.
#[test]
fn sub_queues_share_95_to_5() {
    let mut sh = Shim::new(
        Law::C3(C3Config::default()),
        Vec::new(),
        vec![1e9, 1e9],
        1538,
        1460,
    );
    let p = sh.pipe_for(0, 1, Objective::Ds) as usize;
    let mut arena = Arena::new();
    for i in 0..4000 {
        let id = arena.alloc(Packet::new(PktKind::Data, 0, 0, 1, 1460, 1538));
        sh.pipes[p].q[i % 2].push_back(&mut arena, id);
    }
    let mut served = [0u64; 2];
    for _ in 0..1000 {
        let sub = sh.pick(p, &arena).unwrap();
        let pp = &mut sh.pipes[p];
        let id = pp.q[sub].pop_front(&mut arena).unwrap();
        pp.deficit[sub] -= arena.get(id).wire as f64;
        served[sub] += 1;
    }
    // 1000 packets: 950 high, 50 low (DRR rounds of 19 + 1 MTU).
    assert_eq!(served, [950, 50]);
}

/// The token bucket releases at the pipe's rate: 1538 B at 1 Gb/s every 12.304 µs.
#[test]
fn bucket_paces_at_the_pipe_rate() {
    let mut sh = Shim::new(
        Law::C3(C3Config::default()),
        Vec::new(),
        vec![1e9, 1e9],
        1538,
        1460,
    );
    let p = sh.pipe_for(0, 1, Objective::Be) as usize;
    sh.pipes[p].r_w = 1e9;
    assert_eq!(sh.ready_at(p, 0), 0);
    sh.charge(p, 0, 1538);
    assert_eq!(sh.ready_at(p, 0), 12_304_000);
    assert_eq!(sh.ready_at(p, 12_304_000), 12_304_000);
}
