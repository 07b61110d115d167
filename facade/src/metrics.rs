//! Per-hook metrics, as jcli keeps them: runs, failures, timeouts, blocks,
//! and latency percentiles from an HDR histogram (two significant digits:
//! a percentile is within 1% of the true value). Memory is bounded: one
//! entry per hook identity (bounded by the registry), whose histogram grows
//! only with the longest latency seen (a few KiB).

use std::collections::BTreeMap;
use std::sync::Mutex;

use serde::Serialize;

use crate::HookRecord;
use hookshot_core::FailureKind;

/// Counts and a latency histogram (µs) for one hook.
#[derive(Debug, Clone)]
struct Entry {
    runs: u64,
    failures: u64,
    timeouts: u64,
    blocks: u64,
    total_us: u128,
    latency: hdrhistogram::Histogram<u64>,
}

impl Default for Entry {
    fn default() -> Self {
        Entry {
            runs: 0,
            failures: 0,
            timeouts: 0,
            blocks: 0,
            total_us: 0,
            latency: hdrhistogram::Histogram::new(2).expect("two significant digits are valid"),
        }
    }
}

impl Entry {
    fn add(&mut self, micros: u64, failed: bool, timed_out: bool, blocked: bool) {
        self.runs += 1;
        self.failures += u64::from(failed);
        self.timeouts += u64::from(timed_out);
        self.blocks += u64::from(blocked);
        self.total_us += u128::from(micros);
        // The histogram grows to hold the value; should it not be able
        // to, the run is kept at the largest value it holds.
        if self.latency.record(micros.max(1)).is_err() {
            self.latency.saturating_record(micros.max(1));
        }
    }

    /// Latency (µs) at quantile `q`.
    fn quantile(&self, q: f64) -> u64 {
        self.latency.median_equivalent(self.latency.value_at_quantile(q))
    }
}

/// What one hook did, summed up.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HookStats {
    /// The hook's identity.
    pub hook: String,
    /// Runs.
    pub runs: u64,
    /// Runs that failed (non-zero exit other than 2, crash, timeout, ...).
    pub failures: u64,
    /// Runs killed at their timeout.
    pub timeouts: u64,
    /// Runs that blocked.
    pub blocks: u64,
    /// Mean latency, ms.
    pub mean_ms: f64,
    /// Median latency (within 1%), ms.
    pub p50_ms: f64,
    /// 99th percentile latency (within 1%), ms.
    pub p99_ms: f64,
}

/// Metrics of every hook that ran.
#[derive(Debug, Default)]
pub struct Metrics {
    entries: Mutex<BTreeMap<String, Entry>>,
}

impl Metrics {
    /// Records one run.
    pub fn add(&self, hook: &str, micros: u64, failed: bool, timed_out: bool, blocked: bool) {
        if let Ok(mut e) = self.entries.lock() {
            match e.get_mut(hook) {
                Some(entry) => entry.add(micros, failed, timed_out, blocked),
                None => {
                    let mut entry = Entry::default();
                    entry.add(micros, failed, timed_out, blocked);
                    e.insert(hook.to_string(), entry);
                }
            }
        }
    }

    /// Records the runs of one event.
    pub fn record(&self, records: &[HookRecord]) {
        for r in records {
            self.add(
                &r.hook.identity,
                r.captured.duration.as_micros() as u64,
                r.failure.is_some(),
                r.failure.as_ref().is_some_and(hookshot_core::Failure::is_timeout),
                r.output.decision.is_block(),
            );
        }
    }

    /// A snapshot, by hook identity.
    pub fn snapshot(&self) -> Vec<HookStats> {
        let Ok(e) = self.entries.lock() else { return Vec::new() };
        e.iter()
            .map(|(hook, x)| HookStats {
                hook: hook.clone(),
                runs: x.runs,
                failures: x.failures,
                timeouts: x.timeouts,
                blocks: x.blocks,
                mean_ms: if x.runs == 0 {
                    0.0
                } else {
                    x.total_us as f64 / x.runs as f64 / 1000.0
                },
                p50_ms: x.quantile(0.5) as f64 / 1000.0,
                p99_ms: x.quantile(0.99) as f64 / 1000.0,
            })
            .collect()
    }

