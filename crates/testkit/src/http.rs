//! A scripted HTTP/1.1 server on 127.0.0.1, for testing clients of
//! OpenAI-compatible endpoints against a real socket.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// One scripted answer of an [`HttpServer`].
#[derive(Debug, Clone)]
pub struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
    delay: Duration,
}

impl Reply {
    /// An answer with `status` and `body` as JSON.
    pub fn json(status: u16, body: &Value) -> Self {
        Reply::raw(status, body.to_string())
    }

    /// An answer with `status` and `body` as it is.
    pub fn raw(status: u16, body: impl Into<String>) -> Self {
        Reply {
            status,
            headers: Vec::new(),
            body: body.into(),
            delay: Duration::ZERO,
        }
    }

    /// A chat completion answering `text` with the given usage figures.
    pub fn completion(text: &str, prompt_tokens: u64, completion_tokens: u64) -> Self {
        Reply::json(
            200,
            &serde_json::json!({
                "id": "chatcmpl-test",
                "object": "chat.completion",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                          "total_tokens": prompt_tokens + completion_tokens}
            }),
        )
    }

    /// Adds a header.
    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    /// Waits `delay` before answering.
    pub fn after(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }
}

/// A request the server received.
#[derive(Debug, Clone)]
pub struct Received {
    /// When it was complete.
    pub at: Instant,
    /// The request line and headers, as sent.
    pub head: String,
    /// The body as JSON (`Null` if it is not JSON).
    pub body: Value,
}

/// A server on 127.0.0.1 that answers each request with the next scripted
/// [`Reply`] (a 500 once they run out) and records what it received.
/// Every connection is closed after one answer.
///
/// Start it inside a tokio runtime with [`HttpServer::start`], or on a
/// thread of its own with [`HttpServer::start_in_thread`] (for tests that
/// run a separate process against it).
#[derive(Debug, Clone)]
pub struct HttpServer {
    base_url: String,
    received: Arc<Mutex<Vec<Received>>>,
}

type Queue = Arc<Mutex<VecDeque<Reply>>>;
type Log = Arc<Mutex<Vec<Received>>>;

impl HttpServer {
    /// Starts the server on the current tokio runtime.
    ///
    /// # Panics
    ///
    /// If no port on 127.0.0.1 can be bound.
    pub async fn start(replies: Vec<Reply>) -> HttpServer {
        #[allow(clippy::expect_used)]
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind 127.0.0.1");
        HttpServer::run(listener, replies)
    }

    /// Starts the server on a thread with its own runtime, for as long as
    /// the process lives.
    ///
    /// # Panics
    ///
    /// If no port can be bound or the runtime cannot be built.
    #[allow(clippy::expect_used)]
    pub fn start_in_thread(replies: Vec<Reply>) -> HttpServer {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a tokio runtime");
            runtime.block_on(async move {
                let server = HttpServer::start(replies).await;
                let _ = tx.send(server);
                std::future::pending::<()>().await;
            });
        });
        rx.recv().expect("the server thread started")
    }

    fn run(listener: TcpListener, replies: Vec<Reply>) -> HttpServer {
        let base_url = match listener.local_addr() {
            Ok(addr) => format!("http://{addr}/v1"),
            Err(_) => String::new(),
        };
        let received: Log = Arc::default();
        let queue: Queue = Arc::new(Mutex::new(VecDeque::from(replies)));
        let log = received.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(serve(stream, log.clone(), queue.clone()));
            }
        });
        HttpServer { base_url, received }
    }

    /// The base URL to give a client: `http://127.0.0.1:<port>/v1`.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The requests received so far, in order.
    pub fn received(&self) -> Vec<Received> {
        self.received.lock().map(|r| r.clone()).unwrap_or_default()
    }
}

async fn serve(mut stream: TcpStream, log: Log, queue: Queue) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let length: usize = head
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("content-length")
                .then(|| v.trim().parse().ok())?
        })
        .unwrap_or(0);
    while buf.len() < head_end + length {
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
    let body = serde_json::from_slice(&buf[head_end..head_end + length]).unwrap_or(Value::Null);
    if let Ok(mut log) = log.lock() {
        log.push(Received {
            at: Instant::now(),
            head,
            body,
        });
    }
    let reply = queue
        .lock()
        .ok()
        .and_then(|mut q| q.pop_front())
        .unwrap_or_else(|| Reply::raw(500, "no more scripted replies"));
    tokio::time::sleep(reply.delay).await;
    let mut out = format!(
        "HTTP/1.1 {} Scripted\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n",
        reply.status,
        reply.body.len()
    );
    for (k, v) in &reply.headers {
        out.push_str(&format!("{k}: {v}\r\n"));
    }
    out.push_str("\r\n");
    out.push_str(&reply.body);
    let _ = stream.write_all(out.as_bytes()).await;
    let _ = stream.shutdown().await;
}
