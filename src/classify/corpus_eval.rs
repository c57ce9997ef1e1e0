//! Measures the classifier on the public development corpus
//! (`tests/fixtures/aws-errors/corpus.jsonl`, see `CORPUS.md` beside it). The classifier never
//! looks at record ids or sources; this only measures it. Lines marked `"split": "held_back"`
//! were set aside before any rule was written against the corpus: their misses are not printed,
//! only their figure.

use super::{classify, Category, ClassifyContext};
use serde_json::Value;
use std::collections::BTreeMap;

const CORPUS: &str = include_str!("../../tests/fixtures/aws-errors/corpus.jsonl");

struct Outcome {
    id: String,
    want: Category,
    got: Category,
    held_back: bool,
}

/// The context a line carries: what the apply showed as created earlier in it.
fn context_of(record: &Value) -> ClassifyContext {
    let Some(context) = record.get("context") else {
        return ClassifyContext::default();
    };
    let fresh_identifiers = context["fresh_identifiers"]
        .as_array()
        .map(|ids| {
            ids.iter()
                .filter_map(|id| id.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    ClassifyContext {
        refers_to_fresh_resource: context["refers_to_fresh_resource"]
            .as_bool()
            .unwrap_or(true),
        fresh_identifiers,
        ..ClassifyContext::default()
    }
}

fn records() -> Vec<Value> {
    CORPUS
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("corpus line is JSON"))
        .collect()
}

fn outcomes() -> Vec<Outcome> {
    records()
        .iter()
        .map(|r| {
            let label = r["label"].as_str().unwrap();
            Outcome {
                id: r["id"].as_str().unwrap().to_string(),
                want: Category::from_id(label).unwrap_or_else(|| panic!("unknown label {label}")),
                got: classify(r["message"].as_str().unwrap(), &context_of(r)).category,
                held_back: r["split"].as_str() == Some("held_back"),
            }
        })
        .collect()
}

fn accuracy(all: &[&Outcome]) -> f64 {
    all.iter().filter(|o| o.want == o.got).count() as f64 / all.len().max(1) as f64
}

fn recall(all: &[Outcome], cat: Category) -> f64 {
    let relevant: Vec<&Outcome> = all.iter().filter(|o| o.want == cat).collect();
    accuracy(&relevant)
}

fn precision(all: &[Outcome], cat: Category) -> f64 {
    let predicted: Vec<&Outcome> = all.iter().filter(|o| o.got == cat).collect();
    if predicted.is_empty() {
        return 1.0;
    }
    accuracy(&predicted)
}

/// Rows: the label; columns: what the classifier said (only categories that occur).
fn print_confusion(all: &[Outcome]) {
    let cats: Vec<Category> = Category::ALL
        .into_iter()
        .filter(|c| all.iter().any(|o| o.want == *c || o.got == *c))
        .collect();
    let mut cells: BTreeMap<(Category, Category), usize> = BTreeMap::new();
    for o in all {
        *cells.entry((o.want, o.got)).or_default() += 1;
    }
    let short = |c: Category| c.id().chars().take(5).collect::<String>();
    print!("{:>22} |", "label \\ classified");
    for c in &cats {
        print!("{:>6}", short(*c));
    }
    println!(" | recall precision");
    for want in &cats {
        print!("{:>22} |", want.id());
        for got in &cats {
            match cells.get(&(*want, *got)) {
                Some(n) => print!("{n:>6}"),
                None => print!("{:>6}", "."),
            }
        }
        println!(
            " | {:>6.3} {:>9.3}",
            recall(all, *want),
            precision(all, *want)
        );
    }
}

#[test]
fn corpus_accuracy_recall_and_held_back_figure() {
    let all = outcomes();
    assert!(all.len() >= 400, "corpus has {} lines", all.len());
    print_confusion(&all);
    for o in all.iter().filter(|o| o.want != o.got && !o.held_back) {
        println!("  miss {}: want {} got {}", o.id, o.want, o.got);
    }
    let every: Vec<&Outcome> = all.iter().collect();
    let held: Vec<&Outcome> = all.iter().filter(|o| o.held_back).collect();
    let overall = accuracy(&every);
    let held_back = accuracy(&held);
    let perm = recall(&all, Category::PermissionMissing);
    let prop = recall(&all, Category::PropagationDelay);
    println!(
        "overall {overall:.3} on {} lines; held back {held_back:.3} on {} lines; recall permission_missing {perm:.3}, propagation_delay {prop:.3}",
        every.len(),
        held.len()
    );
    assert!(overall >= 0.92, "overall accuracy {overall:.3}");
    assert!(held_back >= 0.88, "held-back accuracy {held_back:.3}");
    assert!(perm >= 0.95, "permission_missing recall {perm:.3}");
    assert!(prop >= 0.85, "propagation_delay recall {prop:.3}");
}

#[test]
fn corpus_lines_are_well_formed() {
    let records = records();
    let mut ids = std::collections::HashSet::new();
    for r in &records {
        let id = r["id"].as_str().expect("id");
        assert!(ids.insert(id.to_string()), "duplicate id {id}");
        assert!(r["source"]
            .as_str()
            .is_some_and(|s| s.starts_with("https://")));
        assert!(
            matches!(r["sdk"].as_str(), Some("v1" | "v2" | "other")),
            "{id}"
        );
        assert!(r["why"].as_str().is_some_and(|w| !w.is_empty()), "{id}");
    }
    let held = records.iter().filter(|r| r["split"] == "held_back").count();
    let share = held as f64 / records.len() as f64;
    assert!((0.15..=0.25).contains(&share), "held-back share {share:.3}");
}

/// Throughput on one core: `cargo test --release --lib classify::corpus_eval -- --ignored
/// --nocapture`. The figure goes in `bench/README.md`; nothing is asserted here.
#[test]
#[ignore]
fn corpus_throughput() {
    let records = records();
    let inputs: Vec<(String, ClassifyContext)> = records
        .iter()
        .map(|r| (r["message"].as_str().unwrap().to_string(), context_of(r)))
        .collect();
    let rounds = 200;
    let start = std::time::Instant::now();
    let mut sink = 0usize;
    for _ in 0..rounds {
        for (message, ctx) in &inputs {
            sink += classify(message, ctx).category as usize;
        }
    }
    let elapsed = start.elapsed().as_secs_f64();
    let n = rounds * inputs.len();
    println!(
        "classified {n} messages in {elapsed:.3} s: {:.0} messages/s (checksum {sink})",
        n as f64 / elapsed
    );
}
