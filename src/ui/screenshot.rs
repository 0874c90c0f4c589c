//! A picture of the window taken after it has run a while, saved as PNG, after which the window
//! closes (`card-referee window --screenshot`): how the README's screenshots are made, from the
//! real app.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Where to save the picture and how long to run first.
#[derive(Clone, Debug, PartialEq)]
pub struct ScreenshotPlan {
    pub path: PathBuf,
    pub after: Duration,
}

pub struct Shooter {
    plan: ScreenshotPlan,
    started: Instant,
    requested: bool,
    saved: Arc<AtomicBool>,
}

impl Shooter {
    pub fn new(plan: ScreenshotPlan) -> Shooter {
        Shooter { plan, started: Instant::now(), requested: false, saved: Arc::new(AtomicBool::new(false)) }
    }

    /// Called each frame: asks for the picture once the time is up, closes the window once it
    /// is saved.
    pub fn tick(&mut self, ctx: &egui::Context) {
        if self.saved.load(Ordering::Relaxed) {
            ctx.send_viewport_cmd(egui::ViewportCommand::Close);
            return;
        }
        if !self.requested && self.started.elapsed() >= self.plan.after {
            self.requested = true;
            let path = self.plan.path.clone();
            let saved = Arc::clone(&self.saved);
            let repaint = ctx.clone();
            ctx.request_screenshot(move |image| {
                match save(&image, &path) {
                    Ok(()) => eprintln!("saved {}", path.display()),
                    Err(e) => eprintln!("error: {}: cannot save the screenshot: {e}", path.display()),
                }
                saved.store(true, Ordering::Relaxed);
                repaint.request_repaint();
            });
        }
        ctx.request_repaint_after(Duration::from_millis(100));
    }
}

fn save(image: &egui::ColorImage, path: &std::path::Path) -> Result<(), String> {
    let [w, h] = image.size;
    let bytes: Vec<u8> = image.pixels.iter().flat_map(|p| p.to_array()).collect();
    let picture = image::RgbaImage::from_raw(w as u32, h as u32, bytes).ok_or("the picture has the wrong size")?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    }
    picture.save(path).map_err(|e| e.to_string())
}
