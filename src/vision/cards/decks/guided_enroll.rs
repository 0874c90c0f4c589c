//! Teaching the reader a deck card by card: the user is asked for one card at a time and holds it
//! up to the camera. Once one whole card outline has stayed put for `HOLD_FRAMES` frames, the
//! patches of its sharpest frame are enrolled under the card asked for. The identity comes from
//! the question, not from the built-in reader (the point is a deck it reads poorly); the reader
//! only guards against a wrong card held up: when it is sure of another card, the card is not
//! taken until the user says it is the one asked for (`take_anyway`).
//!
//! A card once taken must be put away (its outline gone or moved) before the next is counted, so
//! one card held a little long is not enrolled twice.

use opencv::prelude::*;

use super::back::clear_of_edges;
use super::enroll::{DeckProfile, EnrolledPatch};
use super::video_enroll::{agreed, sharpness, steady};
use crate::cards::Card;
use crate::vision::cards::detector::CardDetector;
use crate::vision::cards::picture::light;
use crate::vision::cards::picture::pixels::rectify;
use crate::vision::cards::stages::outlines::find_card_quads;
use crate::vision::cards::types::Quad;

/// Steady frames of one outline before its card is taken (a sixth of a second at 30 fps: long
/// enough to pass over a card moving through view, short enough not to tire the arm).
pub const HOLD_FRAMES: usize = 5;
/// How sure the built-in reader must be that a card is another one for the card to be refused.
const SURE_OTHER: f32 = 0.9;

/// What the camera shows, as the wizard says it.
#[derive(Clone, Debug, PartialEq)]
pub enum Showing {
    /// No card outline wholly in view.
    Nothing,
    /// Several card outlines: one card at a time.
    Several(usize),
    /// One card held steady for `frames` of the `HOLD_FRAMES` needed.
    Holding { frames: usize },
    /// The built-in reader is sure the card held is this one, not the one asked for.
    Other(Card),
    /// The card asked for was taken from the frames just seen.
    Taken(Card),
    /// The card just taken is still held steady: put it away for the next one to be counted.
    PutAway,
}

/// The frame a card would be taken from: the sharpest of its steady stretch.
struct Best {
    sharpness: f32,
    image: Mat,
    quad: Quad,
}

/// One outline held steady.
struct Hold {
    frames: usize,
    /// Frames in which the built-in reader was sure of another card than the one asked for.
    other: Option<(Card, usize)>,
    best: Best,
}

/// Builds a deck profile from frames fed one at a time, asking for one card after another.
pub struct GuidedEnroller {
    detector: CardDetector,
    /// The cards still to teach, the one asked for first.
    to_ask: Vec<Card>,
    /// The cards taught, in the order taken, with their corner and loose patches.
    taken: Vec<(Card, Vec<EnrolledPatch>, Vec<EnrolledPatch>)>,
    previous: Option<Quad>,
    hold: Option<Hold>,
    /// The card just taken is still where it was taken.
    put_away_first: bool,
    showing: Showing,
}

impl GuidedEnroller {
    /// Asks for the cards of a 52-card deck, suit by suit, ace to king.
    pub fn new() -> opencv::Result<GuidedEnroller> {
        Self::asking(Card::deck())
    }

    /// Asks for `cards` in this order.
    pub fn asking(cards: Vec<Card>) -> opencv::Result<GuidedEnroller> {
        Ok(GuidedEnroller {
            detector: CardDetector::new()?,
            to_ask: cards,
            taken: Vec::new(),
            previous: None,
            hold: None,
            put_away_first: false,
            showing: Showing::Nothing,
        })
    }

    /// The card to hold up next; `None` once every card is taught.
    pub fn asked(&self) -> Option<Card> {
        self.to_ask.first().copied()
    }

    /// The cards taught so far, in the order taken.
    pub fn taken(&self) -> Vec<Card> {
        self.taken.iter().map(|(card, _, _)| *card).collect()
    }

    pub fn left(&self) -> usize {
        self.to_ask.len()
    }

