//! The one error type of this crate.
//!
//! Every error names the configuration key it is about (`path`) and says what was expected
//! (`msg`). Generators ([`crate::poisson`], [`crate::incast`]) report paths relative to
//! their spec (`"load"`, `"fan_in"`, `"pairs.src[2]"`); the caller prefixes the key under
//! which it found the spec with [`WorkloadError::at`], e.g.
//! `"classes[1].workload" + "sizes.cdf"`. Parsers ([`crate::Cdf::parse`],
//! [`crate::parse_flow_csv`]) take the key from the caller directly and put the line and
//! column into the message.

/// A workload description that cannot be turned into flows.
#[derive(thiserror::Error, Debug, Clone, PartialEq)]
#[error("{path}: {msg}")]
pub struct WorkloadError {
    /// The configuration key, e.g. `classes[1].workload.sizes.cdf`.
    pub path: String,
    /// What is wrong and what is expected.
    pub msg: String,
}

impl WorkloadError {
    pub fn new(path: impl Into<String>, msg: impl Into<String>) -> Self {
        WorkloadError {
            path: path.into(),
            msg: msg.into(),
        }
    }

    /// Prefixes the key path with the key of the enclosing table:
    /// `WorkloadError::new("load", ..).at("classes[0].workload")` has path
    /// `classes[0].workload.load`; an index path (`[3]`) is appended without a dot.
    pub fn at(mut self, prefix: &str) -> Self {
        self.path = join_path(prefix, &self.path);
        self
    }
}

/// Joins two key paths with a dot (no dot before an index, none around an empty part).
pub(crate) fn join_path(prefix: &str, rest: &str) -> String {
    if prefix.is_empty() {
        rest.to_string()
    } else if rest.is_empty() {
        prefix.to_string()
    } else if rest.starts_with('[') {
        format!("{prefix}{rest}")
    } else {
        format!("{prefix}.{rest}")
    }
}

/// Shorthand used throughout the crate.
pub(crate) fn err<T>(path: impl Into<String>, msg: impl Into<String>) -> Result<T, WorkloadError> {
    Err(WorkloadError::new(path, msg))
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn display_and_prefix() {
        let e = WorkloadError::new("sizes.cdf", "expected a file").at("classes[1].workload");
        assert_eq!(e.path, "classes[1].workload.sizes.cdf");
        assert_eq!(
            e.to_string(),
            "classes[1].workload.sizes.cdf: expected a file"
        );
        assert_eq!(WorkloadError::new("[2]", "x").at("src").path, "src[2]");
        assert_eq!(WorkloadError::new("load", "x").at("").path, "load");
    }
}
