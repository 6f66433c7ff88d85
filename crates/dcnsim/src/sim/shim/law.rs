//! The per-interval rate law at the sender: a pipe's marked fraction of one control
//! interval sets its new R_w (ElasticSwitch §4.2 weighted AIMD; C3 Eq. 1/2, `fujiz` or
//! `additive`), and the interval's `PipeSample` is recorded.

use super::{Law, PipeSample, Shim};
use crate::scheme::c3::{self, C3Variant, Objective};
use crate::scheme::elasticswitch;
use dcnsim_engine::Time;

impl Shim {
    /// The sender learns pipe `p`'s receiver counts of one interval (`rx` packets, `marked`
    /// with a CE outer header) and runs the rate law (ES §4.2; C3 Eq. 1/2 or `fujiz`).
    pub(super) fn feedback(&mut self, p: usize, rx: u64, marked: u64, now: Time) {
        self.settle(p, now);
        let line = self.line[self.pipes[p].src as usize];
        let pp = &mut self.pipes[p];
        let frac = if rx > 0 {
            marked as f64 / rx as f64
        } else {
            0.0
        };
        let any = marked > 0;
        let sent_bps = pp.last_sent_bps;
        let busy = !(pp.flows.is_empty() && pp.q[0].is_empty() && pp.q[1].is_empty());
        match &self.law {
            Law::Es(c) => {
                pp.r_w = elasticswitch::es_update(c, pp.r_w, pp.r_g, any, line);
            }
            Law::C3(c) => {
                // α ← (1 − g)·α + g·F, "similar to DCTCP" (spec §5.3.3 CHOICE: EWMA).
                pp.alpha = (1.0 - c.g) * pp.alpha + c.g * frac;
                if pp.objective == Objective::Ls {
                    pp.r_w = pp.r_g;
                } else if busy {
                    pp.r_w = match c.variant {
                        C3Variant::Paper => {
                            c3::eq12(pp.r_w, pp.r_g, pp.alpha, pp.weight, any, line)
                        }
                        C3Variant::Fujiz => {
                            c3::fujiz(c, sent_bps, pp.r_w, pp.r_g, pp.alpha, pp.weight, any, line)
                        }
                        C3Variant::Additive => c3::additive(
                            pp.r_w,
                            pp.r_g,
                            pp.alpha,
                            pp.weight,
                            any,
                            c.fujiz_step.0 as f64,
                            line,
                        ),
                    };
                }
            }
        }
        if busy && self.samples.len() < self.max_samples {
            self.samples.push(PipeSample {
                t: now,
                pipe: p as u32,
                rate: pp.r_w.max(pp.r_g),
                r_g: pp.r_g,
                weight: pp.weight,
                frac,
                sent_bps,
                backlog: pp.q[0].pkts + pp.q[1].pkts,
            });
        }
    }
}
