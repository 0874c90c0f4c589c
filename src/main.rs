use clap::Parser;

fn main() -> std::process::ExitCode {
    card_referee::cli::run(card_referee::cli::Cli::parse())
}
