//! `card-labels/1` files (shared/spec/formats.md) and the scoring rules they define.

use std::collections::HashMap;
use std::path::Path;

use serde::Deserialize;

use crate::cards::{Card, Rank};
use crate::text_input::{escaped, json_error};

/// The largest labels file read, in bytes (the shared photo sets' are a few kilobytes).
pub const MAX_LABELS_BYTES: u64 = 16 << 20;

/// One face-up label entry: an exact card, or `X?`, a card whose rank only is labelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LabelEntry {
    Exact(Card),
    RankOnly(Rank),
}

impl LabelEntry {
    pub fn parse(text: &str) -> Option<LabelEntry> {
        let text = text.trim();
        if let Some(rank) = text.strip_suffix('?') {
            return rank.parse::<Rank>().ok().map(LabelEntry::RankOnly);
        }
        text.parse::<Card>().ok().map(LabelEntry::Exact)
    }
}

/// The labels of one image.
#[derive(Clone, Debug, PartialEq)]
pub struct ImageLabels {
    pub file: String,
    pub face_up: Vec<LabelEntry>,
    pub optional: Vec<LabelEntry>,
    pub face_down: Option<u32>,
}

/// A whole `labels.json`.
#[derive(Clone, Debug, PartialEq)]
pub struct LabelSet {
    pub note: Option<String>,
    /// When present, only these ranks are labelled; predictions of other ranks are ignored.
    pub ranks: Option<Vec<Rank>>,
    pub images: Vec<ImageLabels>,
}

#[derive(Debug, thiserror::Error)]
pub enum LabelError {
    #[error("{path}: cannot read: {source}")]
    Io { path: String, source: std::io::Error },
    #[error("{path}: not a card-labels/1 file: {message}")]
    Malformed { path: String, message: String },
    /// Too large, or not UTF-8 (the line and column named).
    #[error("{0}")]
    Text(crate::text_input::TextError),
}

#[derive(Deserialize)]
struct RawSet {
    format: String,
    note: Option<String>,
    ranks: Option<Vec<String>>,
    images: Vec<RawImage>,
}

#[derive(Deserialize)]
struct RawImage {
    file: String,
    face_up: Vec<String>,
    #[serde(default)]
    optional: Vec<String>,
    face_down: Option<u32>,
}

impl LabelSet {
    pub fn load(path: &Path) -> Result<LabelSet, LabelError> {
        let text = crate::text_input::read_text(path, MAX_LABELS_BYTES, "a labels file").map_err(|e| match e {
            crate::text_input::TextError::Io { path, source } => {
                LabelError::Io { path: path.display().to_string(), source }
            }
            other => LabelError::Text(other),
        })?;
        LabelSet::parse(&text).map_err(|message| LabelError::Malformed { path: path.display().to_string(), message })
    }

    /// Parses the JSON text; the error is a one-line reason naming the line, or the field and
    /// the image.
    pub fn parse(text: &str) -> Result<LabelSet, String> {
        let raw: RawSet = serde_json::from_str(text).map_err(|e| json_error(&e))?;
        if raw.format != "card-labels/1" {
            return Err(format!("format is {}, expected \"card-labels/1\"", escaped(&raw.format)));
        }
        // Scores over no image would read as perfect (precision and recall of 1).
        if raw.images.is_empty() {
            return Err("the images list is empty: there is nothing to score".to_string());
        }
        let ranks = match raw.ranks {
            None => None,
            Some(list) => Some(
                list.iter()
                    .enumerate()
                    .map(|(i, r)| {
                        r.parse::<Rank>()
                            .map_err(|_| format!("ranks[{i}]: {} is not a rank (A 2-10 J Q K)", escaped(r)))
                    })
                    .collect::<Result<Vec<_>, _>>()?,
            ),
        };
        let mut images = Vec::with_capacity(raw.images.len());
        for (i, image) in raw.images.into_iter().enumerate() {
            let entries = |field: &str, list: &[String]| {
                list.iter()
                    .enumerate()
                    .map(|(j, t)| {
                        LabelEntry::parse(t).ok_or_else(|| {
                            format!(
                                "images[{i}] ({}): {field}[{j}]: {} is not a card label (a card code such as QS \
                                 or 10H, or a rank then '?', such as J?)",
                                escaped(&image.file),
                                escaped(t)
                            )
                        })
                    })
                    .collect::<Result<Vec<_>, _>>()
            };
            images.push(ImageLabels {
                face_up: entries("face_up", &image.face_up)?,
                optional: entries("optional", &image.optional)?,
                face_down: image.face_down,
                file: image.file,
            });
        }
        Ok(LabelSet { note: raw.note, ranks, images })
    }
}

