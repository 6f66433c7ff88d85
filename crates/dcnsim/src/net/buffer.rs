//! Buffer admission: per-queue static limits, per-port limits, a node-wide shared buffer
//! with the Choudhury–Hahne dynamic threshold, and per-queue dedicated (reserved) bytes.
//!
//! Accounting: a queue's first `reserved[q]` bytes are dedicated to it and count against
//! nothing else; bytes beyond that are "unreserved" and count against the port limit and,
//! when the node has a shared buffer, the shared pool. A packet is admitted iff
//!
//! 1. it fits entirely inside its queue's reserved bytes, or
//! 2. (static) `queue_limit` would not be exceeded, and
//! 3. (port) the port's unreserved bytes + size ≤ `port_limit`, and
//! 4. (shared, dynamic threshold; Choudhury & Hahne, ToN 1998) the queue's unreserved
//!    bytes < α_q × (B − used) and used + size ≤ B, where B is the pool and used its occupancy.
//!
//! With M queues congested under one pool, each settles at α·B/(1+Mα) (mechanisms §2.3.4).
//!
//! Under PFC the pool also holds the switch's headroom (`SharedPool::headroom`): lossy
//! queues see a pool of B − headroom, and lossless queues skip rules 2–4, limited only by
//! the whole buffer B — their ingress PAUSE thresholds keep them within it (IEEE 802.1Qbb;
//! a drop there means the headroom was too small).

use crate::units::Amount;

/// Why a packet was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum DropReason {
    /// Static per-queue limit.
    Static = 0,
    /// Per-port limit.
    Port = 1,
    /// Shared-buffer dynamic threshold or pool exhausted.
    Shared = 2,
    /// A scheme's enqueue verdict.
    Scheme = 3,
    /// Colour-aware dropping: a red packet at the threshold K (TLT §4).
    Colour = 4,
    /// A lossless (PFC) packet found the whole buffer full: the headroom was too small.
    Headroom = 5,
}
pub const N_DROP_REASONS: usize = 6;

/// A node's shared buffer pool.
#[derive(Clone, Copy, Debug, Default)]
pub struct SharedPool {
    /// Pool size in bytes; 0 = no shared-buffer admission at this node.
    pub total: u64,
    pub used: u64,
    pub max_used: u64,
    /// Bytes of `total` reserved as PFC headroom (lossy queues cannot use them).
    pub headroom: u64,
}

/// Limits applying to one queue of one port (from the compiled profile).
#[derive(Clone, Copy, Debug)]
pub struct QueueLimits {
    pub queue_limit: Option<Amount>,
    pub port_limit: Option<Amount>,
    pub reserved: u64,
    pub alpha: f64,
    /// Lossless under PFC: only the whole buffer limits the queue.
    pub lossless: bool,
}

/// Occupancy the admission decision reads.
#[derive(Clone, Copy, Debug)]
pub struct Occ {
    pub q_bytes: u64,
    pub q_pkts: u64,
    pub port_unres_bytes: u64,
    pub port_pkts: u64,
}

/// Admission to a lossless queue under PFC: the ingress PAUSE thresholds (IEEE 802.1Qbb)
/// bound its bytes, so the switch drops only when the whole buffer, headroom included, is
/// full. Returns the increase in unreserved bytes, as [`admit`].
#[inline]
pub fn admit_lossless(
    l: &QueueLimits,
    o: Occ,
    size: u64,
    pool: &SharedPool,
) -> Result<u64, DropReason> {
    let extra =
        (o.q_bytes + size).saturating_sub(l.reserved) - o.q_bytes.saturating_sub(l.reserved);
    if extra > 0 && pool.total > 0 && pool.used + extra > pool.total {
        return Err(DropReason::Headroom);
    }
    Ok(extra)
}

