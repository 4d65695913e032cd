//! The JSONL log loader and replay (STORE-1, STORE-3): any bytes in a log
//! give records or a typed error naming the line, and replaying the
//! records never panics and leaves a paired window.
#![no_main]

use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use strata_ctx::store::read_log;
use strata_ctx::{CharCounter, Config, History, Pairs};

fuzz_target!(|data: &[u8]| {
    let Ok(dir) = tempfile::tempdir() else { return };
    let path = dir.path().join("log.jsonl");
    if std::fs::write(&path, data).is_err() {
        return;
    }
    if let Ok(loaded) = read_log(&path) {
        let history = History::replay(Config::default(), Arc::new(CharCounter), loaded.records);
        let _ = Pairs::new(&history.window()).is_complete();
    }
});
