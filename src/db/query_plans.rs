//! How SQLite runs the statements whose cost must not grow with the tables: each must search
//! (an index or a rowid range), never scan. On the schema the migrations build.

use super::jobs::QUEUED_FOR_PR;
use super::migrated_sqlite;
use super::retention::{SQLITE_DELETE_OLD_IN_WINDOW, SQLITE_DELIVERY_WINDOW};

/// The `detail` lines of `EXPLAIN QUERY PLAN` (parameters NULL: the plan is made without them).
fn plan(sql: &str) -> Vec<String> {
    let conn = migrated_sqlite();
    let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
    let unbound = std::iter::repeat_n(rusqlite::types::Null, stmt.parameter_count());
    let rows = stmt
        .query_map(rusqlite::params_from_iter(unbound), |row| {
            row.get::<_, String>(3)
        })
        .unwrap();
    rows.map(Result::unwrap).collect()
}

fn assert_plan(sql: &str, expected: &[&str]) {
    let got = plan(sql);
    assert_eq!(got, expected, "{sql}");
    assert!(!got
        .iter()
        .any(|d| d.starts_with("SCAN jobs") || d.starts_with("SCAN deliveries")));
}

#[test]
fn the_retention_window_reads_deliveries_by_rowid() {
    assert_plan(
        SQLITE_DELIVERY_WINDOW,
        &[
            "CO-ROUTINE (subquery-1)",
            "SEARCH deliveries USING INTEGER PRIMARY KEY (rowid>?)",
            "SEARCH (subquery-1)",
        ],
    );
}

#[test]
fn old_deliveries_are_deleted_within_their_window() {
    assert_plan(
        SQLITE_DELETE_OLD_IN_WINDOW,
        &["SEARCH deliveries USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)"],
    );
}

#[test]
fn a_prs_queued_jobs_are_found_among_the_queued_jobs() {
    assert_plan(
        QUEUED_FOR_PR,
        &[
            "SEARCH jobs USING INDEX jobs_claimable (status=?)",
            "USE TEMP B-TREE FOR ORDER BY",
        ],
    );
}

#[test]
fn intake_writes_no_index_it_does_not_need() {
    let conn = migrated_sqlite();
    let mut stmt = conn
        .prepare(
            "SELECT tbl_name, name FROM sqlite_master WHERE type = 'index' \
             AND tbl_name IN ('deliveries', 'jobs') ORDER BY name",
        )
        .unwrap();
    let indexes: Vec<(String, String)> = stmt
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let expected = [
        ("jobs", "jobs_claimable"),
        ("deliveries", "sqlite_autoindex_deliveries_1"),
    ];
    assert_eq!(
        indexes,
        expected.map(|(t, n)| (t.to_string(), n.to_string())),
        "every index on these tables is pages rewritten by each intake commit"
    );
}
