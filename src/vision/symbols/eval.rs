//! Evaluation over a labelled folder: card-id accuracy, symbol precision and recall, referee
//! accuracy over all pairs of labelled cards, and time per image.

use std::path::Path;
use std::time::Instant;

use anyhow::Result;

use super::enroll::read_image;
use super::identify::{SymbolCardDetection, SymbolRecognizer};
use super::labels::{LabelledImage, read_labels};
use crate::symbols::deck::{CardId, Deck, SymbolId};

/// What an evaluation measured.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EvalReport {
    pub images: usize,
    /// Labelled cards, and those recognised with the right id.
    pub cards: usize,
    pub cards_correct: usize,
    /// Identified detections that are not a labelled card of their image.
    pub false_cards: usize,
    /// Detections naming a card already named by another detection of the same image.
    pub repeated_names: usize,
    /// After the deck's correction: named symbols, those on the true card, distinct true ones.
    pub symbols_named: usize,
    pub symbols_named_correct: usize,
    /// Blobs' own readings before correction.
    pub raw_read: usize,
    pub raw_correct: usize,
    /// Symbols on the labelled cards (recall's denominator).
    pub symbols_expected: usize,
    pub symbols_found: usize,
    pub pairs: usize,
    /// Pairs whose recognised cards give the true shared symbol.
    pub pairs_correct: usize,
    /// Of those, pairs where that symbol was also located on both cards.
    pub pairs_located: usize,
    /// Pairs of cards lying in one photo, and those whose shared symbol the recognised cards give.
    pub pairs_in_photo: usize,
    pub pairs_in_photo_correct: usize,
    pub total_ms: f64,
    /// Per labelled card: (image, true id, recognised id).
    pub mistakes: Vec<(String, CardId, Option<CardId>)>,
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 { 0.0 } else { a as f64 / b as f64 }
}

impl EvalReport {
    pub fn card_accuracy(&self) -> f64 {
        ratio(self.cards_correct, self.cards)
    }
    pub fn symbol_precision(&self) -> f64 {
        ratio(self.symbols_named_correct, self.symbols_named)
    }
    pub fn symbol_recall(&self) -> f64 {
        ratio(self.symbols_found, self.symbols_expected)
    }
    pub fn raw_precision(&self) -> f64 {
        ratio(self.raw_correct, self.raw_read)
    }
    pub fn referee_accuracy(&self) -> f64 {
        ratio(self.pairs_correct, self.pairs)
    }
    pub fn referee_located(&self) -> f64 {
        ratio(self.pairs_located, self.pairs)
    }
    pub fn referee_accuracy_in_photo(&self) -> f64 {
        ratio(self.pairs_in_photo_correct, self.pairs_in_photo)
    }
    /// Detections that name a card wrongly: a card not in the photo, or one named twice.
    pub fn wrong_names(&self) -> usize {
        self.false_cards + self.repeated_names
    }
    pub fn ms_per_image(&self) -> f64 {
        if self.images == 0 { 0.0 } else { self.total_ms / self.images as f64 }
    }

    /// The printed report.
    pub fn text(&self) -> String {
        let mut out = format!(
            "images: {}\ncard-id accuracy: {:.2}% ({}/{}), false cards: {}, cards named twice: {}\n\
             symbol precision: {:.2}% ({}/{}), recall: {:.2}% ({}/{})\n\
             raw symbol reads (before deck correction) precision: {:.2}% ({}/{})\n\
             referee accuracy over all pairs: {:.2}% ({}/{}); shared symbol also located on both cards: {:.2}%\n\
             pairs lying in one photo: {:.2}% ({}/{})\n\
             ms per image: {:.1}\n",
            self.images,
            100.0 * self.card_accuracy(),
            self.cards_correct,
            self.cards,
            self.false_cards,
            self.repeated_names,
            100.0 * self.symbol_precision(),
            self.symbols_named_correct,
            self.symbols_named,
            100.0 * self.symbol_recall(),
            self.symbols_found,
            self.symbols_expected,
            100.0 * self.raw_precision(),
            self.raw_correct,
            self.raw_read,
            100.0 * self.referee_accuracy(),
            self.pairs_correct,
            self.pairs,
            100.0 * self.referee_located(),
            100.0 * self.referee_accuracy_in_photo(),
            self.pairs_in_photo_correct,
            self.pairs_in_photo,
            self.ms_per_image(),
        );
        for (file, truth, got) in &self.mistakes {
            let got = got.map_or("nothing".to_string(), |g| format!("card {g}"));
            out.push_str(&format!("  {file}: card {truth} read as {got}\n"));
        }
        out
    }
}

/// The detection taken for a labelled card: the one with its id, else the largest unmatched one
/// when the image shows a single card.
fn detection_for(found: &[SymbolCardDetection], truth: CardId, single: bool) -> Option<&SymbolCardDetection> {
    found.iter().find(|d| d.card == Some(truth)).or_else(|| if single { found.first() } else { None })
}

