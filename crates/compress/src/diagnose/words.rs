//! The words and shapes of each line kind, as the toolchains agents run
//! print them: the sources of [`super::line_kind`]'s patterns, apart from
//! the decisions that use them.

/// A server's access log record of a request that failed on its side, in
/// the Common Log Format of gunicorn, nginx, Apache and Django (`"POST
/// /orders HTTP/1.1" 500 265`), and as the development servers of Next.js
/// (` GET /api/orders 500 in 23ms`) and Express's morgan (`GET /orders 500
/// 12.345 ms - 21`) log it: a failure, and a verdict whose reason is
/// logged above it. A macro, so that [`FAILURE`] and [`VERDICT`] can hold
/// it.
macro_rules! server_error_record {
    () => {
        r#"\bHTTP/[\d.]+" 5\d\d\b|^\s*(?:GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) +(?:/\S* +)?5\d\d (?:in \d+(?:\.\d+)?m?s$|\d+(?:\.\d+)? ms\b)"#
    };
}

pub(super) const FAILURE: &str = concat!(
    // The words, in the cases tools write them; not in a command-line
    // flag that an echoed command shows (`--no-fail-fast`,
    // `--fail-under-lines 100`, `--show-error-codes`).
    r"(?i:(?:^|[^-\w])errors?\b|(?:^|[^-\w])fail(?:ed|ure|ures|s|ing)?\b|\bfatal\b|\bpanic(?:ked)?\b|\btraceback\b|\bexception\b|\baborted\b)",
    r"|\b[A-Z]\w*(?:Error|Exception|Failure|Fault)\b|\bERR!|\bERR_\w+|\bE\d{4}\b|\berror\[",
    // Python's raised exceptions under their module path; not a Django
    // model's check (`polls.Question: (models.W042) …`).
    r"|^(?:[a-z_]\w*\.)+[A-Z]\w+: [^\s(]",
    // pytest's explanation lines, its place of a failed assertion under
    // `--tb=line` (`tests/test_cart.py:11: assert 18.0 == 17`, read with
    // its path blanked too),
    // jest/vitest failure marks.
    // Biome's and Next.js's (`✖`, `⨯`), miette's as oxlint prints it (`×`),
    // and in miette's ASCII theme, which it draws without a terminal, as
    // under an agent (`  x eslint(eqeqeq): Expected === …`).
    r"|^E\s{2,}\S|^(?:\S+\.py)?\s?:\d+: assert \S|^\s*(?:✕|✗|✘|✖|×|⨯|❌|●)\s|^\s*│ +(?:✖|✗|✘|×)\s|^  x (?:[\w@/.-]+\([\w@/.-]+\): |[A-Z`])",
    // The JUnit Platform console's failed test in its tree, with its
    // message (`│     ├─ appliesTen() ✘ expected: <91> but was: <90>`).
    r"|^[│ ]*[├└]─ .* ✘(?: |$)",
    // Each error of a Pydantic `ValidationError`, under the field it is
    // about.
    r"|",
    field_error!(),
    // AVA's failed assertion, over the diff of its values.
    r"|^\s*Difference(?: \(- actual, \+ expected\))?:$",
    // glibc's words where it aborts a program that corrupted its memory
    // (`free(): double free detected in tcache 2`, `double free or
    // corruption (out)`, `malloc(): corrupted top size`, `*** stack
    // smashing detected ***: terminated`), above the shell's `Aborted`.
    r"|^[a-z_]+\(\): (?:double free|invalid (?:pointer|size|next size)|corrupted|memory corruption|unaligned)|^double free or corruption \(|^corrupted (?:size vs\. prev_size|double-linked list)|^\*\*\* (?:stack smashing|buffer overflow) detected \*\*\*",
    // A security finding: an advisory's id (npm's and pip-audit's
    // `GHSA-p6mc-m468-83gw`, `CVE-2021-23337`, `PYSEC-2021-66`,
    // `RUSTSEC-2020-0071`, `GO-2024-2687`), Semgrep's severity marks over a
    // rule's id (`❯❯❱ python.lang.security.audit.eval-detected`).
    r"|\b(?:GHSA(?:-[2-9cfghjmpqrvwx]{4}){3}|CVE-\d{4}-\d{4,}|PYSEC-\d{4}-\d+|RUSTSEC-\d{4}-\d{4}|GO-\d{4}-\d{4})\b|^\s*❯{0,2}❱ [\w.-]+$",
    // npm audit's severity of the advisories under a package.
    r"|^Severity: (?:critical|high|moderate|low)$",
    // TypeScript's code where a bundler's loader prints it on a line of its
    // own (webpack's ts-loader: `      TS2304: Cannot find name 'x'.`), a
    // CTest test that did not pass (`***Failed`, `***Exception`,
    // `***Timeout`).
    // Surefire's failed tests under `[ERROR] Failures:` (`  CalculatorTest.
    // addWrong:46 expected:<5> but was:<4>`).
    r"|^\s+[A-Z][\w$]*\.\w+:\d+ (?:»|expected|\S+Exception|\S+Error)",
    // A location in brackets, as Maven prints javac's and Checkstyle's
    // findings (`App.java:[4,48] ';' expected`; read with the path blanked).
    r"|:\[\d+(?:,\d+)?\] \S",
    // The changed lines of a snapshot that did not match, as insta prints
    // them (`    0       │-Total: 90.00`, `          0 │+Total: 100.00`).
    r"|^\s*\d*\s+\d*\s+│[-+]",
    // SQLFluff's violations (`L:   3 | P:  10 | LT01 | Expected only single
    // space before 'AS' keyword.`; before 2.0 its rules were `L003`), its
    // parse and templating errors (`L:   1 | P:  23 |  PRS | Line 1,
    // Position 23: Found unparsable section: 'WHERE'.`, `TMP`).
    "|",
    sqlfluff_row!(),
    r"\s+(?:[A-Z]{2}\d{2}|L\d{3}|PRS|TMP) \| ",
    // `cargo audit`'s advisories (`ID:       RUSTSEC-2024-0332`).
    r"|^ID:\s+RUSTSEC-\d{4}-\d{4}$",
    r"|^\s*TS\d{4,5}: \S|\*\*\*(?:Failed|Exception|Timeout|Not Run)\b",
    // Gradle's heading over why a build failed (`* What went wrong:`,
    // then `Execution failed for task ':test'.`); the fields PostgreSQL
    // gives an error under it (`DETAIL:  Key (id)=(1) already exists.`,
    // `HINT:  Perhaps you meant to reference the column "items.name".`).
    r"|^\* What went wrong:$|^(?:DETAIL|HINT):  \S",
    // Zig's test runner: a test's line (`9/65 cart.test.tier...`) goes on
    // with what the test printed first, std.testing's message (`expected
    // 9, found 6`, `index 2 incorrect. expected 1, found 0`) or a panic,
    // then `FAIL (TestExpectedEqual)` or `OK`; where two strings differ,
    // the line over where (`First difference occurs on line 1:`).
    r"|^\s*First difference occurs on line \d+:$",
    r"|^\d+/\d+ \S.*?\.\.\.(?:FAIL \(\w+\)$|expected |actual \S+, not within |index \d+ incorrect\. |(?:Slice|Array|Vector) len not the same|Field \S+ incorrect\. |slices differ\. |thread \d+ panic: )",
    // `flutter test`'s and `dart test`'s failed test (`00:02 +2 -1: Cart
    // applies a discount [E]`), Composer's unsatisfiable requirements.
    r"|^\d\d:\d\d \+\d+(?: ~\d+)?(?: -\d+)?: .* \[E\]$|does not satisfy that requirement|does not contain a compatible set of packages",
    // A test runner's failing test, go's FAIL, a TAP producer's failing
    // test point (node:test, tape, prove, bats: `not ok 3 - adds`).
    r"|^(?:FAIL|FAILED|ERROR)\b|--- FAIL|\bFAIL:|\bFAILED\b|\b\d+ (?:failing|failed|errors?)\b|^\s*not ok \d+\b",
    // trybuild's compile-fail test whose compiler output is not the one
    // expected (`test tests/ui/wrong_type.rs ... mismatch`).
    r"|^test .*\.\.\. mismatch$",
    // A linter's finding under its rule code, as ruff prints it above the
    // location (`F401 [*] `os` imported but unused`, `UP035 `typing.Dict`
    // is deprecated`).
    // Not a klog or glog record's header (`I1127 10:00:00.123456 …`),
    // whose level letter and date look the same.
    r"|^[A-Z]{1,4}\d{3,4} (?:\[\*\] )?[^\s\d]",
    // The same with a colon, under the place it names, as pydocstyle
    // prints it (`        D100: Missing docstring in public module` under
    // `shop/cart.py:1 at module level:`); and vulture's finding, in its
    // confidence (`shop/cart.py:1: unused import 'json' (90% confidence)`).
    r"|^[ \t]*[A-Z]{1,3}[0-9]{3,4}: [A-Z][a-z]|\bunused [a-z]+ '[^']+' \([0-9]+% confidence\)$",
    // A klog or glog record at the error or fatal level (`E1127 10:00:00.1
    // 12345 cart.go:44] lookup price: no rows`), one at java.util.logging's
    // (`SEVERE: giving up on orders`, Tomcat's `… SEVERE [main] …`).
    r"|^[EF]\d{4} \d\d:\d\d:\d\d\.\d+\s+\d+ |\bSEVERE\b",
    // Kotlin's compiler (`e: file:///a/App.kt:12:9 Unresolved reference`,
    // before 2.0 `e: /a/App.kt: (12, 9): Unresolved reference`), RSpec's
    // list of failed examples (`rspec ./spec/a_spec.rb:12 # …`, `rspec
    // ./spec/a_spec.rb[1:3:2] # …` for one of a loop's examples), Perl's
    // `die` without a message (`Died at a.pl line 3.`); read with their
    // paths blanked too.
    r"|^e: (?:file:)?\S*\s*:\d+:\d+ |^e: \S*: \(\d+, \d+\): |^rspec\s+\S*?(?:\s*:\d+|\[[\d:]+\]) # |^Died at \S+ line \d+\.$",
    // Perl's fatal errors that read like its warnings, `… at a.pl line
    // 3.` (perldiag's class F): an undefined sub, a value of the wrong
    // kind, a division by zero, strict's undeclared name and bareword, an
    // unclosed block.
    r"|^(?:Undefined subroutine &\S+ called|Not an? (?:HASH|ARRAY|CODE|SCALAR|GLOB) reference|Illegal division by zero|Modification of a read-only value attempted|Global symbol .+ requires explicit package name|Bareword .+ not allowed while .strict subs. in use|Missing right curly or square bracket)\b.* at \S+ line \d+\b",
    // Redis's error replies as redis-cli prints them without a terminal
    // (`ERR unknown command 'HSETX'`, `WRONGTYPE Operation against a key
    // holding the wrong kind of value`).
    r"|^ERR [a-z]|^(?:WRONGTYPE|NOAUTH|WRONGPASS|NOPERM|READONLY|MISCONF|CROSSSLOT|EXECABORT) [A-Z][a-z]",
    // The MySQL and MariaDB client's error, with its code and SQLSTATE,
    // wherever it stands: under `--force` or `-v` it may follow the
    // statement's rule on the same line, the two streams unsynchronised
    // (`--------------ERROR 1062 (23000) at line 5: Duplicate entry …`).
    r"|ERROR \d{4} \([0-9A-Z]{5}\)(?: at line \d+)?: ",
    // make, linkers, shells, the kernel; Go's unused variable and import
    // (`"fmt" imported and not used`, `imported and not used: "os"`, by
    // the package's quoted path: Nim's warning says the same words after
    // its level).
    r#"|^\S*make(?:\[\d+\])?: \*\*\*|undefined reference to|cannot find symbol|cannot find module|Cannot find module|\bnot found\b|[Nn]o such file or directory|[Pp]ermission denied|[Ss]egmentation fault|core dumped|\bKilled\b|[Tt]imed out|\bcannot\b|[Cc]ould not\b|\b[Cc]ouldn't (?:compile|find|open|load|resolve|connect|read|write|create|parse|start)\b|\bCannot (?:connect|open|load|resolve|read|write|create|access|allocate|bind|start|locate|execute)\b|\b[Cc]an't (?:locate|call|use|find|open|load|resolve|connect|read|write|create|access|modify|exec|stat|remove|import|allocate|bind|operate)\b|\bundefined:|\bunresolved\b|\bnot defined\b|\bdeclared and not used\b|" imported (?:as \w+ )?and not used\b|\bimported and not used: ""#,
    // GNU patch giving up (`patch: **** malformed patch at line 5`), a
    // module `python -m` cannot find (`/usr/bin/python3: No module named
    // pytest`), a tool the go command does not have, Jest finding no test
    // to run (it exits 1).
    r"|^patch: \*{4} |: No module named \S+$|^go: no such tool |^No tests found, exiting with code [1-9]",
    // A watcher's app that died (`[nodemon] app crashed - waiting for file
    // changes before starting...`), webpack's dev server's heading over
    // what broke the build (`Compiled with problems:`).
    r"|^\[nodemon\] app crashed\b|^Compiled with problems:?$",
    // A formatter's check, file by file: black's and ruff's `would
    // reformat`, ruff's `unformatted:` above the file's location, rustfmt's
    // `Diff in src/a.rs:3:`, Prettier's `[warn] src/a.ts` (read with its
    // path blanked).
    r"|^(?:would reformat|Would reformat:)\s|^unformatted: |^Diff in\s.*(?::\d+:| at line \d+:)$|^\[warn\]\s*$",
    // black's closing line when it found files to reformat; R's when a
    // script stops on an error (`Rscript`, `R CMD check`'s tests). Both
    // are verdicts too.
    r"|^Oh no! 💥 💔 💥$|^Execution halted$",
    // Node's heading of the modules that required one it could not find,
    // over the first of them (`- /app/server.js`).
    r"|",
    error_list_heading!(),
    // behave's heading over the scenarios that raised (under `Failing
    // scenarios:`, over each one's place: `  features/a.feature:13  Zero`).
    r"|^Errored scenarios:$",
    // Erlang's runtime stopping on an error at boot (`erl -eval`,
    // escripts), the reason in the term it prints
    // (`{"init terminating in do_boot",{{badmatch,[1,2,3]},…}}`).
    r"|init terminating in do_boot\b",
    // A build step that exited non-zero under Docker's legacy builder,
    // and a command GNU time ran.
    r"|\breturned a non-zero code: -?\d+$|^Command exited with non-zero status -?\d+$",
    // A step BuildKit or Compose ran that failed (`service "migrate"
    // didn't complete successfully: exit 1`), the GitHub CLI's error status
    // (`HTTP 404: Not Found (https://api.github.com/…)`).
    r"|\bdid(?:n't| not) complete successfully\b|^HTTP [45]\d\d: [A-Z]",
    // git's merge conflicts, the kernel's and Kubernetes' OOM kills.
    r"|^CONFLICT \(|(?i:out of memory|OOMKilled)",
    // Minitest's verbose verdicts (`T#test_a = 0.00 s = F`), Jasmine's
    // failed expectations (`Expected 3 to equal 4.`); not Jest 22's
    // heading over a value (`Expected value to be:`), which ends on a
    // colon.
    r"|^\S+#\S+ = [\d.]+ s = [EF]$|^\s*Expected .+ (?:not )?to (?:be|equal|have|contain|match|throw)\b.*[^:\s]\s*$",
    // Django's system checks (`polls.Choice.question: (fields.E300) …`),
    // TAP::Harness's verdict on a test file that exited non-zero,
    // Test::More's on a test that died or ran short.
    r"|\((?:\w+\.)+E\d{3}\) \S|^Dubious, test returned|^# Looks like your test exited with [1-9]|^# Looks like you planned \d+ tests? but ran",
    // ShellCheck's findings at every level (`^--^ SC2086 (info): …`),
    // RuboCop's count, PHPStan's table rows (`  12     Call to an
    // undefined method Foo::bar().`; spaces, where `cat -n` and `nl` put
    // a tab), a push the remote refused (` !
    // [rejected]  main -> main`), `go vet`'s findings.
    r"|\bSC\d{4} \((?:error|warning|info|style)\):|\b[1-9]\d* offenses? detected\b|^ +\d{1,6} {3,}[A-Z].*\.$",
    r"|^\s*! \[(?:remote )?rejected\]|^vet: ",
    // BibTeX's errors, which end on where it read them (`I was expecting a
    // `,' or a `}'---line 9 of file refs.bib`, `I found no database
    // files---while reading file main.aux`); TeX's are read in their place
    // (`context::is_tex_error`).
    r"|---(?:line [0-9]+ of file|while reading file) [^ \t]+$",
    // A resolver's conclusion (uv's and pip's PubGrub: `And because your
    // project depends on numpy<1.20 and pandas>=2.2, we can conclude that
    // your project's requirements are unsatisfiable.`).
    r"|\brequirements are unsatisfiable\b",
    // nginx's records at the levels over `error` (`nginx: [emerg] unknown
    // directive "servr" in /etc/nginx/conf.d/shop.conf:3`, `[alert]`,
    // `[crit]`), whatever their words.
    r"|\[(?:emerg|alert|crit)\] ",
    // Perl::Critic's violations, whatever their words, by the severity
    // they close on (`lib/Shop/Cart.pm: Bareword file handle opened at
    // line 5, column 5.  See pages 202,204 of PBP.  (Severity: 5)`).
    r"|\(Severity: [1-5]\)$",
    // Lua's runtime errors (`lua: a.lua:3: attempt to call a nil value`).
    r"|\battempt to (?:call|index|perform arithmetic on|compare|concatenate) ",
    // What the shell says of a script (`line 3: APP_DIR: unbound
    // variable`), the system's error messages (`Connection refused`, `No
    // space left on device`), as C's `strerror` words them and as Go
    // does, in lower case after what failed (`listen tcp :8080: bind:
    // address already in use`, `dial tcp 127.0.0.1:5432: connect:
    // connection refused`, `read /data: is a directory`), Go's deadline,
    // a JSON document Python cannot decode (`Expecting ',' delimiter:
    // line 1 column 9 (char 8)`, as `python -m json.tool` prints it),
    // GNU sed's and grep's, an HTTP error status (`HTTP/2 404`), a run
    // the shell or `timeout` ended (`Terminated`), one Go's `go run` saw a
    // signal end (`signal: killed`), Python's exceptions
    // without `Error` in their names, pip's check.
    r"|\b(?:unbound variable|bad substitution|ambiguous redirect|integer expression expected|unary operator expected|binary operator expected|too many arguments|bad interpreter)\b",
    r"|[Cc]onnection refused|[Cc]onnection reset by peer|[Cc]onnection timed out|[Nn]etwork is unreachable|[Nn]o route to host|[Aa]ddress already in use|[Oo]peration not permitted|[Rr]ead-only file system",
    r"|[Nn]o space left on device|Is a directory|Not a directory|Directory not empty|: (?:is a directory|not a directory|directory not empty)$|^(?:[a-z]+ )?\S*: file exists$|[Aa]rgument list too long|[Tt]oo many open files|[Dd]evice or resource busy|[Tt]ext file busy",
    r"|[Cc]annot allocate memory|[Bb]ad file descriptor|: [Bb]roken pipe$|: i/o timeout$|\bcontext deadline exceeded\b|\[Errno \d+\]|[Dd]isk quota exceeded|Name or service not known|Temporary failure in name resolution|: no such host$|\bgetaddrinfo (?:ENOTFOUND|EAI_AGAIN)\b|: line \d+ column \d+ \(char \d+\)$",
    r"|^sed: -e expression #\d+, char \d+: |^grep: (?:Unmatched|Invalid|Trailing backslash)|^HTTP/[\d.]+ [45]\d\d\b|^Terminated$|^signal: (?:killed|segmentation fault|aborted|terminated|bus error|interrupt)$",
    // curl's error, numbered by its exit code, whatever its words (`curl:
    // (52) Empty reply from server`), optparse's usage error under the
    // usage (pip's `no such option: --no-find-links`).
    r"|^curl: \(\d+\) \S|^no such option: -",
    // What could not be done, worded as `Unable to` (the AWS CLI's `Unable
    // to locate credentials.`, kubectl's `Unable to connect to the server:
    // x509: …`, Poetry's `Unable to determine package info for path: …`),
    // not Docker's `Unable to find image 'nginx:latest' locally`
    // before it pulls; a connection the server refused, as kubectl words it
    // (`The connection to the server localhost:8080 was refused - did you
    // specify the right host or port?`); an object the Kubernetes API
    // rejects (`The Deployment "web" is invalid: spec.replicas: …`).
    r"|\b[Uu]nable to (?:connect|open|load|resolve|read|write|create|access|locate|start|parse|allocate|bind|import|fetch|download|install|execute|authenticate|recognize|compile|acquire|obtain|decode|verify|determine|retrieve|build|satisfy|infer|find (?:a|an|any|the|module|package|version|file)\b)\b",
    r"|\b[Cc]onnection to \S.{0,80}? was refused\b|\bis invalid: \S",
    // A server's access log record of a request that failed on its side.
    "|",
    server_error_record!(),
    // An agent's shell tool that ended a run (opencode's `bash tool
    // terminated command after exceeding timeout 60000 ms`, a watchdog's
    // `Process was terminated by watchdog`).
    r"|\bterminated command after exceeding timeout\b|\bterminated by (?:watchdog|timeout|signal)\b",
    r"|^(?:KeyboardInterrupt|StopIteration|StopAsyncIteration|SystemExit|GeneratorExit)(?::|$)|\bhas requirement \S+, but you have\b",
    // A log record at the critical level (`- CRITICAL -`), Elm's headed
    // problems (`-- TYPE MISMATCH ----- src/Main.elm`).
    r"|\bCRITICAL\b|^-- [A-Z][A-Z' ]+ -{3,}",
    // pkg-config's package it cannot find, as `./configure`, Meson and
    // CMake pass it on (`No package 'libfoo' found`, `Package libfoo was
    // not found in the pkg-config search path.`, `Package 'libfoo',
    // required by 'app', not found`).
    r"|^No package '[^']+' found$|^Package [^ \t]+ was not found in the pkg-config search path\.$|^Package '[^']+', required by '[^']+', not found$",
    // apt's and dpkg's errors (`E: Unable to locate package libfoo-dev`),
    // what zsh says of a job a signal ended (`zsh: killed     node a.js`),
    // `timeout`'s of one that dumped core, Rust's stack overflow.
    r"|^E: [A-Z]|^(?:z|ba|da|k)?sh: (?:killed|segmentation fault|abort|bus error|terminated)\b|\bdumped core\b|\bhas overflowed its stack\b",
    // A package `npm ls` finds outside what asks for it (`└─┬
    // react@17.0.2 invalid: "^18.3.1" from the root project`) or missing
    // (`├── UNMET DEPENDENCY left-pad@^1.3.0`, `missing: left-pad@^1.3.0,
    // required by app@1.0.0`).
    r"|^[│| ]*(?:[├└]─[─┬]|[+`]-[-┬]) (?:\S+@\S+ (?:deduped )?invalid: |UNMET DEPENDENCY \S)|^npm (?:ERR!|error) missing: \S",
    // `npm ci` refusing a lock file out of sync with package.json
    // (`Missing: is-odd@3.0.1 from lock file`, `Invalid: lock file's
    // is-number@6.0.0 does not satisfy is-number@7.0.0`), `npm run` with
    // no such script (`Missing script: "build"`).
    r#"|^(?:npm (?:ERR!|error) )?(?:Missing: \S+ from lock file$|Invalid: lock file's \S+ does not satisfy \S|Missing script: ")"#,
    // C++'s uncaught exception (`terminate called after throwing an
    // instance of 'std::out_of_range'` above `  what():  …`).
    r"|^terminate called (?:after throwing an instance of|without an active exception)|^\s+what\(\):\s",
    // Stylelint's findings (`  3:5  ✖  Unexpected unknown property`),
    // Valgrind's, the sanitizers' closing line, a data race ThreadSanitizer
    // or Go's race detector reports under `WARNING:` (the run fails on it),
    // bandit's findings, the states of a Kubernetes pod that does not run.
    r"|^\s*\d+:\d+\s+✖\s|^==\d+== (?:Invalid (?:read|write|free)|Conditional jump or move depends on uninitialised|Use of uninitialised|Mismatched free|Syscall param|[\d,]+ bytes in [\d,]+ blocks are (?:definitely|indirectly|possibly) lost)",
    r"|^SUMMARY: \w+Sanitizer: |^WARNING: ThreadSanitizer: |^WARNING: DATA RACE$|^>> Issue: \[|\b(?:CrashLoopBackOff|ImagePullBackOff|ErrImagePull|CreateContainerConfigError)\b",
    // markdownlint's findings (`README.md:12:81 MD013/line-length Line
    // length [Expected: 80; Actual: 95]`, markdownlint-cli2's with `error`
    // before the rule), Apple's linker's missing symbols (`Undefined
    // symbols for architecture arm64:`); read with the path blanked too.
    r"|^(?:\S+\.(?:md|markdown|mdx)| ):\d+(?::\d+)? (?:error |warning )?MD\d{3}/|^Undefined symbols for architecture \S+:$",
    // codespell's misspellings (`README.md:3: teh ==> the`), which fail
    // its run.
    r"|^\s*\S*:\d+: [\w'-]+ ==> \S",
    // PowerShell's errors: a cmdlet's, in Windows PowerShell's view
    // (`Get-Content : Cannot find path 'C:\a.txt' because it does not
    // exist.`) and PowerShell 7's (`Get-Content: …`, `Write-Error: …`), by
    // the verbs cmdlets are named with (`Set-` only before the nouns of
    // PowerShell's own cmdlets: an HTTP response's `Set-Cookie:` is no
    // error); an error's category where no cmdlet raised it
    // (`InvalidOperation: You cannot call a method on a null-valued
    // expression.`); a command it does not know (`The term 'pytest' is not
    // recognized as a name of a cmdlet, …`), and cmd.exe's (`'pytest' is
    // not recognized as an internal or external command,`); a path that
    // does not exist; Pester's failed test (`[-] Cart.adds an item 12ms
    // (10ms|2ms)`) and its message (`Expected 90, but got 100.`).
    r"|^(?:Get|New|Remove|Add|Clear|Copy|Move|Rename|Invoke|Start|Stop|Restart|Test|Import|Export|Write|Read|Out|Select|Resolve|ConvertTo|ConvertFrom|Install|Uninstall|Update|Register|Unregister|Enable|Disable|Expand|Compress|Push|Pop|Join|Split|Wait|Find|Save|Publish|Format|Measure|Sort|Unblock)-[A-Z][A-Za-z]+ ?: \S",
    r"|^Set-(?:Location|Content|Item|ItemProperty|Variable|ExecutionPolicy|Acl|Service|StrictMode|Alias|PSDebug|Date) ?: \S",
    r"|^(?:InvalidOperation|InvalidArgument|InvalidData|InvalidType|ParserError|ObjectNotFound|PermissionDenied|ResourceUnavailable|NotSpecified|OperationStopped|MetadataError|OperationTimeout|ReadError|WriteError|SecurityError): \S",
    r"|\bis not recognized as (?:the|a) name of a cmdlet\b|\bis not recognized as an internal or external command\b|\bbecause it does not exist\.$",
    r"|^\s*\[-\] \S.* \d+(?:\.\d+)?m?s(?: \(.*\))?$|^\s*Expected .+, but got .+\.$",
    // A coverage threshold a test run did not reach (Jest's `Jest:
    // "global" coverage threshold for lines (80%) not met: 71.8%`).
    r"|(?i:\bthreshold\b.*\bnot met\b)",
    // Non-zero exits, Turborepo's among them (`command (/repo/apps/web)
    // pnpm run build exited (1)`).
    r"|(?i:exit(?:ed)?(?: with)? (?:code|status)\s*[:=]?\s*-?[1-9]\d*\b|returned non-zero|non-zero exit|returncode[:=]?\s*-?[1-9])|\bexited \(-?[1-9]\d*\)$",
);
/// ScalaTest's failed expectation, which ends with the spec's file and
/// line (`90.0 did not equal 81.0 (CartSpec.scala:27)`), read on the line
/// as printed: with the file's name blanked, it would look like any frame
/// (Valgrind's `at 0x10915E: main (cart.c:14)`).
pub(super) const SPEC_EXPECTATION: &str =
    r"\S \([\w$]+Spec\.scala:\d+\)$|\S \([\w$]+(?:Suite|Test)\.scala:\d+\)$";

