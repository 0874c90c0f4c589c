//! Learning a deck's symbol appearances.
//!
//! From labelled photos: each photo's card id says which symbols the card shows, but not which
//! blob is which. The correspondence is solved across cards: every symbol is on several cards, and
//! two cards that share exactly one symbol show it in both photos, so for each (card, symbol) the
//! blobs that best match a blob on each other card with that symbol get a vote; the votes give a
//! first one-to-one assignment per card, refined by matching every blob against the other cards'
//! exemplars of each symbol.
//!
//! For the built-in Cipher deck the renderer draws every card with the ground truth of where
//! each symbol lies, so no correspondence needs solving.

use std::path::Path;

use anyhow::{Context, Result, bail};
use opencv::core::{self, Mat, Size};
use opencv::imgproc;
use opencv::prelude::*;
use serde::{Deserialize, Serialize};

use super::blobs::{Blob, find_blobs};
use super::describe::{LEN, describe, distance};
use super::detect::{CANON, find_cards, rectify};
use crate::symbols::deck::{CardId, Deck, SymbolId};
use crate::symbols::render::{PictureDeck, render_card};

/// Format tag of a profile file (2: descriptors with the angular part; a profile of format 1 must
/// be enrolled again).
pub const PROFILE_FORMAT: &str = "symbol-profile/2";

/// Learnt appearances of every symbol of a deck.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SymbolProfile {
    pub format: String,
    /// The deck's name.
    pub deck: String,
    pub symbols: Vec<SymbolAppearance>,
}

/// One symbol's learnt appearance: descriptors of the blobs that showed it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SymbolAppearance {
    pub name: String,
    pub exemplars: Vec<Vec<f32>>,
}

