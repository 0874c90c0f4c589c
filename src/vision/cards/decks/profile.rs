//! Deck profiles: a user's own deck as the index networks see it (the embeddings of each card's
//! corner windows and loose index patches; `enroll` makes them, `enrolled` reads with them),
//! saved, loaded and checked.

use std::path::Path;

use opencv::{imgcodecs, prelude::*};
use serde::{Deserialize, Serialize};

use super::enrolled::Memory;
use crate::cards::Card;

pub const PROFILE_FORMAT: &str = "card-referee-deck/2";

/// The largest profile read, in bytes (an enrolled 52-card deck is about 2 MB).
pub const MAX_PROFILE_BYTES: u64 = 64 << 20;

/// One enrolled patch: the card it shows and the network's embedding of it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EnrolledPatch {
    pub card: Card,
    pub embedding: Vec<f32>,
}

/// A deck profile as saved on disk (JSON).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DeckProfile {
    pub format: String,
    /// Which index networks made the embeddings (`index_net::fingerprint`): another version's
    /// embeddings cannot be compared with them.
    pub networks: String,
    /// Corner windows of the card outlines.
    pub corners: Vec<EnrolledPatch>,
    /// Indices as the loose search cuts them.
    pub loose: Vec<EnrolledPatch>,
}

#[derive(Debug, thiserror::Error)]
pub enum EnrollError {
    #[error("{0}")]
    Labels(#[from] crate::vision::cards::labels::LabelError),
    #[error("{path}: cannot read the image")]
    Image { path: String },
    /// Refused before or after decoding (`vision::image_file`): truncated, too large, too small.
    #[error("{path}: {reason}")]
    BadImage { path: String, reason: String },
    #[error("{path}: {message}")]
    Profile { path: String, message: String },
    #[error("opencv: {0}")]
    OpenCv(#[from] opencv::Error),
}

impl DeckProfile {
    /// An empty profile for the shipped networks.
    pub fn new() -> DeckProfile {
        DeckProfile {
            format: PROFILE_FORMAT.to_string(),
            networks: crate::vision::cards::readers::index_net::fingerprint(),
            corners: Vec::new(),
            loose: Vec::new(),
        }
    }

    pub fn save(&self, path: &Path) -> Result<(), EnrollError> {
        let text = serde_json::to_string(self)
            .map_err(|e| EnrollError::Profile { path: path.display().to_string(), message: e.to_string() })?;
        std::fs::write(path, text)
            .map_err(|e| EnrollError::Profile { path: path.display().to_string(), message: e.to_string() })
    }

    /// Reads a profile; one of another format, or made by other index networks than these, or
    /// whose embeddings are not of the networks' length, is refused with what to do.
    pub fn load(path: &Path) -> Result<DeckProfile, EnrollError> {
        let bad = |message: String| EnrollError::Profile { path: path.display().to_string(), message };
        let text =
            crate::text_input::read_text(path, MAX_PROFILE_BYTES, "a deck profile").map_err(|e| bad(e.reason()))?;
        let corner = crate::vision::cards::readers::index_net::IndexNet::corner()?.embedding_len()?;
        let loose = crate::vision::cards::readers::index_net::IndexNet::loose()?.embedding_len()?;
        DeckProfile::parse(&text, corner, loose).map_err(bad)
    }

    /// Parses a profile's JSON, checking its format, networks, and that its corner and loose
    /// embeddings have `corner_len` and `loose_len` values. The error is a one-line reason.
    pub fn parse(text: &str, corner_len: usize, loose_len: usize) -> Result<DeckProfile, String> {
        let profile: DeckProfile = serde_json::from_str(text).map_err(|e| crate::text_input::json_error(&e))?;
        if profile.format != PROFILE_FORMAT {
            return Err(format!(
                "format is {}, expected '{PROFILE_FORMAT}': enrol the deck again with this version",
                crate::text_input::escaped(&profile.format)
            ));
        }
        let ours = crate::vision::cards::readers::index_net::fingerprint();
        if profile.networks != ours {
            return Err(format!(
                "made with other index networks ({}, these are {ours}): enrol the deck again",
                crate::text_input::escaped(&profile.networks)
            ));
        }
        // Embeddings of another length would never be compared (`enrolled::Memory` skips them):
        // the profile would be taken and do nothing.
        check_embeddings("corners", &profile.corners, corner_len)?;
        check_embeddings("loose", &profile.loose, loose_len)?;
        Ok(profile)
    }

    /// The profile's patches as the two networks' memories (corner, loose).
    pub fn memories(&self) -> (Memory, Memory) {
        let memory =
            |patches: &[EnrolledPatch]| Memory::new(patches.iter().map(|p| (p.card, p.embedding.clone())).collect());
        (memory(&self.corners), memory(&self.loose))
    }

    /// The cards with at least one enrolled patch.
    pub fn cards(&self) -> std::collections::BTreeSet<Card> {
        self.corners.iter().chain(&self.loose).map(|p| p.card).collect()
    }
}

/// Every embedding of `field` has `expected` finite values; the error names the first that has not.
fn check_embeddings(field: &str, patches: &[EnrolledPatch], expected: usize) -> Result<(), String> {
    for (i, patch) in patches.iter().enumerate() {
        let len = patch.embedding.len();
        if len != expected {
            return Err(format!("{field}[{i}].embedding has {len} values; the index network gives {expected}"));
        }
        if patch.embedding.iter().any(|v| !v.is_finite()) {
            return Err(format!("{field}[{i}].embedding holds a value that is not a finite number"));
        }
    }
    Ok(())
}

/// Reads a colour image; a missing, undecodable, truncated, too large or too small file is an
/// error naming it (see `vision::image_file`).
pub fn read_image(path: &Path) -> Result<Mat, EnrollError> {
    let bad = || EnrollError::Image { path: path.display().to_string() };
    let refused = |reason| EnrollError::BadImage { path: path.display().to_string(), reason };
    if !path.is_file() {
        return Err(bad());
    }
    crate::vision::image_file::check_file(path).map_err(refused)?;
    let image = imgcodecs::imread(path, imgcodecs::IMREAD_COLOR).map_err(|_| bad())?;
    if image.empty() {
        return Err(bad());
    }
    crate::vision::image_file::check_size(image.cols() as u32, image.rows() as u32).map_err(refused)?;
    Ok(image)
}