pub(super) const WARNING: &str = concat!(
    r"(?i:\bwarn(?:ing|ings)?\b|\bdeprecat\w*)|\[WARN(?:ING)?\]|Warning\b|^w: (?:file:)?\S*\s*:\d+:\d+ |^w: \S*: \(\d+, \d+\): ",
    // apt's warnings (`W: GPG error: …`), oxlint's (`⚠`, `!` in miette's ASCII theme), Next.js's and
    // Stylelint's mark, Django's system checks (`(models.W042)`),
    // Perl's messages, which end with where they were raised (`Use of
    // uninitialized value $x in addition (+) at a.pl line 2.`; read with
    // the path blanked).
    r"|^W: [A-Z]|^\s*(?:\d+:\d+\s+)?⚠\s|^  ! (?:[\w@/.-]+\([\w@/.-]+\): |[A-Z`])|\((?:\w+\.)+W\d{3}\) \S|^[^#\s].* at (?:\S+ )?\s*line \d+(?:, <[^>]*> (?:line|chunk) \d+)?\.$",
    // Git's whitespace errors, as `git diff --check` and `git apply` print
    // them (`a.txt:2: trailing whitespace.`, `… space before tab in indent,
    // indent with spaces.`).
    r"|:\d+: (?:trailing whitespace|space before tab in indent|indent with spaces|tab in indent|new blank line at EOF|no newline at the end of file)(?:, [a-z ]+?(?: EOF)?)*\.$",
    // A check `R CMD check` notes (`* checking R code for possible problems
    // ... NOTE`).
    r"|^\* checking .+ \.\.\. NOTE$",
    // A test expected to fail that passed (pytest's `XPASS test_a.py::test_b`).
    r"|^XPASS |::\S* XPASS\b",
    // An access log record of a request refused as the client's error
    // (`"GET /orders/7 HTTP/1.1" 404 207`).
    r#"|\bHTTP/[\d.]+" 4\d\d\b|^\s*(?:GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) +(?:/\S* +)?4\d\d (?:in \d+(?:\.\d+)?m?s$|\d+(?:\.\d+)? ms\b)"#,
);
/// A run's counts of what passed and failed, as test runners and checkers
/// close on them (`1 failed, 3 passed in 0.2s`, `33 examples, 3
/// failures`, `Tests run: 4, Failures: 1`, unittest's `FAILED
/// (errors=1)`); not a number that a message goes on after, libpq's `…,
/// port 5432 failed: Connection refused`. A macro, so that [`COUNT`] and
/// [`SUMMARY`] are one pattern's text.
macro_rules! count_pattern {
    () => {
        concat!(
            r#"(?i:(?:^|[\s(\[{,;:=/|>'"])\d+ (?:passed|failed|skipped|errors?|failures?|warnings?|tests?|problems?|issues?|deselected|xfailed|xpassed|succeeded|pending|todo|vulnerabilit(?:y|ies)|findings?|violations?|diagnostics?)(?:$|[^:\w]))"#,
            r"|^\d+ files? (?:would be )?reformatted\b|^test result:|^Tests?:\s+\d|^Test (?:Files|Suites):|\bTests run: \d+, Failures: \d+|^Ran \d+ tests?\b|^OK(?:\s|$)|^FAILED \(|^Found \d+ errors?",
            // The counts a TAP producer prints last (node:test's `# tests 44`,
            // `# fail 2`, and its spec reporter's `ℹ fail 2`, the default from
            // Node 23 on), testthat's (`[ FAIL 3 | WARN 2 | SKIP 0 | PASS 21
            // ]`), Bun's (` 4 fail`).
            r"|^[#ℹ] (?:tests|suites|pass|fail|cancelled|skipped|todo) \d+$|^\[ FAIL \d+ \| WARN \d+ \| SKIP \d+ \| PASS \d+ \]$|^\s*\d+ (?:pass|fail)$",
            // node-tap's (`# { total: 44, pass: 40, fail: 4 }`).
            r"|^# \{ total: \d+, ",
            // Ansible's recap, a host's counts (`web1 : ok=4 changed=3
            // unreachable=0 failed=1 skipped=0 …`).
            r"|^\S+\s+: ok=\d+\s+changed=\d+\s+unreachable=\d+\s+failed=\d+",
            // Prettier's closing count of the files it would change
            // (`[warn] Code style issues found in 32 files. Run Prettier
            // with --write to fix.`).
            r"|\bCode style issues found in (?:\d+ files|the above file)",
            // Meson's table under its test run (`Fail:               2`).
            r"|^(?:Ok|Expected Fail|Fail|Unexpected Pass|Skipped|Timeout):\s+\d+\s*$",
        )
    };
}

