// TEMPORARY: stands in for flow.rs until the dcnsim-transport crate lands; removed then.
use super::Sim;
use crate::packet::PktId;
#[derive(Default)]
pub struct Flows { pub window_pending: u32, pub completed: u32, pub desc: Vec<()>, pub rec: Vec<()> }
impl Flows { pub fn active(&self) -> u32 { 0 } }
impl Sim {
    pub(super) fn on_flow_start(&mut self, _f: u32) {}
    pub(super) fn on_data_rx(&mut self, _id: PktId) {}
    pub(super) fn on_ack_rx(&mut self, _id: PktId) {}
    pub(super) fn on_data_dropped(&mut self, _id: PktId) {}
    pub(super) fn on_rto_event(&mut self, _f: u32) {}
    pub(super) fn on_delack_event(&mut self, _f: u32) {}
}
