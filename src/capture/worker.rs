//! The capture thread behind the window: opens a source on a named thread, paces files and the
//! demo to their frame rate, reconnects lost cameras, and leaves the newest frame where the UI
//! polls it each repaint. The UI never waits on the camera.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use opencv::core::Mat;
use opencv::imgproc;
use opencv::prelude::*;

use super::{CaptureError, CaptureOptions, Frame, FrameSource, SourceSpec, webcam};

/// What the capture thread is doing, for the status line.
#[derive(Clone, Debug, PartialEq)]
pub enum CaptureState {
    Opening,
    Running,
    /// The source has no more frames (end of a file or folder); the last frame stays on screen.
    Ended,
    /// A camera was lost; the thread tries to reopen it every second.
    Reconnecting(String),
    Failed(String),
}

/// Status shown under the live view.
#[derive(Clone, Debug, PartialEq)]
pub struct CaptureStatus {
    pub source: String,
    pub state: CaptureState,
    pub width: i32,
    pub height: i32,
    /// Frames per second actually delivered (smoothed).
    pub fps: f64,
    /// Milliseconds spent getting and preparing each frame (smoothed).
    pub process_ms: f64,
    pub frames: u64,
}

/// A frame ready to show: the frame itself and its pixels as RGBA for the screen.
pub struct ShownFrame {
    pub frame: Frame,
    pub rgba: Vec<u8>,
}

struct Shared {
    latest: Mutex<Option<ShownFrame>>,
    status: Mutex<CaptureStatus>,
    stop: AtomicBool,
}

/// Opens a source on the capture thread (camera handles may not move between threads).
pub type Opener = Box<dyn FnMut() -> Result<Box<dyn FrameSource>, CaptureError> + Send>;

/// Called on the capture thread with each frame.
pub type OnFrame = Box<dyn Fn(&Frame) + Send>;

/// Owns the capture thread; dropping it stops the thread.
pub struct CaptureWorker {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl CaptureWorker {
    /// Starts reading `spec` on a thread named "capture". `on_frame` is called with each new
    /// frame before it is left for the screen (the window hands it to the referee thread and asks
    /// for a repaint).
    pub fn spawn(spec: SourceSpec, options: CaptureOptions, on_frame: OnFrame) -> CaptureWorker {
        let name = spec.to_string();
        // Only a live camera comes back after failing; a broken file stays broken.
        let retry = matches!(spec, SourceSpec::Webcam(_));
        let opener = Box::new(move || super::open(&spec, &options));
        CaptureWorker::spawn_with(name, opener, retry, on_frame)
    }

    /// Like `spawn`, with any way of opening a source. With `retry`, a source that fails after
    /// giving frames is reopened every second (`CaptureState::Reconnecting` meanwhile).
    pub fn spawn_with(name: String, opener: Opener, retry: bool, on_frame: OnFrame) -> CaptureWorker {
        let status = CaptureStatus {
            source: name,
            state: CaptureState::Opening,
            width: 0,
            height: 0,
            fps: 0.0,
            process_ms: 0.0,
            frames: 0,
        };
        let shared =
            Arc::new(Shared { latest: Mutex::new(None), status: Mutex::new(status), stop: AtomicBool::new(false) });
        let thread_shared = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("capture".into())
            .spawn(move || run(&thread_shared, opener, retry, on_frame.as_ref()))
            .expect("the OS refused to start the capture thread");
        CaptureWorker { shared, thread: Some(thread) }
    }

    /// The newest frame since the last call, if any.
    pub fn take_frame(&self) -> Option<ShownFrame> {
        lock(&self.shared.latest).take()
    }

    pub fn status(&self) -> CaptureStatus {
        lock(&self.shared.status).clone()
    }
}

impl Drop for CaptureWorker {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Poisoning only means another thread panicked mid-update; the data is still the best we have.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn set_state(shared: &Shared, state: CaptureState) {
    lock(&shared.status).state = state;
}

fn stopped(shared: &Shared) -> bool {
    shared.stop.load(Ordering::Relaxed)
}

/// Sleeps in short steps so that a stop request is noticed quickly.
fn nap(shared: &Shared, total: Duration) {
    let until = Instant::now() + total;
    while !stopped(shared) && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(10).min(until - Instant::now()));
    }
}

fn run(shared: &Shared, mut opener: Opener, retry: bool, on_frame: &dyn Fn(&Frame)) {
    while !stopped(shared) {
        let failure = match opener() {
            Ok(mut source) => {
                {
                    let mut status = lock(&shared.status);
                    status.source = source.describe();
                    status.state = CaptureState::Running;
                }
                match stream(shared, source.as_mut(), on_frame) {
                    Ok(()) => return,
                    Err(e) => e,
                }
            }
            Err(e) => e,
        };
        let has_run = lock(&shared.status).frames > 0;
        if !(retry && has_run) {
            return set_state(shared, CaptureState::Failed(failure.to_string()));
        }
        set_state(shared, CaptureState::Reconnecting(failure.to_string()));
        nap(shared, webcam::RECONNECT_EVERY);
    }
}

