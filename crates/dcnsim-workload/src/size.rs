//! Flow-size distributions.

use std::sync::Arc;

use dcnsim_engine::Rng;

use crate::cdf::{to_bytes, Cdf, Interp};
use crate::error::{err, WorkloadError};

/// The payload size of a flow, in bytes.
#[derive(Clone, Debug, PartialEq)]
pub enum SizeDist {
    /// Every flow has this many bytes (must be > 0).
    Fixed(u64),
    /// Uniform integer in `[lo, hi]` (inclusive; `1 <= lo <= hi`).
    Uniform { lo: u64, hi: u64 },
    /// Inverse-CDF sampling from an empirical CDF, the drawn size multiplied by `scale`
    /// (e.g. 1460 for a CDF in packets), then rounded to the nearest byte and at least 1.
    Cdf {
        cdf: Arc<Cdf>,
        interp: Interp,
        scale: f64,
    },
}

impl SizeDist {
    /// A CDF with linear interpolation and no scaling.
    pub fn cdf(cdf: Cdf) -> SizeDist {
        SizeDist::Cdf {
            cdf: Arc::new(cdf),
            interp: Interp::Linear,
            scale: 1.0,
        }
    }

    /// Checks the parameters; `path` is the key of this distribution.
    pub fn validate(&self, path: &str) -> Result<(), WorkloadError> {
        match *self {
            SizeDist::Fixed(0) => err(path, "expected a fixed size >= 1 byte, got 0"),
            SizeDist::Fixed(_) => Ok(()),
            SizeDist::Uniform { lo, hi } => {
                if lo == 0 {
                    err(format!("{path}.lo"), "expected lo >= 1 byte, got 0")
                } else if hi < lo {
                    err(
                        format!("{path}.hi"),
                        format!("expected hi >= lo = {lo}, got {hi}"),
                    )
                } else {
                    Ok(())
                }
            }
            SizeDist::Cdf { scale, .. } => {
                if scale.is_finite() && scale > 0.0 {
                    Ok(())
                } else {
                    err(
                        format!("{path}.scale"),
                        format!("expected a finite scale > 0, got {scale}"),
                    )
                }
            }
        }
    }

    /// The mean size in bytes: `n`, `(lo + hi) / 2`, or `scale ×` the CDF mean matching
    /// the interpolation ([`Cdf::mean_lin`] or [`Cdf::mean_step`]). Rounding drawn CDF
    /// sizes to whole bytes (and 0 up to 1) is ignored here; it moves the mean by well
    /// under a byte.
    pub fn mean(&self) -> f64 {
        match self {
            SizeDist::Fixed(n) => *n as f64,
            SizeDist::Uniform { lo, hi } => (*lo as f64 + *hi as f64) / 2.0,
            SizeDist::Cdf { cdf, interp, scale } => cdf.mean(*interp) * scale,
        }
    }

    /// Draws one size (>= 1 byte). Uses exactly one draw of `rng` for `Uniform` and `Cdf`,
    /// none for `Fixed`.
    pub fn sample(&self, rng: &mut Rng) -> u64 {
        match self {
            SizeDist::Fixed(n) => (*n).max(1),
            SizeDist::Uniform { lo, hi } => {
                let (lo, hi) = ((*lo).max(1), (*hi).max(1));
                if hi <= lo {
                    lo
                } else {
                    // hi - lo + 1 cannot overflow because lo >= 1.
                    lo + rng.below(hi - lo + 1)
                }
            }
            SizeDist::Cdf { cdf, interp, scale } => {
                to_bytes(cdf.quantile(rng.f64(), *interp) * scale)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn means_and_bounds() {
        let mut r = Rng::new(1);
        assert_eq!(SizeDist::Fixed(1000).sample(&mut r), 1000);
        let u = SizeDist::Uniform { lo: 10, hi: 20 };
        assert_eq!(u.mean(), 15.0);
        let n = 100_000;
        let mut sum = 0u64;
        for _ in 0..n {
            let x = u.sample(&mut r);
            assert!((10..=20).contains(&x));
            sum += x;
        }
        assert!((sum as f64 / n as f64 - 15.0).abs() < 0.05);
        let c = Cdf::from_points(&[(0.0, 0.0), (10.0, 1.0)], "c").unwrap();
        let d = SizeDist::Cdf {
            cdf: Arc::new(c),
            interp: Interp::Linear,
            scale: 1460.0,
        };
        assert_eq!(d.mean(), 5.0 * 1460.0);
        assert!((0..1000).all(|_| d.sample(&mut r) <= 14600));
    }

    #[test]
    fn validation_names_keys() {
        let e = SizeDist::Fixed(0).validate("sizes").unwrap_err();
        assert_eq!(e.path, "sizes");
        assert!(e.msg.contains(">= 1 byte"), "{e}");
        let e = SizeDist::Uniform { lo: 0, hi: 5 }
            .validate("sizes")
            .unwrap_err();
        assert_eq!(e.path, "sizes.lo");
        let e = SizeDist::Uniform { lo: 6, hi: 5 }
            .validate("sizes")
            .unwrap_err();
        assert_eq!(e.path, "sizes.hi");
        assert!(e.msg.contains("expected hi >= lo = 6, got 5"), "{e}");
        let c = Arc::new(Cdf::from_points(&[(0.0, 0.0), (10.0, 1.0)], "c").unwrap());
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            let e = SizeDist::Cdf {
                cdf: c.clone(),
                interp: Interp::Step,
                scale: bad,
            }
            .validate("sizes")
            .unwrap_err();
            assert_eq!(e.path, "sizes.scale");
            assert!(e.msg.contains("expected a finite scale > 0"), "{e}");
        }
        assert!(SizeDist::Uniform { lo: 5, hi: 5 }.validate("s").is_ok());
    }
}