/// Evaluates a recogniser on a labelled folder.
pub fn evaluate(recognizer: &SymbolRecognizer, dir: &Path) -> Result<EvalReport> {
    evaluate_images(recognizer, &read_labels(dir)?)
}

/// Named cards the detections of one image repeat: a card named twice counts once extra.
fn repeated(found: &[SymbolCardDetection]) -> usize {
    let mut named: Vec<CardId> = found.iter().filter_map(|d| d.card).collect();
    let all = named.len();
    named.sort_unstable();
    named.dedup();
    all - named.len()
}

/// The shared symbol of two labelled cards (true id, recognised id) when their recognised ids give
/// the true one.
fn shared_right(
    deck: &Deck,
    (ta, ga): (CardId, Option<CardId>),
    (tb, gb): (CardId, Option<CardId>),
) -> Option<SymbolId> {
    let got = match (ga, gb) {
        (Some(a), Some(b)) if a != b => deck.shared_symbol(a, b),
        _ => None,
    };
    got.filter(|_| got == deck.shared_symbol(ta, tb))
}

/// The pairs of different labelled cards among `cards` (true id, recognised id), and those whose
/// recognised ids give the true shared symbol.
fn shared_symbols_right(deck: &Deck, cards: &[(CardId, Option<CardId>)]) -> (usize, usize) {
    let (mut pairs, mut right) = (0, 0);
    for (i, &a) in cards.iter().enumerate() {
        for &b in cards[i + 1..].iter().filter(|b| b.0 != a.0) {
            pairs += 1;
            right += usize::from(shared_right(deck, a, b).is_some());
        }
    }
    (pairs, right)
}

/// Evaluates a recogniser on labelled images.
pub fn evaluate_images(recognizer: &SymbolRecognizer, images: &[LabelledImage]) -> Result<EvalReport> {
    let deck: &Deck = recognizer.deck();
    if images.is_empty() {
        anyhow::bail!("no labelled images: there is nothing to score");
    }
    let mut report = EvalReport::default();
    // Per labelled card: (true id, recognised id, symbols named on it).
    let mut seen: Vec<(CardId, Option<CardId>, Vec<usize>)> = Vec::new();
    for image in images {
        let bgr = read_image(&image.path)?;
        let start = Instant::now();
        let found = recognizer.detect(&bgr)?;
        report.total_ms += start.elapsed().as_secs_f64() * 1000.0;
        report.images += 1;
        report.false_cards += found.iter().filter(|d| d.card.is_some_and(|c| !image.cards.contains(&c))).count();
        report.repeated_names += repeated(&found);
        let first = seen.len();
        for &truth in &image.cards {
            let Some(card) = deck.card(truth) else {
                anyhow::bail!("{}: card {truth} is not in deck {:?}", image.path.display(), deck.name);
            };
            report.cards += 1;
            report.symbols_expected += card.symbols.len();
            let det = detection_for(&found, truth, image.cards.len() == 1);
            let got = det.and_then(|d| d.card);
            if got == Some(truth) {
                report.cards_correct += 1;
            } else {
                report.mistakes.push((image.file.clone(), truth, got));
            }
            let mut named = Vec::new();
            if let Some(d) = det {
                for s in &d.symbols {
                    if let Some(sym) = s.symbol {
                        report.symbols_named += 1;
                        if card.has(sym) {
                            report.symbols_named_correct += 1;
                            named.push(sym);
                        }
                    }
                    if let Some(r) = s.raw {
                        report.raw_read += 1;
                        if card.has(r) {
                            report.raw_correct += 1;
                        }
                    }
                }
            }
            named.sort_unstable();
            named.dedup();
            report.symbols_found += named.len();
            seen.push((truth, got, named));
        }
        let in_photo: Vec<(CardId, Option<CardId>)> = seen[first..].iter().map(|(t, g, _)| (*t, *g)).collect();
        let (pairs, right) = shared_symbols_right(deck, &in_photo);
        report.pairs_in_photo += pairs;
        report.pairs_in_photo_correct += right;
    }
    // Referee: for every pair of labelled cards, the shared symbol from the recognised cards must
    // be the true one (and, counted apart, be located on both cards).
    for i in 0..seen.len() {
        for j in i + 1..seen.len() {
            let (ta, ga, na) = &seen[i];
            let (tb, gb, nb) = &seen[j];
            if ta == tb {
                continue;
            }
            report.pairs += 1;
            if let Some(s) = shared_right(deck, (*ta, *ga), (*tb, *gb)) {
                report.pairs_correct += 1;
                if na.contains(&s) && nb.contains(&s) {
                    report.pairs_located += 1;
                }
            }
        }
    }
    Ok(report)
}
