//! Scheme hooks: the extension points through which the papers' schemes act on packets.
//!
//! A scheme may tag a packet at the sending host (class, colour, importance flags), decide
//! at switch enqueue (accept / drop / mark / re-class, seeing queue and buffer state), and
//! observe dequeues and receipts. Built-in schemes are variants of [`AnyScheme`] dispatched
//! by `match`; each method defaults to doing nothing.

pub mod c3;
pub mod cqcn;
pub mod elasticswitch;
pub mod pias;
pub mod reflex;
pub mod test_scheme;

use crate::packet::Packet;
use dcnsim_engine::Time;
use serde::Serialize;

/// Verdict at switch enqueue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Accept,
    /// Drop the packet (counted as a scheme drop).
    Drop,
    /// Set CE (ECN-capable packets only) and continue with admission.
    Mark,
    /// Move the packet to another class/queue, then continue with admission.
    Reclass(u8),
}

/// What a scheme sees at a switch enqueue.
#[derive(Clone, Copy, Debug)]
pub struct EnqCtx {
    pub now: Time,
    pub node: u32,
    pub port: u32,
    pub queue: usize,
    pub q_bytes: u64,
    pub q_pkts: u64,
    pub port_bytes: u64,
    /// Free bytes in the node's shared pool (None if the node has none).
    pub pool_free: Option<u64>,
}

/// What a scheme sees when a host transmits.
#[derive(Clone, Copy, Debug)]
pub struct TxCtx {
    pub now: Time,
    pub host: u32,
}

pub trait Scheme {
    fn on_host_tx(&mut self, _pkt: &mut Packet, _ctx: &TxCtx) {}
    fn on_enqueue(&mut self, _pkt: &mut Packet, _ctx: &EnqCtx) -> Verdict {
        Verdict::Accept
    }
    fn on_dequeue(&mut self, _pkt: &Packet, _node: u32, _port: u32, _now: Time) {}
    fn on_receive(&mut self, _pkt: &Packet, _host: u32, _now: Time) {}
}

/// Scheme selection in a scenario (`[scheme]`).
#[derive(Clone, Debug, PartialEq, Serialize, Default)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SchemeConfig {
    #[default]
    None,
    /// Exercises every hook; see [`test_scheme`].
    Test(test_scheme::TestSchemeConfig),
    /// PIAS MLFQ tagging, optionally with ResQueue; see [`pias`].
    Pias(pias::PiasConfig),
    /// Cross-queue congestion notification (the switch half of LPF's TCP+); see [`cqcn`].
    Cqcn(cqcn::CqcnConfig),
    /// REFLEX flexible flows (bounded degradation); see [`reflex`].
    Reflex(reflex::ReflexConfig),
    /// ElasticSwitch VM-pair guarantees through the sender shim; see [`elasticswitch`].
    Elasticswitch(elasticswitch::ElasticSwitchConfig),
    /// C3 virtual elastic pipes through the sender shim; see [`c3`].
    C3(c3::C3Config),
}

crate::kind_enum!(SchemeConfig { "none" => None, "test" => Test(test_scheme::TestSchemeConfig), "pias" => Pias(pias::PiasConfig), "cqcn" => Cqcn(cqcn::CqcnConfig), "reflex" => Reflex(reflex::ReflexConfig), "elasticswitch" => Elasticswitch(elasticswitch::ElasticSwitchConfig), "c3" => C3(c3::C3Config) });

impl SchemeConfig {
    /// Checks the scheme against the switch's queue count; errors are (key under `scheme`, message).
    pub fn check(&self, switch_queues: u8, host_queues: u8) -> Result<(), (String, String)> {
        match self {
            SchemeConfig::Pias(c) => c.check(switch_queues),
            SchemeConfig::Reflex(c) => c.check(host_queues, switch_queues),
            SchemeConfig::Elasticswitch(c) => c.check(),
            SchemeConfig::C3(c) => c.check(),
            _ => Ok(()),
        }
    }
}

// An explicit one-byte tag, the two hook-less variants first: `is_none`, tested on every
// hop, is then one byte compare (a tag niche-packed into a field of a variant's data took a
// 64-bit constant and two compares; docs/performance-log.md, "Cheaper event dispatch").
#[repr(u8)]
pub enum AnyScheme {
    None,
    Reflex(reflex::ReflexScheme),
    Test(test_scheme::TestScheme),
    Pias(pias::Pias),
    Cqcn(cqcn::Cqcn),
}

impl AnyScheme {
    pub fn build(cfg: &SchemeConfig) -> AnyScheme {
        match cfg {
            SchemeConfig::None => AnyScheme::None,
            SchemeConfig::Test(c) => AnyScheme::Test(test_scheme::TestScheme::new(c.clone())),
            SchemeConfig::Pias(c) => AnyScheme::Pias(pias::Pias::new(c)),
            SchemeConfig::Cqcn(c) => AnyScheme::Cqcn(cqcn::Cqcn::new(c.clone())),
            // They act in the sender shim (`sim::shim`), through no packet hook.
            SchemeConfig::Reflex(_) | SchemeConfig::Elasticswitch(_) | SchemeConfig::C3(_) => {
                AnyScheme::Reflex(reflex::ReflexScheme)
            }
        }
    }
    /// No packet hooks to call (REFLEX acts in the senders only; ElasticSwitch and C3 in the
    /// sender shim, and build as this no-op variant).
    #[inline]
    pub fn is_none(&self) -> bool {
        matches!(self, AnyScheme::None | AnyScheme::Reflex(_))
    }
}

impl Scheme for AnyScheme {
    #[inline]
    fn on_host_tx(&mut self, pkt: &mut Packet, ctx: &TxCtx) {
        match self {
            AnyScheme::None => {}
            AnyScheme::Test(s) => s.on_host_tx(pkt, ctx),
            AnyScheme::Pias(s) => s.on_host_tx(pkt, ctx),
            AnyScheme::Cqcn(s) => s.on_host_tx(pkt, ctx),
            AnyScheme::Reflex(s) => s.on_host_tx(pkt, ctx),
        }
    }
    #[inline]
    fn on_enqueue(&mut self, pkt: &mut Packet, ctx: &EnqCtx) -> Verdict {
        match self {
            AnyScheme::None => Verdict::Accept,
            AnyScheme::Test(s) => s.on_enqueue(pkt, ctx),
            AnyScheme::Pias(s) => s.on_enqueue(pkt, ctx),
            AnyScheme::Cqcn(s) => s.on_enqueue(pkt, ctx),
            AnyScheme::Reflex(s) => s.on_enqueue(pkt, ctx),
        }
    }
    #[inline]
    fn on_dequeue(&mut self, pkt: &Packet, node: u32, port: u32, now: Time) {
        match self {
            AnyScheme::None => {}
            AnyScheme::Test(s) => s.on_dequeue(pkt, node, port, now),
            AnyScheme::Pias(s) => s.on_dequeue(pkt, node, port, now),
            AnyScheme::Cqcn(s) => s.on_dequeue(pkt, node, port, now),
            AnyScheme::Reflex(s) => s.on_dequeue(pkt, node, port, now),
        }
    }
    #[inline]
    fn on_receive(&mut self, pkt: &Packet, host: u32, now: Time) {
        match self {
            AnyScheme::None => {}
            AnyScheme::Test(s) => s.on_receive(pkt, host, now),
            AnyScheme::Pias(s) => s.on_receive(pkt, host, now),
            AnyScheme::Cqcn(s) => s.on_receive(pkt, host, now),
            AnyScheme::Reflex(s) => s.on_receive(pkt, host, now),
        }
    }
}
