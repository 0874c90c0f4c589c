//! Teaching the reader a deck from the window: a thread named "deck-teaching" feeds the capture
//! thread's frames to a `GuidedEnroller` (which card to hold up next, taken once held still) and
//! leaves a view that the window polls each repaint. The window's buttons reach it by channel;
//! finishing hands back the profile of the cards taught.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use opencv::prelude::*;

use super::worker::FrameSink;
use crate::capture::Frame;
use crate::capture::worker::lock;
use crate::cards::Card;
use crate::vision::cards::decks::enroll::DeckProfile;
use crate::vision::cards::decks::guided_enroll::{GuidedEnroller, Showing};

/// What the window shows of the teaching, as of one frame.
#[derive(Clone, Debug, PartialEq)]
pub struct TeachView {
    /// The card to hold up next (`None`: every card is taught).
    pub asked: Option<Card>,
    /// The cards taught, in the order taken.
    pub taken: Vec<Card>,
    pub left: usize,
    pub showing: Showing,
    /// The outline of the one card in view, image pixels.
    pub outline: Option<[[f32; 2]; 4]>,
    pub image_size: [i32; 2],
    pub frames: u64,
    /// Milliseconds of vision per frame (smoothed).
    pub work_ms: f64,
    /// The reader could not start, or a frame could not be read.
    pub error: Option<String>,
}

impl Default for TeachView {
    fn default() -> Self {
        TeachView {
            asked: None,
            taken: Vec::new(),
            left: 0,
            showing: Showing::Nothing,
            outline: None,
            image_size: [0, 0],
            frames: 0,
            work_ms: 0.0,
            error: None,
        }
    }
}

/// The window's buttons.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TeachOrder {
    /// The card asked for is not at hand: ask it after the others.
    Skip,
    /// Forget the card taken last and ask for it again.
    Back,
    /// The card held is the one asked for, whatever the built-in reader thinks.
    TakeAnyway,
}

struct Shared {
    view: Mutex<Arc<TeachView>>,
    stop: AtomicBool,
}

/// Owns the teaching thread; `finish` ends it and gives the profile, dropping it gives nothing.
pub struct TeachWorker {
    shared: Arc<Shared>,
    orders: Sender<TeachOrder>,
    sink: FrameSink,
    thread: Option<JoinHandle<Option<DeckProfile>>>,
}

impl TeachWorker {
    /// Starts teaching the 52 cards on a thread named "deck-teaching"; `on_update` is called after
    /// each new view (the window asks for a repaint).
    pub fn spawn(on_update: Box<dyn Fn() + Send>) -> TeachWorker {
        let shared =
            Arc::new(Shared { view: Mutex::new(Arc::new(TeachView::default())), stop: AtomicBool::new(false) });
        let (sink, frames) = FrameSink::channel();
        let (orders, received) = mpsc::channel();
        let thread_shared = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("deck-teaching".into())
            .spawn(move || run(&thread_shared, &frames, &received, on_update.as_ref()))
            .expect("the OS refused to start the deck-teaching thread");
        TeachWorker { shared, orders, sink, thread: Some(thread) }
    }

    pub fn sink(&self) -> FrameSink {
        self.sink.clone()
    }

    pub fn view(&self) -> Arc<TeachView> {
        Arc::clone(&lock(&self.shared.view))
    }

    pub fn order(&self, order: TeachOrder) {
        let _ = self.orders.send(order);
    }

    /// Ends the teaching: the profile of the cards taught (`None` if the reader never started).
    pub fn finish(mut self) -> Option<DeckProfile> {
        self.stop()
    }

    fn stop(&mut self) -> Option<DeckProfile> {
        self.shared.stop.store(true, Ordering::Relaxed);
        self.thread.take().and_then(|thread| thread.join().ok().flatten())
    }
}

impl Drop for TeachWorker {
    fn drop(&mut self) {
        self.stop();
    }
}

fn run(
    shared: &Shared,
    frames: &Receiver<Frame>,
    orders: &Receiver<TeachOrder>,
    on_update: &dyn Fn(),
) -> Option<DeckProfile> {
    let mut view = TeachView::default();
    let mut enroller = match GuidedEnroller::new() {
        Ok(enroller) => enroller,
        Err(e) => {
            view.error = Some(format!("the card reader did not start: {e}"));
            publish(shared, view, on_update);
            return None;
        }
    };
    describe(&mut view, &enroller);
    publish(shared, view.clone(), on_update);
    while !shared.stop.load(Ordering::Relaxed) {
        let mut ordered = false;
        for order in orders.try_iter() {
            ordered = true;
            match order {
                TeachOrder::Skip => enroller.skip(),
                TeachOrder::Back => enroller.back(),
                TeachOrder::TakeAnyway => {
                    view.error = enroller.take_anyway().err().map(|e| format!("the card could not be taken: {e}"))
                }
            }
        }
        if ordered {
            describe(&mut view, &enroller);
            publish(shared, view.clone(), on_update);
        }
        let frame = match frames.recv_timeout(Duration::from_millis(30)) {
            Ok(frame) => frame,
            Err(mpsc::RecvTimeoutError::Timeout) => continue,
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        };
        let began = Instant::now();
        view.error = enroller.push(&frame.image).err().map(|e| format!("frame {}: {e}", frame.index));
        let ms = began.elapsed().as_secs_f64() * 1000.0;
        view.work_ms = if view.frames == 0 { ms } else { view.work_ms * 0.9 + ms * 0.1 };
        view.frames += 1;
        view.image_size = [frame.image.cols(), frame.image.rows()];
        describe(&mut view, &enroller);
        publish(shared, view.clone(), on_update);
    }
    Some(enroller.finish())
}

fn describe(view: &mut TeachView, enroller: &GuidedEnroller) {
    view.asked = enroller.asked();
    view.taken = enroller.taken();
    view.left = enroller.left();
    view.showing = enroller.showing().clone();
    view.outline = enroller.outline();
}

fn publish(shared: &Shared, view: TeachView, on_update: &dyn Fn()) {
    *lock(&shared.view) = Arc::new(view);
    on_update();
}
