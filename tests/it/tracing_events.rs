//! EVT-1, feature `tracing`: a `tracing` subscriber sees every engine
//! event and each model call, with the GenAI field names.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use serde_json::json;
use strata_ctx::{Endpoint, Engine, Event, LlmOptions, Price, Usage};
use strata_ctx_testkit::ScriptedClient;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::Subscriber;
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::Layer;

use crate::agent::{action, finish, run_round};

type Fields = BTreeMap<String, String>;

#[derive(Default)]
struct Seen {
    events: Vec<Fields>,
    spans: BTreeMap<u64, (String, Fields)>,
}

struct Collect(Fields);

impl Visit for Collect {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(
            field.name().to_owned(),
            format!("{value:?}").trim_matches('"').to_owned(),
        );
    }
}

struct Recorder(Arc<Mutex<Seen>>);

impl<S: Subscriber> Layer<S> for Recorder {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, _: Context<'_, S>) {
        let mut fields = Collect(Fields::new());
        attrs.record(&mut fields);
        self.0
            .lock()
            .unwrap()
            .spans
            .insert(id.into_u64(), (attrs.metadata().name().to_owned(), fields.0));
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, _: Context<'_, S>) {
        let mut seen = self.0.lock().unwrap();
        if let Some((_, fields)) = seen.spans.get_mut(&id.into_u64()) {
            let mut more = Collect(Fields::new());
            values.record(&mut more);
            fields.extend(more.0);
        }
    }

    fn on_event(&self, event: &tracing::Event<'_>, _: Context<'_, S>) {
        if event.metadata().target() == "strata_ctx" {
            let mut fields = Collect(Fields::new());
            event.record(&mut fields);
            self.0.lock().unwrap().events.push(fields.0);
        }
    }
}

/// The one recorder of the process, installed as the global subscriber:
/// a thread-local one misses events whose callsite another test's thread
/// registered first (tracing caches a callsite's interest), so the test
/// failed by chance beside the engine tests. It records the events of the
/// thread that asked for them only, for each test that asks.
fn record_this_thread() -> Arc<Mutex<Seen>> {
    static TARGETS: Mutex<Vec<(std::thread::ThreadId, Arc<Mutex<Seen>>)>> = Mutex::new(Vec::new());
    static INSTALL: std::sync::Once = std::sync::Once::new();
    struct ThisThread;
    impl<S: Subscriber> Layer<S> for ThisThread {
        fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
            if let Some(r) = current() {
                r.on_new_span(attrs, id, ctx);
            }
        }
        fn on_record(&self, id: &Id, values: &Record<'_>, ctx: Context<'_, S>) {
            if let Some(r) = current() {
                r.on_record(id, values, ctx);
            }
        }
        fn on_event(&self, event: &tracing::Event<'_>, ctx: Context<'_, S>) {
            if let Some(r) = current() {
                r.on_event(event, ctx);
            }
        }
    }
    fn current() -> Option<Recorder> {
        let here = std::thread::current().id();
        let targets = TARGETS.lock().unwrap();
        targets
            .iter()
            .find(|(thread, _)| *thread == here)
            .map(|(_, seen)| Recorder(seen.clone()))
    }
    INSTALL.call_once(|| {
        tracing::subscriber::set_global_default(tracing_subscriber::registry().with(ThisThread)).unwrap();
    });
    let seen = Arc::new(Mutex::new(Seen::default()));
    let here = std::thread::current().id();
    let mut targets = TARGETS.lock().unwrap();
    targets.retain(|(thread, _)| *thread != here);
    targets.push((here, seen.clone()));
    seen
}

