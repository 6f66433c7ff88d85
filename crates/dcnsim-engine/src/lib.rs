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

/// Asks the CPU to bring the cache line at `p` closer (a hint: no effect on the program's
/// result, and any address may be given: a prefetch never faults). The event loop calls it
/// for the next event's packet or port while it handles the current one, so that at 1,000+
/// hosts the next event's first miss overlaps this one's work.
#[inline(always)]
pub fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `_mm_prefetch` only needs SSE, which every x86_64 CPU has; a prefetch is a
    // hint that never faults (whatever the address), reads nothing into the program and
    // writes nothing.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(p as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}
