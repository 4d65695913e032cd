//! The streaming ReAct parser (MODEL-3): any text, cut into any deltas,
//! gives the step of the batch parser (or its error), never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use strata_ctx::{parse_step, ReactStream};

fuzz_target!(|data: &[u8]| {
    // The first byte sets the delta size; the rest is the text.
    let Some((&size, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let size = usize::from(size % 16) + 1;
    let mut parser = ReactStream::new();
    let mut from = 0;
    while from < text.len() {
        let mut to = (from + size).min(text.len());
        while !text.is_char_boundary(to) {
            to += 1;
        }
        let _ = parser.push(&text[from..to]);
        from = to;
    }
    match (parser.finish(), parse_step(&text)) {
        (Ok((_, streamed)), Ok(batch)) => assert_eq!(streamed, batch),
        (Err(_), Err(_)) => {}
        (a, b) => panic!("streaming and batch parsers disagree: {a:?} vs {b:?}"),
    }
});
