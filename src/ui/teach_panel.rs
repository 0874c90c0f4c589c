//! Teaching a deck: the panel that says which card to hold up next and what the camera sees of
//! it, the outline of the card held drawn over the live image, and the hint that suggests
//! teaching when many face-up cards of a game stay unread.

use std::collections::VecDeque;

use egui::{Color32, Pos2, RichText, Stroke};

use super::command::UiCommand;
use super::said;
use crate::cards::Card;
use crate::live::Snapshot;
use crate::live::marks::CardKind;
use crate::live::teaching::{TeachOrder, TeachView};
use crate::vision::cards::decks::guided_enroll::{HOLD_FRAMES, Showing};

const HELD: Color32 = Color32::from_rgb(255, 220, 60);
const TAKEN: Color32 = Color32::from_rgb(80, 210, 120);

pub fn show(ui: &mut egui::Ui, view: &TeachView) -> Vec<UiCommand> {
    let mut commands = Vec::new();
    ui.heading("Teach this deck");
    ui.label("Hold up each card asked for, on its own and face up, inside the picture, until it is taken.");
    if let Some(error) = &view.error {
        ui.colored_label(said::BAD, error);
    }
    ui.separator();
    match view.asked {
        Some(card) => {
            ui.label("Hold up");
            ui.label(RichText::new(card_words(card)).size(34.0).strong().color(suit_colour(card)));
        }
        None => {
            ui.label(RichText::new("Every card is taught.").size(22.0).strong());
        }
    }
    ui.label(RichText::new(showing_text(view)).size(16.0));
    if let (Showing::Holding { frames }, Some(_)) = (&view.showing, view.asked) {
        ui.add(egui::ProgressBar::new(*frames as f32 / HOLD_FRAMES as f32).desired_width(220.0));
    }
    if let (Showing::Other(_), Some(asked)) = (&view.showing, view.asked)
        && ui.button(format!("It is the {asked}: take it")).clicked()
    {
        commands.push(UiCommand::Teach(TeachOrder::TakeAnyway));
    }
    ui.separator();
    let taught = view.taken.len();
    ui.label(format!("{taught} of {} cards taught", taught + view.left));
    ui.add(egui::ProgressBar::new(taught as f32 / (taught + view.left).max(1) as f32));
    ui.horizontal(|ui| {
        if ui.add_enabled(view.asked.is_some(), egui::Button::new("Skip this card")).clicked() {
            commands.push(UiCommand::Teach(TeachOrder::Skip));
        }
        if let Some(last) = view.taken.last()
            && ui.button(format!("Teach the {last} again")).clicked()
        {
            commands.push(UiCommand::Teach(TeachOrder::Back));
        }
    });
    ui.horizontal(|ui| {
        let finish = egui::Button::new("Finish and read with this deck");
        if ui.add_enabled(taught > 0, finish).on_hover_text("Cards not taught are read as before").clicked() {
            commands.push(UiCommand::FinishTeaching);
        }
        if ui.button("Cancel").clicked() {
            commands.push(UiCommand::CancelTeaching);
        }
    });
    if !view.taken.is_empty() {
        ui.separator();
        let list: Vec<String> = view.taken.iter().map(|c| c.code()).collect();
        ui.weak(format!("taught: {}", list.join(" ")));
    }
    commands
}

/// What the camera shows, in words.
fn showing_text(view: &TeachView) -> String {
    match (&view.showing, view.asked) {
        (_, None) => "Finish to read with it.".into(),
        (Showing::Nothing, _) => "No card in view.".into(),
        (Showing::Several(n), _) => format!("{n} cards in view: hold up one at a time."),
        (Showing::Holding { .. }, _) => "Hold it still…".into(),
        (Showing::Other(seen), Some(asked)) => format!("This looks like the {seen}, not the {asked}."),
        (Showing::Taken(card), _) => format!("{card} taken. Put it away and hold up the next."),
        (Showing::PutAway, _) => {
            let last = view.taken.last().map_or_else(String::new, |c| format!(" {c}"));
            format!("Put the{last} away and hold up the next.")
        }
    }
}

