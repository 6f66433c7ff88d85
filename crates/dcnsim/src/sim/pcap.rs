//! Packet capture (`output.pcap`): a classic libpcap file of the selected flows' packets
//! with synthetic Ethernet / IPv4 / TCP headers, and a CSV side table of their drops.
//!
//! File format: the libpcap "savefile" with nanosecond timestamps (magic `0xa1b23c4d`,
//! version 2.4, LINKTYPE_ETHERNET = 1), as described in the pcap file format draft
//! (draft-ietf-opsawg-pcap, §4 file header, §5 packet record). Each record holds the
//! headers only (14 + 20 + 20 = 54 bytes captured; the original length counts the payload),
//! so the snap length is 54 and the payload is never stored.
//!
//! Header fields (what a real stack would put there, from what the simulator knows):
//! - Ethernet: locally administered MACs `02:00:` + the host id (32 bits), EtherType IPv4.
//! - IPv4 (RFC 791): DSCP = the packet's priority (its queue index, 0 = highest), ECN field
//!   (RFC 3168 §5) = ECT(0) `10` for an ECN-capable packet, CE `11` once marked, `00`
//!   otherwise; TTL = 64 − links crossed; addresses 10.x.y.z = host id + 1; header
//!   checksum computed.
//! - TCP (RFC 9293 §3.1): the data sender's port is 1024 + (flow id mod 64512), the
//!   receiver's 5001; sequence number = the simulated byte offset (mod 2³²; both initial
//!   sequence numbers are 2³² − 1, so a SYN takes that and data starts at 0); data segments
//!   carry PSH and ACK (acknowledging 0: the receiver sends no data); ACKs carry the
//!   cumulative ACK number, ECE when the receiver echoes congestion (RFC 3168 §6.1); SYN,
//!   SYN-ACK and FIN set their flags (a FIN's sequence number is the flow's size). No options (SACK blocks and timestamps are not
//!   written); checksum 0.
//!
//! Packets that are not TCP (open-loop `Raw` packets, scheme probes, and any packet kind a
//! transport adds later) are not written. Capture points: with `pcap_ports` empty, a
//! packet is captured when it reaches its destination host (as a capture on the
//! receiving NIC: data at the receiver, ACKs at the sender, CE marks visible); with
//! `pcap_ports`, when its serialization starts on one of those egress ports. The writer
//! goes through a fixed 64 KiB buffer, and at most `pcap_max_packets` packets (and as many
//! drop rows) are written.

use super::Sim;
use crate::net::buffer::DropReason;
use crate::packet::{flags, Packet, PktId, PktKind};
use dcnsim_engine::Time;
use std::fs::File;
use std::io::{BufWriter, Write};

/// Bytes captured per packet: Ethernet + IPv4 + TCP headers without options.
pub const SNAPLEN: usize = 54;
/// Default cap on captured packets (`output.pcap_max_packets`).
pub const DEFAULT_MAX_PACKETS: u64 = 1_000_000;

pub struct Capture {
    /// Opened when the run starts (`open`), so that building a scenario (`validate`) writes
    /// nothing.
    out: Option<BufWriter<File>>,
    drops: Option<BufWriter<File>>,
    /// Selected flows (sorted; empty = every flow).
    flows: Vec<u32>,
    /// Selected egress ports (by global port index); `None` = capture at receivers.
    ports: Option<Vec<bool>>,
    from: Time,
    until: Time,
    max: u64,
    pub packets: u64,
    pub drop_rows: u64,
    /// Packets not written because the cap was reached.
    pub over_cap: u64,
    ip_id: u16,
    error: Option<String>,
    path: String,
}

fn drop_reason_name(why: DropReason) -> &'static str {
    match why {
        DropReason::Static => "static",
        DropReason::Port => "port",
        DropReason::Shared => "shared",
        DropReason::Scheme => "scheme",
        DropReason::Colour => "colour",
        DropReason::Headroom => "headroom",
    }
}

