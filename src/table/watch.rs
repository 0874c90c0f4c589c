//! The settled view of the table over frames, one frame at a time: the frame's cards are
//! detected, placed in the seats' rows and settled. Without a layout, the standard one is fitted
//! to the deal once a deal settles in image pixels. The command line and the window's referee
//! thread both drive this.

use opencv::core::Mat;

use super::{
    Motion, MotionGate, SettleConfig, Settler, TableLayout, TableView, learn_layout, place_frame, place_in_image,
};
use crate::vision::cards::{CardDetection, CardDetector};

/// How often a settled view that stays is given again (so that a referee can time a desync, and
/// search further on a view it could not explain at first).
pub const AGAIN_SECS: f64 = 1.0;

/// What one frame gave.
#[derive(Clone, Debug, Default)]
pub struct Watched {
    /// The cards detected in the frame, in image pixels.
    pub detections: Vec<CardDetection>,
    /// The settled view to rule on at this frame, if one settled (or stayed `AGAIN_SECS`).
    pub view: Option<TableView>,
    pub frame: u64,
    pub ms: u64,
}

/// Watches one table.
pub struct TableWatch {
    detector: CardDetector,
    gate: MotionGate,
    settler: Settler,
    fps: f64,
    layout: Option<TableLayout>,
    /// The layout was fitted to the deal here (not given).
    fitted: bool,
    players: usize,
    /// Each frame is a still photo of the table (a folder of photos): it counts as settled alone.
    stills: bool,
    given_at: f64,
    last: Option<(TableView, u64, u64)>,
}

impl TableWatch {
    /// `layout`: where each seat's rows lie, or `None` to fit the standard layout of `players`
    /// seats to the deal.
    pub fn new(detector: CardDetector, layout: Option<TableLayout>, players: usize, fps: f64, stills: bool) -> Self {
        TableWatch {
            detector,
            gate: MotionGate::new(),
            settler: Settler::new(SettleConfig::for_fps(fps)),
            fps,
            layout,
            fitted: false,
            players,
            stills,
            given_at: f64::NEG_INFINITY,
            last: None,
        }
    }

    /// The layout in use: the one given, or the one fitted to the deal (`None` before the deal).
    pub fn layout(&self) -> Option<&TableLayout> {
        self.layout.as_ref()
    }

    /// Whether the layout in use was fitted here, to the deal or by hand (rather than given).
    pub fn fitted(&self) -> bool {
        self.fitted
    }

    /// Uses `layout` from the next frame on: one adjusted by hand on the live image.
    pub fn set_layout(&mut self, layout: TableLayout) {
        self.layout = Some(layout);
        self.fitted = true;
    }

    /// Detects, places and settles one frame taken `time_secs` after the source started.
    pub fn push(&mut self, image: &Mat, frame: u64, time_secs: f64) -> opencv::Result<Watched> {
        let detections = self.detector.detect(image)?;
        let motion = if self.stills { Motion::STILL } else { self.gate.measure(image)? };
        let ms = (time_secs * 1000.0) as u64;
        let Some(layout) = &self.layout else {
            self.fit_layout(&detections, motion);
            return Ok(Watched { detections, view: None, frame, ms });
        };
        let view = place_frame(image, &detections, layout)?;
        if self.stills {
            self.settler = Settler::new(SettleConfig::for_fps(self.fps));
            for _ in 1..self.settler.config().quiet_frames {
                self.settler.push(view.clone(), Motion::STILL);
            }
        }
        let settled = match self.settler.push(view, motion) {
            Some(settled) => Some(settled.view),
            None if time_secs - self.given_at >= AGAIN_SECS => self.settler.view(),
            None => None,
        };
        if let Some(view) = &settled {
            self.given_at = time_secs;
            self.last = Some((view.clone(), frame, ms));
        }
        Ok(Watched { detections, view: settled, frame, ms })
    }

    /// The source has ended: the last settled view once more, `AGAIN_SECS` later.
    pub fn finish(&mut self) -> Option<Watched> {
        let (view, frame, ms) = self.last.take()?;
        let ms = ms + (AGAIN_SECS * 1000.0) as u64;
        Some(Watched { detections: Vec::new(), view: Some(view), frame, ms })
    }

    /// Before a layout: waits for the deal to settle in image pixels, then fits the standard
    /// layout to it.
    fn fit_layout(&mut self, detections: &[CardDetection], motion: Motion) {
        if self.stills {
            for _ in 1..self.settler.config().quiet_frames {
                self.settler.push(place_in_image(detections), motion);
            }
        }
        if self.settler.push(place_in_image(detections), motion).is_some()
            && let Ok(learnt) = learn_layout(detections, self.players)
        {
            self.layout = Some(learnt);
            self.fitted = true;
            self.settler = Settler::new(SettleConfig::for_fps(self.fps));
        }
    }
}
