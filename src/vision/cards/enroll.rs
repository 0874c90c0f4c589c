//! Deck profiles: index glyphs cut from labelled photos of one deck, compared alongside the
//! built-in templates so that a user's own deck is read more reliably.

use std::path::Path;

use opencv::{imgcodecs, prelude::*};
use serde::{Deserialize, Serialize};

use super::classify::{GlyphClass, GlyphFeature, GlyphTemplates};
use super::detect::{CardDetector, Corner, find_card_quads, rectify};
use super::labels::{LabelEntry, LabelSet};
use crate::cards::{Card, Rank};

pub const PROFILE_FORMAT: &str = "card-referee-deck/1";

/// One enrolled glyph: `class` is a rank code (`10`, `Q`) or a suit letter (`H`).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ProfileGlyph {
    pub class: String,
    pub glyph: GlyphFeature,
}

/// A deck profile as saved on disk (JSON).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct DeckProfile {
    pub format: String,
    pub glyphs: Vec<ProfileGlyph>,
}

#[derive(Debug, thiserror::Error)]
pub enum EnrollError {
    #[error("{0}")]
    Labels(#[from] super::labels::LabelError),
    #[error("{path}: cannot read the image")]
    Image { path: String },
    #[error("{path}: {message}")]
    Profile { path: String, message: String },
    #[error("opencv: {0}")]
    OpenCv(#[from] opencv::Error),
}

/// What enrolment did with each photo.
#[derive(Clone, Debug, Default)]
pub struct EnrollReport {
    pub enrolled_cards: usize,
    pub corners: usize,
    /// Files skipped: not exactly one exact face-up label, or no card outline or index found.
    pub skipped: Vec<String>,
}

impl DeckProfile {
    /// Builds a profile from `DIR/labels.json` and single-card photos: for each image labelled
    /// with exactly one exact card, the largest card outline is rectified and both corners cut.
    pub fn enroll(dir: &Path) -> Result<(DeckProfile, EnrollReport), EnrollError> {
        let labels = LabelSet::load(&dir.join("labels.json"))?;
        let mut glyphs = Vec::new();
        let mut report = EnrollReport::default();
        for image in &labels.images {
            let card = match image.face_up.as_slice() {
                [LabelEntry::Exact(card)] => *card,
                _ => {
                    report.skipped.push(image.file.clone());
                    continue;
                }
            };
            let path = dir.join(&image.file);
            let frame = read_image(&path)?;
            let quads = find_card_quads(&frame, 0.05)?;
            let Some(quad) = quads.iter().max_by(|a, b| quad_area(a).total_cmp(&quad_area(b))) else {
                report.skipped.push(image.file.clone());
                continue;
            };
            let rectified = rectify(&frame, quad)?;
            let mut found = 0;
            for corner in [Corner::TopLeft, Corner::BottomRight] {
                if let Some((rank, suit)) = CardDetector::corner_features(&rectified, corner)? {
                    glyphs.push(ProfileGlyph { class: card.rank.code().to_string(), glyph: rank });
                    glyphs.push(ProfileGlyph { class: card.suit.letter().to_string(), glyph: suit });
                    found += 1;
                }
            }
            if found == 0 {
                report.skipped.push(image.file.clone());
            } else {
                report.enrolled_cards += 1;
                report.corners += found;
            }
        }
        Ok((DeckProfile { format: PROFILE_FORMAT.to_string(), glyphs }, report))
    }

    pub fn save(&self, path: &Path) -> Result<(), EnrollError> {
        let text = serde_json::to_string(self)
            .map_err(|e| EnrollError::Profile { path: path.display().to_string(), message: e.to_string() })?;
        std::fs::write(path, text)
            .map_err(|e| EnrollError::Profile { path: path.display().to_string(), message: e.to_string() })
    }

    pub fn load(path: &Path) -> Result<DeckProfile, EnrollError> {
        let bad = |message: String| EnrollError::Profile { path: path.display().to_string(), message };
        let text = std::fs::read_to_string(path).map_err(|e| bad(e.to_string()))?;
        let profile: DeckProfile = serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
        if profile.format != PROFILE_FORMAT {
            return Err(bad(format!("format is '{}', expected '{PROFILE_FORMAT}'", profile.format)));
        }
        Ok(profile)
    }

    /// The profile's glyphs as templates.
    pub fn templates(&self) -> GlyphTemplates {
        let mut templates = Vec::new();
        for g in &self.glyphs {
            let class = if let Ok(rank) = g.class.parse::<Rank>() {
                GlyphClass::Rank(rank)
            } else if let Ok(card) = format!("A{}", g.class).parse::<Card>() {
                GlyphClass::Suit(card.suit)
            } else {
                continue;
            };
            templates.push((class, g.glyph.clone()));
        }
        GlyphTemplates { templates }
    }
}

fn quad_area(q: &[[f32; 2]; 4]) -> f32 {
    (0..4).map(|i| q[i][0] * q[(i + 1) % 4][1] - q[(i + 1) % 4][0] * q[i][1]).sum::<f32>().abs() / 2.0
}

/// Reads a colour image; a missing or undecodable file is an error naming it.
pub fn read_image(path: &Path) -> Result<Mat, EnrollError> {
    let bad = || EnrollError::Image { path: path.display().to_string() };
    if !path.is_file() {
        return Err(bad());
    }
    let image = imgcodecs::imread(path, imgcodecs::IMREAD_COLOR).map_err(|_| bad())?;
    if image.empty() {
        return Err(bad());
    }
    Ok(image)
}
