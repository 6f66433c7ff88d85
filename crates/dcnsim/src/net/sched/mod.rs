//! Egress schedulers.
//!
//! Every built-in scheduler is one mechanism: queues in `strict_mask` are served first in
//! index order (non-preemptive strict priority, queue 0 highest), and the remaining queues
//! share what is left by deficit round robin ([`drr`]). FIFO is one strict queue; `strict`
//! is all queues strict; `drr` is no strict queue; `mixed` is a strict prefix over DRR.
//! Selection is O(1) for strict queues (a bitmask of non-empty queues) and O(queues) worst
//! case for DRR. A DRR scheduler may carry one delayed weight reconfiguration (`reconf`).

pub mod drr;

use crate::net::config::{DrrSched, MixedSched, SchedConfig, MAX_QUEUES};
use dcnsim_engine::Time;

/// The compiled form of a [`SchedConfig`].
#[derive(Clone, Debug, PartialEq)]
pub struct Sched {
    /// Queues served in strict priority (bit i = queue i).
    pub strict_mask: u8,
    /// Queues served by DRR.
    pub drr_mask: u8,
    /// DRR quantum per queue in bytes (0 for strict queues).
    pub quanta: [u64; MAX_QUEUES],
    /// A pending weight reconfiguration: from this time (`at + delay`) the quanta become
    /// these (C3 §2, Fig 3c: the switch applies new WFQ weights only after its configuration
    /// delay). The simulator swaps them in with one event (`Sim::on_reconfigure`).
    pub reconf: Option<(Time, [u64; MAX_QUEUES])>,
}

impl Sched {
    pub fn compile(cfg: &SchedConfig, nq: u8) -> Sched {
        let all: u8 = if nq as usize >= MAX_QUEUES {
            0xFF
        } else {
            (1u8 << nq) - 1
        };
        let mut quanta = [0u64; MAX_QUEUES];
        let mut reconf = None;
        let (strict_mask, drr_mask) = match cfg {
            SchedConfig::Fifo | SchedConfig::Strict => (all, 0),
            SchedConfig::Drr(DrrSched {
                weights,
                quantum,
                reconfigure,
            }) => {
                drr::quanta(weights, quantum.0, 0, &mut quanta);
                if let Some(r) = reconfigure {
                    let mut q = [0u64; MAX_QUEUES];
                    drr::quanta(&r.weights, quantum.0, 0, &mut q);
                    reconf = Some((r.at.ps().saturating_add(r.delay.ps()), q));
                }
                (0, all)
            }
            SchedConfig::Mixed(MixedSched {
                strict,
                weights,
                quantum,
            }) => {
                let s = (*strict).min(nq);
                let smask = if s == 0 { 0 } else { ((1u16 << s) - 1) as u8 };
                drr::quanta(weights, quantum.0, s as usize, &mut quanta);
                (smask, all & !smask)
            }
        };
        Sched {
            strict_mask,
            drr_mask,
            quanta,
            reconf,
        }
    }
}
