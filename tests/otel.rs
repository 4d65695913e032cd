//! EVT-1, feature `tracing`: a model call's span reaches OpenTelemetry
//! through `tracing-opentelemetry` as the GenAI semantic conventions
//! define it: named `chat {model}`, its attributes named by the
//! conventions' constants, its token counts integers, its finish reasons
//! an array. A test binary of its own, because it installs the process's
//! global subscriber.

// Test code: unwrapping and panicking are how it reports; the house lints
// (Cargo.toml) are for library code.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]
// The GenAI constants are marked deprecated in this crate because they
// moved to the GenAI conventions' own repository; their values are the
// same.
#![allow(deprecated)]

use opentelemetry::trace::TracerProvider as _;
use opentelemetry::Value;
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider};
use opentelemetry_semantic_conventions::attribute as semconv;
use strata_ctx::{Endpoint, Engine, LlmOptions, Usage};
use strata_ctx_testkit::ScriptedClient;
use tracing_subscriber::layer::SubscriberExt;

#[tokio::test]
async fn evt_1_model_call_exports_as_a_genai_span() {
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    let layer = tracing_opentelemetry::layer().with_tracer(provider.tracer("test"));
    tracing::subscriber::set_global_default(tracing_subscriber::registry().with(layer)).unwrap();

    let project = tempfile::tempdir().unwrap();
    let mut engine = Engine::builder(project.path()).build().unwrap();
    let model = ScriptedClient::new().with_endpoint(Endpoint::new(
        "anthropic",
        "http://127.0.0.1:9/v1/messages",
        "claude-test",
    ));
    let usage = Usage {
        cached_input_tokens: Some(1_024),
        cache_write_tokens: Some(256),
        ..Usage::new(1_310, 42)
    };
    model.push_text_with_usage("Done.", usage);
    engine.begin_round("Make the parser accept tabs.").await.unwrap();
    let answer = engine.complete(&model, LlmOptions::new()).await.unwrap();
    engine.finish_round_with(answer.to_message()).unwrap();
    provider.force_flush().unwrap();

    let spans = exporter.get_finished_spans().unwrap();
    let [span] = &spans[..] else {
        panic!("one span for one call: {spans:?}")
    };
    assert_eq!(span.name, "chat claude-test");
    let attribute = |key: &str| {
        span.attributes
            .iter()
            .find(|kv| kv.key.as_str() == key)
            .map(|kv| kv.value.clone())
            .unwrap_or_else(|| panic!("no {key} in {:?}", span.attributes))
    };
    assert_eq!(attribute(semconv::GEN_AI_OPERATION_NAME), Value::from("chat"));
    assert_eq!(attribute(semconv::GEN_AI_PROVIDER_NAME), Value::from("anthropic"));
    assert_eq!(
        attribute(semconv::GEN_AI_REQUEST_MODEL),
        Value::from("claude-test")
    );
    assert_eq!(attribute(semconv::GEN_AI_USAGE_INPUT_TOKENS), Value::I64(1_310));
    assert_eq!(attribute(semconv::GEN_AI_USAGE_OUTPUT_TOKENS), Value::I64(42));
    assert_eq!(
        attribute(semconv::GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS),
        Value::I64(1_024)
    );
    assert_eq!(
        attribute(semconv::GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS),
        Value::I64(256)
    );
    assert_eq!(
        attribute(semconv::GEN_AI_RESPONSE_FINISH_REASONS),
        Value::from("[\"stop\"]")
    );
}
