//! dcnsim: the packet-level datacenter network model.
//!
//! Layering, bottom to top: `packet` (wire types) → `net` (ports, schedulers, buffers, ECN)
//! and `scheme` (hooks) → `topo` (graphs, routes) → `sim` (the event loop where hosts,
//! transports and the fabric meet) → `scenario` (the user-facing schema and its builder).
//! `transport` holds the endpoints every transport family implements (one sans-IO shape; the
//! TCP machines themselves live in the `dcnsim-transport` crate) and workloads live in
//! `dcnsim-workload`; neither knows about the fabric.

pub mod bench;
pub mod net;
pub mod packet;
pub mod run;
pub mod scenario;
pub mod scheme;
pub mod sim;
pub mod strict;
pub mod tagged;
pub mod topo;
pub mod transport;
pub mod units;
