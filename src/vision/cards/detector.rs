//! The card reader's settings, and the templates, networks, enrolled deck and calibrated back it
//! reads with. `detect` runs its stages in order.

use super::decks::back::BackProfile;
use super::decks::enrolled::Memory;
use super::decks::profile::DeckProfile;
use super::readers::classify::GlyphTemplates;
use super::readers::glyph_net::GlyphNet;
use super::readers::index_net::QuickFirst;

/// Settings of the detector.
#[derive(Clone, Debug)]
pub struct DetectorConfig {
    /// Below this confidence a face-up card's outline is left unread (`card: None`) and the
    /// loose search reads inside it; a long outline splits into its two end cards only where
    /// each end reads this surely (`split_pair`). Corners read under 0.7 were mostly an index
    /// half hidden by the card over it, read in the other suit of its colour (two cards
    /// overlapping end to end, a spread): from 0.45 to 0.7, 600 rendered tables of each tuning
    /// seed set (20e6, 30e6) went from 59 and 66 false readings to 25 and 31, with as many cards
    /// read right (the loose search reads the rest), and the real photos read card for card as
    /// before (models/README.md, "Unsure corners left to the loose search").
    pub min_confidence: f32,
    /// The same for an index read without its card's outline (fans, cascades). Without an
    /// outline any two ink marks of the right sizes can pose as an index, but the loose window
    /// is centred on the marks read, where an outline's corner window may hold a neighbour's
    /// index half hidden.
    pub min_loose_confidence: f32,
    /// Smallest card outline, as a fraction of the frame area.
    pub min_card_area: f64,
    /// What reads the corners of card outlines.
    pub corner_reader: Reader,
    /// What reads the indices found without an outline.
    pub loose_reader: Reader,
    /// Whether the quick networks read first, leaving only what they are unsure of to the full
    /// ones (see `QuickFirst`). Off, the full networks read every patch.
    pub quick_networks: bool,
}

/// What reads the indices: the glyph templates weighed by the glyph networks (`classify`,
/// `glyph_net`), the index networks (`index_net`), or both. On an outline's corners `Both` reads
/// by network and asks the templates only where the network leaves the card unknown; in the
/// loose search it keeps every network hit and adds the templates' hits where the network found
/// none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reader {
    Templates,
    Network,
    Both,
}

impl Default for DetectorConfig {
    fn default() -> Self {
        DetectorConfig {
            min_confidence: 0.7,
            min_loose_confidence: 0.6,
            min_card_area: 0.004,
            corner_reader: Reader::Both,
            loose_reader: Reader::Both,
            quick_networks: true,
        }
    }
}

/// Finds and reads the cards of a frame.
pub struct CardDetector {
    pub config: DetectorConfig,
    /// Compared with index corners found without an outline (see `GlyphTemplates::builtin`).
    pub(in crate::vision::cards) templates: GlyphTemplates,
    /// Compared with the corners of card outlines (see `GlyphTemplates::builtin_seen`).
    pub(in crate::vision::cards) corner_templates: GlyphTemplates,
    /// Compared with every suit pip, on an outline or loose: both sets together (the damaged
    /// renders hold one pip design only; the fonts hold many).
    pub(in crate::vision::cards) suit_templates: GlyphTemplates,
    /// Weigh each rank and suit read by the templates (see `glyph_net`).
    pub(in crate::vision::cards) rank_net: GlyphNet,
    pub(in crate::vision::cards) suit_net: GlyphNet,
    /// Read corner windows and loose index candidates (see `index_net`).
    pub(in crate::vision::cards) corner_net: QuickFirst,
    pub(in crate::vision::cards) loose_net: QuickFirst,
    /// An enrolled deck's patches, which vote on what the networks read (see `enrolled`).
    pub(in crate::vision::cards) corner_memory: Memory,
    pub(in crate::vision::cards) loose_memory: Memory,
    /// The calibrated card back, when there is one (see `back`).
    pub(in crate::vision::cards) back: Option<BackProfile>,
}

impl CardDetector {
    /// A detector with the built-in glyph templates.
    pub fn new() -> opencv::Result<CardDetector> {
        let templates = GlyphTemplates::builtin()?;
        let corner_templates = GlyphTemplates::builtin_seen()?;
        let mut suit_templates = templates.clone();
        suit_templates.templates.extend(corner_templates.templates.iter().cloned());
        Ok(CardDetector {
            config: DetectorConfig::default(),
            templates,
            corner_templates,
            suit_templates,
            rank_net: GlyphNet::ranks()?,
            suit_net: GlyphNet::suits()?,
            corner_net: QuickFirst::corner()?,
            loose_net: QuickFirst::loose()?,
            corner_memory: Memory::default(),
            loose_memory: Memory::default(),
            back: None,
        })
    }

    /// Reads with an enrolled deck's patches voting (see `enrolled`).
    pub fn set_profile(&mut self, profile: &DeckProfile) {
        (self.corner_memory, self.loose_memory) = profile.memories();
    }

    /// Uses a calibrated card back to tell face-down cards (`BackProfile::face_down`).
    pub fn set_back(&mut self, back: Option<BackProfile>) {
        self.back = back;
    }
}