    /// What the last frame showed.
    pub fn showing(&self) -> &Showing {
        &self.showing
    }

    /// The outline of the one card in the last frame, if one.
    pub fn outline(&self) -> Option<[[f32; 2]; 4]> {
        self.previous
    }

    /// Takes the next BGR frame.
    pub fn push(&mut self, frame: &Mat) -> opencv::Result<&Showing> {
        let lit = light::balanced(frame)?;
        let mut quads = find_card_quads(lit.as_ref(), 0.02)?;
        // The whole card must be in view (an outline along the frame's edge is the table itself).
        quads.retain(|q| clear_of_edges(frame, q));
        let quad = match quads.as_slice() {
            [quad] => *quad,
            others => {
                self.showing = if others.is_empty() { Showing::Nothing } else { Showing::Several(others.len()) };
                (self.previous, self.hold, self.put_away_first) = (None, None, false);
                return Ok(&self.showing);
            }
        };
        let same = self.previous.is_some_and(|p| steady(&p, &quad));
        self.previous = Some(quad);
        if !same {
            (self.hold, self.put_away_first) = (None, false);
        }
        if self.put_away_first {
            self.showing = Showing::PutAway;
            return Ok(&self.showing);
        }
        let Some(asked) = self.asked() else {
            self.showing = Showing::Nothing;
            return Ok(&self.showing);
        };
        let sharp = sharpness(&rectify(frame, &quad)?)?;
        let hold = self.hold.get_or_insert_with(|| Hold {
            frames: 0,
            other: None,
            best: Best { sharpness: -1.0, image: Mat::default(), quad },
        });
        hold.frames += 1;
        if sharp > hold.best.sharpness {
            hold.best = Best { sharpness: sharp, image: frame.clone(), quad };
        }
        let readings = self.detector.read_corners_of(lit.as_ref(), &quad)?;
        if let Some((seen, confidence)) = agreed(&readings)
            && seen != asked
            && confidence >= SURE_OTHER
        {
            let count = hold.other.filter(|(card, _)| *card == seen).map_or(0, |(_, n)| n);
            hold.other = Some((seen, count + 1));
        }
        let frames = hold.frames;
        // The reader must be sure of the other card in most frames of the hold: one misread
        // frame of a hard deck does not block its teaching.
        let refused = hold.other.filter(|(_, n)| 2 * n > frames).map(|(card, _)| card);
        self.showing = match (frames >= HOLD_FRAMES, refused) {
            (false, _) => Showing::Holding { frames },
            (true, Some(other)) => Showing::Other(other),
            (true, None) => {
                self.take(asked)?;
                Showing::Taken(asked)
            }
        };
        Ok(&self.showing)
    }