fn kind_name(k: PktKind) -> &'static str {
    match k {
        PktKind::Data => "data",
        PktKind::Ack => "ack",
        PktKind::Raw => "raw",
        PktKind::Probe => "probe",
        PktKind::Syn => "syn",
        PktKind::SynAck => "synack",
        PktKind::Fin => "fin",
        PktKind::Nack => "nack",
        PktKind::Cnp => "cnp",
    }
}

/// The IPv4 address of host `h`: 10.0.0.0/8 + h + 1.
pub fn host_ip(h: u32) -> [u8; 4] {
    let a = 0x0A00_0000u32.wrapping_add(h + 1);
    a.to_be_bytes()
}

/// The data sender's TCP port for flow `f`.
pub fn flow_port(f: u32) -> u16 {
    (1024 + f % 64512) as u16
}
/// The receiver's TCP port.
pub const RECEIVER_PORT: u16 = 5001;

impl Capture {
    /// A capture to `path` (and `path` + `.drops.csv`); nothing is written before `open`.
    pub fn new(
        path: &str,
        flows: Vec<u32>,
        ports: Option<Vec<bool>>,
        from: Time,
        until: Time,
        max: u64,
    ) -> Capture {
        let mut flows = flows;
        flows.sort_unstable();
        flows.dedup();
        Capture {
            out: None,
            drops: None,
            flows,
            ports,
            from,
            until,
            max,
            packets: 0,
            drop_rows: 0,
            over_cap: 0,
            ip_id: 0,
            error: None,
            path: path.to_string(),
        }
    }

    /// Creates both files and writes the pcap file header. On failure the capture is off
    /// and `finish` reports why.
    pub fn open(&mut self) {
        let r = (|| -> std::io::Result<()> {
            // Both files are written under temporary names and renamed by `finish`: a run
            // that dies half-way leaves no capture that looks complete.
            let mut out = BufWriter::with_capacity(1 << 16, File::create(tmp(&self.path))?);
            let mut drops =
                BufWriter::with_capacity(1 << 14, File::create(tmp(&drops_path(&self.path)))?);
            // pcap file header: magic (ns timestamps), version 2.4, thiszone, sigfigs,
            // snaplen, LINKTYPE_ETHERNET; all in the writer's (little-endian) byte order.
            out.write_all(&0xa1b2_3c4du32.to_le_bytes())?;
            out.write_all(&2u16.to_le_bytes())?;
            out.write_all(&4u16.to_le_bytes())?;
            out.write_all(&0i32.to_le_bytes())?;
            out.write_all(&0u32.to_le_bytes())?;
            out.write_all(&(SNAPLEN as u32).to_le_bytes())?;
            out.write_all(&1u32.to_le_bytes())?;
            writeln!(drops, "t_s,flow,kind,seq,node,port,queue,reason")?;
            self.out = Some(out);
            self.drops = Some(drops);
            Ok(())
        })();
        if let Err(e) = r {
            self.fail(e);
        }
    }

    #[inline]
    fn selects(&self, p: &Packet, now: Time) -> bool {
        now >= self.from
            && now < self.until
            && matches!(
                p.kind,
                PktKind::Data | PktKind::Ack | PktKind::Syn | PktKind::SynAck | PktKind::Fin
            )
            && (self.flows.is_empty() || self.flows.binary_search(&p.flow).is_ok())
    }

    /// Writes one packet record. `sender` is the flow's data sender (host id), `size` its
    /// bytes (a FIN's sequence number).
    fn write(&mut self, p: &Packet, now: Time, sender: u32, size: u64) {
        if self.packets >= self.max {
            self.over_cap += 1;
            return;
        }
        self.packets += 1;
        self.ip_id = self.ip_id.wrapping_add(1);
        let rec = frame(p, sender, size, self.ip_id);
        let orig = (SNAPLEN as u32).saturating_add(p.payload);
        let ns = now / 1000; // simulator time is in picoseconds
        let mut hdr = [0u8; 16];
        hdr[0..4].copy_from_slice(&((ns / 1_000_000_000) as u32).to_le_bytes());
        hdr[4..8].copy_from_slice(&((ns % 1_000_000_000) as u32).to_le_bytes());
        hdr[8..12].copy_from_slice(&(SNAPLEN as u32).to_le_bytes());
        hdr[12..16].copy_from_slice(&orig.to_le_bytes());
        let Some(out) = self.out.as_mut() else {
            return;
        };
        let r = out.write_all(&hdr).and_then(|_| out.write_all(&rec));
        if let Err(e) = r {
            self.fail(e);
        }
    }