/// Counts for one image or summed over many.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Score {
    pub true_positives: u32,
    pub false_positives: u32,
    pub false_negatives: u32,
    /// (predicted, labelled) pairs where a prediction went unmatched and a label of another
    /// card went unmatched in the same image: the raw material for a confusion list.
    pub confusions: Vec<(String, String)>,
}

impl Score {
    pub fn precision(&self) -> f64 {
        ratio(self.true_positives, self.true_positives + self.false_positives)
    }
    pub fn recall(&self) -> f64 {
        ratio(self.true_positives, self.true_positives + self.false_negatives)
    }
    pub fn f1(&self) -> f64 {
        let (p, r) = (self.precision(), self.recall());
        if p + r == 0.0 { 0.0 } else { 2.0 * p * r / (p + r) }
    }
    pub fn add(&mut self, other: &Score) {
        self.true_positives += other.true_positives;
        self.false_positives += other.false_positives;
        self.false_negatives += other.false_negatives;
        self.confusions.extend(other.confusions.iter().cloned());
    }
}

fn ratio(a: u32, b: u32) -> f64 {
    if b == 0 { 1.0 } else { f64::from(a) / f64::from(b) }
}

/// Scores one image's predicted face-up cards exactly as formats.md says: predictions of ranks
/// outside `ranks` are ignored; then multiset matching, exact codes first, then `X?` entries by
/// rank, then `optional` entries (which count neither way).
pub fn score_image(predicted: &[Card], labels: &ImageLabels, ranks: Option<&[Rank]>) -> Score {
    let mut left: Vec<Card> = predicted.iter().copied().filter(|c| ranks.is_none_or(|r| r.contains(&c.rank))).collect();
    let mut exact: HashMap<Card, u32> = HashMap::new();
    let mut by_rank: HashMap<Rank, u32> = HashMap::new();
    for entry in &labels.face_up {
        match *entry {
            LabelEntry::Exact(card) => *exact.entry(card).or_default() += 1,
            LabelEntry::RankOnly(rank) => *by_rank.entry(rank).or_default() += 1,
        }
    }
    let mut tp = 0;
    left.retain(|card| take(&mut exact, card).then(|| tp += 1).is_none());
    left.retain(|card| take(&mut by_rank, &card.rank).then(|| tp += 1).is_none());
    let mut optional = labels.optional.clone();
    left.retain(|card| {
        let hit = optional
            .iter()
            .position(|e| *e == LabelEntry::Exact(*card))
            .or_else(|| optional.iter().position(|e| *e == LabelEntry::RankOnly(card.rank)));
        hit.map(|i| optional.swap_remove(i)).is_none()
    });
    let mut missed: Vec<String> = Vec::new();
    for (card, n) in &exact {
        missed.extend(std::iter::repeat_n(card.code(), *n as usize));
    }
    for (rank, n) in &by_rank {
        missed.extend(std::iter::repeat_n(format!("{rank}?"), *n as usize));
    }
    missed.sort();
    let mut wrong: Vec<String> = left.iter().map(|c| c.code()).collect();
    wrong.sort();
    let confusions = wrong.iter().cloned().zip(missed.iter().cloned()).collect();
    Score { true_positives: tp, false_positives: wrong.len() as u32, false_negatives: missed.len() as u32, confusions }
}

