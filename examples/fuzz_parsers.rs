//! Fuzzes the parsers of every input file (see `shared/fuzz.rs`): game records, match records,
//! deck.json, card and symbol labels, deck, back and symbol profiles, table layouts, journals.
//!
//! ```text
//! cargo run --release --example fuzz_parsers -- --parser all --inputs 1000000 --seed 1
//! cargo run --release --example fuzz_parsers -- --parser deck --replay target/fuzz-findings/deck-17.panic
//! ```
//!
//! Prints, per parser, the inputs run, their rate, how many were accepted, panics and broken
//! contracts, and the slowest input; saves each finding (the first few of each kind) under
//! `--out`. Exits with 1 when anything was found.

#[path = "shared/fuzz.rs"]
mod fuzz;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

#[derive(Parser)]
struct Args {
    /// A parser's name, or `all`.
    #[arg(long, default_value = "all")]
    parser: String,
    /// Inputs per parser.
    #[arg(long, default_value_t = 100_000)]
    inputs: u64,
    /// The index of the first input (a run is a window of a seed's sequence of inputs).
    #[arg(long, default_value_t = 0)]
    start: u64,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Where findings are saved.
    #[arg(long, default_value = "target/fuzz-findings")]
    out: PathBuf,
    /// Runs one saved input through the parser instead, and prints what it gave.
    #[arg(long)]
    replay: Option<PathBuf>,
    /// Writes the input of this index to stdout instead (with --parser, --seed).
    #[arg(long)]
    show: Option<u64>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let targets = fuzz::targets();
    let names: Vec<&str> = targets.iter().map(|t| t.name).collect();
    let chosen: Vec<&fuzz::Target> = targets.iter().filter(|t| args.parser == "all" || args.parser == t.name).collect();
    if chosen.is_empty() {
        eprintln!("--parser {}: not one of all, {}", args.parser, names.join(", "));
        return ExitCode::from(2);
    }
    if let Some(index) = args.show {
        use std::io::Write as _;
        let input = fuzz::make_input(chosen[0], args.seed, index);
        std::io::stdout().write_all(&input).ok();
        return ExitCode::SUCCESS;
    }
    if let Some(path) = &args.replay {
        let input = match std::fs::read(path) {
            Ok(input) => input,
            Err(e) => {
                eprintln!("{}: cannot read: {e}", path.display());
                return ExitCode::from(2);
            }
        };
        let mut found = false;
        for target in &chosen {
            let said = match target.run(&input) {
                Ok(fuzz::Outcome::Accepted) => "accepted".to_string(),
                Ok(fuzz::Outcome::Refused) => "refused, the error keeping the contract".to_string(),
                Ok(fuzz::Outcome::Broken(why)) => {
                    found = true;
                    format!("contract broken: {why}")
                }
                Err(panic) => {
                    found = true;
                    format!("PANIC: {panic}")
                }
            };
            println!("{}: {said}", target.name);
        }
        return if found { ExitCode::from(1) } else { ExitCode::SUCCESS };
    }
    println!("seed {}, inputs {}..{}", args.seed, args.start, args.start + args.inputs);
    println!(
        "{:<15} {:>9} {:>8} {:>10} {:>9} {:>7} {:>7} {:>12}",
        "parser", "inputs", "seconds", "inputs/s", "accepted", "panics", "broken", "slowest ms"
    );
    let mut found = false;
    for target in chosen {
        let report = fuzz::run(target, args.seed, args.start, args.inputs, Some(&args.out));
        println!(
            "{:<15} {:>9} {:>8.1} {:>10.0} {:>9} {:>7} {:>7} {:>12}",
            report.name,
            report.inputs,
            report.elapsed.as_secs_f64(),
            report.inputs_per_second(),
            report.accepted,
            report.panics,
            report.broken,
            format!("{:.2} (#{})", report.slowest.0.as_secs_f64() * 1000.0, report.slowest.1),
        );
        for finding in &report.findings {
            found = true;
            let kind = if finding.panic { "panic" } else { "broken" };
            let saved = finding.saved.as_ref().map_or(String::new(), |p| format!(" [{}]", p.display()));
            let shown: String = String::from_utf8_lossy(&finding.input).chars().take(200).collect();
            println!("  #{} {kind}: {}{saved}\n    input: {shown:?}", finding.index, finding.message);
        }
    }
    if found { ExitCode::from(1) } else { ExitCode::SUCCESS }
}