    fn fail(&mut self, e: std::io::Error) {
        if self.error.is_none() {
            self.error = Some(format!("output.pcap: writing {:?} failed: {e}", self.path));
        }
        // Stop capturing: nothing more can be written reliably.
        self.out = None;
        self.drops = None;
    }

    /// Flushes both files; returns the notes for the run's warnings.
    pub fn finish(&mut self) -> Vec<String> {
        let mut notes = Vec::new();
        for w in [self.out.as_mut(), self.drops.as_mut()]
            .into_iter()
            .flatten()
        {
            if let Err(e) = w.flush() {
                self.error
                    .get_or_insert(format!("output.pcap: writing {:?} failed: {e}", self.path));
            }
        }
        let opened = self.out.is_some();
        self.out = None;
        self.drops = None;
        let files = [self.path.clone(), drops_path(&self.path)];
        if opened && self.error.is_none() {
            for f in &files {
                if let Err(e) = std::fs::rename(tmp(f), f) {
                    self.error
                        .get_or_insert(format!("output.pcap: renaming to {f:?} failed: {e}"));
                }
            }
        }
        if self.error.is_some() {
            for f in &files {
                let _ = std::fs::remove_file(tmp(f));
            }
        }
        if let Some(e) = self.error.take() {
            notes.push(e);
        }
        if self.over_cap > 0 {
            notes.push(format!(
                "output.pcap_max_packets: the capture stopped at {} packets ({} more \
                 matched); narrow pcap_flows / pcap_ports / the window or raise the cap",
                self.packets, self.over_cap
            ));
        }
        notes
    }
}

/// The side table of drops for a capture written to `path`.
pub fn drops_path(path: &str) -> String {
    format!("{path}.drops.csv")
}

/// Where `path` is written until the run finishes.
fn tmp(path: &str) -> String {
    format!("{path}.tmp-{}", std::process::id())
}

/// The 54 header bytes of a packet.
fn frame(p: &Packet, sender: u32, size: u64, ip_id: u16) -> [u8; SNAPLEN] {
    let mut b = [0u8; SNAPLEN];
    // Ethernet II.
    b[0..2].copy_from_slice(&[0x02, 0x00]);
    b[2..6].copy_from_slice(&p.dst.to_be_bytes());
    b[6..8].copy_from_slice(&[0x02, 0x00]);
    b[8..12].copy_from_slice(&p.src.to_be_bytes());
    b[12..14].copy_from_slice(&0x0800u16.to_be_bytes());
    // IPv4 (RFC 791 §3.1), no options.
    let ip = &mut b[14..34];
    ip[0] = 0x45;
    let ecn = if p.flags & flags::CE != 0 {
        0b11
    } else if p.flags & flags::ECT != 0 {
        0b10 // ECT(0)
    } else {
        0
    };
    ip[1] = (p.class.min(63) << 2) | ecn;
    let total = 40u32.saturating_add(p.payload).min(u16::MAX as u32) as u16;
    ip[2..4].copy_from_slice(&total.to_be_bytes());
    ip[4..6].copy_from_slice(&ip_id.to_be_bytes());
    ip[6..8].copy_from_slice(&0x4000u16.to_be_bytes()); // DF
    ip[8] = 64u8.saturating_sub(p.hops);
    ip[9] = 6; // TCP
    ip[12..16].copy_from_slice(&host_ip(p.src));
    ip[16..20].copy_from_slice(&host_ip(p.dst));
    let mut sum = 0u32;
    for w in ip.chunks(2) {
        sum += u16::from_be_bytes([w[0], w[1]]) as u32;
    }
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    ip[10..12].copy_from_slice(&(!(sum as u16)).to_be_bytes());
    // TCP (RFC 9293 §3.1), data offset 5, no options.
    let tcp = &mut b[34..54];
    let (sport, dport) = if p.src == sender {
        (flow_port(p.flow), RECEIVER_PORT)
    } else {
        (RECEIVER_PORT, flow_port(p.flow))
    };
    tcp[0..2].copy_from_slice(&sport.to_be_bytes());
    tcp[2..4].copy_from_slice(&dport.to_be_bytes());
    const FIN: u8 = 0x01;
    const SYN: u8 = 0x02;
    const PSH: u8 = 0x08;
    const ACK: u8 = 0x10;
    const ECE: u8 = 0x40;
    // Both ends' initial sequence number is 2³² − 1, so that a SYN consumes it and the
    // first data byte is sequence number 0 = the simulator's byte offset (RFC 9293 §3.4),
    // and the data sender acknowledges the receiver's (empty) stream with 0.
    const ISN: u32 = u32::MAX;
    let (seq, ack, fl) = match p.kind {
        PktKind::Data => (p.seq as u32, 0, PSH | ACK),
        PktKind::Ack => (0, p.seq as u32, ACK),
        PktKind::Syn => (ISN, 0, SYN),
        PktKind::SynAck => (ISN, 0, SYN | ACK),
        // The FIN takes the sequence number after the last data byte.
        PktKind::Fin => (size as u32, 0, FIN | ACK),
        _ => (0, 0, 0),
    };
    let fl = fl | if p.flags & flags::ECE != 0 { ECE } else { 0 };
    tcp[4..8].copy_from_slice(&seq.to_be_bytes());
    tcp[8..12].copy_from_slice(&ack.to_be_bytes());
    tcp[12] = 5 << 4;
    tcp[13] = fl;
    tcp[14..16].copy_from_slice(&u16::MAX.to_be_bytes());
    b
}

