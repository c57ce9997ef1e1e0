//! `tfgate render plan|apply FILE` and `tfgate classify`: preview offline exactly what the
//! bot would post, and classify error messages in bulk.

use std::io::Read;
use std::path::Path;

use anyhow::{Context, Result};

use crate::model::view::{ApplyComment, CommentMeta, PlanComment};
use crate::redact::{Placeholders, RedactionConfig, Redactor};
use crate::render::from_outcome::{apply_root, plan_root, RootIdent};
use crate::render::Renderer;
use crate::terraform::{
    apply_outcome, parse_plan_json, parse_ui_stream, plan_references, plan_summary, ApplyContext,
    PlanReferences,
};

fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))
}

fn meta() -> CommentMeta {
    CommentMeta {
        pr: 0,
        marker_root: "local".into(),
        run_id: "local".into(),
        head_sha_short: None,
        command_by: None,
        check_run_url: None,
    }
}

fn local_root(path: &Path) -> RootIdent {
    RootIdent {
        project: path
            .file_stem()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_default(),
        dir: ".".into(),
        workspace: "default".into(),
    }
}

/// Markdown of the plan comment for a `terraform show -json` file.
pub fn render_plan(renderer: &Renderer, path: &Path) -> Result<String> {
    let redactor = Redactor::new(&RedactionConfig::default())?;
    // The file and its parse are dropped before rendering: only the summary is needed.
    let summary = {
        let text = read(path)?;
        let plan = parse_plan_json(&text).with_context(|| format!("parsing {}", path.display()))?;
        plan_summary(&plan)
    };
    let root = plan_root(
        &local_root(path),
        &summary,
        &redactor,
        &mut Placeholders::new(),
    );
    drop(summary);
    Ok(renderer.render_plan(&PlanComment {
        meta: meta(),
        repo_root_summaries: vec![root],
        drift_warnings: vec![],
        denials: vec![],
        notes: vec![],
        still_planning: Vec::new(),
    })?)
}

/// Markdown of the apply comment for an `apply -json` stream (optionally with its plan JSON,
/// so resources that were never reached are listed too, and a failure referring to a resource
/// created earlier in the apply is told as a possible propagation delay).
pub fn render_apply(renderer: &Renderer, path: &Path, plan: Option<&Path>) -> Result<String> {
    let text = read(path)?;
    let stream = parse_ui_stream(&text).with_context(|| format!("parsing {}", path.display()))?;
    let (planned, references) = match plan {
        Some(p) => {
            let plan_text = read(p)?;
            let plan =
                parse_plan_json(&plan_text).with_context(|| format!("parsing {}", p.display()))?;
            (plan_summary(&plan).change_refs(), plan_references(&plan))
        }
        None => (Vec::new(), PlanReferences::default()),
    };
    let outcome = apply_outcome(&stream, &planned);
    let context = ApplyContext::new(&stream, &references);
    let redactor = Redactor::new(&RedactionConfig::default())?;
    let root = apply_root(
        &local_root(path),
        &outcome,
        &context,
        &redactor,
        &mut Placeholders::new(),
    );
    Ok(renderer.render_apply(&ApplyComment {
        meta: meta(),
        roots: vec![root],
        notes: vec![],
    })?)
}

/// JSON lines with `message` (optional `id`, `address`) on stdin → classifications on stdout.
pub fn classify_stdin() -> Result<String> {
    let mut input = String::new();
    std::io::stdin()
        .read_to_string(&mut input)
        .context("reading standard input")?;
    crate::classify::classify_jsonl(&input).map_err(|e| anyhow::anyhow!("{e}"))
}

/// Redact standard input to standard output (the same rules as comments; `patterns` are extra
/// admin regexes), a chunk of whole lines at a time so that memory stays small whatever the
/// input's size.
pub fn redact_stdin(patterns: Vec<String>) -> Result<()> {
    let redactor = Redactor::new(&RedactionConfig {
        extra_patterns: patterns,
        secret_values: Vec::new(),
    })?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 20, stdout.lock());
    redact_stream(&redactor, std::io::stdin().lock(), &mut out)?;
    std::io::Write::flush(&mut out).context("writing standard output")?;
    Ok(())
}

