//! Unit tests of the event encoding: every `Event` packs and unpacks, and the kinds
//! `Sim::prefetch_next` decodes by hand sit where it expects them.

use super::*;

#[test]
fn every_event_packs_and_unpacks() {
    let mut all = vec![
        Event::TxDone(7),
        Event::Arrive(MAX_EVENT_INDEX),
        Event::FlowStart(0),
        Event::Source(3),
        Event::Sample,
        Event::Trace,
        Event::Controller,
        Event::Pfc(12345),
        Event::Shim(3),
        Event::Shim(MAX_EVENT_INDEX),
        Event::Reconfigure(1),
    ];
    for t in Timer::ALL {
        all.push(Event::Timer(FlowTimer::new(t, 42)));
        all.push(Event::Timer(FlowTimer::new(t, MAX_EVENT_INDEX)));
        let x = FlowTimer::new(t, 42);
        assert_eq!((x.slot(), x.flow()), (t, 42));
    }
    for e in all {
        assert_eq!(Event::unpack(e.pack()), e);
        assert!(e.pack() < 1 << dcnsim_engine::queue::PACK_BITS);
    }
    // `Sim::prefetch_next` decodes the kind and index itself: wake-ups are kind 0 and
    // arrivals kind 1, the index in the low 26 bits; an empty lane's all-ones bits are
    // neither.
    assert_eq!(Event::TxDone(9).pack(), 9);
    assert_eq!(Event::Arrive(9).pack(), 1 << 26 | 9);
    const { assert!((((1u32 << dcnsim_engine::queue::PACK_BITS) - 1) >> 26) > 1) };
}