impl Sim {
    /// A packet reached its destination host (capture at receivers).
    #[inline(never)]
    #[cold]
    pub(super) fn pcap_on_receive(&mut self, id: PktId) {
        let now = self.now();
        let p = *self.arena.get(id);
        let Some(c) = self.pcap.as_deref_mut() else {
            return;
        };
        if c.ports.is_none() && c.selects(&p, now) {
            let d = self.flows.desc_of(p.flow);
            c.write(&p, now, d.src, d.size);
        }
    }

    /// A packet started serializing on `port` (capture at egress ports).
    #[inline(never)]
    #[cold]
    pub(super) fn pcap_on_tx(&mut self, port: u32, id: PktId) {
        let now = self.now();
        let p = *self.arena.get(id);
        let Some(c) = self.pcap.as_deref_mut() else {
            return;
        };
        if c.ports.as_ref().is_some_and(|v| v[port as usize]) && c.selects(&p, now) {
            let d = self.flows.desc_of(p.flow);
            c.write(&p, now, d.src, d.size);
        }
    }

    /// A packet was dropped at `port` / queue `qi`: one row in the drops side table.
    #[inline(never)]
    #[cold]
    pub(super) fn pcap_on_drop(&mut self, port: u32, qi: usize, id: PktId, why: DropReason) {
        let now = self.now();
        let p = *self.arena.get(id);
        let node = self.ports[port as usize].node;
        let name = &self.nodes[node as usize].name;
        let local = self.ports[port as usize].local;
        let Some(c) = self.pcap.as_deref_mut() else {
            return;
        };
        let at_port = c.ports.as_ref().is_none_or(|v| v[port as usize]);
        if !(at_port && c.selects(&p, now)) {
            return;
        }
        if c.drop_rows >= c.max {
            c.over_cap += 1;
            return;
        }
        let Some(w) = c.drops.as_mut() else {
            return;
        };
        c.drop_rows += 1;
        let r = writeln!(
            w,
            "{:.12},{},{},{},{},{},{},{}",
            dcnsim_engine::to_secs(now),
            p.flow,
            kind_name(p.kind),
            p.seq,
            name,
            local,
            qi,
            drop_reason_name(why)
        );
        if let Err(e) = r {
            c.fail(e);
        }
    }
}
