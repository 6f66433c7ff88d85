//! The scenario side of the sender shim (ElasticSwitch, C3; `sim::shim`): the checks of
//! each class's `objective` / `guarantee` against the scheme, and the shim's construction.

use super::classes::TransportKindName;
use super::{ConfigError, Scenario};
use crate::sim::Sim;

/// The sender shim of ElasticSwitch and C3 (`sim::shim`).
impl Scenario {
    /// `objective` / `guarantee` of each class against the scheme.
    pub(super) fn check_shim_classes(&self) -> Result<(), ConfigError> {
        use crate::scheme::c3::Objective;
        use crate::scheme::SchemeConfig;
        let (es, c3) = match &self.scheme {
            SchemeConfig::Elasticswitch(_) => (true, false),
            SchemeConfig::C3(_) => (false, true),
            _ => (false, false),
        };
        for (i, c) in self.classes.iter().enumerate() {
            let key = format!("classes[{i}]");
            if c.objective.is_some() && !c3 {
                return Err(ConfigError::new(
                    format!("{key}.objective"),
                    "an objective needs [scheme] kind = \"c3\" (the pipes that serve it)",
                ));
            }
            if c.guarantee.is_some() && !(c3 || es) {
                return Err(ConfigError::new(
                    format!("{key}.guarantee"),
                    "a guarantee needs [scheme] kind = \"elasticswitch\" or \"c3\" (the \
                     rate limiter that enforces it)",
                ));
            }
            let roce = self
                .transport(&c.transport)
                .is_some_and(|t| t.kind != TransportKindName::Tcp);
            if c3 {
                let o = c.objective.unwrap_or(Objective::Be);
                if o == Objective::Ts && c.guarantee.is_none() {
                    return Err(ConfigError::new(
                        format!("{key}.guarantee"),
                        "missing key `guarantee`: objective = \"ts\" needs a guarantee per \
                         flow (e.g. \"250Mbps\"): the pipe's R_G is their sum",
                    ));
                }
                if o != Objective::Ts && c.guarantee.is_some() {
                    return Err(ConfigError::new(
                        format!("{key}.guarantee"),
                        "only objective = \"ts\" takes a guarantee (the other objectives \
                         derive theirs, C3 §3.4)",
                    ));
                }
                if roce && c.objective.is_some() {
                    return Err(ConfigError::new(
                        format!("{key}.objective"),
                        "C3 pipes carry TCP-family flows; this class's transport is not one",
                    ));
                }
            }
            if es && roce && c.guarantee.is_some() {
                return Err(ConfigError::new(
                    format!("{key}.guarantee"),
                    "the ElasticSwitch limiter carries TCP-family flows; this class's \
                     transport is not one",
                ));
            }
        }
        if es && self.classes.iter().all(|c| c.guarantee.is_none()) && !self.classes.is_empty() {
            return Err(ConfigError::new(
                "scheme",
                "kind = \"elasticswitch\" has no effect: no class has a guarantee (give the \
                 guaranteed classes `guarantee`, and 0 to the others that should share the \
                 limiters)",
            ));
        }
        Ok(())
    }

    pub(super) fn build_shim(&self, sim: &mut Sim) {
        use crate::scheme::c3::Objective;
        use crate::scheme::SchemeConfig;
        use crate::sim::shim::{ClassShim, Law, Shim};
        let law = match &self.scheme {
            SchemeConfig::Elasticswitch(c) => Law::Es(c.clone()),
            SchemeConfig::C3(c) => Law::C3(c.clone()),
            _ => return,
        };
        let es = matches!(law, Law::Es(_));
        let classes = self
            .classes
            .iter()
            .map(|c| ClassShim {
                enters: if es { c.guarantee.is_some() } else { true },
                objective: c.objective.unwrap_or(Objective::Be),
                guarantee: c.guarantee.map_or(0.0, |g| g.0 as f64),
            })
            .collect();
        let line = (0..sim.n_hosts)
            .map(|h| sim.ports[sim.host_port(h) as usize].clock.rate().0 as f64)
            .collect();
        sim.shim = Some(Box::new(Shim::new(
            law,
            classes,
            line,
            self.packet.mtu_wire(),
            self.packet.mss(),
        )));
    }
}
