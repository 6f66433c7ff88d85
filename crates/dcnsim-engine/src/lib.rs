//! dcnsim-engine: the network-agnostic discrete-event core.
//!
//! Owns integer time ([`Time`], picoseconds), rates ([`Rate`]), the event queue
//! ([`EventQueue`], ordered by `(time, insertion sequence)` so equal-time events run in
//! the order they were scheduled and runs are bit-reproducible), and seeded random
//! streams ([`Rng`], one per purpose, derived from one master seed).
//!
//! It knows nothing of packets, ports or transports.

pub mod queue;
pub mod rng;
pub mod time;

pub use queue::{EventQueue, Packable};
pub use rng::Rng;
pub use time::{secs, to_secs, Rate, Time, TxClock, MS, NS, PS, SEC, US};