/// A run's counts ([`count_pattern`]).
pub(super) const COUNT: &str = count_pattern!();

/// Summaries: a run's counts ([`COUNT`]), closing lines, exit codes.
pub(super) const SUMMARY: &str = concat!(
    count_pattern!(),
    r"|^=+ .* in [\d.]+m?s",
    r"|BUILD (?:SUCCESS|SUCCESSFUL|FAILED|FAILURE)|^Success: no issues|^All checks passed|^Your code has been rated at",
    r"|(?i:exit(?:ed)?(?: with)? (?:code|status)\s*[:=]?\s*-?\d+|returncode)|^\s*Finished .* target\(s\) in",
    // What an agent printed where it left part of an output out, so that
    // the form still says the output was cut there: Codex CLI's `[...
    // omitted 764 of 1020 lines ...]`, `[... output truncated to fit 10240
    // bytes ...]` and `…4100 tokens truncated…`; Claude Code's `... [638
    // lines truncated] ...`; OpenHands' `<response clipped><NOTE>…`;
    // mini-SWE-agent's `3968 characters elided`, SWE-agent's `… 3968
    // characters were elided.`; where the agent saved what it cut: Claude
    // Code's `Output too large (34.3KB). Full output saved to: …` above
    // its `Preview (first 2KB):`, opencode's `...output truncated...`
    // above its `Full output saved to: …`.
    r"|^Output too large \([\d.]+ ?[KMG]?i?B\)\.|^Full output saved to: \S|^Preview \(first [\d.]+ ?[KMG]?i?B\):$|^\.\.\.output truncated\.\.\.$",
    r"|\btruncated output as it exceeded\b",
    r"|^\[\.\.\. (?:omitted \d+ of \d+ lines|output truncated to fit \d+ bytes) \.\.\.\]$|…\d+ (?:tokens|chars) truncated…",
    r"|^\.\.\. \[\d+ lines truncated\] \.\.\.$|<response clipped>|^\d+ characters elided$|\b\d+ characters were elided\b",
);