    /// The card held is the one asked for, whatever the built-in reader says: it is taken from
    /// the best frame held so far. False when no card is held.
    pub fn take_anyway(&mut self) -> opencv::Result<bool> {
        match (self.asked(), self.hold.is_some() && !self.put_away_first) {
            (Some(asked), true) => {
                self.take(asked)?;
                self.showing = Showing::Taken(asked);
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// The card asked for is not at hand: it is asked again after all the others.
    pub fn skip(&mut self) {
        if !self.to_ask.is_empty() {
            self.to_ask.rotate_left(1);
        }
        self.hold = None;
    }

    /// Forgets the card taken last and asks for it again.
    pub fn back(&mut self) {
        if let Some((card, _, _)) = self.taken.pop() {
            self.to_ask.insert(0, card);
        }
        (self.hold, self.put_away_first) = (None, false);
    }

    /// The profile of the cards taught.
    pub fn finish(self) -> DeckProfile {
        let mut profile = DeckProfile::new();
        for (_, corners, loose) in self.taken {
            profile.corners.extend(corners);
            profile.loose.extend(loose);
        }
        profile
    }

    fn take(&mut self, card: Card) -> opencv::Result<()> {
        let Some(hold) = self.hold.take() else { return Ok(()) };
        let (corners, loose) = self.detector.enrol_card(&hold.best.image, &hold.best.quad, card)?;
        self.taken.push((card, corners, loose));
        self.to_ask.retain(|c| *c != card);
        self.put_away_first = true;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::face::{FaceStyle, draw_face};
    use opencv::core::{self, Scalar, Size};
    use opencv::imgproc;

    /// A dark table 320×360 with `card`'s face (if any) 190 px across, nudged by `nudge` pixels.
    fn frame(card: Option<&str>, nudge: f64) -> Mat {
        let mut frame =
            Mat::new_rows_cols_with_default(360, 320, core::CV_8UC3, Scalar::new(40.0, 90.0, 30.0, 0.0)).unwrap();
        if let Some(code) = card {
            let face = draw_face(code.parse().unwrap(), &FaceStyle::default(), 240).unwrap();
            let scale = 190.0 / f64::from(face.cols());
            let centre = core::Point2f::new(face.cols() as f32 / 2.0, face.rows() as f32 / 2.0);
            let mut m = imgproc::get_rotation_matrix_2d(centre, 2.0, scale).unwrap();
            *m.at_2d_mut::<f64>(0, 2).unwrap() += 160.0 - f64::from(centre.x) + nudge;
            *m.at_2d_mut::<f64>(1, 2).unwrap() += 180.0 - f64::from(centre.y);
            let (size, border) = (Size::new(320, 360), core::BORDER_TRANSPARENT);
            imgproc::warp_affine(&face, &mut frame, &m, size, imgproc::INTER_AREA, border, Scalar::all(0.0)).unwrap();
        }
        frame
    }

    fn hold(enroller: &mut GuidedEnroller, card: &str, frames: usize) -> Showing {
        let mut last = Showing::Nothing;
        for k in 0..frames {
            last = enroller.push(&frame(Some(card), k as f64)).unwrap().clone();
        }
        last
    }

    #[test]
    fn each_card_asked_is_taken_once_held_and_put_away_before_the_next() {
        let cards: Vec<Card> = ["AC", "2C", "3C"].iter().map(|c| c.parse().unwrap()).collect();
        let mut enroller = GuidedEnroller::asking(cards.clone()).unwrap();
        assert_eq!(hold(&mut enroller, "AC", HOLD_FRAMES - 1), Showing::Holding { frames: HOLD_FRAMES - 1 });
        assert_eq!(hold(&mut enroller, "AC", 1), Showing::Taken(cards[0]));
        // Held on: not taken again as the next card.
        assert_eq!(hold(&mut enroller, "AC", HOLD_FRAMES + 2), Showing::PutAway);
        assert_eq!(enroller.asked(), Some(cards[1]));
        assert_eq!(enroller.push(&frame(None, 0.0)).unwrap(), &Showing::Nothing);
        assert_eq!(hold(&mut enroller, "2C", HOLD_FRAMES), Showing::Taken(cards[1]));
        enroller.back();
        assert_eq!(enroller.asked(), Some(cards[1]), "back asks for the last card again");
        assert_eq!(hold(&mut enroller, "2C", HOLD_FRAMES), Showing::Taken(cards[1]));
        assert_eq!(enroller.taken(), cards[..2]);
        let profile = enroller.finish();
        assert_eq!(profile.cards(), cards[..2].iter().copied().collect());
    }

    #[test]
    fn a_card_the_reader_is_sure_is_another_is_refused_until_the_user_says_so() {
        let asked: Card = "5D".parse().unwrap();
        let mut enroller = GuidedEnroller::asking(vec![asked, "6D".parse().unwrap()]).unwrap();
        let shown = hold(&mut enroller, "KS", HOLD_FRAMES + 1);
        assert_eq!(shown, Showing::Other("KS".parse().unwrap()));
        assert!(enroller.taken().is_empty());
        assert!(enroller.take_anyway().unwrap());
        assert_eq!(enroller.taken(), [asked]);
        enroller.skip();
        assert_eq!(enroller.asked(), Some("6D".parse().unwrap()));
    }
}
