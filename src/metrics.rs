//! Prometheus metrics, served as text on `/metrics`.

use std::borrow::Cow;

use prometheus_client::encoding::text::encode;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct DeliveryLabels {
    pub event: Cow<'static, str>,
    pub outcome: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct JobLabels {
    pub kind: Cow<'static, str>,
    pub status: Cow<'static, str>,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RouteLabels {
    pub route: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct DriftLabels {
    pub repo: String,
    pub project: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct PrunedLabels {
    pub table: &'static str,
}

/// The `tfgate_jobs_total` series of `kind` that counts enqueued jobs.
fn queued(kind: &'static str) -> JobLabels {
    JobLabels {
        kind: Cow::Borrowed(kind),
        status: Cow::Borrowed("queued"),
    }
}

pub struct Metrics {
    registry: Registry,
    pub pruned: Family<PrunedLabels, Counter>,
    pub deliveries: Family<DeliveryLabels, Counter>,
    pub jobs: Family<JobLabels, Counter>,
    pub queue_depth: Gauge,
    pub request_seconds: Family<RouteLabels, Histogram>,
    /// Resources changed outside Terraform plus resources the next apply changes, per root,
    /// at the last drift check.
    pub drift_resources: Family<DriftLabels, Gauge>,
    /// Unix time of the last finished drift check.
    pub drift_last_run: Gauge,
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

impl Metrics {
    pub fn new() -> Metrics {
        let mut registry = Registry::default();
        let deliveries = Family::<DeliveryLabels, Counter>::default();
        let jobs = Family::<JobLabels, Counter>::default();
        let queue_depth = Gauge::default();
        let pruned = Family::<PrunedLabels, Counter>::default();
        let drift_resources = Family::<DriftLabels, Gauge>::default();
        let drift_last_run = Gauge::default();
        let request_seconds = Family::<RouteLabels, Histogram>::new_with_constructor(|| {
            Histogram::new([
                0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
            ])
        });
        registry.register(
            "tfgate_webhook_deliveries",
            "Webhook deliveries by event and outcome",
            deliveries.clone(),
        );
        registry.register(
            "tfgate_jobs",
            "Jobs by kind and status (queued when enqueued)",
            jobs.clone(),
        );
        registry.register(
            "tfgate_job_queue_depth",
            "Jobs queued or running",
            queue_depth.clone(),
        );
        registry.register(
            "tfgate_http_request_duration_seconds",
            "HTTP request latency by route",
            request_seconds.clone(),
        );
        registry.register(
            "tfgate_pruned_rows",
            "Rows deleted by retention (runs: plan files and logs dropped)",
            pruned.clone(),
        );
        registry.register(
            "tfgate_drift_resources",
            "Drifted resources per root at the last drift check",
            drift_resources.clone(),
        );
        registry.register(
            "tfgate_drift_last_run_timestamp_seconds",
            "Unix time of the last finished drift check",
            drift_last_run.clone(),
        );
        // Every kind's `queued` series exists from the start at 0: a series that first appears
        // at 1 hides its first increment from Prometheus' `increase()` and `rate()`.
        for kind in crate::model::job::JobKind::ALL {
            jobs.get_or_create(&queued(kind.as_str())).inc_by(0);
        }
        Metrics {
            registry,
            pruned,
            deliveries,
            jobs,
            queue_depth,
            request_seconds,
            drift_resources,
            drift_last_run,
        }
    }

    // Label values are borrowed where they are fixed: these run on every request, and a label
    // set is only copied when it is new to its family.

    /// `event` must come from a bounded set (see `webhook::event::metric_label`).
    pub fn delivery(&self, event: Cow<'static, str>, outcome: &'static str) {
        self.deliveries
            .get_or_create(&DeliveryLabels { event, outcome })
            .inc();
    }

    pub fn job_enqueued(&self, kind: &'static str) {
        self.jobs.get_or_create(&queued(kind)).inc();
    }

    pub fn job_finished(&self, kind: &str, status: &str) {
        self.jobs
            .get_or_create(&JobLabels {
                kind: Cow::Owned(kind.to_string()),
                status: Cow::Owned(status.to_string()),
            })
            .inc();
    }

    pub fn observe_request(&self, route: &'static str, seconds: f64) {
        self.request_seconds
            .get_or_create(&RouteLabels { route })
            .observe(seconds);
    }

    pub fn pruned(&self, pruned: &crate::db::retention::Pruned) {
        for (table, n) in [
            ("jobs", pruned.jobs),
            ("deliveries", pruned.deliveries),
            ("runs", pruned.run_blobs),
            ("handled_comments", pruned.handled_comments),
            ("publications", pruned.publications),
        ] {
            self.pruned.get_or_create(&PrunedLabels { table }).inc_by(n);
        }
    }

    pub fn render(&self) -> String {
        let mut out = String::new();
        encode(&mut out, &self.registry).expect("writing to a String cannot fail");
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_required_families() {
        let m = Metrics::new();
        m.delivery(Cow::Borrowed("issue_comment"), "enqueued");
        m.job_enqueued("comment");
        m.queue_depth.set(3);
        m.observe_request("/webhooks", 0.001);
        let text = m.render();
        assert!(text.contains(
            "tfgate_webhook_deliveries_total{event=\"issue_comment\",outcome=\"enqueued\"} 1"
        ));
        assert!(text.contains("tfgate_jobs_total{kind=\"comment\",status=\"queued\"} 1"));
        assert!(text.contains("tfgate_job_queue_depth 3"));
        assert!(text.contains("tfgate_http_request_duration_seconds_bucket"));
    }

    #[test]
    fn every_job_kind_starts_at_zero_queued() {
        let text = Metrics::new().render();
        for kind in crate::model::job::JobKind::ALL {
            let series = format!(
                "tfgate_jobs_total{{kind=\"{}\",status=\"queued\"}} 0",
                kind.as_str()
            );
            assert!(text.contains(&series), "{series} missing from:\n{text}");
        }
    }

    #[test]
    fn pruned_rows_add_up_per_table() {
        let m = Metrics::new();
        let pass = crate::db::retention::Pruned {
            jobs: 3,
            deliveries: 2,
            run_blobs: 0,
            handled_comments: 5,
            publications: 1,
        };
        m.pruned(&pass);
        m.pruned(&pass);
        let text = m.render();
        assert!(
            text.contains("tfgate_pruned_rows_total{table=\"jobs\"} 6"),
            "{text}"
        );
        assert!(text.contains("tfgate_pruned_rows_total{table=\"deliveries\"} 4"));
        assert!(text.contains("tfgate_pruned_rows_total{table=\"runs\"} 0"));
        assert!(text.contains("tfgate_pruned_rows_total{table=\"handled_comments\"} 10"));
        assert!(text.contains("tfgate_pruned_rows_total{table=\"publications\"} 2"));
    }
}
