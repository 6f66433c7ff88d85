//! REFLEX flexible flows in the scenario: the range checks of a class's or a flow's alpha
//! and reliability, and each flow's REFLEX parameters against `[scheme] kind = "reflex"`.

use super::{ConfigError, Scenario};

/// REFLEX factors of a class or a flow (spec §5.2.1): α ≥ 0 (∞ allowed), r in [0, 1].
/// `key` is the class or flow-list row; the error names `key.alpha` / `key.reliability`.
pub(super) fn check_flex(alpha: Option<f64>, r: Option<f64>, key: &str) -> Result<(), ConfigError> {
    if let Some(a) = alpha {
        if a.is_nan() || a < 0.0 {
            return Err(ConfigError::new(
                format!("{key}.alpha"),
                format!("expected a number >= 0 (or inf for a regular flow), got {a}"),
            ));
        }
    }
    if let Some(r) = r {
        if !(0.0..=1.0).contains(&r) {
            return Err(ConfigError::new(
                format!("{key}.reliability"),
                format!("expected a number in [0, 1], got {r}"),
            ));
        }
    }
    Ok(())
}

impl Scenario {
    /// The REFLEX parameters of one flow of class `class` (None: a regular flow, α = ∞ and
    /// r = 1, which never runs REFLEX; spec §5.2.4 note).
    pub(super) fn flow_flex(
        &self,
        class: usize,
        alpha: Option<f64>,
        r: Option<f64>,
    ) -> Result<Option<crate::transport::FlexRt>, ConfigError> {
        let c = &self.classes[class];
        let a = alpha.or(c.alpha).unwrap_or(f64::INFINITY);
        let rel = r.or(c.reliability).unwrap_or(1.0);
        if a.is_infinite() && rel >= 1.0 {
            return Ok(None);
        }
        // Name the key the user wrote: the flow list (or its CSV file) if the flow set it.
        let key = |k: &str, own: bool| {
            if own {
                self.flow_list_key(class)
            } else {
                format!("classes[{class}].{k}")
            }
        };
        if a.is_infinite() {
            // Alg. 1 drains B_r only to cover a deficit against α·R_fair: with α = ∞ it
            // would be drained at once (spec §5.2.1: deprioritization first, loss after).
            // The key the user wrote: alpha if they set it to inf, else the reliability
            // (alpha is then absent: its default is inf).
            let (k, what) = if alpha.is_some() || c.alpha.is_some() {
                (key("alpha", alpha.is_some()), "a finite alpha")
            } else {
                (
                    key("reliability", r.is_some()),
                    "a finite alpha (missing key `alpha`)",
                )
            };
            return Err(ConfigError::new(
                k,
                format!(
                    "reliability = {rel} < 1 needs {what} (REFLEX drains the reliability \
                     budget only after the aggressiveness budget; alpha = 1 is TCP's share)"
                ),
            ));
        }
        let crate::scheme::SchemeConfig::Reflex(x) = &self.scheme else {
            return Err(ConfigError::new(
                self.flex_key(class, alpha, r),
                "a flexible flow (finite alpha or reliability < 1) needs [scheme] kind = \
                 \"reflex\"",
            ));
        };
        Ok(Some(crate::transport::FlexRt {
            alpha: a,
            reliability: rel,
            interval: x.interval.0,
            warmup: x.warmup,
            measure: x.measure,
            exploit: x.exploit,
            low_class: x.low_priority,
        }))
    }

    /// The key that made a flow of class `class` flexible: the class's flow list (or CSV
    /// file) when the flow sets its own `alpha` or `reliability`, else the class's `alpha`
    /// if written, else its `reliability`.
    pub(super) fn flex_key(&self, class: usize, alpha: Option<f64>, r: Option<f64>) -> String {
        if alpha.is_some() || r.is_some() {
            self.flow_list_key(class)
        } else if self.classes[class].alpha.is_some() {
            format!("classes[{class}].alpha")
        } else {
            format!("classes[{class}].reliability")
        }
    }

    /// The key of class `class`'s explicit flows: `workload.csv` or `workload.list`.
    fn flow_list_key(&self, class: usize) -> String {
        let csv = matches!(
            &self.classes[class].workload,
            super::classes::WorkloadConfig::Flows(w) if w.csv.is_some()
        );
        format!(
            "classes[{class}].workload.{}",
            if csv { "csv" } else { "list" }
        )
    }
}
