//! The referee thread behind the window: a thread named "referee" takes the capture thread's
//! frames, rules on them (`live::omphala`) and leaves a snapshot that the UI polls each repaint.
//! The UI's orders (an answer to `confirm`, a new game, the end by agreement) reach it by
//! channel, so the window never waits on vision.
//!
//! Frames of a paced source (a file, the demo) are handed over one by one and the source waits
//! for the referee, so no frame of a recorded game is skipped; a camera's frames are dropped
//! while the referee is busy (counted in the snapshot).

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, Sender, SyncSender, TrySendError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use opencv::prelude::*;

use super::marks::{CardMark, ZoneMark, card_marks, zone_marks};
use super::omphala::Said;
use super::orders::{Finished, LiveGame, Order};
use super::referee::LiveReferee;
use crate::capture::Frame;
use crate::capture::worker::lock;
use crate::referee::minigame::Event as MiniGameEvent;
use crate::room::Room;
use crate::rules::omphala::GameState;
use crate::symbols::games::GameKind;

/// Things said kept in a snapshot.
const SNAPSHOT_LOG: usize = 200;

/// Everything the window shows of the referee, as of one frame.
#[derive(Clone, Debug, Default)]
pub struct Snapshot {
    /// Grows with every frame refereed.
    pub version: u64,
    pub title: String,
    pub frame: u64,
    pub image_size: [i32; 2],
    pub cards: Vec<CardMark>,
    pub zones: Vec<ZoneMark>,
    pub names: Vec<String>,
    pub state: Option<GameState>,
    /// The last things said, oldest first.
    pub log: Vec<Said>,
    /// Games written into the scorebook since the window started.
    pub games_kept: u64,
    /// A question for the operator: what it is about and the candidates to choose from.
    pub question: Option<crate::referee::omphala::question::Question>,
    /// The previous game of this window, once one has ended.
    pub finished: Option<Finished>,
    /// Milliseconds of vision and refereeing per frame (smoothed).
    pub work_ms: f64,
    pub frames: u64,
    /// Camera frames not refereed because the referee was busy.
    pub dropped: u64,
    pub error: Option<String>,
    /// The mini-game being refereed, if it is one.
    pub minigame: Option<MiniGameView>,
    /// What the last ruled move moved: arrows from where each card was to where it went, image
    /// pixels.
    pub arrows: Vec<[[f32; 2]; 2]>,
    /// Where the layout in use came from: fitted to the deal here, or this file (neither: the
    /// demo's known camera, when `layout_ready`).
    pub layout_ready: bool,
    pub layout_fitted: bool,
    pub layout_file: Option<PathBuf>,
    /// The layout in use, for adjusting it by hand.
    pub layout: Option<crate::table::TableLayout>,
}

/// What the window shows of a mini-game.
#[derive(Clone, Debug)]
pub struct MiniGameView {
    pub kind: GameKind,
    pub names: Vec<String>,
    /// The deck's symbol names, for the claim search.
    pub symbols: Vec<String>,
    /// The last events, oldest first.
    pub log: Vec<MiniGameEvent>,
    /// The time of the last frame refereed (a claim made now is made then).
    pub ms: u64,
    pub over: bool,
    /// Places, first to last, each the seats sharing it.
    pub ranking: Vec<Vec<usize>>,
    /// The round cards of the last frame and the piles learnt from the deal, in image pixels.
    pub cards: Vec<RoundMark>,
    pub piles: Vec<RoundMark>,
}

/// A round card or a pile: centre, radius and label.
#[derive(Clone, Debug, PartialEq)]
pub struct RoundMark {
    pub center: [f32; 2],
    pub radius: f32,
    pub label: String,
    /// Read as a card of the deck.
    pub known: bool,
}

struct Shared {
    snapshot: Mutex<Arc<Snapshot>>,
    dropped: Arc<AtomicU64>,
    stop: AtomicBool,
}

/// Hands frames to a worker thread (the referee, or the deck's teaching): the capture thread calls
/// it for each frame.
#[derive(Clone)]
pub struct FrameSink {
    frames: SyncSender<Frame>,
    /// Frames not taken because the worker was busy.
    dropped: Arc<AtomicU64>,
}

