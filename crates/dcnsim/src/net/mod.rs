//! The fabric: ports with class queues, schedulers, buffer admission and ECN marking.
//! Nothing here knows about transports.

pub mod buffer;
pub mod config;
pub mod mark;
pub mod port;
pub mod sched;

pub use buffer::{DropReason, SharedPool};
pub use config::{
    ColourConfig, ColourMode, EcnConfig, HostConfig, PerQueue, PfcConfig, PortConfig, SchedConfig,
    SwitchConfig,
};
pub use port::{ClassQueue, Port, Profile, QueueStats};
