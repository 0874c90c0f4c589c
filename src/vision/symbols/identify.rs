//! Naming cards: every blob is compared with every symbol's learnt appearance, then every deck
//! card is scored by how well its symbols explain the blobs (one blob per symbol). The deck's
//! structure corrects misread symbols: a card wins on all its blobs together, and it must agree
//! with at least two blobs' own best readings (two symbols fix a card), else it is "unknown".

use anyhow::{Result, bail};
use opencv::core::Mat;

use super::blobs::Blob;
use super::describe::distance;
use super::detect::{CANON, CardRegion, distance as apart, find_cards_and_clusters, rectify};
use super::enroll::{SymbolProfile, enroll_rendered, observe_canonical};
use crate::symbols::deck::{CardId, Deck, SymbolId, decode};
use crate::symbols::render::PictureDeck;

/// A blob further than this from every exemplar of a symbol counts as not showing it.
const D_CAP: f32 = 2.4;
/// Below this confidence the evidence does not single out a card: the round thing is reported as
/// unknown (cards of another deck score about 0.0-0.04; deck cards in the retail photos 0.04 up).
const MIN_CONFIDENCE: f64 = 0.03;
/// How well the best card must explain the blobs on average (1: every blob matches a symbol of it
/// exactly, 0: none matches at all). Beating the runner-up is not enough: a card of another deck
/// has one card that fits its blobs least badly (retail cards in webcam photos fit the profile
/// enrolled from another webcam at 0.38 and up, from flatbed scans at 0.25 and up; rendered Cipher
/// cards fit the retail deck at 0.34 at most).
const MIN_FIT: f32 = 0.35;

/// Two symbols fix a card, but two misread blobs can fix a wrong one: a third symbol of the card
/// must explain a blob too.
const MIN_EXPLAINED: usize = 3;
/// A cluster of symbols found without its rim is a card only when its reading is this sure.
const MIN_CLUSTER_CONFIDENCE: f64 = 0.15;

/// A symbol seen on a card.
#[derive(Clone, Debug, PartialEq)]
pub struct SeenSymbol {
    /// The symbol, once the card is known (`None` for a blob the card does not explain).
    pub symbol: Option<SymbolId>,
    pub name: Option<String>,
    /// Centre in image pixels.
    pub center: (f32, f32),
    pub confidence: f64,
    /// The blob's own best reading, before the deck's correction.
    pub raw: Option<SymbolId>,
}

/// A round card found in a frame.
#[derive(Clone, Debug, PartialEq)]
pub struct SymbolCardDetection {
    /// `None`: a round thing that is not (recognisably) a card of the deck.
    pub card: Option<CardId>,
    pub confidence: f64,
    pub region: CardRegion,
    pub symbols: Vec<SeenSymbol>,
}

/// Recognises the cards of one deck with one learnt profile.
pub struct SymbolRecognizer {
    deck: Deck,
    /// Exemplars per deck symbol.
    exemplars: Vec<Vec<Vec<f32>>>,
}

impl SymbolRecognizer {
    /// A recogniser for `deck` with the appearances in `profile` (matched to the deck by name).
    pub fn new(deck: Deck, profile: &SymbolProfile) -> Result<SymbolRecognizer> {
        let mut exemplars = vec![Vec::new(); deck.symbols().len()];
        for appearance in &profile.symbols {
            let Some(s) = deck.symbol_id(&appearance.name) else {
                bail!("profile symbol {:?} is not in deck {:?}", appearance.name, deck.name);
            };
            exemplars[s].extend(appearance.exemplars.iter().cloned());
        }
        if exemplars.iter().all(Vec::is_empty) {
            bail!("profile has no symbol appearances");
        }
        Ok(SymbolRecognizer { deck, exemplars })
    }

    /// The recognizer for a deck named as the command line names it ("cipher", "plane-N" or a
    /// deck.json, read relative to the working folder), as `profile` enrolled it; without a
    /// profile only the Cipher deck, whose appearance is built in.
    pub fn for_deck(deck_spec: &str, profile: Option<&std::path::Path>) -> Result<SymbolRecognizer> {
        let cwd = std::env::current_dir().unwrap_or_default();
        let deck = crate::symbols::load_deck(deck_spec, &cwd).map_err(|e| anyhow::anyhow!("{e}"))?;
        match profile {
            Some(path) => {
                use anyhow::Context;
                SymbolRecognizer::new(deck, &SymbolProfile::load(path)?).with_context(|| path.display().to_string())
            }
            None if deck_spec == crate::symbols::cipher::NAME => SymbolRecognizer::cipher(),
            None => bail!("{deck_spec}: no built-in appearance for this deck: give --profile (see `enroll symbols`)"),
        }
    }