/// Decides admission of a packet of `size` bytes to a lossy queue; on success returns the
/// increase in the queue's unreserved bytes (what the port and pool must be charged).
#[inline(always)]
pub fn admit(l: &QueueLimits, o: Occ, size: u64, pool: &SharedPool) -> Result<u64, DropReason> {
    let unres_before = o.q_bytes.saturating_sub(l.reserved);
    let unres_after = (o.q_bytes + size).saturating_sub(l.reserved);
    let extra = unres_after - unres_before;
    if extra == 0 {
        return Ok(0); // entirely within dedicated bytes
    }
    if let Some(lim) = l.queue_limit {
        if lim.would_exceed(o.q_bytes, o.q_pkts, size) {
            return Err(DropReason::Static);
        }
    }
    if let Some(lim) = l.port_limit {
        if lim.would_exceed(o.port_unres_bytes, o.port_pkts, extra) {
            return Err(DropReason::Port);
        }
    }
    if pool.total > 0 {
        let free = pool
            .total
            .saturating_sub(pool.headroom)
            .saturating_sub(pool.used);
        if extra > free || (unres_before as f64) >= l.alpha * free as f64 {
            return Err(DropReason::Shared);
        }
    }
    Ok(extra)
}

#[cfg(test)]
mod tests {
    use super::*;
    fn lim() -> QueueLimits {
        QueueLimits {
            queue_limit: None,
            port_limit: None,
            reserved: 0,
            alpha: 1.0,
            lossless: false,
        }
    }
    fn occ(q: u64) -> Occ {
        Occ {
            q_bytes: q,
            q_pkts: q / 1500,
            port_unres_bytes: q,
            port_pkts: q / 1500,
        }
    }
    #[test]
    fn static_limit() {
        let l = QueueLimits {
            queue_limit: Some(Amount::Bytes(3000)),
            ..lim()
        };
        let p = SharedPool::default();
        assert_eq!(admit(&l, occ(1500), 1500, &p), Ok(1500));
        assert_eq!(admit(&l, occ(3000), 1500, &p), Err(DropReason::Static));
    }
    #[test]
    fn reserved_bytes_are_free() {
        let l = QueueLimits {
            reserved: 20_000,
            port_limit: Some(Amount::Bytes(0)),
            ..lim()
        };
        let p = SharedPool::default();
        assert_eq!(admit(&l, occ(0), 1500, &p), Ok(0));
        assert_eq!(admit(&l, occ(19_000), 1500, &p), Err(DropReason::Port));
    }
    #[test]
    fn dynamic_threshold() {
        let l = lim();
        let p = SharedPool {
            total: 100_000,
            used: 50_000,
            max_used: 0,
            headroom: 0,
        };
        // queue holds 50 KB, free 50 KB: 50_000 >= 1 × 50_000 → drop
        assert_eq!(admit(&l, occ(50_000), 1500, &p), Err(DropReason::Shared));
        assert_eq!(admit(&l, occ(49_000), 1500, &p), Ok(1500));
    }
}

#[cfg(test)]
mod pfc_tests {
    use super::*;
    #[test]
    fn headroom_is_out_of_reach_of_lossy_queues_and_lossless_skip_the_threshold() {
        let lossy = QueueLimits {
            queue_limit: None,
            port_limit: Some(Amount::Bytes(10_000)),
            reserved: 0,
            alpha: 1.0,
            lossless: false,
        };
        let lossless = QueueLimits {
            lossless: true,
            ..lossy
        };
        let p = SharedPool {
            total: 100_000,
            used: 60_000,
            max_used: 0,
            headroom: 40_000,
        };
        let o = Occ {
            q_bytes: 20_000,
            q_pkts: 14,
            port_unres_bytes: 20_000,
            port_pkts: 14,
        };
        // Lossy: the pool B − headroom is full, and the port limit binds too.
        assert_eq!(admit(&lossy, o, 1500, &p), Err(DropReason::Port));
        let no_port = QueueLimits {
            port_limit: None,
            ..lossy
        };
        assert_eq!(admit(&no_port, o, 1500, &p), Err(DropReason::Shared));
        // Lossless: admitted into the headroom, refused only when B itself is full.
        assert_eq!(admit_lossless(&lossless, o, 1500, &p), Ok(1500));
        let full = SharedPool { used: 99_000, ..p };
        assert_eq!(
            admit_lossless(&lossless, o, 1500, &full),
            Err(DropReason::Headroom)
        );
    }
}
