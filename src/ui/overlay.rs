//! Drawn over the live image: each seat's rows and the piles, each card found (green: read,
//! blue: face down, orange: face up but unread) with its label, and the last ruled move as
//! arrows from where each card was to where it went.

use egui::{Color32, Pos2, Rect, Stroke};

use crate::live::Snapshot;
use crate::live::marks::CardKind;

const READ: Color32 = Color32::from_rgb(80, 210, 120);
const DOWN: Color32 = Color32::from_rgb(90, 150, 255);
const UNREAD: Color32 = Color32::from_rgb(255, 160, 40);
const ARROW: Color32 = Color32::from_rgb(255, 220, 60);
const ZONE: Color32 = Color32::from_rgba_premultiplied(200, 200, 200, 110);

/// Draws the snapshot's marks over the image shown at `shown` (image pixels scaled to it).
pub fn draw(ui: &egui::Ui, shown: Rect, snapshot: &Snapshot) {
    let [w, h] = snapshot.image_size;
    if w <= 0 || h <= 0 {
        return;
    }
    let painter = ui.painter_at(shown);
    let to_screen = |p: [f32; 2]| {
        Pos2::new(shown.min.x + p[0] / w as f32 * shown.width(), shown.min.y + p[1] / h as f32 * shown.height())
    };
    let font = egui::FontId::proportional(13.0);
    for zone in &snapshot.zones {
        let points: Vec<Pos2> = zone.outline.iter().map(|p| to_screen(*p)).collect();
        painter.add(egui::Shape::closed_line(points.clone(), Stroke::new(1.0, ZONE)));
        if let Some(first) = points.first() {
            painter.text(*first, egui::Align2::LEFT_BOTTOM, &zone.label, egui::FontId::proportional(11.0), ZONE);
        }
    }
    for [from, to] in &snapshot.arrows {
        let (a, b) = (to_screen(*from), to_screen(*to));
        painter.arrow(a, b - a, Stroke::new(4.0, ARROW));
    }
    for card in &snapshot.cards {
        let colour = match card.kind {
            CardKind::Known => READ,
            CardKind::FaceDown => DOWN,
            CardKind::Unread => UNREAD,
        };
        let points: Vec<Pos2> = card.quad.iter().map(|p| to_screen(*p)).collect();
        painter.add(egui::Shape::closed_line(points.clone(), Stroke::new(2.0, colour)));
        // The label on the card's middle: cards in a row touch, so a corner label would overlap.
        let centre = points.iter().fold(egui::Vec2::ZERO, |sum, p| sum + p.to_vec2()) / points.len() as f32;
        let galley = painter.layout_no_wrap(card.label.clone(), font.clone(), Color32::BLACK);
        let tag = Rect::from_center_size(centre.to_pos2(), galley.size() + egui::vec2(6.0, 2.0));
        painter.rect_filled(tag, 3.0, colour);
        painter.galley(tag.min + egui::vec2(3.0, 1.0), galley, Color32::BLACK);
    }
}

/// Draws a mini-game's piles (thin), round cards (green read, orange not) and, ringed in yellow,
/// where the last verdict's shared symbol lies on the compared cards.
pub fn draw_rounds(ui: &egui::Ui, shown: Rect, snapshot: &Snapshot) {
    let (Some(view), [w, h]) = (&snapshot.minigame, snapshot.image_size) else { return };
    if w <= 0 || h <= 0 {
        return;
    }
    let painter = ui.painter_at(shown);
    let scale = shown.width() / w as f32;
    let to_screen = |p: [f32; 2]| Pos2::new(shown.min.x + p[0] * scale, shown.min.y + p[1] / h as f32 * shown.height());
    for pile in &view.piles {
        painter.circle_stroke(to_screen(pile.center), pile.radius * scale * 1.2, Stroke::new(1.0, ZONE));
        let below = to_screen(pile.center) + egui::vec2(0.0, pile.radius * scale * 1.25);
        painter.text(below, egui::Align2::CENTER_TOP, &pile.label, egui::FontId::proportional(12.0), ZONE);
    }
    for card in &view.cards {
        let colour = if card.known { READ } else { UNREAD };
        painter.circle_stroke(to_screen(card.center), card.radius * scale, Stroke::new(2.0, colour));
    }
    for spot in super::minigame_panel::shared_symbol_spots(view) {
        painter.circle_stroke(to_screen(spot), 14.0, Stroke::new(3.0, Color32::YELLOW));
    }
}
