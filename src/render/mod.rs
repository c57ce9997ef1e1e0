//! Renders tfgate's PR comments and check-run texts from typed view models.
//!
//! Pure: models in, markdown out. All strings in the models are already redacted; the
//! renderer escapes them for markdown (see [`escape`]) and fits every comment into
//! GitHub's size limit by shortening details, never the summary, failures or warnings.

mod apply_view;
mod check_run;
mod denial;
pub mod escape;
mod filters;
mod fit;
pub mod from_outcome;
mod load;
pub mod plan_policy_check;
mod plan_view;
pub(crate) mod samples;
pub mod stale_banner;
pub mod template_names;
mod templates;
mod texts;

#[cfg(test)]
mod notice_snapshot_tests;
#[cfg(test)]
mod policy_denial_tests;
#[cfg(test)]
mod renderer_tests;
#[cfg(test)]
mod snapshot_tests;
#[cfg(test)]
mod template_dir_tests;

use std::path::Path;

use minijinja::{context, Environment, Value};

use crate::model::marker::{marker, CommentKind, MarkerKey};
#[cfg(test)]
use crate::model::marker::{parse_marker, Marker};
pub use crate::model::view::notice_kind;
use crate::model::view::*;
pub use check_run::{annotations_for_apply, annotations_for_plan, CHECK_RUN_TITLE_LIMIT};
pub use fit::char_count;
/// Comment facts of the sample models, for tests of the producers of view models.
#[cfg(test)]
pub(crate) use samples::meta as samples_meta;
pub use templates::DEFAULT_TEMPLATES;
pub use texts::CheckTitleSummary;

use apply_view::{apply_view, optional_row_count};
use plan_view::{plan_view, resource_count, PlanTrim};

/// GitHub rejects comment bodies over 65,536 characters; we stay below with a margin.
pub const COMMENT_LIMIT_CHARS: usize = 65_000;
/// GitHub's check-run `summary` and `text` hold at most 65,535 characters each.
pub const CHECK_RUN_TEXT_LIMIT_CHARS: usize = 65_000;

#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// A template failed to compile or to render the built-in sample models at load time.
    #[error("template {name} is broken: {message}")]
    Template { name: String, message: String },
    /// A template that does not compile: the file to fix, its line and minijinja's message.
    #[error("{file}:{line}: {message}")]
    Syntax {
        file: String,
        line: usize,
        message: String,
    },
    /// The template override directory (or a file in it) could not be read.
    #[error("template directory {dir}: {message}")]
    TemplateDir { dir: String, message: String },
    /// An override file whose name matches no tfgate template (new files must be partials,
    /// named `_*.j2`, for other templates to include).
    #[error(
        "override {0} does not match any tfgate template (a new file must be a partial named `_*.j2`)"
    )]
    UnknownTemplate(String),
    /// Rendering failed for a real model (a template bug the samples did not exercise).
    #[error("rendering {name} failed: {message}")]
    Render { name: String, message: String },
    /// Even with every optional detail left out, the comment is over the limit.
    #[error("the {kind} comment needs {chars} characters without details (limit {limit})")]
    TooLarge {
        kind: &'static str,
        chars: usize,
        limit: usize,
    },
}

/// Holds the compiled templates. Build once at start-up and share.
#[derive(Debug)]
pub struct Renderer {
    env: Environment<'static>,
}

impl Renderer {
    /// The embedded default templates.
    pub fn new() -> Result<Renderer, RenderError> {
        Renderer::with_template_dir(None)
    }

    /// The defaults, overridden by every `*.j2` file in `dir` (the `--template-dir` option):
    /// a file replaces the default of the same name, and new partials (`_*.j2`) may be added
    /// for overrides to include. Every template is compiled and rendered with sample models
    /// here, so a broken override is reported at start-up (file and line), not when a run
    /// needs it. A directory that cannot be read is an error naming it.
    pub fn with_template_dir(dir: Option<&Path>) -> Result<Renderer, RenderError> {
        let files = match dir {
            Some(dir) => load::read_override_dir(dir)?,
            None => Vec::new(),
        };
        Renderer::from_files(files)
    }

