//! Drawn over the live image: each seat's rows and the piles, each card found (green: read,
//! blue: face down, orange: face up but unread) with its label, and the last ruled move as
//! arrows from where each card was to where it went; while the layout is adjusted, its rows and
//! piles with handles to drag.

use egui::{Color32, Pos2, Rect, Stroke};

use crate::geometry::Pt;
use crate::live::Snapshot;
use crate::live::marks::CardKind;
use crate::table::{Row, TableLayout};

const READ: Color32 = Color32::from_rgb(80, 210, 120);
const DOWN: Color32 = Color32::from_rgb(90, 150, 255);
const UNREAD: Color32 = Color32::from_rgb(255, 160, 40);
const ARROW: Color32 = Color32::from_rgb(255, 220, 60);
const ZONE: Color32 = Color32::from_rgba_premultiplied(200, 200, 200, 110);
const DIFFERS: Color32 = Color32::from_rgb(255, 80, 80);

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
        // Where the table differs from the game while the referee is lost: the operator looks here.
        let (colour, width) = if zone.differs { (DIFFERS, 3.0) } else { (ZONE, 1.0) };
        painter.add(egui::Shape::closed_line(points.clone(), Stroke::new(width, colour)));
        if let Some(first) = points.first() {
            painter.text(*first, egui::Align2::LEFT_BOTTOM, &zone.label, egui::FontId::proportional(11.0), colour);
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

const HANDLE: Color32 = Color32::from_rgb(255, 220, 60);
/// A handle's radius on screen, in points.
const HANDLE_RADIUS: f32 = 9.0;

/// One point of a layout the operator can drag.
#[derive(Clone, Copy)]
enum Handle {
    RowStart { seat: usize, front: bool },
    RowEnd { seat: usize, front: bool },
    Deck,
    Discard,
}

/// Draws `layout` (being adjusted) over the image shown at `shown` with a round handle at each
/// row's first and last card and on each pile, and moves whichever handle is dragged. A row
/// keeps its other end where it was, its cards turned to lie along it.
pub fn adjust_layout(ui: &mut egui::Ui, shown: Rect, image_size: [i32; 2], layout: &mut TableLayout, names: &[String]) {
    let [w, h] = image_size;
    let (Some(to_image), true) = (layout.image_to_table().inverse(), w > 0 && h > 0) else { return };
    let to_table = layout.image_to_table();
    let (sx, sy) = (shown.width() / w as f32, shown.height() / h as f32);
    let to_screen = |p: Pt| {
        let i = to_image.apply(p);
        Pos2::new(shown.min.x + i.x as f32 * sx, shown.min.y + i.y as f32 * sy)
    };
    let from_screen =
        |p: Pos2| to_table.apply(Pt::new(f64::from((p.x - shown.min.x) / sx), f64::from((p.y - shown.min.y) / sy)));
    let painter = ui.painter_at(shown);
    for zone in crate::live::marks::zone_marks(layout, names) {
        let points: Vec<Pos2> =
            zone.outline.iter().map(|p| Pos2::new(shown.min.x + p[0] * sx, shown.min.y + p[1] * sy)).collect();
        painter.add(egui::Shape::closed_line(points, Stroke::new(2.0, HANDLE)));
    }
    let mut handles = vec![Handle::Deck, Handle::Discard];
    for seat in 0..layout.seats.len() {
        for front in [true, false] {
            handles.extend([Handle::RowStart { seat, front }, Handle::RowEnd { seat, front }]);
        }
    }
    for (k, handle) in handles.into_iter().enumerate() {
        let at = to_screen(point(layout, handle));
        let rect = Rect::from_center_size(at, egui::Vec2::splat(2.0 * HANDLE_RADIUS + 4.0));
        let response = ui.interact(rect, ui.make_persistent_id(("layout-handle", k)), egui::Sense::drag());
        let label = handle_label(handle, names);
        response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Button, true, label.clone()));
        let stroke = if response.hovered() || response.dragged() { 3.0 } else { 1.5 };
        painter.circle(at, HANDLE_RADIUS, Color32::from_black_alpha(90), Stroke::new(stroke, HANDLE));
        if response.dragged() {
            move_point(layout, handle, from_screen(at + response.drag_delta()));
        }
    }
}

fn row_mut(layout: &mut TableLayout, seat: usize, front: bool) -> &mut Row {
    let zones = &mut layout.seats[seat];
    if front { &mut zones.front } else { &mut zones.back }
}

fn point(layout: &TableLayout, handle: Handle) -> Pt {
    match handle {
        Handle::Deck => layout.deck.centre,
        Handle::Discard => layout.discard.centre,
        Handle::RowStart { seat, front } => row_of(layout, seat, front).first,
        Handle::RowEnd { seat, front } => row_of(layout, seat, front).last(),
    }
}

fn row_of(layout: &TableLayout, seat: usize, front: bool) -> Row {
    let zones = layout.seats[seat];
    if front { zones.front } else { zones.back }
}

fn move_point(layout: &mut TableLayout, handle: Handle, to: Pt) {
    match handle {
        Handle::Deck => layout.deck.centre = to,
        Handle::Discard => layout.discard.centre = to,
        Handle::RowStart { seat, front } => {
            let row = row_mut(layout, seat, front);
            *row = Row::through(to, row.last());
        }
        Handle::RowEnd { seat, front } => {
            let row = row_mut(layout, seat, front);
            *row = Row::through(row.first, to);
        }
    }
}

/// "Ann: Back Row, first card", for screen readers and tests.
fn handle_label(handle: Handle, names: &[String]) -> String {
    let name = |seat: usize| names.get(seat).cloned().unwrap_or_else(|| format!("P{}", seat + 1));
    let row = |front: bool| if front { "Front Row" } else { "Back Row" };
    match handle {
        Handle::Deck => "the deck".to_string(),
        Handle::Discard => "the discard pile".to_string(),
        Handle::RowStart { seat, front } => format!("{}: {}, first card", name(seat), row(front)),
        Handle::RowEnd { seat, front } => format!("{}: {}, last card", name(seat), row(front)),
    }
}
