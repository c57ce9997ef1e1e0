//! Regression guard over the development set (real messages from public GitHub issues). The
//! classifier never looks at record ids; this only measures it.

use super::{classify, Category, ClassifyContext};
use serde_json::Value;
use std::collections::BTreeMap;

const DEV_SET: &str = include_str!("../../tests/fixtures/aws-errors/aws-errors-dev.jsonl");

struct Outcome {
    id: String,
    want: Category,
    got: Category,
    want_code: Option<String>,
    got_code: Option<String>,
    names_action: bool,
    got_action: Option<String>,
}

fn label_to_category(label: &str) -> Category {
    let id = if label == "auth_invalid" {
        "credentials_invalid"
    } else {
        label
    };
    Category::from_id(id).unwrap_or_else(|| panic!("unknown label {label}"))
}

fn outcomes() -> Vec<Outcome> {
    DEV_SET
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let r: Value = serde_json::from_str(line).unwrap();
            let message = r["message"].as_str().unwrap();
            let c = classify(message, &ClassifyContext::default());
            Outcome {
                id: r["id"].as_str().unwrap().to_string(),
                want: label_to_category(r["label"].as_str().unwrap()),
                got: c.category,
                want_code: r["error_code"].as_str().map(str::to_string),
                got_code: c.aws_code,
                names_action: message.contains("perform: ")
                    || message.contains("missing permissions for")
                    || message.contains("policy allows the "),
                got_action: c.iam_action,
            }
        })
        .collect()
}

fn recall(all: &[Outcome], cat: Category) -> f64 {
    let relevant: Vec<&Outcome> = all.iter().filter(|o| o.want == cat).collect();
    let hit = relevant.iter().filter(|o| o.got == cat).count();
    hit as f64 / relevant.len().max(1) as f64
}

#[test]
fn dev_set_accuracy_and_recall() {
    let all = outcomes();
    assert_eq!(all.len(), 69);
    let mut confusion: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    for o in &all {
        *confusion.entry((o.want.id(), o.got.id())).or_default() += 1;
    }
    println!("confusion (want -> got: count):");
    for ((want, got), n) in &confusion {
        let mark = if want == got { " " } else { "x" };
        println!("  {mark} {want:>22} -> {got:<22} {n}");
    }
    for o in all.iter().filter(|o| o.want != o.got) {
        println!("  miss {}: want {} got {}", o.id, o.want, o.got);
    }
    let correct = all.iter().filter(|o| o.want == o.got).count();
    let accuracy = correct as f64 / all.len() as f64;
    let perm = recall(&all, Category::PermissionMissing);
    let prop = recall(&all, Category::PropagationDelay);
    println!("accuracy {correct}/{} = {accuracy:.3}; recall permission_missing {perm:.3}, propagation_delay {prop:.3}", all.len());
    assert!(accuracy >= 0.90, "accuracy {accuracy:.3}");
    assert!(perm >= 0.95, "permission_missing recall {perm:.3}");
    assert!(prop >= 0.90, "propagation_delay recall {prop:.3}");
}

#[test]
fn dev_set_codes_and_named_actions() {
    let all = outcomes();
    let with_code: Vec<&Outcome> = all.iter().filter(|o| o.want_code.is_some()).collect();
    let code_hits = with_code
        .iter()
        .filter(|o| o.got_code == o.want_code)
        .count();
    for o in with_code.iter().filter(|o| o.got_code != o.want_code) {
        println!(
            "  code {}: want {:?} got {:?}",
            o.id, o.want_code, o.got_code
        );
    }
    println!("aws_code matches {code_hits}/{}", with_code.len());
    assert!(code_hits as f64 / with_code.len() as f64 >= 0.85);
    for o in all.iter().filter(|o| o.names_action) {
        assert!(
            o.got_action.is_some(),
            "{}: the text names the denied action",
            o.id
        );
    }
}