    /// Defaults with overrides given as `(file name, source)` pairs (tests, previews).
    pub fn with_override_files(files: Vec<(String, String)>) -> Result<Renderer, RenderError> {
        let files = files
            .into_iter()
            .map(|(name, source)| load::TemplateFile {
                origin: name.clone(),
                name,
                source,
            })
            .collect();
        Renderer::from_files(files)
    }

    fn from_files(files: Vec<load::TemplateFile>) -> Result<Renderer, RenderError> {
        let mut env = filters::base_environment();
        load::compile_all(&mut env, files)?;
        let renderer = Renderer { env };
        renderer.render_samples()?;
        Ok(renderer)
    }

    /// The plan comment, shortened to [`COMMENT_LIMIT_CHARS`].
    pub fn render_plan(&self, comment: &PlanComment) -> Result<String, RenderError> {
        let marker = comment_marker(CommentKind::Plan, &comment.meta);
        self.fit_plan(
            template_names::PLAN,
            comment,
            &marker,
            false,
            COMMENT_LIMIT_CHARS,
        )
    }

    /// The apply comment, shortened to [`COMMENT_LIMIT_CHARS`].
    pub fn render_apply(&self, comment: &ApplyComment) -> Result<String, RenderError> {
        let marker = comment_marker(CommentKind::Apply, &comment.meta);
        self.fit_apply(
            template_names::APPLY,
            comment,
            &marker,
            false,
            COMMENT_LIMIT_CHARS,
        )
    }

    /// A short message (lock held, stale plan, rejected, denied, …).
    pub fn render_notice(&self, notice: &Notice) -> Result<String, RenderError> {
        let kind = notice_kind(&notice.body);
        let marker = comment_marker(kind, &notice.meta);
        let name = format!("{}.md.j2", kind.as_str());
        let ctx = context! { meta => &notice.meta, body => &notice.body };
        let text = self.render_with_marker(&name, ctx, &marker)?;
        within_comment_limit(kind, text)
    }

    /// One reply made of several notices (a comment's answers): each notice's text without
    /// its footer, separated by rules, then one footer and the first notice's marker.
    pub fn render_reply(
        &self,
        meta: &CommentMeta,
        bodies: &[NoticeBody],
    ) -> Result<String, RenderError> {
        let [first, rest @ ..] = bodies else {
            return Ok(String::new());
        };
        if rest.is_empty() {
            return self.render_notice(&Notice {
                meta: meta.clone(),
                body: first.clone(),
            });
        }
        let mut parts = Vec::with_capacity(bodies.len() + 1);
        for body in bodies {
            let name = format!("{}.md.j2", notice_kind(body).as_str());
            let ctx = context! { meta => meta, body => body, combined => true, marker => "" };
            parts.push(self.render(&name, ctx)?.trim_end().to_string());
        }
        let marker = comment_marker(notice_kind(first), meta);
        let footer =
            self.render_with_marker(template_names::FOOTER, context! { meta => meta }, &marker)?;
        let text = format!("{}\n{footer}", parts.join("\n\n---\n\n"));
        within_comment_limit(notice_kind(first), text)
    }

    /// Renders `name` and makes sure the marker is present even if an override dropped it.
    fn render_with_marker(
        &self,
        name: &str,
        ctx: Value,
        marker: &str,
    ) -> Result<String, RenderError> {
        let ctx = context! { marker => Value::from_safe_string(marker.to_string()), ..ctx };
        let mut text = self.render(name, ctx)?;
        if !marker.is_empty() && !text.contains(marker) {
            text.push('\n');
            text.push_str(marker);
        }
        Ok(text)
    }

    fn render(&self, name: &str, ctx: Value) -> Result<String, RenderError> {
        let template = self
            .env
            .get_template(name)
            .map_err(|e| RenderError::Render {
                name: name.to_string(),
                message: e.to_string(),
            })?;
        let text = template
            .render(ctx)
            .map_err(|e| innermost_error(name, &e))?;
        let mut text = text.trim_end().to_string();
        text.push('\n');
        Ok(text)
    }

