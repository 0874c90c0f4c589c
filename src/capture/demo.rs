//! The demo table as a frame source: 30 frames per second of the scripted demo, with ground truth.

use std::time::Duration;

use opencv::core::Size;

use super::{CaptureError, CaptureOptions, Frame, FrameSource};
use crate::render::DemoTable;

const FPS: f64 = 30.0;

pub struct DemoSource {
    table: DemoTable,
    index: u64,
}

impl DemoSource {
    pub fn new(options: &CaptureOptions) -> DemoSource {
        let size = Size::new(options.width as i32, options.height as i32);
        DemoSource { table: DemoTable::new(size, crate::render::demo::SEED), index: 0 }
    }
}

impl FrameSource for DemoSource {
    fn next_frame(&mut self) -> Result<Option<Frame>, CaptureError> {
        let t = self.index as f64 / FPS;
        let rendered = self.table.frame_at(t)?;
        let frame = Frame {
            image: rendered.image,
            index: self.index,
            time: Duration::from_secs_f64(t),
            truth: Some(rendered.truth),
        };
        self.index += 1;
        Ok(Some(frame))
    }

    fn describe(&self) -> String {
        "demo table".to_string()
    }

    fn nominal_fps(&self) -> Option<f64> {
        Some(FPS)
    }
}
