//! History forms of the outputs of toolchains agents run beyond those
//! captured in `outputs/` (TOOL-8): Gradle, .NET, Swift, Kotlin, CMake,
//! Ninja, clang, Go, Ruby, RuboCop, Rake, PHP, PHPStan, Terraform, GHC,
//! Elixir, pyright, Playwright, Vite, Next.js, Biome, oxlint, Docker, Zig,
//! pip, bash, ShellCheck, pre-commit, Django's checks, git, Lua, Perl,
//! prove, Valgrind, yarn after a git clone, Docker Compose, klog, sbt
//! and ScalaTest, golangci-lint, Go's race detector, webpack, esbuild,
//! Prettier, psql, MySQL, `dart analyze`, Bazel, dune, `forge test`, CTest,
//! a linker, pip and Cargo building native code, Go modules, Node's ES
//! modules, kubectl, Helm, the AWS CLI, Bundler, Composer, Pest, `flutter
//! test`, svelte-check, nbconvert, uv, cppcheck, pytest's collection
//! errors, tox, coverage.py, `npm ci`, pnpm, Nx, doctests, cargo-nextest,
//! `cargo audit`, staticcheck, Checkstyle, Prisma, Cypress, insta,
//! proptest, Clippy, Hypothesis, Miri, PowerShell and Pester, Go's
//! testify, doctest, R's testthat, Python's linters, Ansible, Nix, Julia,
//! Leiningen, xcodebuild, Meson, Hardhat, Jest's coverage thresholds,
//! Turborepo, bandit, `go test -json`, GitHub Actions logs, an Android
//! build, Angular, Metro, rebar3, SQLFluff, Crystal, timestamped logs,
//! `cargo deny`, Bun, drizzle-kit, Sphinx, MkDocs, nox, Pulumi, Deno's
//! diffs, ansible-lint, Credo, Elm, `go vet`, hadolint, ktlint,
//! markdownlint, `npm audit`, Stylelint, SwiftLint, TFLint, the shell tools of Gemini CLI, OpenHands and Codex CLI, and the
//! crashes of .NET, Dart, Swift, C++, Elixir, Kotlin and
//! Python (chained exceptions, asyncio): the workspace's
//! `tests/data/documented-outputs/`, written after
//! the format each tool's documentation and public bug reports show, with
//! their failure lines marked (`strata_ctx_testkit::MarkedOutput`).

use serde_json::json;
use strata_ctx_compress::Compressor;
use strata_ctx_testkit::documented_outputs as documented;

/// A cut of `output` to `size` bytes, half from its head and half from its
/// tail, on character boundaries: what a plain truncation keeps.
pub(crate) fn head_and_tail(output: &str, size: usize) -> String {
    let mut head = size / 2;
    while !output.is_char_boundary(head) {
        head -= 1;
    }
    let mut tail = output.len().saturating_sub(size - size / 2);
    while !output.is_char_boundary(tail) {
        tail += 1;
    }
    format!("{}{}", &output[..head], &output[tail..])
}

/// TOOL-8: every failure line of each toolchain survives, the last one
/// always, in a form no larger than the output and, over the outputs long
/// enough to be cut (2,000 bytes and more: shorter ones stay whole), under
/// 30 % of them (linters' reports are mostly findings, which all stay); a
/// head+tail cut of the same size keeps far fewer.
#[test]
fn tool_8_documented_toolchains_keep_every_failure_and_the_last() {
    let c = Compressor::new();
    let cases = documented();
    assert!(cases.len() >= 25, "{} cases", cases.len());
    let (mut raw, mut kept, mut ours, mut cut) = (0, 0, 0, 0);
    for case in &cases {
        let (form, _) = c.compress_text("Bash", &json!({"command": case.command}), &case.output);
        assert!(
            form.contains(&case.last),
            "{}: lost the last failure {:?}\n{form}",
            case.name,
            case.last
        );
        for failure in &case.failures {
            assert!(
                form.contains(failure.as_str()),
                "{}: lost {failure:?}\n{form}",
                case.name
            );
        }
        assert!(form.len() <= case.output.len(), "{}", case.name);
        // TOOL-11: a form condensed again is the same form.
        assert_eq!(
            c.compress_text("Bash", &json!({"command": case.command}), &form)
                .0,
            form,
            "{}",
            case.name
        );
        let plain = head_and_tail(&case.output, form.len());
        if case.output.len() >= 2_000 {
            raw += case.output.len();
            kept += form.len();
        }
        ours += case.failures.len();
        cut += case
            .failures
            .iter()
            .filter(|f| plain.contains(f.as_str()))
            .count();
    }
    assert!(kept * 10 < raw * 3, "{kept} of {raw} bytes");
    assert!(
        cut * 4 < ours * 3,
        "a head+tail cut keeps {cut} of {ours} failure lines"
    );
}

