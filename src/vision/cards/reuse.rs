//! The cards of a stream of frames, read again only when the picture changed. A still table
//! filmed at 30 frames a second shows the same picture frame after frame; reading every one costs
//! a full read each time (70 ms for a 1280 x 720 frame on one core) and tells nothing new but
//! the sensor's noise. Once the picture has stayed unchanged for `FRESH_READS` reads, a frame
//! like the last one read is given that frame's cards again, marked as no fresh reading; every
//! `REFRESH_READS`th such frame is read again all the same, so that a still card keeps gathering
//! fresh readings, about one a second. A picture is compared with the last one read cell by cell,
//! as the activity map compares frames (`vision::activity`).

use opencv::core::Mat;
use opencv::prelude::*;

use super::detector::CardDetector;
use super::types::CardDetection;
use crate::vision::activity;

/// Reads in a row, after the picture last changed, that are full ones: a card laid down is
/// read as it comes to rest and for as many reads as the settled view needs to name it.
pub const FRESH_READS: u32 = 8;
/// Frames in a row given the last reading again before the picture is read afresh.
pub const REFRESH_READS: u32 = 10;

/// The cards of one frame, and whether they were read in it.
#[derive(Clone, Debug, Default)]
pub struct Reading {
    pub detections: Vec<CardDetection>,
    /// Read in this frame; `false`: the picture is that of the last frame read, and these are
    /// that frame's cards (no new evidence of what they are).
    pub fresh: bool,
}

/// The last frame read: its small grey copy's neighbourhood range, and its cards.
struct LastRead {
    high: Mat,
    low: Mat,
    detections: Vec<CardDetection>,
}

/// Reads a stream's frames, giving an unchanged picture its last reading again.
#[derive(Default)]
pub struct ReadingReuse {
    last: Option<LastRead>,
    /// Full reads since the picture last changed.
    since_change: u32,
    /// Frames given the last reading since the last full read.
    reused: u32,
    /// Every frame is read (photos, each of a table that may have changed since the last).
    off: bool,
}

impl ReadingReuse {
    /// `every_frame`: read every frame in full (a folder of photos).
    pub fn new(every_frame: bool) -> ReadingReuse {
        ReadingReuse { off: every_frame, ..ReadingReuse::default() }
    }

    /// Forgets the last reading: the next frame is read in full (after the reader's deck or
    /// settings changed).
    pub fn forget(&mut self) {
        self.last = None;
        self.since_change = 0;
    }

    /// The cards of a BGR frame: read, or given again from the last frame read when the picture
    /// is unchanged since then.
    pub fn read(&mut self, detector: &CardDetector, frame: &Mat) -> opencv::Result<Reading> {
        if self.off {
            return Ok(Reading { detections: detector.detect(frame)?, fresh: true });
        }
        let (_, grey) = activity::shrunk(frame)?;
        let unchanged = match &self.last {
            Some(last) => same_picture(last, &grey)?,
            None => false,
        };
        if !unchanged {
            self.since_change = 0;
        }
        if let Some(last) = &self.last
            && unchanged
            && self.since_change >= FRESH_READS
            && self.reused < REFRESH_READS
        {
            self.reused += 1;
            return Ok(Reading { detections: last.detections.clone(), fresh: false });
        }
        self.read_in_full(detector, frame, grey)
    }

    fn read_in_full(&mut self, detector: &CardDetector, frame: &Mat, grey: Mat) -> opencv::Result<Reading> {
        let detections = detector.detect(frame)?;
        let (high, low) = activity::neighbourhood_range(&grey)?;
        self.last = Some(LastRead { high, low, detections: detections.clone() });
        self.since_change = self.since_change.saturating_add(1);
        self.reused = 0;
        Ok(Reading { detections, fresh: true })
    }
}

/// Whether no cell of `grey` changed (`activity::changed`) since the last frame read.
fn same_picture(last: &LastRead, grey: &Mat) -> opencv::Result<bool> {
    if last.high.size()? != grey.size()? {
        return Ok(false);
    }
    let cells = grey.data_bytes()?.iter().zip(last.high.data_bytes()?).zip(last.low.data_bytes()?);
    Ok(!cells.into_iter().any(|((&v, &hi), &lo)| activity::changed(v, hi, lo)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::Pt;
    use crate::render::{PlacedCard, Renderer, Scene};

    /// A plain table seen 420 mm across, with face-up cards at these distances (mm) from its
    /// centre.
    fn table_with(cards: &[(&str, f64)]) -> Mat {
        let cards = cards
            .iter()
            .map(|&(code, x)| PlacedCard {
                card: code.parse().unwrap(),
                face_up: true,
                centre: Pt::new(x, 0.0),
                angle: 0.0,
            })
            .collect();
        Renderer::new().render(&Scene::plain(cards, 420.0, 0.0)).unwrap().image
    }

    #[test]
    fn an_unchanged_picture_is_read_again_only_every_so_often() {
        let detector = CardDetector::new().unwrap();
        let mut reuse = ReadingReuse::new(false);
        let frame = table_with(&[("7H", -90.0), ("KS", 90.0)]);
        let fresh: Vec<bool> = (0..FRESH_READS + REFRESH_READS + 2)
            .map(|_| reuse.read(&detector, &frame).unwrap())
            .map(|r| {
                assert_eq!(r.detections.iter().filter(|d| d.card.is_some()).count(), 2);
                r.fresh
            })
            .collect();
        let n = FRESH_READS as usize;
        assert!(fresh[..n].iter().all(|&f| f), "read while the picture may still settle");
        assert!(fresh[n..n + REFRESH_READS as usize].iter().all(|&f| !f), "given again");
        assert!(fresh[n + REFRESH_READS as usize], "read afresh now and then");
    }

    #[test]
    fn a_card_laid_down_is_read_at_once() {
        let detector = CardDetector::new().unwrap();
        let mut reuse = ReadingReuse::new(false);
        let before = table_with(&[("7H", -90.0)]);
        for _ in 0..FRESH_READS + 2 {
            reuse.read(&detector, &before).unwrap();
        }
        let after = table_with(&[("7H", -90.0), ("QD", 90.0)]);
        let r = reuse.read(&detector, &after).unwrap();
        assert!(r.fresh);
        let named: Vec<String> = r.detections.iter().filter_map(|d| d.card).map(|c| c.to_string()).collect();
        assert!(named.contains(&"QD".to_string()), "{named:?}");
    }

    #[test]
    fn photos_are_each_read() {
        let detector = CardDetector::new().unwrap();
        let mut reuse = ReadingReuse::new(true);
        let frame = table_with(&[("2C", 0.0)]);
        assert!((0..FRESH_READS + 3).all(|_| reuse.read(&detector, &frame).unwrap().fresh));
    }
}