    /// Metrics rebuilt from an audit log's JSON Lines (`hookshot stats`).
    pub fn from_audit(text: &str) -> Metrics {
        let m = Metrics::default();
        for line in text.lines() {
            let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
                continue;
            };
            for h in v.get("hooks").and_then(|h| h.as_array()).into_iter().flatten() {
                let ms = h.get("duration_ms").and_then(|d| d.as_f64()).unwrap_or(0.0);
                let failure = h.get("failure").is_some_and(|f| !f.is_null());
                // Logs written before failures had kinds only say it in words.
                let timed_out = match h.get("failure_kind").and_then(|k| k.as_str()) {
                    Some(kind) => kind == FailureKind::Timeout.as_str(),
                    None => h
                        .get("failure")
                        .and_then(|f| f.as_str())
                        .is_some_and(|f| f.contains("timed out")),
                };
                let blocked = h.get("decision").and_then(|d| d.as_str()) == Some("block");
                let hook = h.get("hook").and_then(|x| x.as_str()).unwrap_or("?");
                m.add(hook, (ms * 1000.0) as u64, failure, timed_out, blocked);
            }
        }
        m
    }
}

/// Audit records that never reached the log, as its `lost` lines say.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Lost {
    /// Dropped because the writer fell behind.
    pub dropped: u64,
    /// Refused by the disk.
    pub failed: u64,
    /// The last write error named.
    pub error: Option<String>,
}

impl Lost {
    /// The `lost` lines of an audit log, summed (and the `dropped` lines
    /// of older logs).
    pub fn in_audit(text: &str) -> Lost {
        let mut lost = Lost::default();
        for v in text
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        {
            let n = |k: &str| v.get(k).and_then(serde_json::Value::as_u64).unwrap_or(0);
            match v.get("type").and_then(|t| t.as_str()) {
                Some("lost") => {
                    lost.dropped += n("dropped");
                    lost.failed += n("failed");
                    if let Some(e) = v.get("error").and_then(|e| e.as_str()) {
                        lost.error = Some(e.to_string());
                    }
                }
                Some("dropped") => lost.dropped += n("count"),
                _ => {}
            }
        }
        lost
    }

    /// All lost records.
    pub fn total(&self) -> u64 {
        self.dropped + self.failed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_percentiles() {
        let m = Metrics::default();
        for i in 0..99 {
            m.add("a", 1000 + i, false, false, false);
        }
        m.add("a", 900_000, true, true, true);
        let s = &m.snapshot()[0];
        assert_eq!((s.runs, s.failures, s.timeouts, s.blocks), (100, 1, 1, 1));
        // Runs of 1.000..1.098 ms: the median is 1.049 ms within 1%.
        assert!((s.p50_ms - 1.049).abs() < 0.011, "{}", s.p50_ms);
        assert!((s.p99_ms - 1.098).abs() < 0.011, "{}", s.p99_ms);
        assert!(s.mean_ms > 9.0 && s.mean_ms < 10.1, "{}", s.mean_ms);
        m.add("a", 900_000, false, false, false);
        assert!(
            (m.snapshot()[0].p99_ms - 900.0).abs() < 9.0,
            "{}",
            m.snapshot()[0].p99_ms
        );
    }

    #[test]
    fn rebuilt_from_audit_lines() {
        let log = r#"{"event":"BeforeTool","hooks":[{"hook":"x","decision":"block","duration_ms":3.0,"failure":null}]}
not json
{"event":"BeforeTool","hooks":[{"hook":"x","decision":"undecided","duration_ms":100.0,"failure":"timed out after 0.1s and was killed"}]}"#;
        let s = &Metrics::from_audit(log).snapshot()[0];
        assert_eq!(
            (s.hook.as_str(), s.runs, s.blocks, s.failures, s.timeouts),
            ("x", 2, 1, 1, 1)
        );
    }

    #[test]
    fn lost_records_are_summed_from_the_log() {
        let log = r#"{"type":"lost","dropped":3,"failed":2,"error":"No space left on device (os error 28)"}
{"event":"BeforeTool","hooks":[]}
{"type":"dropped","count":4}"#;
        let lost = Lost::in_audit(log);
        assert_eq!((lost.dropped, lost.failed, lost.total()), (7, 2, 9));
        assert_eq!(lost.error.as_deref(), Some("No space left on device (os error 28)"));
    }
}
