//! Evaluating a compiled set on a plan JSON, conftest's way, under a time and size budget.
//! Fails closed: an error, a timeout or an oversized plan gives `SetOutcome.error`.

use std::num::NonZeroU32;
use std::time::Duration;

use regorus::utils::limits::ExecutionTimerConfig;

use super::compile::{problem_of, CompiledSet, RuleRef};
use super::messages::messages_of;
use crate::model::{PolicyMessage, SetOutcome};

/// Default wall-clock limit of one set on one plan.
pub const DEFAULT_TIME_LIMIT: Duration = Duration::from_secs(2);
/// Default largest plan JSON evaluated (bytes). Bounds the memory the interpreter's copy of
/// the plan takes (regorus has no per-evaluation memory limit that works with our allocator).
pub const DEFAULT_MAX_INPUT_BYTES: usize = 256 * 1024 * 1024;

/// The limits of one evaluation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// Wall-clock limit, checked by the interpreter itself between work units (cooperative:
    /// regorus's execution timer).
    pub time: Duration,
    /// The plan JSON must not be larger; a larger plan fails closed without being parsed.
    pub max_input_bytes: usize,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            time: DEFAULT_TIME_LIMIT,
            max_input_bytes: DEFAULT_MAX_INPUT_BYTES,
        }
    }
}

/// Evaluate `set` on `plan_json` (the `input` document). Every `deny*`/`violation*` rule's
/// messages are failures, every `warn*` rule's are warnings; messages are strings or objects
/// with `msg` (see `messages.rs`). The messages are not redacted here: the caller redacts
/// before storing or showing them. `error` never holds plan values: only the rule, its
/// location and the kind of failure.
pub fn evaluate(set: &CompiledSet, plan_json: &str, budget: &Budget) -> SetOutcome {
    let inner = &set.inner;
    let mut outcome = SetOutcome {
        set: inner.set.name.clone(),
        enforcement: inner.set.enforcement,
        failures: Vec::new(),
        warnings: Vec::new(),
        error: None,
    };
    if plan_json.len() > budget.max_input_bytes {
        outcome.error = Some(format!(
            "the plan JSON is {} MiB, over the {} MiB limit of plan policies; the set was not \
             evaluated",
            plan_json.len() / (1024 * 1024),
            budget.max_input_bytes / (1024 * 1024)
        ));
        return outcome;
    }
    let input = match regorus::Value::from_json_str(plan_json) {
        Ok(v) => v,
        Err(_) => {
            outcome.error = Some("the plan JSON could not be read as JSON".to_string());
            return outcome;
        }
    };
    let mut engine = inner.engine.clone();
    engine.set_input(input);
    engine.set_execution_timer_config(ExecutionTimerConfig {
        limit: budget.time,
        check_interval: NonZeroU32::new(64).expect("non-zero"),
    });
    for rule in &inner.rules {
        match eval_rule(&mut engine, rule) {
            Ok(messages) if rule.kind == "warn" => outcome.warnings.extend(messages),
            Ok(messages) => outcome.failures.extend(messages),
            Err(reason) => {
                outcome.error = Some(reason);
                break;
            }
        }
    }
    outcome
}

fn eval_rule(engine: &mut regorus::Engine, rule: &RuleRef) -> Result<Vec<PolicyMessage>, String> {
    let path = format!("data.{}.{}", rule.package, rule.name);
    match engine.eval_rule(path) {
        Ok(value) => Ok(messages_of(rule.kind, &value)),
        Err(e) => Err(reason_of(rule, &e.to_string())),
    }
}

/// A short reason for a rule that could not be evaluated: the rule, where it failed and the
/// kind of failure; never the interpreter's text (it can quote plan values).
fn reason_of(rule: &RuleRef, text: &str) -> String {
    let lower = text.to_ascii_lowercase();
    let what =
        if lower.contains("time limit") || lower.contains("timed out") || lower.contains("timeout")
        {
            "ran out of time"
        } else if lower.contains("memory") {
            "ran out of memory"
        } else {
            "failed with an error"
        };
    let problem = problem_of(text, &rule.location);
    let at = if problem.line > 0 {
        format!("{}:{}:{}", problem.file, problem.line, problem.col)
    } else {
        rule.location.clone()
    };
    format!(
        "rule `{}.{}` {what} at {at}; the set fails closed until its policy is fixed",
        rule.package, rule.name
    )
}
