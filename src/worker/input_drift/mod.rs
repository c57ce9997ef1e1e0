//! The shell of shared-input drift ([`crate::input_drift`] decides): reading input values from
//! their server-side sources ([`values`]) and the facts one planned root's drift check needs
//! ([`check`]).

pub(crate) mod check;
pub mod values;
