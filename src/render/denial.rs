//! A policy denial's wording on its own, for the audit log and `tfgate policy explain`: the
//! same `_policy_denial.md.j2` macro the PR replies use, so there is one wording.

use minijinja::context;

use super::{innermost_error, RenderError, Renderer};
use crate::model::PolicyDenial;

const DENIAL_PARTIAL: &str = "_policy_denial.md.j2";

impl Renderer {
    /// The line the PR reads for `denial` (markdown: values escaped, code as code spans).
    pub fn render_policy_denial(&self, denial: &PolicyDenial) -> Result<String, RenderError> {
        let source = format!(
            "{{% from \"{DENIAL_PARTIAL}\" import policy_denial %}}{{{{ policy_denial(denial) }}}}"
        );
        self.env
            .render_str(&source, context! { denial => denial })
            .map_err(|e| innermost_error(DENIAL_PARTIAL, &e))
    }
}
