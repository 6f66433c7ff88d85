//! Periodic recording: the queue samples of the sampled (port, queue)s and the goodput
//! per traffic class (`on_sample`), and the cap on traced rows (`on_trace_capped`). Each
//! stops at its row cap (the memory limit's share) and leaves a note in `Sim::notes`.

use super::{ClassSample, Event, Sample, Sim};

impl Sim {
    /// Traces until the row cap (the memory limit's share), then a note. Kept out of
    /// `dispatch` so the per-event match stays small enough to inline.
    #[inline(never)]
    pub(super) fn on_trace_capped(&mut self) {
        if self.traces.len() < self.max_trace_rows {
            self.on_trace()
        } else {
            self.notes.push(format!(
                "output.trace_interval: tracing stopped at {} rows (the memory limit's \
                 share); trace fewer flows, a longer interval or raise run.memory_limit",
                self.traces.len()
            ));
        }
    }

    #[inline(never)]
    pub(super) fn on_sample(&mut self) {
        let now = self.now();
        if self.samples.len() >= self.max_samples {
            self.notes.push(format!(
                "output.queue_sample_interval: sampling stopped at {} samples (the memory \
                 limit's share); use a longer interval or raise run.memory_limit",
                self.samples.len()
            ));
            return;
        }
        let mut k = 0;
        for &p in &self.sample_ports {
            let port = &self.ports[p as usize];
            let nq = self.profiles[port.profile as usize].nq;
            for q in 0..nq {
                let (s, c) = (&port.stats[q as usize], &port.q[q as usize]);
                // Serialization time up to now: the current packet's remaining time is
                // already in `busy_time` (a token bucket lets packets go at once: none).
                let ahead = match port.tb_depth {
                    None => port.busy_until.saturating_sub(now),
                    Some(_) => 0,
                };
                let busy = port.busy_time - ahead;
                let cum = [c.bytes_out, s.drops.iter().sum(), c.ecn_marks, busy];
                if k == self.sample_prev.len() {
                    self.sample_prev.push([0; 4]);
                }
                let prev = std::mem::replace(&mut self.sample_prev[k], cum);
                k += 1;
                self.samples.push(Sample {
                    t: now,
                    port: p,
                    queue: q,
                    bytes: port.q[q as usize].bytes,
                    tx_bytes: cum[0] - prev[0],
                    drops: cum[1] - prev[1],
                    marks: cum[2] - prev[2],
                    busy: cum[3] - prev[3],
                });
            }
        }
        self.class_rx_prev.resize(self.class_rx.len(), 0);
        for (c, (&cum, prev)) in self
            .class_rx
            .iter()
            .zip(self.class_rx_prev.iter_mut())
            .enumerate()
        {
            self.class_samples.push(ClassSample {
                t: now,
                class: c as u16,
                bytes: cum - *prev,
            });
            *prev = cum;
        }
        if self.sample_every > 0 && self.has_work() {
            self.ev.push(now + self.sample_every, Event::Sample);
        }
    }
}
