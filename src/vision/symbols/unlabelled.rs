//! Enrolling a deck from photos whose card ids are not given.
//!
//! 1. Every photo's card is found and cut into symbol crops ([`super::enroll::observe_photo`]).
//! 2. The crops are clustered into symbol classes across photos ([`super::cluster`]).
//! 3. The classes are named. The incidence structure alone cannot do it for a projective-plane
//!    deck: its symmetries map any symbol to any other with the same structure. So the user names a
//!    few classes (chosen so that the deck's structure fixes the rest) from exemplar crops, and the
//!    names spread: a photo holding two named classes is the one deck card with both symbols (two
//!    cards share one symbol only), a class on two identified photos is the symbol those cards
//!    share, and a class that is the only unnamed one on an identified photo is the card's one
//!    symbol left.
//! 4. With every identified photo's card id known, the profile is learnt as from labelled photos
//!    ([`super::enroll::enroll_labelled`]).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use opencv::core::{self, Mat, Scalar};
use opencv::prelude::*;
use serde::{Deserialize, Serialize};

use super::blobs::Blob;
use super::cluster::{Clustering, Crop, cluster_crops};
use super::describe::distance;
use super::enroll::{CardObservation, SymbolProfile, enroll_labelled, observe_photo, read_image};
use crate::symbols::deck::{CardId, Deck, SymbolId};
use crate::symbols::names::NameMatcher;

/// Format tag of the class-names file.
pub const NAMES_FORMAT: &str = "symbol-class-names/1";

const IMAGE_EXTENSIONS: [&str; 5] = ["jpg", "jpeg", "png", "bmp", "webp"];

/// One photo's card, cut into crops.
#[derive(Clone, Debug)]
pub struct PhotoCrops {
    pub file: String,
    pub blobs: Vec<Blob>,
    pub descriptors: Vec<Vec<f32>>,
}

/// Crops of every photo of a folder (file names sorted; `labels.json` is not read). Photos in
/// which no card is found are skipped and listed.
pub fn observe_folder(dir: &Path) -> Result<(Vec<PhotoCrops>, Vec<String>)> {
    if !dir.is_dir() {
        bail!("{}: not a folder", dir.display());
    }
    let mut paths: Vec<PathBuf> = Vec::new();
    for entry in std::fs::read_dir(dir).with_context(|| format!("{}: unreadable", dir.display()))? {
        let path = entry.with_context(|| format!("{}: unreadable", dir.display()))?.path();
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
        if path.is_file() && IMAGE_EXTENSIONS.contains(&ext.as_str()) {
            paths.push(path);
        }
    }
    paths.sort();
    if paths.is_empty() {
        bail!("{}: no images", dir.display());
    }
    let (mut photos, mut skipped) = (Vec::new(), Vec::new());
    for path in paths {
        let file = path.file_name().and_then(|s| s.to_str()).unwrap_or("").to_string();
        match observe_photo(&read_image(&path)?)? {
            Some((blobs, descriptors)) if descriptors.len() >= 2 => {
                photos.push(PhotoCrops { file, blobs, descriptors })
            }
            Some(_) => skipped.push(format!("{file} (fewer than two symbols found)")),
            None => skipped.push(format!("{file} (no card found)")),
        }
    }
    if photos.len() < 3 {
        bail!("{}: fewer than three usable photos", dir.display());
    }
    Ok((photos, skipped))
}

/// Which deck card each photo is and which symbol each class is, as far as known.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Naming {
    pub class_symbol: Vec<Option<SymbolId>>,
    pub photo_card: Vec<Option<CardId>>,
}