    /// The built-in Cipher deck, learnt from its renderer.
    pub fn cipher() -> Result<SymbolRecognizer> {
        let deck = PictureDeck::cipher();
        let profile = enroll_rendered(&deck)?;
        SymbolRecognizer::new(deck.deck, &profile)
    }

    pub fn deck(&self) -> &Deck {
        &self.deck
    }

    /// Every round card in a BGR frame, and each cluster of symbols that reads as a card. A deck
    /// holds each card once: where two round things are named the same card, only the surer keeps
    /// the name.
    pub fn detect(&self, bgr: &Mat) -> Result<Vec<SymbolCardDetection>> {
        let seen = find_cards_and_clusters(bgr)?;
        let mut found: Vec<SymbolCardDetection> =
            seen.cards.iter().map(|&region| self.identify_region(bgr, region)).collect::<Result<_>>()?;
        let named: Vec<CardRegion> = found.iter().filter(|d| d.card.is_some()).map(|d| d.region).collect();
        for region in seen.clusters(&named) {
            let detection = self.identify_region(bgr, region)?;
            if detection.card.is_some() && detection.confidence >= MIN_CLUSTER_CONFIDENCE {
                // A round thing read as nothing where the cluster lies was this card, badly fitted.
                found.retain(|d| d.card.is_some() || apart(d.region.center, region.center) >= region.radius());
                found.push(detection);
            }
        }
        named_once(&mut found);
        Ok(found)
    }

    /// Identifies the card in one region of a frame.
    pub fn identify_region(&self, bgr: &Mat, region: CardRegion) -> Result<SymbolCardDetection> {
        let canon = rectify(bgr, &region)?;
        let (blobs, descriptors) = observe_canonical(&canon)?;
        Ok(self.identify_blobs(region, &blobs, &descriptors))
    }

    /// Distance of each blob to each symbol (capped).
    fn distances(&self, descriptors: &[Vec<f32>]) -> Vec<Vec<f32>> {
        descriptors
            .iter()
            .map(|d| self.exemplars.iter().map(|ex| ex.iter().map(|e| distance(d, e)).fold(D_CAP, f32::min)).collect())
            .collect()
    }

    /// Names the card from its blobs.
    pub fn identify_blobs(&self, region: CardRegion, blobs: &[Blob], descriptors: &[Vec<f32>]) -> SymbolCardDetection {
        let dist = self.distances(descriptors);
        let raw: Vec<Option<SymbolId>> = dist
            .iter()
            .map(|row| (0..row.len()).filter(|&s| row[s] < D_CAP).min_by(|&a, &b| row[a].total_cmp(&row[b])))
            .collect();
        // Score every card: one blob per symbol, greedily by distance.
        let mut scored: Vec<(f32, CardId, Vec<Option<SymbolId>>)> = self
            .deck
            .cards()
            .iter()
            .map(|card| {
                let mut pairs: Vec<(f32, usize, SymbolId)> = Vec::new();
                for (i, row) in dist.iter().enumerate() {
                    for &s in &card.symbols {
                        if row[s] < D_CAP {
                            pairs.push((row[s], i, s));
                        }
                    }
                }
                pairs.sort_by(|a, b| a.0.total_cmp(&b.0));
                let mut of_blob = vec![None; blobs.len()];
                let mut used: Vec<SymbolId> = Vec::new();
                let mut cost = D_CAP * blobs.len() as f32;
                for (d, i, s) in pairs {
                    if of_blob[i].is_none() && !used.contains(&s) {
                        of_blob[i] = Some(s);
                        used.push(s);
                        cost -= D_CAP - d;
                    }
                }
                (cost, card.id, of_blob)
            })
            .collect();
        scored.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let to_image = |p: (f32, f32)| region.to_image(p);
        let unknown = || SymbolCardDetection {
            card: None,
            confidence: 0.0,
            region,
            symbols: blobs
                .iter()
                .zip(&raw)
                .map(|(b, &r)| SeenSymbol {
                    symbol: None,
                    name: None,
                    center: to_image(b.center),
                    confidence: 0.0,
                    raw: r,
                })
                .collect(),
        };
        let Some((best_cost, card, of_blob)) = scored.first().cloned() else {
            return unknown();
        };
        let runner_up = scored.get(1).map_or(D_CAP * blobs.len() as f32, |s| s.0);
        // The deck's structure: the card must agree with at least two blobs' own readings,
        // and decoding those readings must not point elsewhere with more support.
        let readings: Vec<SymbolId> = raw.iter().flatten().copied().collect();
        let on_card = self.deck.card(card).map_or(0, |c| {
            let mut r = readings.clone();
            r.sort_unstable();
            r.dedup();
            r.iter().filter(|&&s| c.has(s)).count()
        });
        let decoded = decode(&self.deck, &readings);
        let agrees = decoded.as_ref().is_some_and(|d| d.card == card);
        let fit = 1.0 - best_cost / (D_CAP * blobs.len() as f32);
        let explained = of_blob.iter().filter(|s| s.is_some()).count();
        if blobs.len() < 2 || on_card < 2 || fit < MIN_FIT || explained < MIN_EXPLAINED {
            return unknown();
        }
        let margin = ((runner_up - best_cost) / D_CAP).max(0.0) as f64;
        let mut confidence = (margin / 2.0).min(1.0) * (explained as f64 / blobs.len() as f64);
        if !agrees {
            confidence *= 0.5;
        }
        if confidence < MIN_CONFIDENCE {
            return unknown();
        }
        let symbols = blobs
            .iter()
            .zip(of_blob.iter().zip(&raw))
            .enumerate()
            .map(|(i, (b, (&s, &r)))| SeenSymbol {
                symbol: s,
                name: s.map(|s| self.deck.symbol_name(s).to_string()),
                center: to_image(b.center),
                confidence: s.map_or(0.0, |s| (1.0 - dist[i][s] / D_CAP) as f64),
                raw: r,
            })
            .collect();
        SymbolCardDetection { card: Some(card), confidence, region, symbols }
    }
}

