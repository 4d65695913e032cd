//! Model calls as OpenTelemetry spans, exported to stdout.
//!
//! With the `tracing` feature, each model call of `Engine::complete` is a
//! `tracing` span whose name and attributes are the OpenTelemetry GenAI
//! semantic conventions' own (`chat {model}`, `gen_ai.provider.name`,
//! `gen_ai.usage.input_tokens`, `gen_ai.usage.cache_read.input_tokens` …).
//! `tracing-opentelemetry` turns them into OpenTelemetry spans with no glue
//! code; here the SDK's stdout exporter prints them. Swap the exporter for
//! `opentelemetry-otlp`'s to send them to Jaeger, Tempo, Honeycomb or
//! Langfuse.
//!
//! The model is a scripted client, so the example runs offline:
//! `cargo run --example otel_export --features tracing`.

// An example: unwrapping and printing are how it reports; the house lints
// (Cargo.toml) are for library code.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout, missing_docs)]

use std::error::Error;

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::trace::SdkTracerProvider;
use strata_ctx::{Endpoint, Engine, LlmOptions, Usage};
use strata_ctx_testkit::ScriptedClient;
use tracing_subscriber::layer::SubscriberExt;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn Error>> {
    // The OpenTelemetry pipeline: spans go to stdout as each one ends.
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(opentelemetry_stdout::SpanExporter::default())
        .build();
    let tracer = provider.tracer("my-agent");
    let subscriber = tracing_subscriber::registry().with(tracing_opentelemetry::layer().with_tracer(tracer));
    tracing::subscriber::set_global_default(subscriber)?;

    // The agent: one round, one model call. A real client
    // (`strata_ctx::openai::OpenAiClient`) names its provider and model the
    // same way.
    let project = tempfile::tempdir()?;
    let mut engine = Engine::builder(project.path()).build()?;
    let model = ScriptedClient::new().with_endpoint(Endpoint::new(
        "openai",
        "https://api.openai.com/v1/chat/completions",
        "gpt-4o-mini",
    ));
    let usage = Usage {
        cached_input_tokens: Some(1_024),
        ..Usage::new(1_310, 42)
    };
    model.push_text_with_usage("The parser now accepts tabs.", usage);

    engine.begin_round("Make the parser accept tabs.").await?;
    let answer = engine.complete(&model, LlmOptions::new()).await?;
    engine.finish_round_with(answer.to_message())?;

    // Flushes what is left and stops the exporter.
    provider.shutdown()?;
    println!("exported the span of 1 model call");
    Ok(())
}