    /// Fits a plan template: drop attribute rows from the end first, then whole resources.
    fn fit_plan(
        &self,
        name: &str,
        comment: &PlanComment,
        marker: &str,
        in_check_run: bool,
        limit: usize,
    ) -> Result<String, RenderError> {
        let all = PlanTrim::everything(comment);
        let render = |trim: PlanTrim| {
            let view = plan_view(comment, trim, in_check_run);
            self.render_with_marker(name, Value::from_serialize(&view), marker)
        };
        let by_attributes = fit::fit_prefix(all.attributes_kept, limit, |kept| {
            render(PlanTrim {
                resources_kept: all.resources_kept,
                attributes_kept: kept,
            })
        })?;
        if let Some(fitted) = by_attributes {
            return Ok(fitted.text);
        }
        let by_resources = fit::fit_prefix(resource_count(comment), limit, |kept| {
            render(PlanTrim {
                resources_kept: kept,
                attributes_kept: 0,
            })
        })?;
        match by_resources {
            Some(fitted) => Ok(fitted.text),
            None => Err(too_large(
                "plan",
                render(PlanTrim {
                    resources_kept: 0,
                    attributes_kept: 0,
                })?,
                limit,
            )),
        }
    }

    /// Fits an apply template: drop done / not-reached rows from the end.
    fn fit_apply(
        &self,
        name: &str,
        comment: &ApplyComment,
        marker: &str,
        in_check_run: bool,
        limit: usize,
    ) -> Result<String, RenderError> {
        let render = |kept: usize| {
            let view = apply_view(comment, kept, in_check_run);
            self.render_with_marker(name, Value::from_serialize(&view), marker)
        };
        match fit::fit_prefix(optional_row_count(comment), limit, render)? {
            Some(fitted) => Ok(fitted.text),
            None => Err(too_large("apply", render(0)?, limit)),
        }
    }

    /// Renders every root template with the sample models (load-time validation).
    fn render_samples(&self) -> Result<(), RenderError> {
        let as_template_error = |e: RenderError| match e {
            RenderError::Render { name, message } => RenderError::Template { name, message },
            other => other,
        };
        for plan in [
            samples::plan_with_changes(),
            samples::plan_no_changes(),
            samples::plan_with_drift(),
            samples::plan_failed_config_error(),
            samples::plan_with_every_note(),
            samples::plan_denied_at_plan_time(),
            samples::plan_egress_blocked(),
            samples::plan_provider_not_allowed(),
            samples::plan_split_in_progress(),
            samples::plan_with_policy_checks(),
        ] {
            self.render_plan(&plan).map_err(as_template_error)?;
            self.check_run_plan(&plan).map_err(as_template_error)?;
        }
        for apply in [
            samples::apply_success(),
            samples::apply_partial_failure(),
            samples::apply_interrupted(),
            samples::apply_config_error(),
            samples::apply_with_every_skip_reason(),
        ] {
            self.render_apply(&apply).map_err(as_template_error)?;
            self.check_run_apply(&apply).map_err(as_template_error)?;
        }
        for notice in samples::notices()
            .into_iter()
            .chain(samples::alternate_notices())
        {
            self.render_notice(&notice).map_err(as_template_error)?;
        }
        self.render_plan_policy_check(&plan_policy_check::sample_plan_policy_check())
            .map_err(as_template_error)?;
        self.render_text_samples().map_err(as_template_error)
    }
}

/// minijinja wraps errors in included templates; report the innermost one, naming the
/// template (partial) where it happened.
fn innermost_error(root: &str, error: &minijinja::Error) -> RenderError {
    let mut name = error.name().unwrap_or(root).to_string();
    let mut message = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        if let Some(inner) = cause.downcast_ref::<minijinja::Error>() {
            if let Some(inner_name) = inner.name() {
                name = inner_name.to_string();
            }
        }
        message = cause.to_string();
        source = cause.source();
    }
    RenderError::Render { name, message }
}

/// A notice or reply as posted, or an error when it is over GitHub's comment limit.
fn within_comment_limit(kind: CommentKind, text: String) -> Result<String, RenderError> {
    if char_count(&text) > COMMENT_LIMIT_CHARS {
        return Err(too_large(kind.as_str(), text, COMMENT_LIMIT_CHARS));
    }
    Ok(text)
}

fn too_large(kind: &'static str, text: String, limit: usize) -> RenderError {
    RenderError::TooLarge {
        kind,
        chars: char_count(&text),
        limit,
    }
}

fn comment_marker(kind: CommentKind, meta: &CommentMeta) -> String {
    marker(
        kind,
        meta.pr,
        &MarkerKey {
            root: meta.marker_root.clone(),
            run: meta.run_id.clone(),
        },
    )
}
