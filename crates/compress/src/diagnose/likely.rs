//! The quick search for the lines of a long output that may be
//! diagnostics, before each is classified.

use std::sync::OnceLock;

use super::never_bytes;

/// Stems one of which nearly every failure, warning and summary line
/// holds (`rror` for `error`, `TypeError`, `ERROR`; `ail` for `failed`;
/// `egmentation` for `Segmentation fault`; `RUSTSEC-`, `[E]`), as ASCII
/// literals, and the marks test runners and linters put before a failure
/// (`✖`, `×`, `●`), an access log's 5xx status, the words of an agent's marker where it cut an
/// output (`truncated`, `omitted`, `elided`), and the level a klog or glog
/// record opens with at the error or fatal level (`E1127 10:04:10`),
/// searched apart: a search for
/// a few dozen ASCII literals, or for a few multi-byte ones, runs at several GB/s (SIMD
/// multi-literal search), where one for both together, or [`super::candidates`],
/// which also matches locations, runs ten times slower or more (measured
/// on 200 KiB of build, test and progress output: 25-75 µs and 15-50 µs
/// apart, 400-1,000 µs together). What the model sees of a long output
/// looks for its diagnostic lines with it; a location-only Go or ruff line
/// with none of these words is found by the history form's full search.
pub(crate) struct Likely<'a> {
    text: &'a [u8],
    /// The next match of each search at or after where it was last asked
    /// from, with that place.
    next: [(usize, Option<usize>); 3],
}

impl<'a> Likely<'a> {
    /// The two searches over `text`.
    pub(crate) fn new(text: &'a [u8]) -> Self {
        Likely {
            text,
            next: [(usize::MAX, None); 3],
        }
    }