fn take<K: std::hash::Hash + Eq>(counts: &mut HashMap<K, u32>, key: &K) -> bool {
    match counts.get_mut(key) {
        Some(n) if *n > 0 => {
            *n -= 1;
            true
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cards(codes: &[&str]) -> Vec<Card> {
        codes.iter().map(|c| c.parse().unwrap()).collect()
    }

    fn image(face_up: &[&str], optional: &[&str]) -> ImageLabels {
        ImageLabels {
            file: "x.jpg".into(),
            face_up: face_up.iter().map(|t| LabelEntry::parse(t).unwrap()).collect(),
            optional: optional.iter().map(|t| LabelEntry::parse(t).unwrap()).collect(),
            face_down: Some(0),
        }
    }

    #[test]
    fn exact_matches_are_multisets() {
        let s = score_image(&cards(&["AS", "AS", "2H"]), &image(&["AS", "2H", "3C"], &[]), None);
        assert_eq!((s.true_positives, s.false_positives, s.false_negatives), (2, 1, 1));
        assert_eq!(s.confusions, vec![("AS".to_string(), "3C".to_string())]);
    }

    #[test]
    fn exact_codes_are_matched_before_rank_only_entries() {
        // Were 'J?' to take JS first, the exact JS label would go unmatched.
        let s = score_image(&cards(&["JS", "JH"]), &image(&["J?", "JS"], &[]), None);
        assert_eq!((s.true_positives, s.false_positives, s.false_negatives), (2, 0, 0));
        let s = score_image(&cards(&["JH"]), &image(&["JS"], &[]), None);
        assert_eq!((s.true_positives, s.false_positives, s.false_negatives), (0, 1, 1));
    }

    #[test]
    fn optional_entries_count_neither_way() {
        let s = score_image(&cards(&["10H", "KD"]), &image(&["KD"], &["10?", "QC"]), None);
        assert_eq!((s.true_positives, s.false_positives, s.false_negatives), (1, 0, 0));
        let s = score_image(&cards(&["10H", "10S"]), &image(&[], &["10?"]), None);
        assert_eq!((s.true_positives, s.false_positives, s.false_negatives), (0, 1, 0));
    }

    #[test]
    fn ranks_outside_the_labelled_ranks_are_ignored() {
        let ranks: Vec<Rank> = ["9", "A"].iter().map(|r| r.parse().unwrap()).collect();
        let s = score_image(&cards(&["2C", "AS", "9D"]), &image(&["A?"], &[]), Some(&ranks));
        assert_eq!((s.true_positives, s.false_positives, s.false_negatives), (1, 1, 0));
    }

    #[test]
    fn totals_give_precision_recall_f1() {
        let mut total = Score::default();
        total.add(&score_image(&cards(&["AS", "2H"]), &image(&["AS", "3H"], &[]), None));
        total.add(&score_image(&cards(&["KC"]), &image(&["KC"], &[]), None));
        assert!((total.precision() - 2.0 / 3.0).abs() < 1e-9);
        assert!((total.recall() - 2.0 / 3.0).abs() < 1e-9);
        assert!((total.f1() - 2.0 / 3.0).abs() < 1e-9);
    }

    #[test]
    fn parses_and_rejects_label_files() {
        let set = LabelSet::parse(
            r#"{"format":"card-labels/1","ranks":["9","10"],"images":[
                {"file":"a.jpg","face_up":["9?","10h"],"optional":["J?"],"face_down":null}]}"#,
        )
        .unwrap();
        assert_eq!(set.ranks.as_ref().unwrap().len(), 2);
        assert_eq!(set.images[0].face_up[1], LabelEntry::Exact("10H".parse().unwrap()));
        assert_eq!(set.images[0].face_down, None);
        assert!(LabelSet::parse(r#"{"format":"other","images":[]}"#).is_err());
        assert!(
            LabelSet::parse(r#"{"format":"card-labels/1","images":[{"file":"a","face_up":["ZZ"],"face_down":0}]}"#)
                .is_err()
        );
        assert!(LabelSet::parse("not json").is_err());
    }
}
