use clap::Parser;

fn main() -> std::process::ExitCode {
    // SAFETY: set before any other thread exists. FFmpeg (inside OpenCV) would otherwise print its
    // own lines for a file it cannot read, next to our one-line error.
    unsafe { std::env::set_var("OPENCV_FFMPEG_LOGLEVEL", "-8") };
    // Logs go to stderr; RUST_LOG=debug shows more.
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn".into()))
        .with_writer(std::io::stderr)
        .init();
    // OpenCV logs its own internal failures (e.g. each video backend it tries); our errors already
    // say what went wrong, once.
    let _ = opencv::core::set_log_level(opencv::core::LogLevel::LOG_LEVEL_SILENT);
    // Frame after frame the vision path frees and takes again the same large buffers.
    card_referee::vision::memory::keep_freed_buffers();
    card_referee::cli::run(card_referee::cli::Cli::parse())
}