/// Reads frames until the source ends (`Ok`), fails (`Err`) or the worker is stopped.
fn stream(shared: &Shared, source: &mut dyn FrameSource, on_frame: &dyn Fn(&Frame)) -> Result<(), CaptureError> {
    let started = Instant::now();
    let mut last = Instant::now();
    while !stopped(shared) {
        let began = Instant::now();
        let Some(frame) = source.next_frame()? else {
            set_state(shared, CaptureState::Ended);
            return Ok(());
        };
        let rgba = to_rgba(&frame.image)?;
        let work = began.elapsed();
        if let Some(fps) = source.nominal_fps() {
            // Files and the demo play in real time rather than as fast as they decode.
            let due = Duration::from_secs_f64(frame.index as f64 / fps);
            nap(shared, due.saturating_sub(started.elapsed()));
        }
        record(shared, &frame, work, last.elapsed());
        last = Instant::now();
        on_frame(&frame);
        *lock(&shared.latest) = Some(ShownFrame { frame, rgba });
    }
    Ok(())
}

fn record(shared: &Shared, frame: &Frame, work: Duration, interval: Duration) {
    let mut status = lock(&shared.status);
    let first = status.frames == 0;
    let smooth = |old: f64, new: f64| if first { new } else { old * 0.9 + new * 0.1 };
    let fps = if interval.as_secs_f64() > 0.0 { 1.0 / interval.as_secs_f64() } else { 0.0 };
    status.fps = smooth(status.fps, fps);
    status.process_ms = smooth(status.process_ms, work.as_secs_f64() * 1000.0);
    status.width = frame.width();
    status.height = frame.height();
    status.frames += 1;
}

/// BGR → tightly packed RGBA bytes for the screen.
pub fn to_rgba(image: &Mat) -> opencv::Result<Vec<u8>> {
    let mut rgba = Mat::default();
    imgproc::cvt_color_def(image, &mut rgba, imgproc::COLOR_BGR2RGBA)?;
    Ok(rgba.data_bytes()?.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;
    use opencv::core::{Mat, Scalar};
    use std::sync::atomic::AtomicUsize;

    /// A camera that gives `frames` frames, then is unplugged.
    struct Flaky {
        frames: u64,
        given: u64,
    }

    impl FrameSource for Flaky {
        fn next_frame(&mut self) -> Result<Option<Frame>, CaptureError> {
            if self.given == self.frames {
                return Err(CaptureError::Camera { index: 0, reason: "lost (unplugged)".into() });
            }
            self.given += 1;
            let image = Mat::new_rows_cols_with_default(4, 4, opencv::core::CV_8UC3, Scalar::all(9.0))?;
            Ok(Some(Frame { image, index: self.given, time: Duration::ZERO, truth: None }))
        }
        fn describe(&self) -> String {
            "flaky camera".into()
        }
        fn nominal_fps(&self) -> Option<f64> {
            None
        }
    }

    fn wait_for(worker: &CaptureWorker, what: &str, done: impl Fn(&CaptureStatus) -> bool) -> CaptureStatus {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let status = worker.status();
            if done(&status) {
                return status;
            }
            assert!(Instant::now() < deadline, "{what}: last status {status:?}");
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Opens fine, fails twice while "unplugged", then opens again.
    fn flaky_opener(opens: Arc<AtomicUsize>) -> Opener {
        Box::new(move || {
            let n = opens.fetch_add(1, Ordering::SeqCst);
            if n == 1 || n == 2 {
                Err(CaptureError::NoSuchCamera { index: 0, available: "no camera was found".into() })
            } else {
                Ok(Box::new(Flaky { frames: 3, given: 0 }) as Box<dyn FrameSource>)
            }
        })
    }

    #[test]
    fn an_unplugged_camera_is_reported_and_reopened() {
        let opens = Arc::new(AtomicUsize::new(0));
        let worker = CaptureWorker::spawn_with("cam".into(), flaky_opener(Arc::clone(&opens)), true, Box::new(|_| {}));
        let lost = wait_for(&worker, "no reconnecting state", |s| matches!(s.state, CaptureState::Reconnecting(_)));
        assert!(matches!(&lost.state, CaptureState::Reconnecting(why) if why.contains("unplugged")), "{lost:?}");
        wait_for(&worker, "no frames after reconnecting", |s| s.frames > 3);
        assert!(opens.load(Ordering::SeqCst) >= 4, "the camera was not reopened after failing");
    }

    #[test]
    fn a_source_that_fails_without_retry_is_failed_and_keeps_its_last_frame() {
        let opens = Arc::new(AtomicUsize::new(0));
        let worker =
            CaptureWorker::spawn_with("file".into(), flaky_opener(Arc::clone(&opens)), false, Box::new(|_| {}));
        let failed = wait_for(&worker, "no failure", |s| matches!(s.state, CaptureState::Failed(_)));
        assert_eq!(failed.frames, 3);
        assert_eq!(opens.load(Ordering::SeqCst), 1);
        assert!(worker.take_frame().is_some(), "the last frame was not kept for the screen");
    }
}
