//! The live camera view: the newest frame as a texture, scaled to fit, aspect kept.

use crate::capture::worker::ShownFrame;

#[derive(Default)]
pub struct LiveView {
    texture: Option<egui::TextureHandle>,
}

impl LiveView {
    /// Uploads a new frame (the only per-frame copy the UI makes).
    pub fn update(&mut self, ctx: &egui::Context, shown: &ShownFrame) {
        let size = [shown.frame.width() as usize, shown.frame.height() as usize];
        let image = egui::ColorImage::from_rgba_unmultiplied(size, &shown.rgba);
        match &mut self.texture {
            Some(texture) => texture.set(image, egui::TextureOptions::LINEAR),
            None => self.texture = Some(ctx.load_texture("live-view", image, egui::TextureOptions::LINEAR)),
        }
    }

    /// Draws the frame scaled to fit; returns where it lies on screen (for the overlays).
    pub fn show(&self, ui: &mut egui::Ui, waiting_text: &str) -> Option<egui::Rect> {
        let Some(texture) = &self.texture else {
            ui.centered_and_justified(|ui| ui.heading(waiting_text));
            return None;
        };
        let available = ui.available_size();
        let [w, h] = texture.size().map(|v| v as f32);
        let scale = (available.x / w).min(available.y / h);
        let (space, _) = ui.allocate_exact_size(available, egui::Sense::hover());
        let rect = egui::Rect::from_center_size(space.center(), egui::vec2(w * scale, h * scale));
        egui::Image::new((texture.id(), rect.size())).paint_at(ui, rect);
        Some(rect)
    }
}
