//! Cameras are listed on a background thread ("camera-query") since asking the OS can take a
//! moment; the picker polls the result each frame.

use std::sync::mpsc::{Receiver, TryRecvError, channel};

use crate::capture::{self, CameraEntry};

#[derive(Default)]
pub struct CameraList {
    cameras: Vec<CameraEntry>,
    pending: Option<Receiver<Vec<CameraEntry>>>,
}

impl CameraList {
    pub fn refresh(&mut self) {
        let (send, receive) = channel();
        let spawned = std::thread::Builder::new().name("camera-query".into()).spawn(move || {
            let _ = send.send(capture::list_cameras().unwrap_or_default());
        });
        self.pending = spawned.is_ok().then_some(receive);
    }

    /// The cameras known so far, taking in a finished query.
    pub fn poll(&mut self) -> &[CameraEntry] {
        if let Some(receive) = &self.pending {
            match receive.try_recv() {
                Ok(cameras) => {
                    self.cameras = cameras;
                    self.pending = None;
                }
                Err(TryRecvError::Disconnected) => self.pending = None,
                Err(TryRecvError::Empty) => {}
            }
        }
        &self.cameras
    }

    pub fn searching(&self) -> bool {
        self.pending.is_some()
    }
}