/// Spreads given class names over the structure (see the module notes). Votes, not single
/// observations, decide, so a misclustered crop does not derail it.
pub fn propagate(deck: &Deck, clustering: &Clustering, given: &[(usize, SymbolId)]) -> Naming {
    let classes = clustering.classes.len();
    let photos = clustering.class_of.len();
    let k = deck.symbols_per_card();
    let mut naming = Naming { class_symbol: vec![None; classes], photo_card: vec![None; photos] };
    for &(c, s) in given {
        naming.class_symbol[c] = Some(s);
    }
    let fixed: Vec<bool> = naming.class_symbol.iter().map(Option::is_some).collect();
    for _ in 0..4 * (classes + photos) {
        let mut changed = false;
        // Photos: the card whose symbols best agree with the named classes on them.
        for p in 0..photos {
            if naming.photo_card[p].is_some() {
                continue;
            }
            let named: Vec<SymbolId> =
                clustering.classes_on(p).iter().filter_map(|&c| naming.class_symbol[c]).collect();
            if named.len() < 2 {
                continue;
            }
            let mut scored: Vec<(i32, CardId)> = deck
                .cards()
                .iter()
                .map(|card| {
                    let hits = named.iter().filter(|&&s| card.has(s)).count() as i32;
                    (2 * hits - named.len() as i32, card.id)
                })
                .collect();
            scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
            let hits = (scored[0].0 + named.len() as i32) / 2;
            if hits >= 2 && scored.get(1).is_none_or(|s| s.0 < scored[0].0) {
                naming.photo_card[p] = Some(scored[0].1);
                changed = true;
            }
        }
        // Classes: the symbol shared by the identified photos holding them.
        for (c, &fixed) in fixed.iter().enumerate() {
            if fixed {
                continue;
            }
            let cards: Vec<CardId> = clustering.photos_of(c).iter().filter_map(|&p| naming.photo_card[p]).collect();
            let mut votes: Vec<(usize, SymbolId)> = Vec::new();
            for (i, &a) in cards.iter().enumerate() {
                for &b in &cards[i + 1..] {
                    if let Some(s) = deck.shared_symbol(a, b) {
                        match votes.iter_mut().find(|v| v.1 == s) {
                            Some(v) => v.0 += 1,
                            None => votes.push((1, s)),
                        }
                    }
                }
            }
            votes.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
            let mut best = match votes[..] {
                [(n, s), ..] if votes.get(1).is_none_or(|v| v.0 < n) => Some(s),
                _ => None,
            };
            // The only unnamed class on an identified photo that shows the whole card.
            if best.is_none() && naming.class_symbol[c].is_none() {
                for p in clustering.photos_of(c) {
                    let Some(card) = naming.photo_card[p].and_then(|id| deck.card(id)) else { continue };
                    let on = clustering.classes_on(p);
                    if on.len() != k || on.iter().filter(|&&o| naming.class_symbol[o].is_none()).count() != 1 {
                        continue;
                    }
                    let named: Vec<SymbolId> = on.iter().filter_map(|&o| naming.class_symbol[o]).collect();
                    let left: Vec<SymbolId> = card.symbols.iter().copied().filter(|s| !named.contains(s)).collect();
                    if let [s] = left[..] {
                        best = Some(s);
                        break;
                    }
                }
            }
            if best.is_some() && best != naming.class_symbol[c] {
                naming.class_symbol[c] = best;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    naming
}

/// How far names given for `known` classes would spread, from the structure alone: (classes
/// named, photos identified). Mirrors [`propagate`] without a deck.
fn closure(clustering: &Clustering, known: &[usize], k: usize) -> (usize, usize) {
    let classes = clustering.classes.len();
    let photos = clustering.class_of.len();
    let mut named = vec![false; classes];
    for &c in known {
        named[c] = true;
    }
    let mut identified = vec![false; photos];
    loop {
        let mut changed = false;
        for (p, id) in identified.iter_mut().enumerate() {
            if !*id && clustering.classes_on(p).iter().filter(|&&c| named[c]).count() >= 2 {
                *id = true;
                changed = true;
            }
        }
        for c in 0..classes {
            if named[c] {
                continue;
            }
            let on = clustering.photos_of(c).iter().filter(|&&p| identified[p]).count();
            let last = clustering.photos_of(c).iter().any(|&p| {
                let on = clustering.classes_on(p);
                identified[p] && on.len() == k && on.iter().filter(|&&o| !named[o]).count() == 1
            });
            if on >= 2 || last {
                named[c] = true;
                changed = true;
            }
        }
        if !changed {
            return (named.iter().filter(|&&n| n).count(), identified.iter().filter(|&&i| i).count());
        }
    }
}

/// The classes to ask the user to name: picked greedily, each the one whose name would spread
/// furthest, until further names would name only themselves.
pub fn classes_to_ask(clustering: &Clustering, k: usize) -> Vec<usize> {
    let mut ask: Vec<usize> = Vec::new();
    let mut reach = (0, 0);
    loop {
        let mut best: Option<((usize, usize, usize), usize)> = None;
        for c in (0..clustering.classes.len()).filter(|c| !ask.contains(c)) {
            let mut trial = ask.clone();
            trial.push(c);
            let (named, identified) = closure(clustering, &trial, k);
            let score = (named, identified, clustering.classes[c].len());
            if best.is_none_or(|b| score > b.0) {
                best = Some((score, c));
            }
        }
        let Some(((named, identified, _), c)) = best else { return ask };
        // A name that names only its own class (and identifies no photo) is not worth asking for,
        // except the first two, which only together identify a photo.
        if ask.len() >= 2 && named <= reach.0 + 1 && identified == reach.1 {
            return ask;
        }
        ask.push(c);
        reach = (named, identified);
    }
}

/// The crop of a class closest to its other members: the one shown to the user.
pub fn exemplar(photos: &[PhotoCrops], members: &[Crop]) -> Crop {
    let d = |x: Crop, y: Crop| distance(&photos[x.0].descriptors[x.1], &photos[y.0].descriptors[y.1]);
    *members
        .iter()
        .min_by(|&&x, &&y| {
            let sx: f32 = members.iter().map(|&m| d(x, m)).sum();
            let sy: f32 = members.iter().map(|&m| d(y, m)).sum();
            sx.total_cmp(&sy)
        })
        .expect("a class has members")
}

/// A crop drawn on white, twice its size, as BGR.
pub fn crop_image(blob: &Blob) -> Result<Mat> {
    let margin = 4;
    let (x0, y0) = blob.pixels.iter().fold((u16::MAX, u16::MAX), |a, p| (a.0.min(p.0), a.1.min(p.1)));
    let (x1, y1) = blob.pixels.iter().fold((0, 0), |a, p| (a.0.max(p.0), a.1.max(p.1)));
    let (w, h) =
        ((x1.saturating_sub(x0) as i32 + 1 + 2 * margin) * 2, (y1.saturating_sub(y0) as i32 + 1 + 2 * margin) * 2);
    let mut img = Mat::new_rows_cols_with_default(h, w, core::CV_8UC3, Scalar::all(255.0))?;
    let data = img.data_bytes_mut()?;
    for &(x, y, bgr) in &blob.pixels {
        let (u, v) = ((x - x0) as i32 + margin, (y - y0) as i32 + margin);
        for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
            let i = (((2 * v + dy) * w + 2 * u + dx) * 3) as usize;
            data[i..i + 3].copy_from_slice(&bgr);
        }
    }
    Ok(img)
}

/// The names file: every class, its exemplar crop, whether the user is asked to name it, and its
/// name once given.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClassNames {
    pub format: String,
    #[serde(default)]
    pub deck: String,
    /// Identifies the clustering the class numbers refer to.
    #[serde(default)]
    pub fingerprint: String,
    pub classes: Vec<ClassEntry>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClassEntry {
    /// `class-07`.
    pub class: String,
    /// The exemplar crop's PNG, next to the names file.
    #[serde(default)]
    pub image: String,
    /// The photo and crop the exemplar comes from.
    #[serde(default)]
    pub photo: String,
    #[serde(default)]
    pub crop: usize,
    /// Photos showing this class.
    #[serde(default)]
    pub photos: usize,
    /// The classes the user should name; naming others is allowed.
    #[serde(default)]
    pub ask: bool,
    pub name: Option<String>,
}

impl ClassNames {
    pub fn load(path: &Path) -> Result<ClassNames> {
        let limit = crate::vision::cards::labels::MAX_LABELS_BYTES;
        let text = crate::text_input::read_text(path, limit, "a class-names file")?;
        let names: ClassNames =
            serde_json::from_str(&text).with_context(|| format!("{}: malformed class names", path.display()))?;
        if names.format != NAMES_FORMAT {
            bail!("{}: unknown class-names format {:?}", path.display(), names.format);
        }
        Ok(names)
    }
}

/// Class label as written in the names file.
pub fn class_label(c: usize) -> String {
    format!("class-{:02}", c + 1)
}

/// Everything learnt from an unlabelled folder before the naming.
pub struct Unlabelled {
    pub photos: Vec<PhotoCrops>,
    pub clustering: Clustering,
    pub ask: Vec<usize>,
}

impl Unlabelled {
    pub fn new(deck: &Deck, photos: Vec<PhotoCrops>) -> Unlabelled {
        let descriptors: Vec<Vec<Vec<f32>>> = photos.iter().map(|p| p.descriptors.clone()).collect();
        let clustering = cluster_crops(&descriptors);
        let ask = classes_to_ask(&clustering, deck.symbols_per_card());
        Unlabelled { photos, clustering, ask }
    }

    /// A digest of the photos and the clustering, so that names are applied to the classes they
    /// were given for.
    pub fn fingerprint(&self) -> String {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let mut eat = |bytes: &[u8]| {
            for &b in bytes {
                h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
            }
        };
        for class in &self.clustering.classes {
            for &(p, b) in class {
                eat(self.photos[p].file.as_bytes());
                eat(&(b as u32).to_le_bytes());
            }
            eat(b"|");
        }
        format!("{h:016x}")
    }

    /// The names file for the user (no names filled in).
    pub fn request(&self, deck: &Deck) -> ClassNames {
        let classes = self
            .clustering
            .classes
            .iter()
            .enumerate()
            .map(|(c, members)| {
                let (p, b) = exemplar(&self.photos, members);
                ClassEntry {
                    class: class_label(c),
                    image: format!("{}.png", class_label(c)),
                    photo: self.photos[p].file.clone(),
                    crop: b,
                    photos: members.len(),
                    ask: self.ask.contains(&c),
                    name: None,
                }
            })
            .collect();
        ClassNames {
            format: NAMES_FORMAT.to_string(),
            deck: deck.name.clone(),
            fingerprint: self.fingerprint(),
            classes,
        }
    }

    /// Writes the names file and the exemplar crops into `dir`.
    pub fn write_request(&self, deck: &Deck, dir: &Path) -> Result<PathBuf> {
        std::fs::create_dir_all(dir).with_context(|| format!("{}: cannot create", dir.display()))?;
        let request = self.request(deck);
        for (entry, members) in request.classes.iter().zip(&self.clustering.classes) {
            let (p, b) = exemplar(&self.photos, members);
            let img = crop_image(&self.photos[p].blobs[b])?;
            let path = dir.join(&entry.image);
            if !opencv::imgcodecs::imwrite(path.as_os_str(), &img, &core::Vector::new()).unwrap_or(false) {
                bail!("{}: cannot write", path.display());
            }
        }
        let path = dir.join("names.json");
        std::fs::write(&path, serde_json::to_string_pretty(&request)?)
            .with_context(|| format!("{}: cannot write", path.display()))?;
        Ok(path)
    }

    /// The (class, symbol) pairs of a filled-in names file (`path` names it in errors).
    pub fn given_names(&self, deck: &Deck, names: &ClassNames, path: &Path) -> Result<Vec<(usize, SymbolId)>> {
        if !names.fingerprint.is_empty() && names.fingerprint != self.fingerprint() {
            bail!("{}: the names were given for other photos or another clustering", path.display());
        }
        let matcher = NameMatcher::new(deck);
        let mut given = Vec::new();
        for entry in &names.classes {
            let Some(name) = entry.name.as_deref().filter(|n| !n.trim().is_empty()) else { continue };
            let c = (0..self.clustering.classes.len())
                .find(|&c| class_label(c) == entry.class)
                .with_context(|| format!("{}: no class {:?}", path.display(), entry.class))?;
            let s = matcher.resolve(name).symbol().with_context(|| {
                format!("{}: {}: {name:?} is not a symbol of deck {:?}", path.display(), entry.class, deck.name)
            })?;
            given.push((c, s));
        }
        Ok(given)
    }

    /// Names the classes from the given names, identifies the photos and learns the profile from
    /// the identified ones.
    pub fn finish(&self, deck: &Deck, given: &[(usize, SymbolId)]) -> Result<(SymbolProfile, Naming)> {
        let naming = propagate(deck, &self.clustering, given);
        let observations: Vec<CardObservation> = self
            .photos
            .iter()
            .zip(&naming.photo_card)
            .filter_map(|(p, card)| {
                card.map(|card| CardObservation { card, blobs: p.blobs.clone(), descriptors: p.descriptors.clone() })
            })
            .collect();
        if observations.len() < 2 {
            bail!("the names given identify fewer than two photos: name the classes marked \"ask\"");
        }
        let (profile, _) = enroll_labelled(deck, &observations)?;
        Ok((profile, naming))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::symbols::deck::plane::projective_plane;

    /// A perfect clustering of a deck: one class per symbol, photos in deck order, every card's
    /// symbols shuffled by a fixed rotation so that crop order says nothing.
    fn perfect(deck: &Deck) -> Clustering {
        let mut classes = vec![Vec::new(); deck.symbols().len()];
        let mut class_of = Vec::new();
        for (p, card) in deck.cards().iter().enumerate() {
            let k = card.symbols.len();
            let order: Vec<SymbolId> = (0..k).map(|i| card.symbols[(i + p) % k]).collect();
            for (b, &s) in order.iter().enumerate() {
                classes[s].push((p, b));
            }
            class_of.push(order.into_iter().map(Some).collect());
        }
        Clustering { classes, class_of }
    }

    #[test]
    fn a_few_names_name_a_whole_projective_plane() {
        let deck = projective_plane(7).unwrap();
        let clustering = perfect(&deck);
        let ask = classes_to_ask(&clustering, deck.symbols_per_card());
        assert!(ask.len() <= 4, "{ask:?}");
        let given: Vec<(usize, SymbolId)> = ask.iter().map(|&c| (c, c)).collect();
        let naming = propagate(&deck, &clustering, &given);
        assert!(naming.class_symbol.iter().enumerate().all(|(c, s)| *s == Some(c)));
        let ids: Vec<Option<CardId>> = deck.cards().iter().map(|c| Some(c.id)).collect();
        assert_eq!(naming.photo_card, ids);
    }
}