impl FrameSink {
    /// A sink into a channel of one frame, and that channel's receiving end.
    pub fn channel() -> (FrameSink, Receiver<Frame>) {
        let (frames, received) = mpsc::sync_channel(1);
        (FrameSink { frames, dropped: Arc::new(AtomicU64::new(0)) }, received)
    }

    /// Frames dropped so far because the worker was busy.
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }

    /// Gives the referee a copy of `frame`. With `wait`, blocks until the referee takes it (a
    /// paced source); otherwise drops it when the referee is busy (a camera).
    pub fn offer(&self, frame: &Frame, wait: bool) {
        let Ok(image) = frame.image.try_clone() else { return };
        let copy = Frame { image, index: frame.index, time: frame.time, truth: None };
        if wait {
            let _ = self.frames.send(copy);
        } else if let Err(TrySendError::Full(_)) = self.frames.try_send(copy) {
            self.dropped.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// Owns the referee thread; dropping it stops the thread.
pub struct RefereeWorker {
    shared: Arc<Shared>,
    orders: Sender<Order>,
    sink: FrameSink,
    thread: Option<JoinHandle<()>>,
}

impl RefereeWorker {
    /// Starts refereeing `game` on a thread named "referee", keeping finished games in the
    /// `scorebook` if one and showing the table on the `room`'s page if one; `on_update` is
    /// called after each new snapshot (the window asks for a repaint).
    pub fn spawn(
        game: LiveGame,
        scorebook: Option<PathBuf>,
        room: Option<Arc<Room>>,
        on_update: Box<dyn Fn() + Send>,
    ) -> RefereeWorker {
        let (sink, frame_rx) = FrameSink::channel();
        let shared = Arc::new(Shared {
            snapshot: Mutex::new(Arc::new(Snapshot::default())),
            dropped: Arc::clone(&sink.dropped),
            stop: AtomicBool::new(false),
        });
        let (order_tx, order_rx) = mpsc::channel();
        let thread_shared = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("referee".into())
            .spawn(move || {
                let out = Out { shared: &thread_shared, room: room.as_deref(), on_update: on_update.as_ref() };
                run(&out, game, scorebook, &frame_rx, &order_rx)
            })
            .expect("the OS refused to start the referee thread");
        RefereeWorker { shared, orders: order_tx, sink, thread: Some(thread) }
    }

    pub fn sink(&self) -> FrameSink {
        self.sink.clone()
    }

    pub fn snapshot(&self) -> Arc<Snapshot> {
        Arc::clone(&lock(&self.shared.snapshot))
    }

    pub fn order(&self, order: Order) {
        let _ = self.orders.send(order);
    }
}

impl Drop for RefereeWorker {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// What the referee thread keeps between frames for its snapshots.
#[derive(Default)]
struct Progress {
    version: u64,
    work_ms: f64,
    frames: u64,
    /// The last frame's index and size, and the cards found in it.
    frame: u64,
    image_size: [i32; 2],
    cards: Vec<CardMark>,
    games_kept: u64,
}

/// Where the referee thread's snapshots go: the window's shared slot, the room's page, and the
/// window's repaint.
struct Out<'a> {
    shared: &'a Shared,
    room: Option<&'a Room>,
    on_update: &'a dyn Fn(),
}

fn run(out: &Out, game: LiveGame, scorebook: Option<PathBuf>, frames: &Receiver<Frame>, orders: &Receiver<Order>) {
    let shared = out.shared;
    let start = |game| {
        let mut referee = LiveReferee::start(game);
        referee.scorebook = scorebook.clone();
        referee
    };
    let mut current = start(game);
    let mut progress = Progress::default();
    publish(out, &current, &mut progress);
    while !shared.stop.load(Ordering::Relaxed) {
        let mut ordered = false;
        for order in orders.try_iter() {
            ordered = true;
            match order {
                Order::NewGame(game) => current = start(game),
                other => current.order(other),
            }
        }
        if ordered {
            progress.games_kept += u64::from(current.keep_finished());
            publish(out, &current, &mut progress);
        }
        let frame = match frames.recv_timeout(Duration::from_millis(30)) {
            Ok(frame) => frame,
            Err(mpsc::RecvTimeoutError::Timeout) => continue,
            Err(mpsc::RecvTimeoutError::Disconnected) => return,
        };
        let began = Instant::now();
        progress.cards = card_marks(&current.push(&frame));
        progress.games_kept += u64::from(current.keep_finished());
        let ms = began.elapsed().as_secs_f64() * 1000.0;
        progress.work_ms = if progress.frames == 0 { ms } else { progress.work_ms * 0.9 + ms * 0.1 };
        progress.frames += 1;
        progress.frame = frame.index;
        progress.image_size = [frame.image.cols(), frame.image.rows()];
        publish(out, &current, &mut progress);
    }
}

/// Leaves a new snapshot for the window, shows it on the room's page and asks the window to
/// repaint.
fn publish(out: &Out, current: &LiveReferee, progress: &mut Progress) {
    progress.version += 1;
    let snapshot = snapshot_of(current, progress, out.shared);
    if let Some(room) = out.room {
        room.publish(room_view(&snapshot));
    }
    *lock(&out.shared.snapshot) = Arc::new(snapshot);
    (out.on_update)();
}

/// What the room's page shows of a snapshot.
fn room_view(snapshot: &Snapshot) -> crate::room::RoomView {
    match &snapshot.minigame {
        Some(m) => super::room::of_minigame(m.kind, &m.names, m.over, &m.ranking, &m.log),
        None => super::room::of_omphala(&snapshot.names, snapshot.state.as_ref(), &snapshot.log),
    }
}

/// The layout's zones, those the referee's last desync names marked while it is lost.
fn zones_of(current: &LiveReferee) -> Vec<ZoneMark> {
    let Some(session) = current.session() else { return Vec::new() };
    let Some(layout) = session.watch().layout() else { return Vec::new() };
    let mut zones = zone_marks(layout, &current.names);
    if let Some(differences) = session.differences() {
        super::marks::mark_differences(&mut zones, differences);
    }
    zones
}

fn snapshot_of(current: &LiveReferee, progress: &Progress, shared: &Shared) -> Snapshot {
    let session = current.session();
    let log = session.map_or(&[][..], |s| s.log());
    Snapshot {
        version: progress.version,
        title: current.title.clone(),
        frame: progress.frame,
        image_size: progress.image_size,
        cards: progress.cards.clone(),
        zones: zones_of(current),
        names: current.names.clone(),
        state: session.map(|s| s.referee().state().clone()),
        log: log[log.len().saturating_sub(SNAPSHOT_LOG)..].to_vec(),
        games_kept: progress.games_kept,
        question: session.and_then(|s| s.question().cloned()),
        finished: current.finished.clone(),
        work_ms: progress.work_ms,
        frames: progress.frames,
        dropped: shared.dropped.load(Ordering::Relaxed),
        error: current
            .error
            .clone()
            .or_else(|| session.and_then(|s| s.journal_error().map(String::from)))
            .or_else(|| current.minigame().and_then(|(m, _)| m.journal_error().map(String::from))),
        minigame: current.minigame().map(|(m, cards)| minigame_view(m, cards)),
        arrows: session
            .and_then(|s| Some(super::marks::move_marks(s.last_moves(), s.watch().layout()?)))
            .unwrap_or_default(),
        layout_ready: session.is_some_and(|s| s.watch().layout().is_some()),
        layout_fitted: session.is_some_and(|s| s.watch().fitted()),
        layout_file: current.layout_file.clone(),
        layout: session.and_then(|s| s.watch().layout().cloned()),
    }
}

fn minigame_view(
    session: &super::minigame::MiniGameSession,
    cards: &[crate::referee::minigame::RoundCard],
) -> MiniGameView {
    let referee = session.referee();
    let log = session.log();
    let cards = cards
        .iter()
        .map(|c| RoundMark {
            center: [c.center.0, c.center.1],
            radius: c.radius,
            label: c.card.map_or("?".to_string(), |id| format!("#{id}")),
            known: c.card.is_some(),
        })
        .collect();
    let piles = referee.piles().map_or_else(Vec::new, |map| {
        map.piles
            .iter()
            .map(|p| RoundMark {
                center: [p.center.0, p.center.1],
                radius: map.radius,
                label: referee.place_name(p.place),
                known: true,
            })
            .collect()
    });
    MiniGameView {
        kind: referee.kind(),
        names: referee.names().to_vec(),
        symbols: session.symbols().to_vec(),
        log: log[log.len().saturating_sub(SNAPSHOT_LOG)..].to_vec(),
        ms: session.last_ms(),
        over: referee.is_over(),
        ranking: referee.ranking(),
        cards,
        piles,
    }
}
