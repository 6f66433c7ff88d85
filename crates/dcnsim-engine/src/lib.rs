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

/// Size of a transparent huge page on x86_64 and most aarch64 kernels.
const HUGE_PAGE: usize = 2 << 20;

/// Asks the kernel to back the whole 2 MiB pages inside `[p, p + bytes)` with transparent
/// huge pages (Linux `madvise(MADV_HUGEPAGE)`; a hint, which other systems and kernels with
/// huge pages off ignore). Called on the large arrays of a run (the ports, the packet
/// arena) before they are written, so that their first touch already maps huge pages: at
/// 1,000+ hosts the ports alone span about 9 MB, where 4 KiB pages likely cost a hop a
/// TLB miss on its port and packet besides the cache misses (k = 16: ×0.835 wall time
/// with the advice, docs/performance-log.md). A range that holds no whole huge page is left
/// alone.
pub fn advise_huge_pages<T>(p: *const T, len: usize) {
    let bytes = len.saturating_mul(std::mem::size_of::<T>());
    let start = (p as usize).checked_next_multiple_of(HUGE_PAGE);
    let end = (p as usize).saturating_add(bytes) / HUGE_PAGE * HUGE_PAGE;
    match start {
        Some(start) if end > start => {
            #[cfg(target_os = "linux")]
            // SAFETY: `[start, end)` lies inside an allocation the caller owns (`len`
            // elements from `p`), rounded inwards to whole huge pages. MADV_HUGEPAGE only
            // changes how the kernel backs those pages; it never changes their contents or
            // the mapping's permissions, and a failure (e.g. huge pages disabled) is
            // harmless and ignored.
            unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
            }
            #[cfg(not(target_os = "linux"))]
            let _ = (start, end);
        }
        _ => {}
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    /// The `VmFlags` of the mapping that holds address `a` (from /proc/self/smaps).
    fn vm_flags_at(a: usize) -> Option<String> {
        let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
        let mut inside = false;
        for line in smaps.lines() {
            if let Some((range, _)) = line.split_once(' ') {
                if let Some((lo, hi)) = range.split_once('-') {
                    if let (Ok(lo), Ok(hi)) =
                        (usize::from_str_radix(lo, 16), usize::from_str_radix(hi, 16))
                    {
                        inside = lo <= a && a < hi;
                        continue;
                    }
                }
            }
            if inside {
                if let Some(f) = line.strip_prefix("VmFlags:") {
                    return Some(f.to_string());
                }
            }
        }
        None
    }

    #[test]
    fn a_large_array_is_advised_to_use_huge_pages_and_a_small_one_is_not() {
        // Kernels without transparent huge pages reject the advice: nothing to check.
        if !std::path::Path::new("/sys/kernel/mm/transparent_hugepage/enabled").exists() {
            return;
        }
        let big: Vec<u64> = Vec::with_capacity(8 << 20 >> 3); // 8 MiB, not yet written
        super::advise_huge_pages(big.as_ptr(), big.capacity());
        let mid = big.as_ptr() as usize + (4 << 20);
        let flags = vm_flags_at(mid).expect("the array's mapping is in /proc/self/smaps");
        assert!(
            flags.split_whitespace().any(|f| f == "hg"),
            "no MADV_HUGEPAGE on the 8 MiB array: {flags}"
        );
        // 1 MiB holds no whole huge page: no advice.
        let small: Vec<u64> = Vec::with_capacity(1 << 20 >> 3);
        super::advise_huge_pages(small.as_ptr(), small.capacity());
        let f = vm_flags_at(small.as_ptr() as usize + (1 << 19)).unwrap_or_default();
        assert!(!f.split_whitespace().any(|f| f == "hg"), "{f}");
    }
}
