//! Tool outputs with their failure lines marked
//! (`tests/data/documented-outputs/`).

/// A command's output with its failure lines marked, as the files of
/// `tests/data/documented-outputs/` hold them: the first line is the
/// command (`$ cargo build`), a line marked `!!` is a failure line, `!L`
/// the last one, the line an agent acts on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MarkedOutput {
    /// The file's name without its extension (`gradle-test`).
    pub name: String,
    /// The command that printed the output.
    pub command: String,
    /// The output, without the marks.
    pub output: String,
    /// The failure lines, trimmed, in order.
    pub failures: Vec<String>,
    /// The last failure line, trimmed.
    pub last: String,
}

impl MarkedOutput {
    /// Reads a marked output; `None` when `marked` has no `$ ` command line
    /// or no `!L` line.
    ///
    /// ```
    /// use strata_ctx_testkit::MarkedOutput;
    ///
    /// let m = MarkedOutput::parse("go", "$ go vet\nok\n!!a.go:3:2: x\n!Lb.go:4:1: y\n").unwrap();
    /// assert_eq!(m.output, "ok\na.go:3:2: x\nb.go:4:1: y\n");
    /// assert_eq!(m.failures, ["a.go:3:2: x", "b.go:4:1: y"]);
    /// assert_eq!(m.last, "b.go:4:1: y");
    /// ```
    pub fn parse(name: &str, marked: &str) -> Option<MarkedOutput> {
        let (first, rest) = marked.split_once('\n')?;
        let command = first.strip_prefix("$ ")?.to_owned();
        let mut output = String::with_capacity(rest.len());
        let (mut failures, mut last) = (Vec::new(), None);
        for line in rest.split_inclusive('\n') {
            let body = line.strip_prefix("!!").or_else(|| line.strip_prefix("!L"));
            if let Some(body) = body {
                failures.push(body.trim().to_owned());
                if line.starts_with("!L") {
                    last = Some(body.trim().to_owned());
                }
            }
            output.push_str(body.unwrap_or(line));
        }
        Some(MarkedOutput {
            name: name.to_owned(),
            command,
            output,
            failures,
            last: last?,
        })
    }
}

/// The marked outputs of `tests/data/documented-outputs/` (`*.txt`), in name
/// order; a file that cannot be read or has no marks is left out.
pub fn documented_outputs() -> Vec<MarkedOutput> {
    marked_outputs("documented-outputs")
}

/// The marked outputs of `tests/data/captured-outputs/` (`*.txt`): what
/// real toolchains printed on sample projects with planted failures, in
/// name order; a file that cannot be read or has no marks is left out.
pub fn captured_outputs() -> Vec<MarkedOutput> {
    marked_outputs("captured-outputs")
}

fn marked_outputs(folder: &str) -> Vec<MarkedOutput> {
    crate::corpus::data_files(folder, "txt")
        .iter()
        .filter_map(|path| {
            let name = path.file_stem()?.to_string_lossy();
            MarkedOutput::parse(&name, &std::fs::read_to_string(path).ok()?)
        })
        .collect()
}