/// About this many bytes are redacted at a time (always whole lines).
const REDACT_CHUNK: usize = 1 << 20;

/// Redacts `input` into `out` chunk by chunk. A chunk ends after a newline, and never inside a
/// PEM private-key block (which spans lines), so every rule sees whole matches; placeholders
/// stay the same across chunks.
pub fn redact_stream(
    redactor: &Redactor,
    mut input: impl std::io::BufRead,
    out: &mut impl std::io::Write,
) -> Result<()> {
    let mut ph = Placeholders::new();
    let mut pending: Vec<u8> = Vec::with_capacity(2 * REDACT_CHUNK);
    let mut redacted = String::new();
    loop {
        let read = input
            .by_ref()
            .take(REDACT_CHUNK as u64)
            .read_to_end(&mut pending)
            .context("reading standard input")?;
        let eof = read == 0;
        let lines_end = if eof {
            pending.len()
        } else {
            match pending.iter().rposition(|&b| b == b'\n') {
                Some(i) => i + 1,
                None => continue,
            }
        };
        let lines =
            std::str::from_utf8(&pending[..lines_end]).context("standard input is not UTF-8")?;
        let cut = if eof {
            lines_end
        } else {
            match before_open_key_block(lines) {
                Some(0) => continue,
                Some(start) => start,
                None => lines_end,
            }
        };
        redactor.redact_into(&lines[..cut], &mut ph, &mut redacted);
        out.write_all(redacted.as_bytes())
            .context("writing standard output")?;
        pending.drain(..cut);
        if eof {
            return Ok(());
        }
    }
}

/// The start of the line of a `-----BEGIN …` block that `text` does not close, if any.
fn before_open_key_block(text: &str) -> Option<usize> {
    let begin = memchr::memmem::rfind(text.as_bytes(), b"-----BEGIN ")?;
    if memchr::memmem::find(&text.as_bytes()[begin..], b"-----END ").is_some() {
        return None;
    }
    Some(text[..begin].rfind('\n').map_or(0, |i| i + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Streaming gives exactly what redacting the whole text at once gives, with a key block
    /// and repeated values across chunk boundaries.
    #[test]
    fn streamed_redaction_equals_whole_text_redaction() {
        let redactor = Redactor::new(&RedactionConfig::default()).unwrap();
        let mut text = String::new();
        let mut i = 0;
        while text.len() < REDACT_CHUNK - 40 {
            text.push_str(&format!(
                "{{\"@message\":\"line {i} from 10.0.{}.{} in 123456789012\"}}\n",
                i % 7,
                i % 5
            ));
            i += 1;
        }
        // Starts before the first chunk's end and closes after it.
        text.push_str("-----BEGIN OPENSSH PRIVATE KEY-----\n");
        text.push_str(&"b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n".repeat(40));
        text.push_str("-----END OPENSSH PRIVATE KEY-----\n");
        text.push_str(&text.clone()[..REDACT_CHUNK / 2]);
        text.push_str("last line without newline 10.0.0.1");

        let mut streamed = Vec::new();
        redact_stream(&redactor, text.as_bytes(), &mut streamed).unwrap();
        let whole = redactor.redact(&text, &mut Placeholders::new());
        assert!(String::from_utf8(streamed).unwrap() == whole);
        assert!(!whole.contains("b3BlbnNzaC1rZXkt") && !whole.contains("10.0.0.1"));
    }

    #[test]
    fn invalid_utf8_is_an_error() {
        let redactor = Redactor::new(&RedactionConfig::default()).unwrap();
        let err = redact_stream(&redactor, &b"ok\n\xff\xfe\n"[..], &mut Vec::new()).unwrap_err();
        assert!(format!("{err:#}").contains("not UTF-8"));
    }
}
