//! The words and shapes of noise, as the toolchains agents run print it:
//! the source of [`super::noise`]'s pattern, apart from the decisions
//! that use it.

/// Noise: passing tests, downloads, installs and dependency builds, build
/// steps that went through, library stack frames.
pub(super) const NOISE: &str = concat!(
    // Passing tests: pytest, unittest/rust `... ok`, go, jest/vitest, mocha;
    // steps and checks that went through, whatever they are named (`R CMD
    // check`'s `* checking R files for syntax errors ... OK`, Django's
    // `Applying shop.0002_add_error_log... OK`).
    r"(?:^|\s)PASSED(?:\s|$)|\.\.\. ok(?: \(\d+(?:\.\d+)?\s?[µnm]?s\))?$|\.\.\. ?OK$|^test \S+ \.\.\. ok|^\s*--- PASS:|^=== (?:RUN|PAUSE|CONT)\s|^ok\s+\S+\s",
    r"|^\s*(?:PASS|✓|✔|√)\s|^\s*\[?PASS\]?\s",
    // The JUnit Platform console's tree of passing tests and containers
    // (`│     ├─ sums() ✔`).
    r"|^[│ ]*[├└]─ .* ✔$",
    // The heading Jest 24 and earlier put over what the tests logged (`  ●
    // Console`): the mark of a failed test over no test.
    r"|^\s*● Console$",
    // A TAP producer's passing test point, nested or not (node:test,
    // tape, prove, bats: `    ok 5 - when argument not last then
    // error`), whatever its title says.
    r"|^\s*ok \d+ - ",
    // What Vitest says under every unhandled error, and over them all:
    // where it was caught, not what went wrong.
    r#"|^This error originated in "[^"]+" test file\. It doesn't mean the error was thrown inside the file itself, but while it was running\.$"#,
    r"|^This might cause false positive tests\. Resolve unhandled errors to make sure your tests are not affected\.$",
    // Tests expected to fail that did, and skipped ones, whatever their
    // reasons say: pytest's (`test_a.py::test_b XFAIL (known failure)`,
    // `XFAIL test_a.py::test_b - known failure`, `SKIPPED [1] a.py:5:
    // connection failed`), unittest's (`... expected failure`, `...
    // skipped 'error paths differ on Windows'`), Vitest's `↓`.
    r"|^(?:XFAIL|SKIPPED) |::\S* (?:XFAIL|SKIPPED)\b|\.\.\. (?:expected failure|skipped\b.*)$|^\s*↓ \S",
    // pytest's progress, a character per test and the share run so far
    // (`.....F..s.. [ 20%]`): which tests failed, the report under it
    // says.
    r"|^[.sxXFE]+ +\[ *\d{1,3}%\]$",
    // The link Pydantic prints under each error of a `ValidationError`
    // (`    For further information visit
    // https://errors.pydantic.dev/2.14/v/missing`): the same page for
    // each error of a type.
    r"|^\s+For further information visit https://errors\.pydantic\.dev/",
    // Where Playwright saved the page under a failed test (`    Error
    // Context: test-results/cart-pays-chromium/error-context.md`): a
    // pointer to a file, under the failure it belongs to.
    r"|^\s+Error Context: \S+\.md$",
    // GoogleTest's passing tests (`[       OK ] Balance.Sums (0 ms)`),
    // Robot Framework's (`Totals Add Up     | PASS |`).
    r"|^\[       OK \] |\S\s+\| PASS \|$",
    // Pester's passing tests (`[+] Cart.adds an item 12ms (10ms|2ms)`).
    r"|^\s*\[\+\] \S.* \d+(?:\.\d+)?m?s(?: \(.*\))?$",
    // pre-commit's hooks that passed or had nothing to check.
    r"|^\S.*\.{4,}(?:Passed|\(no files to check\)Skipped)$",
    // bun (`(pass) sum > adds`), Minitest's verbose lines (`T#test_a
    // = 0.00 s = .`), ExUnit's `--trace` (`* test adds (0.1ms)
    // [L#4]`), PHPUnit's `--debug` (`Test 'T::testA' started`).
    r"|^\(pass\) |^\S+#\S+ = [\d.]+ s = \.$|^\s*\* test .*\(\d+(?:\.\d+)?m?s\) \[L#\d+\]$|^Test '.*' (?:started|ended)$",
    // Downloads, installs, dependency builds.
    r"|^\s*(?:Downloading|Downloaded|Collecting|Requirement already satisfied|Using cached|Obtaining|Fetching|Resolving|Unpacking|Preparing|Building wheels?|Stored in directory|Created wheel|Installing collected|Attempting uninstall|Found existing installation|Uninstalling|Successfully uninstalled|Get:\d|Hit:\d|Ign:\d|Selecting previously|Setting up|Processing triggers|Reading package lists|Building dependency tree|Reading state information)\b",
    r"|^\s*(?:Compiling|Checking|Fresh|Downloaded|Locking|Adding|Updating|Blocking) \S+ v\d",
    r"|^\s*(?:go: downloading|npm (?:WARN|warn) deprecated|added \d+ packages|Progress: resolved|Packages: \+)",
    // Image layers (`a3ed95caeb02: Pull complete`), git's transfer
    // progress, yarn's steps, conda's, Poetry's, uv's and Cargo's index and
    // lock steps, npm's notices.
    r"|^[0-9a-f]{12}: (?:Pulling fs layer|Waiting|Verifying Checksum|Download complete|Pull complete|Already exists|Extracting|Downloading)",
    r"|^(?:remote: )?(?:Enumerating|Counting|Compressing|Receiving|Writing) objects:|^(?:remote: )?Total \d+ \(delta|^Delta compression using",
    r"|^\[\d+/\d+\] (?:Resolving|Fetching|Linking|Building fresh) |^(?:Collecting package metadata|Solving environment|Preparing transaction|Verifying transaction|Executing transaction)\b",
    r"|^\s*- (?:Installing|Updating|Downgrading|Removing) \S+ \(|^(?:Resolved|Prepared|Installed|Uninstalled|Audited|Built) \d+ packages? in |^ [+-] [\w.-]+==[\w.+-]+$",
    r"|^\s*(?:Updating crates\.io index|Locking \d+ packages)|^npm notice\b",
    // `flutter test`'s and `dart test`'s progress (`00:02 +1: Cart adds an
    // item`), but its failed tests (`… [E]`) and its closing line.
    r"|^\d\d:\d\d \+\d+(?: ~\d+)?(?: -\d+)?: .*[^\].]$",
    // Maven's help text under a failed build (`[ERROR] -> [Help 1]`,
    // `[ERROR] Re-run Maven using the -X switch …`).
    r"|^\[ERROR\] (?:-> \[Help 1\]|\[Help \d+\] https?://|To see the full stack trace of the errors|Re-run Maven using the -X switch|For more information about the errors and possible solutions|Please refer to |After correcting the problems, you can resume the build)",
    // pip's notes under a failed build (`note: This error originates from
    // a subprocess, and is likely not a problem with pip.`).
    r"|^\s*note: This (?:error originates from a subprocess|is an issue with the package mentioned above)",
    // Poetry's, which lists what may be wrong with the package after it.
    r"|^\s*Note: This error originates from the build backend, and is likely not a problem with poetry\b",
    // Cypress's table heading, tox's environment it could not run.
    r"|^\s*Spec\s+Tests\s+Passing\s+Failing\b|^\S+: skipped because could not find python interpreter",
    // sbt's closing timer, under whichever level the build ended with.
    r"|^\[(?:error|success|info)\] Total time: \d",
    // Build steps that went through: Gradle's tasks, CMake's and
    // Ninja's or SwiftPM's numbered steps, BuildKit's finished
    // steps, .NET's restores.
    r"|^> Task :\S+(?: (?:UP-TO-DATE|NO-SOURCE|FROM-CACHE|SKIPPED))?$|^\[\s*\d{1,3}%\] (?:Building|Linking|Built target|Scanning|Generating)\b",
    r"|^\[\d+/\d+\] (?:Building|Linking|Compiling|Generating|Copying|Emitting|Planning|Write|Running)\b|^#\d+ (?:DONE|CACHED)\b|^\s*Restored \S+ \(in \d+(?:\.\d+)? m?s\)\.$",
    // CTest's passed tests (`  3/27 Test  #3: parse ......   Passed    0.01 sec`).
    r"|^\s*\d+/\d+ Test +#\d+: \S+ \.+ +Passed +[\d.]+ sec$",
    // Their downloads and passing tests: Maven's and Gradle's
    // artifacts, `dotnet test`'s and XCTest's passed tests.
    r"|^\[INFO\] Download(?:ing|ed) from |^Download https?://|^\s+Passed \S+ \[[\d.]+ m?s\]$|^Test Case '.*' (?:started\.|passed \([\d.]+ seconds\)\.)$",
    // Valgrind's banner and boilerplate around its findings.
    r"|^==\d+== (?:Memcheck, a memory error detector|Copyright \(C\)|Using Valgrind-|Command: |For (?:lists|counts) of detected and suppressed errors|All heap blocks were freed)",
    // node-gyp's steps and the environment it reports under a failed
    // build (`gyp info spawn args [`, `  CXX(target)
    // Release/obj.target/sum/src/sum.o`, `gyp ERR! node -v v20.20.2`), as
    // npm repeats them under its own prefix when an install script fails
    // (`npm error gyp info it worked if it ends with ok`).
    r"|^(?:npm (?:ERR!|error) )?(?:gyp info |gyp ERR! (?:System|command|cwd|node -v|node-gyp -v|\$npm_package_\w+) |make: (?:Entering|Leaving) directory |  (?:CXX|CC|LINK|SOLINK_MODULE|SOLINK|COPY|ACTION|TOUCH|AR)\(target\) )",
    // The banner Django's and Flask's development servers print on every
    // start (`WARNING: This is a development server. Do not use it in a
    // production deployment.`), and Django's pointer under it.
    r"|^WARNING: This is a development server\. Do not use it in a production|^For more information on production servers see: ",
    // npm's closing pointer to its debug log, its blank error lines
    // and the help text under a 404.
    r"|^npm (?:ERR!|error) +(?:A complete log of this run can be found in|\S*/_logs/\S+\.log$)",
    r"|^npm (?:ERR!|error) +For a full report see:$|^npm (?:ERR!|error) +\S*/_logs/\S+\.txt$",
    r"|^npm (?:ERR!|error)(?: 404)?\s*$|^npm (?:ERR!|error) 404 +(?:Note that you can also install from a|tarball, folder, http url, or git url\.)$",
    // rustc's and clippy's boilerplate under each finding: which lint is
    // on by default (and which group it is part of), where the lint's documentation is, where an error
    // code is explained.
    r"|^\s*= note: `#\[(?:warn|deny)\([\w:]+\)\]`(?: \(part of `#\[(?:warn|deny)\([\w:]+\)\]`\))? on by default$|^\s*= help: for further information visit https://",
    r"|^For more information about (?:this|an) error, try `rustc --explain|^Some errors have detailed explanations: E\d{4}",
    // clang-tidy's closing boilerplate: the findings it left out in
    // headers and how to see them.
    r"|^Suppressed \d+ warnings \(\d+ in non-user code(?:, \d+ NOLINT)?\)\.$|^Use -header-filter=\.\* to display errors from all non-system headers\.",
    // Python's position markers under a frame's code line (PEP
    // 657: `^^^^`, `~~~^^^`): the code line says what ran.
    r"|",
    position_markers!(),
    // Library frames: Python site-packages and the standard library,
    // node_modules and node internals, the JDK and test runners, Go's
    // runtime, CMake's modules, Rust's standard library; code a library
    // generated at run time (SQLAlchemy's `File "<sqlalchemy generated
    // _go() wrapper for …>"`, `<decorator-gen-12>`).
    r#"|^\s*File "[^"]*(?:site-packages|dist-packages|/lib/python\d|<frozen |<[^">]* generated |<decorator-gen-)"#,
    // The same frames as IPython and Jupyter print them (`File
    // /usr/lib/python3.11/site-packages/pandas/core/frame.py:3761, in
    // DataFrame.__getitem__(self, key)`).
    r"|^File \S*(?:site-packages|dist-packages|/lib/python\d[\d.]*/)\S*:\d+, in ",
    // The same frames as pytest places its traceback's entries
    // (`/usr/lib/python3.11/http/client.py:986: in send`).
    r"|^\S*(?:site-packages|dist-packages|/lib/python\d[\d.]*)/\S+\.py:\d+: (?:in \S+)?\s*$",
    // Deno's runtime too (`at async Object.readTextFile
    // (ext:deno_fs/30_fs.js:1:10042)`).
    r"|^\s*at .*(?:node_modules|node:internal|\(internal/|\(node:|\(ext:)|^\s*at (?:async )?ext:",
    // The same frames as node:test's TAP report prints them, with
    // no `at` (`Test.run (node:internal/test_runner/test:796:25)`).
    r"|^\s+(?:async )?[\w$.<>]+ \((?:node:|internal/)[^()\s]+\)$",
    r"|^\s*at (?:[\w.-]+//)?(?:java\.|javax\.|jdk\.|sun\.|org\.junit\.|org\.opentest4j\.|org\.apache\.maven\.|org\.gradle\.|kotlin\.|scala\.|clojure\.)",
    // The same frames as the JUnit Platform console prints them, with no
    // `at` (`java.base/java.lang.reflect.Method.invoke(Method.java:569)`).
    r"|^\s+(?:[\w.-]+/)?(?:java\.|javax\.|jdk\.|sun\.|org\.junit\.|org\.opentest4j\.)[\w$.<>]+\((?:[\w$]+\.java:\d+|Native Method|Unknown Source)\)$",
    // Julia's own frames (`@ Base ./array.jl:861`).
    r"|^\s+@ (?:Base|Core|Test|Pkg|Distributed) \S+:\d+$",
    // Ruby's gems and standard library, PHP's Composer packages,
    // .NET's runtime, Rust's standard library.
    r"|^\s*(?:from|#) \S*(?:/gems/|/rubygems|/lib/ruby/)|^#\d+ (?:\S*/vendor/|\{main\})|^\s+at (?:System|Microsoft)\.|^\s+at /rustc/",
    r"|^\s*(?:/usr/local/go/src/|/usr/lib/go\S*/src/|runtime/|testing\.tRunner)",
    // Zig's standard library and test runner in a stack (`/opt/zig/lib/
    // std/testing.zig:57:5: 0x125762f in expectEqual (cart.zig)`), and
    // frames it cannot name (`???:?:?: 0x7f… in ??? (???)`).
    r"|^\s*\S*/(?:std|compiler|compiler_rt)/\S+\.zig:\d+:\d+: 0x[0-9a-f]+ in |^\s*\?\?\?:\?:\?: 0x[0-9a-f]+ in ",
    // CMake's own modules in its call stack.
    r"|^\s*/\S*/share/cmake[-\d.]*/Modules/\S+:\d+ \(",
    // Go's runtime and testing frames above a project's: the runtime's
    // `panic({0x519a00, 0xc0000ca000})` (a recovered test's panic prints
    // it under its message), `runtime.gopark(…)`, `created by
    // testing.(*T).Run`.
    r"|^panic\(\{?0x[0-9a-f]+|^\s*runtime\.\w[\w.]*\(|^\s*(?:created by )?testing\.\(\*[TBMF]\)\.",
    r"|^\s*(?:at )?/rustc/[0-9a-f]+/|^\s*\d+: (?:std::|core::|alloc::|rust_begin_unwind|__rust|<unknown>$)",
    // The same frames named through a reference or a trait object (`8:
    // <&dyn core::ops::function::Fn<()> as …>::call_once`), the C
    // runtime's under them (`19: __libc_start_call_main`, `21: _start`,
    // `at ./csu/../csu/libc-start.c:360:3`), and where a crate's own
    // frames stand in Cargo's registry (`at /root/.cargo/registry/src/
    // index.crates.io-…/anyhow-1.0.105/src/context.rs:54:37`).
    r"|^\s*\d+: <(?:&(?:mut )?)?(?:dyn )?(?:std|core|alloc)::|^\s*\d+: (?:__libc_start\w*|_start)$|^\s+at \S*/(?:csu|sysdeps)/|^\s+at \S*/\.cargo/(?:registry|git)/",
    // The C runtime's and the sanitizers' own frames under a native
    // crash, as AddressSanitizer, gdb and Valgrind print them
    // (`#3 0x7f… in __libc_start_main csu/../csu/libc-start.c:360:3`,
    // `#0 0x… in __interceptor_malloc (…)`, `==7== by 0x…:
    // (below main) (libc-start.c:360)`).
    r"|^\s*#\d+ +0x[0-9a-f]+ in (?:__libc_|_start\b|__interceptor_|__asan_|__sanitizer|__[utm]san_|\S+ (?:\S*/)?(?:csu|sysdeps)/)",
    r"|^==\d+==\s+(?:at|by) 0x[0-9A-Fa-f]+: (?:__libc_|_start\b|\(below main\)|\S+ \(in /(?:usr/)?lib)",
    // gdb's frames in the C library, numbered or the one it stopped in
    // (`__pthread_kill_implementation (…) at ./nptl/pthread_kill.c:44`,
    // `#3 0x7ff… in __GI_abort () at ./stdlib/abort.c:79`, `#1 0x7ff… in
    // ?? () from /lib/x86_64-linux-gnu/libc.so.6`), and the source it
    // cannot show for one (`44\t./nptl/pthread_kill.c: No such file or
    // directory.`).
    r"|^(?:#[0-9]+ +(?:0x[0-9a-f]+ in )?)?[^ \t].* \(.*\) (?:at \.{1,2}/(?:csu|sysdeps|nptl|stdlib|assert|string|malloc|libio|posix|signal|elf|misc)/[^ \t]+:[0-9]+|from /(?:usr/)?lib[^ \t]*)$",
    r"|^[0-9]+\t[^ \t]+: No such file or directory\.$",
    // AddressSanitizer's shadow memory under its report: the rows of
    // shadow bytes and their legend.
    r"|^Shadow byte(?:s around the buggy address| legend)\b|^\s*(?:=>)?0x[0-9a-f]+: (?:\[?[0-9a-f]{2}\]? ?){4,}$",
    r"|^\s+(?:[A-Za-z]+ )*(?:[Rr]edzone|addressable|region|return|scope|order|user|overflow|cookie|internal|gap):\s+[0-9a-f]{2}(?: [0-9a-f]{2})*(?: \.\.)? *$",
);
