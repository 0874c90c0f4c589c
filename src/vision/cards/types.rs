//! What the card reader hands over between its stages and to its callers: a card found
//! (`CardDetection`), face up or down, an index read, the corners of an outline, and the sizes
//! a card is measured in.

use crate::cards::Card;

/// Frames narrower than this (on their longer side) get their loose index search at twice
/// the size.
pub(crate) const SMALL_FRAME: i32 = 1000;

/// Width and height of a rectified card, in pixels (the 2.5 x 3.5 inch poker format).
pub const CARD_W: i32 = 250;

pub const CARD_H: i32 = 350;

/// A card outline: four image points, clockwise from the card's top-left corner.
pub(in crate::vision::cards) type Quad = [[f32; 2]; 4];

/// Face up or face down.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Face {
    Up,
    Down,
}

/// One card found in a frame.
#[derive(Clone, Debug, PartialEq)]
pub struct CardDetection {
    /// The card read from its index; `None` when face down or below the confidence threshold.
    pub card: Option<Card>,
    pub face: Face,
    /// Confidence of the reading (face-up) or of the face-down call, 0..1.
    pub confidence: f32,
    /// Outline in image pixels, clockwise from the top-left corner of the card face.
    pub quad: Option<[[f32; 2]; 4]>,
    /// The index areas that were read, `[x, y, w, h]` in image pixels.
    pub index_boxes: Vec<[i32; 4]>,
}

/// The reading of one index corner.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IndexReading {
    pub card: Card,
    pub confidence: f32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Corner {
    TopLeft,
    BottomRight,
}