impl SymbolProfile {
    pub fn load(path: &Path) -> Result<SymbolProfile> {
        let limit = crate::vision::cards::decks::profile::MAX_PROFILE_BYTES;
        let text = crate::text_input::read_text(path, limit, "a symbol profile")?;
        SymbolProfile::parse(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
    }

    /// Parses and checks a profile's JSON; the error is a one-line reason naming the field.
    pub fn parse(text: &str) -> std::result::Result<SymbolProfile, String> {
        let profile: SymbolProfile = serde_json::from_str(text)
            .map_err(|e| format!("malformed profile: {}", crate::text_input::json_error(&e)))?;
        if profile.format == "symbol-profile/1" {
            return Err(
                "profile format symbol-profile/1 was learnt by an older symbol reader: enrol the deck again".into()
            );
        }
        if profile.format != PROFILE_FORMAT {
            return Err(format!("unknown profile format {}", crate::text_input::escaped(&profile.format)));
        }
        for (i, symbol) in profile.symbols.iter().enumerate() {
            if let Some((j, bad)) = symbol.exemplars.iter().enumerate().find(|(_, e)| e.len() != LEN) {
                return Err(format!("symbols[{i}].exemplars[{j}] has {} values (expected {LEN})", bad.len()));
            }
        }
        Ok(profile)
    }

    pub fn save(&self, path: &Path) -> Result<()> {
        let text = serde_json::to_string(self)?;
        std::fs::write(path, text).with_context(|| format!("{}: cannot write", path.display()))
    }
}

/// The blobs and descriptors of one card seen in a photo, with the card id when known.
#[derive(Clone, Debug)]
pub struct CardObservation {
    pub card: CardId,
    pub blobs: Vec<Blob>,
    pub descriptors: Vec<Vec<f32>>,
}

/// A card's blobs and their descriptors.
pub type Observed = (Vec<Blob>, Vec<Vec<f32>>);

/// Blobs and descriptors of a canonical card.
pub fn observe_canonical(card: &Mat) -> Result<Observed> {
    let blobs = find_blobs(card)?;
    let descriptors = blobs.iter().map(describe).collect();
    Ok((blobs, descriptors))
}

/// Blobs and descriptors of the largest card in a photo (`None` when no card is found).
pub fn observe_photo(bgr: &Mat) -> Result<Option<Observed>> {
    let cards = find_cards(bgr)?;
    let Some(region) = cards.first() else {
        return Ok(None);
    };
    let canon = rectify(bgr, region)?;
    Ok(Some(observe_canonical(&canon)?))
}

/// One-to-one assignment of rows to columns by ascending cost (greedy).
fn greedy_assign(costs: &[Vec<f32>]) -> Vec<Option<usize>> {
    let mut entries: Vec<(f32, usize, usize)> =
        costs.iter().enumerate().flat_map(|(i, row)| row.iter().enumerate().map(move |(j, &c)| (c, i, j))).collect();
    entries.sort_by(|a, b| a.0.total_cmp(&b.0));
    let cols = costs.first().map_or(0, Vec::len);
    let mut row_of = vec![None; costs.len()];
    let mut col_used = vec![false; cols];
    for (_, i, j) in entries {
        if row_of[i].is_none() && !col_used[j] {
            row_of[i] = Some(j);
            col_used[j] = true;
        }
    }
    row_of
}

/// Learns a profile from observations of known cards. Returns the profile and, per observation,
/// which symbol each blob was found to show.
pub fn enroll_labelled(
    deck: &Deck,
    observations: &[CardObservation],
) -> Result<(SymbolProfile, Vec<Vec<Option<SymbolId>>>)> {
    let nsym = deck.symbols().len();
    let cards: Vec<&crate::symbols::deck::Card> = observations
        .iter()
        .map(|o| deck.card(o.card).with_context(|| format!("card {} is not in the deck", o.card)))
        .collect::<Result<_>>()?;
    // Observations showing each symbol.
    let mut holders: Vec<Vec<usize>> = vec![Vec::new(); nsym];
    for (k, card) in cards.iter().enumerate() {
        for &s in &card.symbols {
            holders[s].push(k);
        }
    }
    // Initial assignment: votes from pairs of cards sharing the symbol.
    let mut assignment: Vec<Vec<Option<SymbolId>>> = Vec::with_capacity(observations.len());
    for (k, obs) in observations.iter().enumerate() {
        let syms = &cards[k].symbols;
        let mut costs = vec![vec![0.0f32; syms.len()]; obs.descriptors.len()];
        for (j, &s) in syms.iter().enumerate() {
            for &other in holders[s].iter().filter(|&&o| o != k) {
                let od = &observations[other].descriptors;
                if od.is_empty() {
                    continue;
                }
                // The best pair between the two cards votes for our blob; every blob also pays its
                // distance to the other card's closest blob.
                let nearest: Vec<f32> = obs
                    .descriptors
                    .iter()
                    .map(|d| od.iter().map(|e| distance(d, e)).fold(f32::INFINITY, f32::min))
                    .collect();
                let best = (0..nearest.len()).min_by(|&a, &b| nearest[a].total_cmp(&nearest[b]));
                for (i, n) in nearest.iter().enumerate() {
                    costs[i][j] += n.min(2.0) - if Some(i) == best { 1.0 } else { 0.0 };
                }
            }
        }
        assignment.push(greedy_assign(&costs).into_iter().map(|j| j.map(|j| syms[j])).collect());
    }
    // Refinement: match each card's blobs against the other cards' exemplars of its symbols.
    for _ in 0..4 {
        let exemplars = collect_exemplars(nsym, observations, &assignment);
        let mut next = Vec::with_capacity(observations.len());
        for (k, obs) in observations.iter().enumerate() {
            let syms = &cards[k].symbols;
            let costs: Vec<Vec<f32>> = obs
                .descriptors
                .iter()
                .map(|d| {
                    syms.iter()
                        .map(|&s| {
                            let mut ds: Vec<f32> =
                                exemplars[s].iter().filter(|(o, _)| *o != k).map(|(_, e)| distance(d, e)).collect();
                            ds.sort_by(f32::total_cmp);
                            // Mean of the closest few: robust to a wrong exemplar.
                            let take = ds.len().min(3);
                            if take == 0 { 2.0 } else { ds[..take].iter().sum::<f32>() / take as f32 }
                        })
                        .collect()
                })
                .collect();
            next.push(greedy_assign(&costs).into_iter().map(|j| j.map(|j| syms[j])).collect());
        }
        if next == assignment {
            break;
        }
        assignment = next;
    }
    let exemplars = collect_exemplars(nsym, observations, &assignment);
    let profile = SymbolProfile {
        format: PROFILE_FORMAT.to_string(),
        deck: deck.name.clone(),
        symbols: (0..nsym)
            .map(|s| SymbolAppearance {
                name: deck.symbol_name(s).to_string(),
                exemplars: exemplars[s].iter().map(|(_, e)| e.clone()).collect(),
            })
            .collect(),
    };
    Ok((profile, assignment))
}

fn collect_exemplars(
    nsym: usize,
    observations: &[CardObservation],
    assignment: &[Vec<Option<SymbolId>>],
) -> Vec<Vec<(usize, Vec<f32>)>> {
    let mut out: Vec<Vec<(usize, Vec<f32>)>> = vec![Vec::new(); nsym];
    for (k, (obs, assigned)) in observations.iter().zip(assignment).enumerate() {
        for (d, s) in obs.descriptors.iter().zip(assigned) {
            if let Some(s) = s {
                out[*s].push((k, d.clone()));
            }
        }
    }
    out
}

/// Converts an RGBA image drawn by the renderer to a BGR card on white.
pub fn rgba_on_white(img: &image::RgbaImage) -> Result<Mat> {
    let (w, h) = img.dimensions();
    let mut mat = Mat::new_rows_cols_with_default(h as i32, w as i32, core::CV_8UC3, core::Scalar::all(255.0))?;
    let dst = mat.data_bytes_mut()?;
    for (i, p) in img.pixels().enumerate() {
        let a = p[3] as u32;
        for c in 0..3 {
            let v = (p[2 - c] as u32 * a + 255 * (255 - a)) / 255;
            dst[i * 3 + c] = v as u8;
        }
    }
    Ok(mat)
}

/// Learns a deck with pictures from its renderer: every card drawn at the canonical size, and
/// again small and scaled up (as a distant webcam sees it), each blob named by the ground truth.
pub fn enroll_rendered(deck: &PictureDeck) -> Result<SymbolProfile> {
    let nsym = deck.deck.symbols().len();
    let mut exemplars: Vec<Vec<Vec<f32>>> = vec![Vec::new(); nsym];
    for card in deck.deck.cards() {
        for size in [CANON as u32, CANON as u32 / 2] {
            let (img, placements) = render_card(deck, card.id, size)?;
            let mut canon = rgba_on_white(&img)?;
            if size != CANON as u32 {
                let mut up = Mat::default();
                imgproc::resize(&canon, &mut up, Size::new(CANON, CANON), 0.0, 0.0, imgproc::INTER_LINEAR)?;
                canon = up;
            }
            let k = CANON as f32 / size as f32;
            let (blobs, descriptors) = observe_canonical(&canon)?;
            for (blob, d) in blobs.iter().zip(descriptors) {
                // The placement whose centre is nearest the blob, if the blob lies within it.
                let nearest = placements
                    .iter()
                    .map(|p| {
                        let (dx, dy) = (p.center.0 * k - blob.center.0, p.center.1 * k - blob.center.1);
                        ((dx * dx + dy * dy).sqrt(), p)
                    })
                    .min_by(|a, b| a.0.total_cmp(&b.0));
                if let Some((dist, p)) = nearest
                    && dist < 0.5 * p.size * k
                {
                    exemplars[p.symbol].push(d);
                }
            }
        }
    }
    Ok(SymbolProfile {
        format: PROFILE_FORMAT.to_string(),
        deck: deck.deck.name.clone(),
        symbols: (0..nsym)
            .map(|s| SymbolAppearance {
                name: deck.deck.symbol_name(s).to_string(),
                exemplars: std::mem::take(&mut exemplars[s]),
            })
            .collect(),
    })
}

/// Reads an image file as BGR, with an error naming the file.
pub fn read_image(path: &Path) -> Result<Mat> {
    if !path.is_file() {
        bail!("{}: no such image", path.display());
    }
    // Truncated, too large or too small files are refused before OpenCV sees them.
    crate::vision::image_file::check_file(path).map_err(|reason| anyhow::anyhow!("{}: {reason}", path.display()))?;
    let img = opencv::imgcodecs::imread(path.as_os_str(), opencv::imgcodecs::IMREAD_COLOR)
        .with_context(|| format!("{}: unreadable image", path.display()))?;
    if img.empty() {
        bail!("{}: unreadable image", path.display());
    }
    crate::vision::image_file::check_size(img.cols() as u32, img.rows() as u32)
        .map_err(|reason| anyhow::anyhow!("{}: {reason}", path.display()))?;
    Ok(img)
}

/// Enrols a deck from a folder of labelled single-card photos (see [`super::labels`]). Photos in
/// which no card is found are skipped and listed.
pub fn enroll_folder(deck: &Deck, dir: &Path) -> Result<(SymbolProfile, Vec<String>)> {
    let images = super::labels::read_labels(dir)?;
    let mut observations = Vec::new();
    let mut skipped = Vec::new();
    for image in &images {
        let [card] = image.cards[..] else {
            skipped.push(format!("{} (shows {} cards, not one)", image.file, image.cards.len()));
            continue;
        };
        if deck.card(card).is_none() {
            bail!("{}: card {card} is not in deck {:?}", image.path.display(), deck.name);
        }
        let bgr = read_image(&image.path)?;
        match observe_photo(&bgr)? {
            Some((blobs, descriptors)) => observations.push(CardObservation { card, blobs, descriptors }),
            None => skipped.push(format!("{} (no card found)", image.file)),
        }
    }
    if observations.is_empty() {
        bail!("{}: no usable photo", dir.display());
    }
    let (profile, _) = enroll_labelled(deck, &observations)?;
    Ok((profile, skipped))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn greedy_assignment_is_one_to_one() {
        let costs = vec![vec![0.1, 0.2], vec![0.05, 0.9], vec![0.3, 0.3]];
        assert_eq!(greedy_assign(&costs), vec![Some(1), Some(0), None]);
    }

    #[test]
    fn a_profile_of_the_older_descriptors_asks_to_enrol_again() {
        let old = r#"{"format": "symbol-profile/1", "deck": "retail", "symbols": []}"#;
        assert!(SymbolProfile::parse(old).unwrap_err().contains("enrol the deck again"));
        let short = format!(
            r#"{{"format": "{PROFILE_FORMAT}", "deck": "d", "symbols": [{{"name": "a", "exemplars": [[0.5]]}}]}}"#
        );
        assert!(SymbolProfile::parse(&short).unwrap_err().contains(&format!("has 1 values (expected {LEN})")));
    }
}
