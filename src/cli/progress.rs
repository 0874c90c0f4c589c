//! Progress bars for the long commands (`eval`, `render`): drawn on standard error when it is a
//! terminal, nothing at all when it is piped or redirected.

use indicatif::{ProgressBar, ProgressStyle};

/// A bar counting `total` steps of `what` (images, tables, frames).
pub fn bar(total: u64, what: &str) -> ProgressBar {
    let bar = ProgressBar::new(total);
    let template = format!("{{spinner}} {{bar:40}} {{pos}}/{{len}} {what} ({{elapsed}}, {{eta}} left)");
    if let Ok(style) = ProgressStyle::with_template(&template) {
        bar.set_style(style);
    }
    bar
}