#[tokio::test]
async fn evt_1_tracing_sees_every_event_and_call() {
    let seen = record_this_thread();

    let project = tempfile::tempdir().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let mut engine = Engine::builder(project.path())
        .price(Price::new(1.0, 10.0))
        .events_to(tx)
        .build()
        .unwrap();
    let client = ScriptedClient::new().with_endpoint(Endpoint::new(
        "openai",
        "http://127.0.0.1:9/v1/chat/completions",
        "gpt-default",
    ));
    let mut cached = Usage::new(1_200, 30);
    cached.cached_input_tokens = Some(1_024);
    cached.cache_write_tokens = Some(100);
    client
        .push_text_with_usage(action("Look.", "Read", json!({"path": "a"})), cached)
        .push_text_with_usage(finish("done"), Usage::new(1_300, 10));
    run_round(&mut engine, &client, project.path(), "go")
        .await
        .unwrap();
    let options = LlmOptions::new().with_model("gpt-test");
    engine.begin_round("again").await.unwrap();
    client.push_text_with_usage(finish("ok"), Usage::new(1_400, 5));
    engine.complete(&client, options).await.unwrap();

    let sent: Vec<Event> = rx.try_iter().collect();
    let seen = seen.lock().unwrap();
    assert_eq!(
        seen.events.len(),
        sent.len(),
        "one tracing event per engine event"
    );
    let names: Vec<&str> = seen.events.iter().map(|f| f["strata.event"].as_str()).collect();
    assert!(
        names.contains(&"round_started") && names.contains(&"step_recorded"),
        "{names:?}"
    );
    let usage = seen
        .events
        .iter()
        .find(|f| f["strata.event"] == "usage_recorded")
        .unwrap();
    assert_eq!(usage["gen_ai.usage.input_tokens"], "1200");
    assert_eq!(usage["gen_ai.usage.output_tokens"], "30");
    assert_eq!(usage["gen_ai.usage.cache_read.input_tokens"], "1024");
    assert_eq!(usage["gen_ai.usage.cache_creation.input_tokens"], "100");
    let cost = seen
        .events
        .iter()
        .rev()
        .find(|f| f["strata.event"] == "cost_recorded")
        .unwrap();
    assert!(cost["strata.cost.session_usd"].parse::<f64>().unwrap() > 0.0);
    let calls: Vec<&Fields> = seen
        .spans
        .values()
        .filter(|(name, _)| name == "gen_ai.chat")
        .map(|(_, f)| f)
        .collect();
    assert_eq!(calls.len(), 3, "one span per model call");
    let last = calls
        .iter()
        .find(|f| f["gen_ai.request.model"] == "gpt-test")
        .unwrap();
    assert_eq!(last["gen_ai.operation.name"], "chat");
    assert_eq!(last["gen_ai.provider.name"], "openai");
    assert_eq!(last["otel.name"], "chat gpt-test");
    assert_eq!(last["gen_ai.usage.input_tokens"], "1400");
    assert_eq!(last["gen_ai.usage.output_tokens"], "5");
    assert_eq!(last["gen_ai.response.finish_reasons"], r#"["stop"]"#);
    let first = calls
        .iter()
        .find(|f| f["gen_ai.usage.input_tokens"] == "1200")
        .unwrap();
    assert_eq!(first["gen_ai.request.model"], "gpt-default", "the client's model");
    assert_eq!(first["gen_ai.usage.cache_read.input_tokens"], "1024");
    assert_eq!(first["gen_ai.response.finish_reasons"], r#"["stop"]"#);

    // Every GenAI name is the semantic conventions' own. The crate marks
    // the GenAI constants deprecated since their definitions moved to
    // their own repository; the names are the same.
    use opentelemetry_semantic_conventions::attribute as otel;
    #[allow(deprecated)]
    let known = [
        otel::GEN_AI_OPERATION_NAME,
        otel::GEN_AI_PROVIDER_NAME,
        otel::GEN_AI_REQUEST_MODEL,
        otel::GEN_AI_USAGE_INPUT_TOKENS,
        otel::GEN_AI_USAGE_OUTPUT_TOKENS,
        otel::GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
        otel::GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS,
        otel::GEN_AI_RESPONSE_FINISH_REASONS,
        otel::GEN_AI_TOOL_NAME,
    ];
    let used: std::collections::BTreeSet<&String> = calls
        .iter()
        .flat_map(|f| f.keys())
        .chain(seen.events.iter().flat_map(|f| f.keys()))
        .filter(|k| k.starts_with("gen_ai."))
        .collect();
    assert!(used.len() >= 8, "{used:?}");
    for name in used {
        assert!(
            known.contains(&name.as_str()),
            "{name} is not a GenAI convention name"
        );
    }
}

/// MODEL-7, feature `tracing`: the provider's edits are a tracing event
/// with their totals.
#[tokio::test]
async fn model_7_server_edits_are_traced() {
    use strata_ctx::{AppliedEdit, Config, EditKind, LlmResponse, ServerContext};

    let seen = record_this_thread();
    let project = tempfile::tempdir().unwrap();
    let mut config = Config::default();
    config.server_context = ServerContext::Clear;
    let mut engine = Engine::builder(project.path()).config(config).build().unwrap();
    let client = ScriptedClient::new().managing_context();
    let mut edit = AppliedEdit::new(EditKind::ClearToolUses);
    edit.cleared_tool_uses = 4;
    edit.cleared_input_tokens = 30_000;
    client.push(
        std::time::Duration::ZERO,
        Ok(LlmResponse::new("ok", Usage::new(90_000, 5)).with_context_edits(vec![edit])),
    );
    engine.begin_round("go").await.unwrap();
    engine.complete(&client, LlmOptions::new()).await.unwrap();
    let seen = seen.lock().unwrap();
    let edited = seen
        .events
        .iter()
        .find(|f| f["strata.event"] == "server_context_edited")
        .unwrap();
    assert_eq!(edited["strata.server.cleared_tool_uses"], "4");
    assert_eq!(edited["strata.server.cleared_input_tokens"], "30000");
}