/// Leaves each card named by at most one detection, the most confident (the first on a tie).
fn named_once(found: &mut [SymbolCardDetection]) {
    for i in 0..found.len() {
        let Some(card) = found[i].card else { continue };
        let surer = found.iter().enumerate().any(|(j, d)| {
            j != i
                && d.card == Some(card)
                && (d.confidence > found[i].confidence || (d.confidence == found[i].confidence && j < i))
        });
        if surer {
            let d = &mut found[i];
            d.card = None;
            d.confidence = 0.0;
            for s in &mut d.symbols {
                s.symbol = None;
                s.name = None;
                s.confidence = 0.0;
            }
        }
    }
}

/// Canonical size, re-exported for callers drawing canonical cards.
pub const CANONICAL_DIAMETER: i32 = CANON;

/// The round cards the mini-game referee reads, free of the vision types.
impl SymbolCardDetection {
    pub fn round_card(&self) -> crate::symbols::seen::RoundCard {
        crate::symbols::seen::RoundCard {
            card: self.card,
            center: self.region.center,
            radius: self.region.radius(),
            symbols: self.symbols.iter().filter_map(|s| Some((s.symbol?, s.center))).collect(),
        }
    }
}

impl SymbolRecognizer {
    /// One frame's round cards, for the mini-game referee.
    pub fn round_cards(&self, bgr: &Mat) -> Result<Vec<crate::symbols::seen::RoundCard>> {
        Ok(self.detect(bgr)?.iter().map(SymbolCardDetection::round_card).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(card: Option<CardId>, confidence: f64) -> SymbolCardDetection {
        let region = CardRegion { center: (0.0, 0.0), axes: (50.0, 50.0), angle_deg: 0.0 };
        let symbols =
            vec![SeenSymbol { symbol: Some(3), name: Some("x".into()), center: (0.0, 0.0), confidence, raw: None }];
        SymbolCardDetection { card, confidence, region, symbols }
    }

    #[test]
    fn a_card_named_twice_keeps_the_name_only_where_it_is_surer() {
        let mut found =
            vec![named(Some(7), 0.3), named(Some(7), 0.8), named(Some(2), 0.4), named(Some(2), 0.4), named(None, 0.0)];
        named_once(&mut found);
        let cards: Vec<Option<CardId>> = found.iter().map(|d| d.card).collect();
        assert_eq!(cards, vec![None, Some(7), Some(2), None, None]);
        assert!(found[0].symbols.iter().all(|s| s.symbol.is_none()) && found[0].confidence == 0.0);
    }
}