/// TOOL-8: Playwright names what it waited for (`Locator: …`) between its
/// failure and the assertion's operands: they are the failure's message
/// all the same, and stay beside it.
#[test]
fn tool_8_playwright_s_operands_under_its_locator_stay() {
    let c = Compressor::new();
    let case = documented().into_iter().find(|c| c.name == "playwright").unwrap();
    let (form, _) = c.compress_text("Bash", &json!({"command": case.command}), &case.output);
    for operand in ["Expected string: \"1\"", "Received string: \"0\""] {
        assert!(form.contains(operand), "{operand}\n{form}");
    }
}

/// TOOL-8: the line a code frame points at (`> 14 |`) is where the failure
/// is in the code: it stays, though the lines around it may go.
#[test]
fn tool_8_the_line_a_code_frame_points_at_stays() {
    let c = Compressor::new();
    let case = documented().into_iter().find(|c| c.name == "playwright").unwrap();
    let (form, _) = c.compress_text("Bash", &json!({"command": case.command}), &case.output);
    let pointed = "> 14 |   await expect(page.getByTestId('cart-count')).toHaveText('1');";
    assert!(form.contains(pointed), "{form}");
    // BuildKit points at the Dockerfile's failed step with `>>>`.
    let case = documented()
        .into_iter()
        .find(|c| c.name == "docker-build")
        .unwrap();
    let (form, _) = c.compress_text("Bash", &json!({"command": case.command}), &case.output);
    assert!(form.contains("   8 | >>> RUN npm ci"), "{form}");
    assert!(!form.contains("   6 |     COPY package*.json ./"), "{form}");
    // Far from the end, under a long frame and above a long run of passing
    // tests, the pointed line comes before the frame's other lines.
    let log = "FAIL src/cart.test.js\n  ● cart › applies discount\n\n    expect(received).toBe(expected)\n\n"
        .to_owned()
        + &(8..=16)
            .map(|n| {
                let mark = if n == 13 { ">" } else { " " };
                let caret = if n == 13 {
                    "\n       |                      ^"
                } else {
                    ""
                };
                format!("    {mark} {n} |   const line{n} = step({n});{caret}\n")
            })
            .collect::<String>()
        + "\n      at Object.<anonymous> (src/cart.test.js:13:22)\n\n"
        + &(0..300)
            .map(|i| format!("  ✓ adds item {i} (1 ms)\n"))
            .collect::<String>()
        + "Tests:       1 failed, 300 passed, 301 total\n";
    let (form, _) = c.compress_text("Bash", &json!({"command": "npx jest"}), &log);
    assert!(form.contains("> 13 |   const line13 = step(13);"), "{form}");
    assert!(!form.contains("   8 |   const line8"), "{form}");
    let jest = include_str!("outputs/jest-verbose-failing.txt");
    let (form, _) = c.compress_text("Bash", &json!({"command": "npx jest"}), jest);
    let pointed: Vec<&str> = jest
        .lines()
        .filter(|l| l.trim_start().starts_with("> "))
        .collect();
    assert!(!pointed.is_empty());
    assert!(pointed.iter().any(|l| form.contains(l.trim())), "{form}");
}