    /// Where the first likely diagnostic word or mark at or after `at`
    /// starts.
    pub(crate) fn find_at(&mut self, at: usize) -> Option<usize> {
        const WORDS: &[&str] = &[
            "rror",
            "ERR",
            "ail",
            "FAIL",
            "anic",
            "xception",
            "raceback",
            "arn",
            "WARN",
            "ssert",
            "passed",
            "Test",
            "atal",
            "Killed",
            "denied",
            "ot found",
            "xit ",
            "ndefined",
            "annot",
            "eprecat",
            "bort",
            "egmentation",
            "refused",
            "No such",
            "dumped",
            "unbound",
            "Errno",
            "Interrupt",
            "ould n",
            "ouldn't",
            "not used",
            "satisfy",
            "RUSTSEC-",
            "[E]",
            ".java:[",
            "Spec.scala:",
            "Suite.scala:",
            " (info):",
            " (style):",
            "TS1",
            "TS2",
            "TS7",
            "not ok",
            "imed out",
            "ONFLICT",
            "rejected",
            // bandit's findings (`>> Issue: [B324:hashlib] Use of weak MD5
            // hash …`), in none of the words above.
            ">> Issue: [",
            // An error of a Pydantic `ValidationError` (`  Field required
            // [type=missing, …]`), in none of the words above.
            " [type=",
            // What a Zig test printed on its runner's line (`9/65
            // cart.test.tier...expected 9, found 6`), std.testing's
            // messages, in none of the words above.
            "...expected ",
            "...actual ",
            "...index ",
            "...Field ",
            "...slices differ",
            " len not the same",
            "First difference occurs",
            // trybuild's changed compiler output (`test tests/ui/a.rs ...
            // mismatch`), GNU patch giving up (`patch: **** malformed
            // patch`), a module or tool not there (`No module named
            // pytest`, `go: no such tool`), Jest with no test to run, a
            // watcher's crashed app, webpack's broken build: in none of
            // the words above.
            "... mismatch",
            // A formatter's check, file by file (rustfmt's `Diff in
            // src/a.rs:3:`, Black's `would reformat a.py`, ruff's
            // `unformatted: File would be reformatted`).
            "Diff in ",
            "ould reformat",
            "unformatted: ",
            "patch: ****",
            // The system's error messages as C and Go word them
            // (`bind: address already in use`, `connect: connection
            // reset by peer`, `i/o timeout`, `read /data: is a
            // directory`).
            "lready in use",
            "by peer",
            "on device",
            "nreachable",
            "o route to",
            "ead-only file",
            "roken pipe",
            "i/o timeout",
            "deadline exceeded",
            "open files",
            "not permitted",
            "s a directory",
            "ot a directory",
            "ile exists",
            // A name Go cannot resolve (`lookup proxy.golang.org on
            // 10.0.0.53:53: no such host`), nor Node (`getaddrinfo
            // ENOTFOUND registry.npmjs.org`).
            "no such host",
            "getaddrinfo",
            // curl's numbered error (`curl: (52) Empty reply from server`),
            // java.util.logging's error level.
            "curl: (",
            "SEVERE",
            "no such option",
            // What could not be done (`Unable to locate credentials.`), an
            // object the Kubernetes API rejects (`The Deployment "web" is
            // invalid: …`).
            "nable to ",
            "s invalid: ",
            // A step Compose ran that failed, the GitHub CLI's error status.
            "complete successfully",
            "HTTP 4",
            "HTTP 5",
            // codespell's misspelling, a program a signal ended under `go run`.
            " ==> ",
            "signal: ",
            // Perl's fatal errors worded like warnings (`Not a HASH
            // reference at a.pl line 3.`), Redis's wrong type, `npm ci`'s
            // lock file out of sync and `npm run`'s missing script.
            " reference at ",
            "division by zero",
            "read-only value",
            "Global symbol",
            "Bareword",
            "right curly",
            "WRONGTYPE",
            "from lock file",
            "lock file's",
            "Missing script",
            "No module named",
            "no such tool",
            "No tests found",
            "app crashed",
            "with problems",
            // A server's access log record of a request that failed on
            // its side (`"POST /orders HTTP/1.1" 500 265`).
            "HTTP/1.1\" 5",
            "HTTP/1.0\" 5",
            "HTTP/2.0\" 5",
            // An agent's marker of what it left out of an output (Codex
            // CLI's `[... omitted 764 of 1020 lines ...]`, OpenHands'
            // `<response clipped>`, mini-SWE-agent's `characters elided`,
            // Claude Code's `Output too large (34.3KB). Full output saved
            // to: …` and `Preview (first 2KB):`).
            "truncated",
            "omitted",
            "elided",
            "clipped>",
            "too large (",
            "saved to: ",
            "Preview (first ",
        ];
        const MARKS: &[&str] = &["✖", "×", "✘", "✗", "✕", "⨯", "❌", "●", "⚠"];
        // A record a klog or glog logger wrote at the error or fatal level
        // (`E1127 10:04:10.000250   12345 cart.go:44] lookup price: no
        // rows`), TensorFlow's under its timestamp (`2024-03-14
        // 10:22:01.523456: E external/…/cuda_dnn.cc:9261] …`): its level is
        // a letter, its message may hold no word above.
        // So may a development server's log of a request that failed on its
        // side (Next.js's ` GET /api/orders 500 in 23ms`, morgan's `GET
        // /orders 500 12.345 ms - 21`).
        const LEVELS: &str = r"(?m)^[EF]\d{4} \d\d:\d\d:\d\d|\d: [EF] [^\s\]]+:\d+\] |^\s*(?:GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) +/\S* +5\d\d ";
        static SEARCHES: OnceLock<[regex::bytes::Regex; 3]> = OnceLock::new();
        let searches = SEARCHES.get_or_init(|| {
            let [words, marks] = [WORDS, MARKS].map(|literals| {
                let alternation: Vec<String> = literals.iter().map(|w| regex::escape(w)).collect();
                alternation.join("|")
            });
            [words, marks, LEVELS.to_owned()]
                .map(|pattern| regex::bytes::Regex::new(&pattern).unwrap_or_else(|_| never_bytes()))
        });
        for (search, next) in searches.iter().zip(self.next.iter_mut()) {
            // A match found from an earlier place stands while it is not
            // behind `at`.
            let stale = next.0 > at || next.1.is_some_and(|found| found < at);
            if stale {
                *next = (at, search.find_at(self.text, at).map(|m| m.start()));
            }
        }
        self.next.iter().filter_map(|n| n.1).min()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_and_marks_are_found_in_their_order_from_any_place() {
        let text = "ok\n  ✖ bad\nerror: worse\n× worst\nfine\n".as_bytes();
        let mut likely = Likely::new(text);
        let mark = |s: &str| text.windows(s.len()).position(|w| w == s.as_bytes());
        assert_eq!(likely.find_at(0), mark("✖"));
        assert_eq!(likely.find_at(mark("✖").unwrap_or(0) + 1), mark("rror"));
        assert_eq!(likely.find_at(mark("rror").unwrap_or(0) + 1), mark("×"));
        assert_eq!(likely.find_at(mark("×").unwrap_or(0) + 1), None);
        // Asked again from an earlier place, it searches again.
        assert_eq!(likely.find_at(0), mark("✖"));
        assert_eq!(Likely::new(b"all fine\n").find_at(0), None);
        // A klog record at the error level, in no word of its own.
        let klog = b"I1127 10:00:59.000059   1 server.go:45] handled GET\nE1127 10:04:10.000250   1 cart.go:44] lookup price: no rows\n";
        assert_eq!(Likely::new(klog).find_at(0), Some(52));
        // An access log's 5xx status, in no word either; a 200 is none.
        let access =
            b"1.2.3.4 - - [x] \"GET /a HTTP/1.1\" 200 2\n1.2.3.4 - - [x] \"POST /b HTTP/1.1\" 500 9\n";
        assert_eq!(Likely::new(access).find_at(0), Some(65));
        // What a Zig test printed on its runner's line, in no word either.
        let zig = b"1/3 t.test.a...OK\n2/3 t.test.b...expected 9, found 6\n";
        assert_eq!(Likely::new(zig).find_at(0), Some(30));
        let strings = b"A1 x 2\nFirst difference occurs on line 1:\n";
        assert_eq!(Likely::new(strings).find_at(0), Some(7));
        // A development server's failed request, in no word either; a
        // request served is none.
        let next = b" GET /api/orders 200 in 4ms\n GET /api/orders 500 in 23ms\n";
        assert_eq!(Likely::new(next).find_at(0), Some(28));
        assert_eq!(
            Likely::new(b"trybuild\ntest tests/ui/a.rs ... mismatch\n").find_at(0),
            Some(28)
        );
    }
}