/// "Seven of hearts (7H)" (the window's fonts have no suit signs).
fn card_words(card: Card) -> String {
    const RANKS: [&str; 13] =
        ["Ace", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten", "Jack", "Queen", "King"];
    let rank = RANKS.get(usize::from(card.rank.value()).wrapping_sub(1)).copied().unwrap_or("?");
    let suit = match card.suit {
        crate::cards::Suit::Clubs => "clubs",
        crate::cards::Suit::Diamonds => "diamonds",
        crate::cards::Suit::Hearts => "hearts",
        crate::cards::Suit::Spades => "spades",
    };
    format!("{rank} of {suit} ({card})")
}

fn suit_colour(card: Card) -> Color32 {
    if card.is_red() { Color32::from_rgb(220, 60, 60) } else { Color32::from_gray(230) }
}

/// The outline of the card held, over the image shown at `shown`.
pub fn draw_outline(ui: &egui::Ui, shown: egui::Rect, view: &TeachView) {
    let [w, h] = view.image_size;
    let Some(quad) = view.outline.filter(|_| w > 0 && h > 0) else { return };
    let to_screen = |p: [f32; 2]| {
        Pos2::new(shown.min.x + p[0] / w as f32 * shown.width(), shown.min.y + p[1] / h as f32 * shown.height())
    };
    let colour = if matches!(view.showing, Showing::Taken(_) | Showing::PutAway) { TAKEN } else { HELD };
    let points: Vec<Pos2> = quad.iter().map(|p| to_screen(*p)).collect();
    ui.painter_at(shown).add(egui::Shape::closed_line(points, Stroke::new(3.0, colour)));
}

/// Refereed frames looked back on for the hint.
const HINT_FRAMES: usize = 90;
/// Face-up cards left unread in a frame for it to count as a frame of unread cards.
const HINT_UNREAD: usize = 3;

/// Watches the refereed frames for face-up cards the reader leaves unread: when most recent
/// frames have several, the window suggests teaching the deck.
#[derive(Default)]
pub struct UnreadHint {
    version: u64,
    recent: VecDeque<bool>,
}

impl UnreadHint {
    pub fn update(&mut self, snapshot: &Snapshot) {
        if snapshot.version == self.version || snapshot.frames == 0 {
            return;
        }
        self.version = snapshot.version;
        let unread = snapshot.cards.iter().filter(|c| c.kind == CardKind::Unread).count();
        self.recent.push_back(unread >= HINT_UNREAD);
        if self.recent.len() > HINT_FRAMES {
            self.recent.pop_front();
        }
    }

    /// Several cards stayed unread in at least three quarters of a full window of frames.
    pub fn suggests(&self) -> bool {
        self.recent.len() == HINT_FRAMES && 4 * self.recent.iter().filter(|u| **u).count() >= 3 * HINT_FRAMES
    }

    pub fn clear(&mut self) {
        self.recent.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::live::marks::CardMark;

    fn snapshot(version: u64, unread: usize) -> Snapshot {
        let mark = |kind| CardMark { quad: [[0.0; 2]; 4], kind, label: "?".into() };
        let mut cards: Vec<CardMark> = (0..unread).map(|_| mark(CardKind::Unread)).collect();
        cards.push(mark(CardKind::Known));
        Snapshot { version, frames: version, cards, ..Snapshot::default() }
    }

    #[test]
    fn teaching_is_suggested_only_when_cards_stay_unread_over_many_frames() {
        let mut hint = UnreadHint::default();
        for v in 1..=HINT_FRAMES as u64 {
            hint.update(&snapshot(v, if v % 5 == 0 { 0 } else { 3 }));
        }
        assert!(hint.suggests(), "four in five frames with three unread cards");
        hint.clear();
        for v in 1..=HINT_FRAMES as u64 {
            hint.update(&snapshot(1000 + v, if v % 2 == 0 { 0 } else { 4 }));
        }
        assert!(!hint.suggests(), "one frame in two");
        hint.clear();
        for v in 1..=HINT_FRAMES as u64 {
            hint.update(&snapshot(2000 + v, 2));
        }
        assert!(!hint.suggests(), "two unread cards are not many");
    }
}
