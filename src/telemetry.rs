//! OpenTelemetry export: hook spans and metrics over OTLP (HTTP,
//! protobuf), so a team observes every machine's hooks in one place. Off
//! unless configured the standard way: `OTEL_EXPORTER_OTLP_ENDPOINT` (or
//! `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` / `..._METRICS_ENDPOINT`), with
//! `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_EXPORTER_OTLP_TIMEOUT`,
//! `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES` read as usual, and
//! `OTEL_SDK_DISABLED=true` turning it off.
//!
//! Export never changes an answer: a collector that is down or slow costs
//! at most the export timeout at exit, and says so on stderr.

use std::sync::OnceLock;
use std::time::Duration;

use hookshot::Outcome;
use opentelemetry::KeyValue;
use opentelemetry::metrics::{Counter, Histogram, MeterProvider as _};
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_http::{Bytes, HttpClient, HttpError, Request, Response};
use opentelemetry_otlp::{WithExportConfig as _, WithHttpConfig as _};
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::trace::SdkTracerProvider;

/// What a hook engine may spend on one export when the variables do not
/// say: the agent is waiting for this process to end, so not the
/// specification's 10 s.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(2);

/// The providers to flush at exit.
pub(crate) struct Telemetry {
    tracer: Option<SdkTracerProvider>,
    meter: Option<SdkMeterProvider>,
}

/// The instruments every answered event is counted in.
struct Instruments {
    events: Counter<u64>,
    runs: Counter<u64>,
    duration: Histogram<f64>,
}

static INSTRUMENTS: OnceLock<Instruments> = OnceLock::new();

fn var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// The export timeout the variables set (milliseconds), else ours.
fn timeout(signal: &str) -> Duration {
    var(&format!("OTEL_EXPORTER_OTLP_{signal}_TIMEOUT"))
        .or_else(|| var("OTEL_EXPORTER_OTLP_TIMEOUT"))
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map_or(DEFAULT_TIMEOUT, Duration::from_millis)
}

/// Whether `signal` (`TRACES`, `METRICS`) is to be exported.
fn wanted(signal: &str) -> bool {
    let exporter = var(&format!("OTEL_{signal}_EXPORTER")).unwrap_or_default();
    exporter.trim() != "none"
        && (var("OTEL_EXPORTER_OTLP_ENDPOINT").is_some()
            || var(&format!("OTEL_EXPORTER_OTLP_{signal}_ENDPOINT")).is_some())
}

/// Sets up export as the variables ask; `None` when they do not (the
/// default), and then nothing of OpenTelemetry runs at all.
pub(crate) fn init() -> Option<Telemetry> {
    if var("OTEL_SDK_DISABLED").is_some_and(|v| v.trim().eq_ignore_ascii_case("true")) {
        return None;
    }
    let (traces, metrics) = (wanted("TRACES"), wanted("METRICS"));
    if !traces && !metrics {
        return None;
    }
    if let Some(p) = var("OTEL_EXPORTER_OTLP_PROTOCOL").filter(|p| p.trim() != "http/protobuf") {
        eprintln!("hookshot: warning: OTEL_EXPORTER_OTLP_PROTOCOL={p} is not supported; exporting with http/protobuf");
    }
    let mut resource = opentelemetry_sdk::Resource::builder();
    if var("OTEL_SERVICE_NAME").is_none() {
        resource = resource.with_service_name("hookshot");
    }
    let resource = resource
        .with_attribute(KeyValue::new("service.version", env!("CARGO_PKG_VERSION")))
        .build();
    let fail = |what: &str, e: &dyn std::fmt::Display| {
        eprintln!("hookshot: warning: OpenTelemetry {what} export is off: {e}");
    };
    let tracer = traces
        .then(|| {
            opentelemetry_otlp::SpanExporter::builder()
                .with_http()
                .with_http_client(Ureq::new(timeout("TRACES")))
                .with_timeout(timeout("TRACES"))
                .build()
                .map_err(|e| fail("trace", &e))
                .ok()
        })
        .flatten()
        .map(|exporter| {
            SdkTracerProvider::builder()
                .with_batch_exporter(exporter)
                .with_resource(resource.clone())
                .build()
        });
    let meter = metrics
        .then(|| {
            opentelemetry_otlp::MetricExporter::builder()
                .with_http()
                .with_http_client(Ureq::new(timeout("METRICS")))
                .with_timeout(timeout("METRICS"))
                .build()
                .map_err(|e| fail("metric", &e))
                .ok()
        })
        .flatten()
        .map(|exporter| {
            SdkMeterProvider::builder()
                .with_periodic_exporter(exporter)
                .with_resource(resource)
                .build()
        });
    if let Some(m) = &meter {
        let meter = m.meter("hookshot");
        let _ = INSTRUMENTS.set(Instruments {
            events: meter
                .u64_counter("hookshot.events")
                .with_description("Events answered, by event and decision")
                .build(),
            runs: meter
                .u64_counter("hookshot.hook.runs")
                .with_description("Hook runs, by hook, source, event and result (ok, blocked, or the failure kind)")
                .build(),
            duration: meter
                .f64_histogram("hookshot.hook.duration")
                .with_unit("s")
                .with_description("Wall time of one hook run")
                .build(),
        });
    }
    Some(Telemetry { tracer, meter })
}