/// Verdicts: what a build or runner says when it stops, pointing at the
/// messages above it (besides [`SUMMARY`]'s counts).
pub(super) const VERDICT: &str = concat!(
    r"^(?:FAIL|FAILED|ERROR|ok)(?:\s+\S+\s+[\d.]+m?s)?$|^(?:exit status|Exit code:?) -?\d+$|^BUILD FAIL|^FAILURE: Build failed|^error: (?:test failed|doctest failed|test run failed|could not compile|aborting due to|Recipe|\d+ targets? failed)|^g?make(?:\[\d+\])?: (?:\*\*\*|Target .+ not remade because of errors\.$)|^Errors parsing \S+$|^npm (?:ERR!|error) (?:code|errno|path|command|syscall|signal|workspace|location)\b|^error Command failed|^ELIFECYCLE\s+Command failed|^(?:nox > )?(?:Session \S+ failed\.|\* \S+: failed)$|^!{3,} .+ !{3,}$",
    // Django's `runtests.py` closing on how many tests failed (`1 test(s)
    // failed!`).
    r"|^\d+ test\(s\) failed!$",
    // npm's report of a workspace's script that failed, under what the
    // script printed (`npm ERR! Lifecycle script `lint:md` failed with
    // error:`, `npm ERR! Error: command failed`), a GitHub Actions step's
    // (`Error: Process completed with exit code 1.`).
    r"|^npm (?:ERR!|error) (?:Lifecycle script `[^`]+` failed with error:|Error: command failed$)",
    r"|^Error: Process completed with exit code \d+\.$",
    // Yarn's closing line (`➤ YN0000: · Failed with errors in 0s 52ms`)
    // and its word on a workspace's script that failed under `yarn
    // workspaces foreach` (`The command failed in workspace
    // @acme/api@workspace:packages/api with exit code 2`).
    r"|^(?:➤ )?(?:YN0000: · )?Failed with errors in \d|^The command failed (?:in workspace \S+ with exit code \d+$|for workspaces that are depended upon)",
    // Nx's (and Lerna's, which runs on it) closing lines over the tasks
    // whose output holds the errors (` NX   Running target build for 3
    // projects failed`, `Failed tasks:`).
    r"|^(?:NX|Lerna \(powered by Nx\))\s+Running targets? .+ failed$|^Failed tasks:$|^Tasks not run because their dependencies failed",
    // husky's word on a git hook that failed, under what the hook printed
    // (`husky - pre-commit script failed (code 1)`, before version 9
    // `husky - pre-commit hook exited with code 1 (error)`).
    r"|^husky - \S+ (?:script failed \(code \d+\)|hook exited with code \d+ \(error\))$",
    // npm-run-all's word on a script that failed (`ERROR: "lint:js" exited
    // with 1.`), and Lerna's before it ran on Nx (`lerna ERR! npm run build
    // exited 2 in '@acme/api'`).
    r#"|^ERROR: "[^"]+" exited with \d+\.$|^lerna ERR! .+ exited \d+ in '"#,
    // nginx's check of its configuration failing on the error above.
    r"|^nginx: configuration file \S+ test failed$",
    // Go's package that did not build for its tests (`FAIL\texample.com/gt
    // [build failed]`), make going on past a failed target under `-k` or
    // `-i` (`make: [Makefile:7: all] Error 2 (ignored)`).
    r"|^FAIL\s+\S+ \[(?:build|setup) failed\]$|^g?make(?:\[\d+\])?: \[.+\] Error \d+ \(ignored\)$",
    // What a build or runner says when it stops, pointing at the errors
    // above: Gradle, MSBuild, Ninja, CMake, Zig, Elixir, XCTest and Swift
    // Testing.
    r"|^> (?:Compilation (?:failed|error)|There were failing tests)|^Build FAILED\.?$|^ninja: build stopped|^-- Configuring incomplete, errors occurred",
    r"|^error: the following command failed with|transitive failure$|\(errors have been logged\)$|^Test Suite '.+' failed at |^[✘✗] Test .+ failed after [\d.]+ seconds",
    // Gradle's failed task and worker and its heading over them, a process that exited non-zero,
    // XCTest's failed case, `dotnet test`'s count, prove's verdicts,
    // RuboCop's count, Biome's closing line, an application server that
    // did not start.
    r"|^Execution failed for task '|^\* What went wrong:$|^> A failure occurred while executing |finished with non-zero exit value \d+|^Test Case '.+' failed \(|^Failed!\s+- Failed:",
    r"|^(?:> Task )?:\S+ FAILED$|^Failed tests?:\s+[\d, -]+$|^Non-zero exit status: \d+$",
    r"|^Result: FAIL$|^Failed \d+/\d+ subtests|\(Wstat: \d+|^Dubious, test returned|^# Looks like you failed|\boffenses? detected\b",
    r"|Some errors were emitted while running checks|Application startup failed",
    // xcodebuild's list of the build commands that failed and its count;
    // Angular's pointer at the component whose template holds the error
    // above; `cargo deny`'s closing line, check by check (`advisories
    // ok, bans FAILED, licenses ok, sources ok`).
    r"|^The following build commands failed:$|^\(\d+ failures?\)$|^Error occurs in the template of component \w+\.$",
    r"|^\w+ (?:ok|FAILED)(?:, \w+ (?:ok|FAILED))+$",
    // ansible-lint's closing count, over the findings it lists above.
    r"|^Failed: \d+ failure\(s\), \d+ warning\(s\) on \d+ files?\.",
    // R stopping on an error, and testthat stopping its run (`Error: Test
    // failures`, `Maximum number of failures exceeded; quitting at end of
    // file.`).
    r"|^Execution halted$|^Error: Test failures$|^Maximum number of failures exceeded; quitting",
    // A server's access log record of a request that failed on its side:
    // the exception logged above it says why.
    "|",
    server_error_record!(),
    // tsc's table of errors per file,
    // pnpm's and Deno's closing lines and Deno's headings, make's; pnpm's
    // word under a package's failed script in a recursive run, and its
    // closing line naming that script.
    r"|^Errors\s+Files$|\bELIFECYCLE\b.*(?:See above for more details|Command failed with exit code)|^error: Test failed$",
    r"|^Failed$|^ERR_PNPM_RECURSIVE_(?:RUN|EXEC)_FIRST_FAIL\b",
    r"|^make(?:\[\d+\])?: Target '.+' not remade because of errors\.$|^(?:FAILURES|ERRORS)$",
    // Cargo's list of failed tests, under the panics it names;
    // Surefire's counts (`[ERROR] Tests run: 43, Failures: 1, …`).
    r"|^failures:$|^(?:\[ERROR\] )?Tests run: \d+, Failures: \d+",
    // A linker's driver under the undefined references it found, Bazel's
    // closing line.
    r"|^collect2: error: ld returned \d+ exit status$|^(?:clang|gcc|g\+\+|cc|c\+\+)(?:-\d+)?: error: linker command failed|^FAILED: Build did NOT complete successfully",
    // CTest's closing line, sbt's list of failed suites, ScalaTest's
    // counts, sbt's failed task (`[error] (Test / test)
    // sbt.TestsFailedException: Tests unsuccessful`) and its count in
    // words (`[error] two errors found`).
    r"|^Errors while running CTest$|^\[error\] Failed tests:$|^\[info\] Tests: succeeded \d+, failed \d+|^\[info\] \*\*\* \d+ TESTS? FAILED \*\*\*$|^\[error\] \([\w /:-]+\) \S|^\[error\] (?:one|two|three|four|five|six|seven|eight|nine|\d+) errors? found$",
    // Cargo's closing warning, pip's pointers at a failed build's output
    // above, Flutter's.
    r"|^warning: build failed, waiting for other jobs to finish|^error: (?:subprocess-exited-with-error|metadata-generation-failed)$|^× Encountered error while |^× .+ did not run successfully\.$",
    r"|^Test failed\. See exception logs above\.$|^\d\d:\d\d \+\d+(?: ~\d+)?(?: -\d+)?: Some tests failed\.$",
    // A row of a boxed summary table (Cypress's `│ ✖  checkout.cy.ts … │`),
    // pytest's collection error without its message (`ERROR
    // tests/test_a.py`), cargo-nextest's list of failed tests under its
    // summary, rustdoc's and tox's closing lines, Maven's failed goal,
    // Nx's closing list.
    r"|^│.*│$|^ERROR \S+$|^FAIL \[\s*[\d.]+m?s\] \S+$|^Couldn't compile the test\.$|^evaluation failed :\(|^\S+: FAIL code \d+ \(|^\S+: exit -?\d+ \(",
    r"|^\[ERROR\] Failed to execute goal |targets? failed, including the following:$|^\[ERROR\] COMPILATION ERROR :?$",
    // A process killed by a signal: the message above says why.
    r"|^(?:Aborted|Segmentation fault|Illegal instruction|Bus error|Floating point exception|Killed|Terminated)(?: \(core dumped\))?$",
    // R's and black's closing lines (see `FAILURE`).
    r"|^Execution halted$|^Oh no! 💥 💔 💥$",
    // A TAP test's verdict (`not ok 41 - deep`, as Node's test runner and
    // prove print it), over or under the message that says why; Node's
    // test runner on a suite whose tests failed: their errors are above.
    r"|^not ok \d+\b|^error: '\d+ subtests? failed'$",
);

