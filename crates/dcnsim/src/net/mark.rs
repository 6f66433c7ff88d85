//! ECN markers: DCTCP step threshold and RED, per queue, on queue or port occupancy.
//!
//! Only ECN-capable (ECT) packets are marked (RFC 3168 §5). Occupancy is what the arriving
//! packet finds in front of it (enqueue marking) or what remains behind the departing
//! packet (dequeue marking); the packet itself is not counted in either case.

use crate::net::config::{EcnConfig, MarkAt, Occupancy, RedEcn, StepEcn};
use crate::units::Amount;
use dcnsim_engine::Rng;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Marker {
    None,
    Step {
        k: Amount,
        at_dequeue: bool,
        port: bool,
    },
    Red {
        kmin: Amount,
        kmax: Amount,
        pmax: f64,
        at_dequeue: bool,
        port: bool,
    },
}

impl Marker {
    pub fn compile(cfg: &EcnConfig) -> Marker {
        match *cfg {
            EcnConfig::None => Marker::None,
            EcnConfig::Step(StepEcn { k, at, occupancy }) => Marker::Step {
                k,
                at_dequeue: at == MarkAt::Dequeue,
                port: occupancy == Occupancy::Port,
            },
            EcnConfig::Red(RedEcn {
                kmin,
                kmax,
                pmax,
                at,
                occupancy,
            }) => Marker::Red {
                kmin,
                kmax,
                pmax,
                at_dequeue: at == MarkAt::Dequeue,
                port: occupancy == Occupancy::Port,
            },
        }
    }

    /// Whether this marker uses port-wide occupancy.
    #[inline]
    pub fn per_port(&self) -> bool {
        matches!(
            self,
            Marker::Step { port: true, .. } | Marker::Red { port: true, .. }
        )
    }

    /// Whether this marker decides when the packet leaves (else when it arrives).
    #[inline]
    pub fn dequeues(&self) -> bool {
        matches!(
            self,
            Marker::Step {
                at_dequeue: true,
                ..
            } | Marker::Red {
                at_dequeue: true,
                ..
            }
        )
    }

    /// Decision at enqueue, given the occupancy (bytes, packets) in front of the packet.
    #[inline]
    pub fn at_enqueue(&self, bytes: u64, pkts: u64, rng: &mut Rng) -> bool {
        match *self {
            Marker::None => false,
            // DCTCP (Alizadeh et al. 2010 §3.1): mark when the instantaneous queue ≥ K.
            Marker::Step { k, at_dequeue, .. } => !at_dequeue && k.reached(bytes, pkts),
            Marker::Red {
                kmin,
                kmax,
                pmax,
                at_dequeue,
                ..
            } => !at_dequeue && rng.chance(red_prob(kmin, kmax, pmax, bytes, pkts)),
        }
    }

    /// Decision at dequeue, given the occupancy left behind the packet. RED draws from the
    /// same per-switch stream as at enqueue (one draw per ECN-capable departure).
    #[inline]
    pub fn at_dequeue(&self, bytes: u64, pkts: u64, rng: &mut Rng) -> bool {
        match *self {
            Marker::Step {
                k,
                at_dequeue: true,
                ..
            } => k.reached(bytes, pkts),
            Marker::Red {
                kmin,
                kmax,
                pmax,
                at_dequeue: true,
                ..
            } => rng.chance(red_prob(kmin, kmax, pmax, bytes, pkts)),
            _ => false,
        }
    }
}

/// RED marking probability on instantaneous occupancy (DCQCN, Zhu et al. 2015 §3.1; mechanisms §2.4).
pub fn red_prob(kmin: Amount, kmax: Amount, pmax: f64, bytes: u64, pkts: u64) -> f64 {
    let (q, lo, hi) = match (kmin, kmax) {
        (Amount::Pkts(a), Amount::Pkts(b)) => (pkts as f64, a as f64, b as f64),
        _ => (
            bytes as f64,
            kmin.as_bytes(1) as f64,
            kmax.as_bytes(1) as f64,
        ),
    };
    if q <= lo {
        0.0
    } else if q <= hi {
        pmax * (q - lo) / (hi - lo)
    } else {
        1.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn red_formula() {
        let (a, b) = (Amount::Bytes(5_000), Amount::Bytes(200_000));
        assert_eq!(red_prob(a, b, 0.01, 5_000, 0), 0.0);
        assert!((red_prob(a, b, 0.01, 102_500, 0) - 0.005).abs() < 1e-12);
        assert_eq!(red_prob(a, b, 0.01, 200_001, 0), 1.0);
    }
    #[test]
    fn step_is_threshold() {
        let m = Marker::Step {
            k: Amount::Pkts(65),
            at_dequeue: false,
            port: false,
        };
        let mut r = Rng::new(1);
        assert!(!m.at_enqueue(0, 64, &mut r));
        assert!(m.at_enqueue(0, 65, &mut r));
    }
}
