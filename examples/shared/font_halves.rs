//! The installed fonts split in two, for the examples that measure on fonts a model was not
//! built from (`glyph_eval`, `glyph_net_eval`).
use std::sync::Arc;

pub type Fonts = Vec<Arc<[u8]>>;

/// Every installed font (`fc-list`) that draws the index characters, alternately into a training
/// and a test half.
pub fn font_halves() -> (Fonts, Fonts) {
    let out = std::process::Command::new("fc-list").args([":", "file"]).output().unwrap();
    let mut files: Vec<String> =
        String::from_utf8_lossy(&out.stdout).lines().map(|l| l.trim().trim_end_matches(':').to_string()).collect();
    files.sort();
    files.dedup();
    let (mut train, mut test) = (Vec::new(), Vec::new());
    for (i, f) in files.iter().enumerate() {
        let Ok(bytes) = std::fs::read(f) else { continue };
        if !card_referee::render::fonts::draws_indices(&bytes) {
            continue;
        }
        if i % 2 == 0 { train.push(Arc::from(bytes)) } else { test.push(Arc::from(bytes)) }
    }
    (train, test)
}