impl Telemetry {
    /// The tracing layer that turns hookshot's `event` and `hook` spans
    /// into OpenTelemetry spans (whatever `RUST_LOG` shows on stderr).
    pub(crate) fn layer<S>(&self) -> Option<impl tracing_subscriber::Layer<S> + use<S>>
    where
        S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
    {
        use tracing_subscriber::Layer as _;
        let tracer = self.tracer.as_ref()?.tracer("hookshot");
        let spans = tracing_subscriber::filter::Targets::new().with_target("hookshot", tracing::Level::DEBUG);
        Some(tracing_opentelemetry::layer().with_tracer(tracer).with_filter(spans))
    }

    /// Sends what is left; the process is about to end.
    pub(crate) fn shutdown(self) {
        if let Some(t) = self.tracer
            && let Err(e) = t.shutdown()
        {
            eprintln!("hookshot: warning: OpenTelemetry spans not sent: {e}");
        }
        if let Some(m) = self.meter
            && let Err(e) = m.shutdown()
        {
            eprintln!("hookshot: warning: OpenTelemetry metrics not sent: {e}");
        }
    }
}

/// Whether answered events are counted (metrics export is on).
pub(crate) fn counting() -> bool {
    INSTRUMENTS.get().is_some()
}

/// Counts one answered event and its hook runs (nothing when metrics are
/// not exported).
/// Events are named as hookshot names them (`BeforeTool` whether the
/// agent said `PreToolUse` or `pre_tool_execution`), as the spans do, so
/// one dashboard counts every agent's events together.
pub(crate) fn record(outcome: &Outcome) {
    let Some(i) = INSTRUMENTS.get() else { return };
    let event = outcome.event.to_string();
    let decision = if outcome.is_blocked() { "block" } else { "allow" };
    i.events.add(
        1,
        &[
            KeyValue::new("event", event.clone()),
            KeyValue::new("decision", decision),
        ],
    );
    for r in &outcome.records {
        let result = match &r.failure {
            Some(f) => f.kind.as_str(),
            None if r.output.decision.is_block() => "blocked",
            None => "ok",
        };
        let hook = [
            KeyValue::new("hook", r.hook.label().to_string()),
            KeyValue::new("event", event.clone()),
        ];
        i.duration.record(r.captured.duration.as_secs_f64(), &hook);
        let mut attrs = hook.to_vec();
        attrs.push(KeyValue::new("source", r.hook.source.to_string()));
        attrs.push(KeyValue::new("result", result));
        i.runs.add(1, &attrs);
    }
}

/// OTLP over HTTP with the client hookshot already has for `http` hooks
/// (ureq, rustls): no second HTTP stack in the binary. The SDK's export
/// threads block on it, which is what it expects of a blocking client.
#[derive(Debug)]
struct Ureq(ureq::Agent);

impl Ureq {
    fn new(timeout: Duration) -> Ureq {
        hookshot_platform::name_services::pin();
        Ureq(
            ureq::Agent::config_builder()
                .timeout_global(Some(timeout))
                .http_status_as_error(false)
                .build()
                .into(),
        )
    }
}

#[async_trait::async_trait]
impl HttpClient for Ureq {
    async fn send_bytes(&self, request: Request<Bytes>) -> Result<Response<Bytes>, HttpError> {
        let mut response = self.0.run(request.map(|b| b.to_vec()))?;
        let body = response.body_mut().with_config().limit(4 << 20).read_to_vec()?;
        let (parts, _) = response.into_parts();
        Ok(Response::from_parts(parts, Bytes::from(body)))
    }
}
