//! One token bucket per AWS account + region for CloudTrail `LookupEvents` (2 requests/s per
//! account per Region, not adjustable), shared by every enrichment in the process.

use once_cell::sync::Lazy;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::time::Instant;

/// LookupEvents' documented limit.
pub const LOOKUP_EVENTS_PER_SECOND: f64 = 2.0;

/// A token bucket: `capacity` requests at once, refilled at `per_second`. Waiters reserve a
/// token (the count may go negative) and sleep until it is theirs, so they are served in order.
#[derive(Debug)]
pub struct RateLimiter {
    per_second: f64,
    capacity: f64,
    bucket: Mutex<Bucket>,
}

#[derive(Debug)]
struct Bucket {
    tokens: f64,
    updated: Instant,
}

impl RateLimiter {
    pub fn new(per_second: f64, capacity: f64) -> RateLimiter {
        assert!(
            per_second > 0.0 && capacity >= 1.0,
            "a limiter must let requests through"
        );
        RateLimiter {
            per_second,
            capacity,
            bucket: Mutex::new(Bucket {
                tokens: capacity,
                updated: Instant::now(),
            }),
        }
    }

    /// Waits until one request may be sent.
    pub async fn acquire(&self) {
        let wait = {
            let mut b = self.bucket.lock().unwrap_or_else(|e| e.into_inner());
            let now = Instant::now();
            let refill = now.duration_since(b.updated).as_secs_f64() * self.per_second;
            b.tokens = (b.tokens + refill).min(self.capacity);
            b.updated = now;
            b.tokens -= 1.0;
            if b.tokens >= 0.0 {
                None
            } else {
                Some(Duration::from_secs_f64(-b.tokens / self.per_second))
            }
        };
        if let Some(wait) = wait {
            tokio::time::sleep(wait).await;
        }
    }
}

/// (account id, region) → limiter.
type LimiterMap = HashMap<(String, String), Arc<RateLimiter>>;

static LIMITERS: Lazy<Mutex<LimiterMap>> = Lazy::new(|| Mutex::new(HashMap::new()));

/// The process-wide LookupEvents limiter for an account and region.
pub fn lookup_events_limiter(account_id: &str, region: &str) -> Arc<RateLimiter> {
    let mut map = LIMITERS.lock().unwrap_or_else(|e| e.into_inner());
    map.entry((account_id.to_string(), region.to_string()))
        .or_insert_with(|| {
            Arc::new(RateLimiter::new(
                LOOKUP_EVENTS_PER_SECOND,
                LOOKUP_EVENTS_PER_SECOND,
            ))
        })
        .clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    // Real time at 20/s (tokio's paused clock needs the `test-util` feature, which the main
    // crate does not enable): lower bounds are exact, upper bounds generous.
    #[tokio::test]
    async fn allows_a_burst_then_the_rate() {
        let limiter = RateLimiter::new(20.0, 2.0);
        let start = Instant::now();
        let mut at = Vec::new();
        for _ in 0..6 {
            limiter.acquire().await;
            at.push(start.elapsed());
        }
        let ms = |d: Duration| d.as_millis();
        assert!(ms(at[1]) < 40, "burst of two: {at:?}");
        for (i, t) in at.iter().enumerate().skip(2) {
            let due = (i as u128 - 1) * 50;
            assert!(ms(*t) + 2 >= due, "request {i} too early: {at:?}");
        }
        assert!(ms(at[5]) < 1000, "{at:?}");
    }

    #[tokio::test]
    async fn concurrent_waiters_share_the_rate() {
        let limiter = Arc::new(RateLimiter::new(20.0, 2.0));
        let start = Instant::now();
        let tasks: Vec<_> = (0..5)
            .map(|_| {
                let l = limiter.clone();
                tokio::spawn(async move {
                    l.acquire().await;
                    start.elapsed()
                })
            })
            .collect();
        let mut done = Vec::new();
        for t in tasks {
            done.push(t.await.unwrap());
        }
        done.sort();
        assert!(
            done[4].as_millis() + 2 >= 150,
            "five requests at 20/s after a burst of 2: {done:?}"
        );
        assert!(done[4].as_millis() < 1000, "{done:?}");
    }

    #[test]
    fn one_limiter_per_account_and_region() {
        let a = lookup_events_limiter("111111111111", "eu-west-1");
        let b = lookup_events_limiter("111111111111", "eu-west-1");
        let c = lookup_events_limiter("111111111111", "us-east-1");
        assert!(Arc::ptr_eq(&a, &b));
        assert!(!Arc::ptr_eq(&a, &c));
    }
}