/// Report lines that open like a comment or a diff's line (see
/// `report_like_code`).
pub(super) const REPORT_LIKE_CODE: &str = concat!(
    r"^\s*# \S+:\d+:in |^# (?:tests|suites|pass|fail|cancelled|skipped|todo) \d+$|^# \{ total: \d+, ",
    // Test::More's diagnostics (`#   Failed test 'adds'`, `#   at
    // t/a.t line 3.`, `#     expected: '3'`, `# Looks like you
    // failed 1 test of 3.`).
    r"|^#\s+(?:Failed (?:\(TODO\) )?test\b|at \S+ line \d+\.$|got:|expected:)|^# Looks like (?:you|your test)\b",
    r"|^\s+- .+ -> .+ does not satisfy that requirement\.$",
    // A checker's finding after its place, line and column, whose message
    // quotes code (staticcheck's `cart.go:29:14: should use fmt.Errorf(...)
    // instead of errors.New(fmt.Sprintf(...)) (S1028)`); a search's match
    // (`rg --vimgrep`'s `a.go:29:14:\treturn …`) has no space before it.
    r"|^\S+:\d+:\d+: [A-Za-z]",
    // The fields under a Windows PowerShell error.
    r"|",
    powershell_field!(),
);

/// The fields of a TAP producer's YAML block other than its message, and
/// the level and code an error object Node prints carries among its
/// fields (the PostgreSQL client's `  severity: 'ERROR',` under
/// `PostgresError: relation "users" already exists`, `  code:
/// 'ERR_MODULE_NOT_FOUND',` under `Error [ERR_MODULE_NOT_FOUND]: Cannot
/// find module …`), and a field shown only as a placeholder (`  errors:
/// [Getter/Setter]`): the message says what failed.
pub(super) const TAP_FIELD: &str = concat!(
    r"^\s*(?:name|code|failureType|operator|location): '[^']*',?$|^\s*duration_ms: [\d.]+$|^ {2,}(?:expected|actual): |^\s+severity(?:_local)?: '[A-Z]+',?$",
    // A field Node's inspector shows only as a placeholder (Rolldown's
    // `  errors: [Getter/Setter]` under Vite's failed build).
    r"|^\s+[\w$]+: \[(?:Getter(?:/Setter)?|Setter|Array|Object|Function(?:: [^\]]*)?|Circular \*\d+)\],?$",
);

/// A linter's count of what its `--fix` could fix, after its findings and
/// its summary (ESLint's `12 errors and 0 warnings potentially fixable
/// with the `--fix` option.`): a summary, not another failure.
pub(super) const FIXABLE: &str =
    r"^\s*\d+ errors? and \d+ warnings? potentially fixable with the `--fix` option\.?$";
