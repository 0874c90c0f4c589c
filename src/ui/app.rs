//! The application object: persisted settings, transient state, and the draw → commands loop
//! (the UI returns commands; they run after drawing).

use std::path::PathBuf;
use std::sync::Arc;

use super::camera_list::CameraList;
use super::command::{BookOrder, UiCommand};
use super::live_view::LiveView;
use super::minigame_panel::{self, ClaimDraft};
use super::scorebook_screen::{self, ScorebookScreen};
use super::settings::Settings;
use super::teach_panel::{self, UnreadHint};
use super::{game_bar, omphala_panel, overlay, said, source_picker, status_line};
use crate::capture::worker::{CaptureStatus, CaptureWorker};
use crate::capture::{self, CaptureOptions, SourceSpec};
use crate::live::teaching::{TeachView, TeachWorker};
use crate::live::{FrameSink, LiveGame, Order, RefereeWorker, Snapshot, journal_summary};
use crate::referee::minigame::SeatClaim;
use crate::room::Room;
use crate::symbols::games::GameKind;

/// What the command line asked for when it opened the window.
#[derive(Clone, Debug, Default)]
pub struct StartOptions {
    pub source: Option<SourceSpec>,
    pub capture: Option<CaptureOptions>,
    /// A journal to offer for resuming in place of the last game's.
    pub resume: Option<PathBuf>,
    /// Take a picture of the window after a while, then close it.
    pub screenshot: Option<super::ScreenshotPlan>,
    /// Large type from the start (else as last time).
    pub large_type: bool,
    /// The game at a real table ("omphala" or a mini-game's code; else as last time).
    pub game: Option<String>,
    /// Mini-game claims made at their times (a recorded game's claims file).
    pub claims: Vec<SeatClaim>,
    /// The players' names in seat order (else as last time).
    pub names: Vec<String>,
    /// The table's layout file (else as last time).
    pub layout: Option<PathBuf>,
    /// Where journals and layouts are kept (else the app's data folder).
    pub data_dir: Option<PathBuf>,
    /// The deck profile to read the cards with (else as last time).
    pub card_profile: Option<PathBuf>,
    /// Open on the Scorebook screen.
    pub show_scorebook: bool,
    /// The scorebook (else scorebook.sqlite in the data folder): a file or a `postgres://` server.
    pub scorebook: Option<PathBuf>,
    /// Serve the page for the room at this address.
    pub serve: Option<String>,
}

pub struct RefereeApp {
    settings: Settings,
    source: SourceSpec,
    worker: CaptureWorker,
    status: CaptureStatus,
    referee: RefereeWorker,
    snapshot: Arc<Snapshot>,
    /// The journal of the game being refereed (none for the demo).
    journal: Option<PathBuf>,
    /// The last game, journalled and unfinished, offered for resuming: its journal and summary.
    resume_offer: Option<(PathBuf, String)>,
    shooter: Option<super::screenshot::Shooter>,
    /// A mini-game claim being typed.
    claim: Option<ClaimDraft>,
    /// A card code typed for a reveal the camera cannot read.
    typed_card: String,
    /// The layout being adjusted on the live image, before it is used.
    adjusting: Option<crate::table::TableLayout>,
    /// Where journals and layouts are kept.
    data_dir: PathBuf,
    /// Where finished games are kept: in the data folder unless `--scorebook` named another
    /// file or a PostgreSQL server.
    book: PathBuf,
    view: LiveView,
    cameras: CameraList,
    frames_shown: u64,
    /// The deck being taught (the camera's frames go to it in place of the referee), and what it
    /// showed last.
    teaching: Option<TeachWorker>,
    teach_view: Arc<TeachView>,
    unread: UnreadHint,
    /// Said once in the game bar: where a taught deck was kept, or why it was not.
    notice: Option<String>,
    scorebook: ScorebookScreen,
    /// Games the referee had written into the scorebook when the screen last read it: the open
    /// screen reads the book again when more are.
    kept_games: u64,
}

impl RefereeApp {
    pub fn new(cc: &eframe::CreationContext<'_>, start: StartOptions) -> RefereeApp {
        // A screenshot shows the app as a new user first sees it, and leaves no settings behind.
        let mut settings = if start.screenshot.is_some() { Settings::default() } else { Settings::load(cc.storage) };
        if let Some(capture) = start.capture {
            settings.capture = capture;
        }
        let source = start.source.or_else(|| settings.last_source.clone()).unwrap_or_else(capture::default_source);
        settings.last_source = Some(source.clone());
        settings.large_type |= start.large_type;
        if let Some(game) = start.game {
            settings.game = game;
        }
        if start.layout.is_some() {
            settings.layout = start.layout;
        }
        if start.card_profile.is_some() {
            settings.card_profile = start.card_profile;
        }
        if !start.names.is_empty() {
            settings.players = start.names.len().clamp(2, 6);
            settings.names = start.names.join(", ");
        }
        apply_look(&cc.egui_ctx, &settings);
        let resume_offer = start.resume.as_ref().or(settings.last_journal.as_ref()).and_then(|path| {
            let (summary, over) = journal_summary(path)?;
            (!over).then(|| (path.clone(), summary))
        });
        let data_dir =
            start.data_dir.clone().or_else(|| eframe::storage_dir(super::APP_ID)).unwrap_or_else(std::env::temp_dir);
        let (mut game, journal) = live_game(&source, &settings, &data_dir);
        if let LiveGame::MiniGame { claims, .. } = &mut game {
            *claims = start.claims;
        }
        let book = start.scorebook.clone().unwrap_or_else(|| data_dir.join(crate::scorebook::FILE_NAME));
        let mut notice = None;
        let room = start.serve.as_deref().and_then(|address| match Room::serve(address, Some(book.clone())) {
            Ok(room) => {
                tracing::info!("the page for the room: {}", room.url());
                notice = Some(format!("The page for the room is at {}", room.url()));
                Some(Arc::new(room))
            }
            Err(e) => {
                notice = Some(e);
                None
            }
        });
        // The referee thread keeps the page as long as the window lives.
        let referee = spawn_referee(&cc.egui_ctx, game, &book, room);
        catch_up_scorebook(&book, &data_dir);
        let worker = spawn_worker(&cc.egui_ctx, &source, &settings.capture, referee.sink());
        let mut cameras = CameraList::default();
        cameras.refresh();
        let mut scorebook = ScorebookScreen::default();
        if start.show_scorebook {
            (scorebook.open, scorebook.today) = (true, true);
            scorebook.reload(&book);
        }
        RefereeApp {
            status: worker.status(),
            snapshot: referee.snapshot(),
            referee,
            journal,
            resume_offer,
            shooter: start.screenshot.map(super::screenshot::Shooter::new),
            claim: None,
            typed_card: String::new(),
            adjusting: None,
            data_dir,
            book,
            settings,
            source,
            worker,
            view: LiveView::default(),
            cameras,
            frames_shown: 0,
            teaching: None,
            teach_view: Arc::new(TeachView::default()),
            unread: UnreadHint::default(),
            notice,
            scorebook,
            kept_games: 0,
        }
    }

    /// Frames drawn on screen since start (tests wait on this).
    pub fn frames_shown(&self) -> u64 {
        self.frames_shown
    }

    pub fn status(&self) -> &CaptureStatus {
        &self.status
    }

    /// The camera mode in use (saved with the settings).
    pub fn capture_options(&self) -> &CaptureOptions {
        &self.settings.capture
    }

    pub fn source(&self) -> &SourceSpec {
        &self.source
    }

    /// What the referee thread showed last.
    pub fn snapshot(&self) -> &Snapshot {
        &self.snapshot
    }

    pub fn run_command(&mut self, ctx: &egui::Context, command: UiCommand) {
        match command {
            UiCommand::SwitchSource(source) => {
                // Stop the old thread before opening the new source: a camera allows one reader.
                self.teaching = None;
                self.worker = spawn_worker(ctx, &source, &self.settings.capture, self.referee.sink());
                self.settings.last_source = Some(source.clone());
                self.source = source;
                self.status = self.worker.status();
                self.new_game();
            }
            UiCommand::SetMode(options) => {
                self.settings.capture = options;
                self.teaching = None;
                self.worker = spawn_worker(ctx, &self.source, &self.settings.capture, self.referee.sink());
                self.status = self.worker.status();
                self.new_game();
            }
            UiCommand::RefreshCameras => self.cameras.refresh(),
            UiCommand::Answer(reply) => self.referee.order(Order::Answer(reply)),
            UiCommand::EndByAgreement => self.referee.order(Order::EndByAgreement),
            UiCommand::NewGame => self.new_game(),
            UiCommand::Claim { seat, called, ms } => {
                self.claim = None;
                self.referee.order(Order::Claim { seat, called, ms });
            }
            UiCommand::CancelClaim => self.claim = None,
            UiCommand::Undo => self.referee.order(Order::Undo),
            UiCommand::SaveLayout => {
                let path = self.data_dir.join("layouts").join(format!("table-{}.toml", unix_secs()));
                self.referee.order(Order::SaveLayout(path.clone()));
                self.settings.layout = Some(path);
            }
            UiCommand::AdjustLayout => self.adjusting = self.snapshot.layout.clone(),
            UiCommand::UseAdjustedLayout => {
                if let Some(layout) = self.adjusting.take() {
                    self.referee.order(Order::UseLayout(layout));
                }
            }
            UiCommand::CancelAdjusting => self.adjusting = None,
            UiCommand::Reveal { player, position, card } => {
                self.referee.order(Order::Reveal { player, position, card })
            }
            UiCommand::Resume => {
                if let Some((path, _)) = self.resume_offer.take() {
                    let (layout, deck) = (self.settings.layout.clone(), self.settings.card_profile.clone());
                    self.referee.order(Order::NewGame(LiveGame::Resume { journal: path.clone(), layout, deck }));
                    self.journal = Some(path);
                }
            }
            UiCommand::ApplyLook => apply_look(ctx, &self.settings),
            UiCommand::OpenScorebook => {
                self.scorebook.open = true;
                self.scorebook.today = true;
                self.scorebook.reload(&self.book);
            }
            UiCommand::Book(BookOrder::Reload) => self.scorebook.reload(&self.book),
            UiCommand::Book(BookOrder::Steps) => self.scorebook.load_steps(&self.book, ctx),
            UiCommand::Book(order) => self.scorebook.export(&self.data_dir.join("exports"), order),
            UiCommand::TeachDeck => {
                let repaint = ctx.clone();
                let teaching = TeachWorker::spawn(Box::new(move || repaint.request_repaint()));
                // The camera is reopened feeding the teaching: a camera allows one reader.
                self.worker = spawn_worker(ctx, &self.source, &self.settings.capture, teaching.sink());
                self.teach_view = teaching.view();
                self.teaching = Some(teaching);
                self.notice = None;
            }
            UiCommand::Teach(order) => {
                if let Some(teaching) = &self.teaching {
                    teaching.order(order);
                }
            }
            UiCommand::FinishTeaching => {
                let Some(teaching) = self.teaching.take() else { return };
                let profile = teaching.finish();
                self.worker = spawn_worker(ctx, &self.source, &self.settings.capture, self.referee.sink());
                self.keep_deck(profile);
                self.new_game();
            }
            UiCommand::CancelTeaching => {
                self.teaching = None;
                self.worker = spawn_worker(ctx, &self.source, &self.settings.capture, self.referee.sink());
            }
            UiCommand::ForgetDeck => {
                self.settings.card_profile = None;
                self.new_game();
            }
        }
    }

    /// Saves a taught deck's profile in the data folder and reads with it from now on.
    fn keep_deck(&mut self, profile: Option<crate::vision::cards::decks::enroll::DeckProfile>) {
        let Some(profile) = profile.filter(|p| !p.corners.is_empty()) else {
            self.notice = Some("no card was taught: the deck in use stays".into());
            return;
        };
        let path = self.data_dir.join("decks").join(format!("deck-{}.json", unix_secs()));
        let saved = std::fs::create_dir_all(self.data_dir.join("decks")).map_err(|e| e.to_string());
        match saved.and_then(|()| profile.save(&path).map_err(|e| e.to_string())) {
            Ok(()) => {
                let taught = profile.cards().len();
                self.notice = Some(format!("{taught} cards taught, kept in {}", path.display()));
                self.settings.card_profile = Some(path);
                self.unread.clear();
            }
            Err(e) => self.notice = Some(format!("the taught deck could not be kept: {e}")),
        }
    }
}

/// The capture thread: each frame goes to the referee (a recorded source waits for it, a camera
/// does not) and a repaint is asked for.
impl RefereeApp {
    fn new_game(&mut self) {
        self.remember_journal();
        let (game, journal) = live_game(&self.source, &self.settings, &self.data_dir);
        self.referee.order(Order::NewGame(game));
        self.journal = journal;
    }

    /// The game's journal becomes the one offered next time once it holds a ruling.
    fn remember_journal(&mut self) {
        if let Some(path) = &self.journal
            && journal_summary(path).is_some()
        {
            self.settings.last_journal = Some(path.clone());
        }
    }

    /// Keys 1 to 6 open a claim for that seat at the refereed frame's time (not while text is
    /// typed).
    fn claim_keys(&mut self, ctx: &egui::Context) {
        let Some(view) = &self.snapshot.minigame else { return };
        if self.claim.is_some() || ctx.egui_wants_keyboard_input() {
            return;
        }
        const KEYS: [egui::Key; 6] =
            [egui::Key::Num1, egui::Key::Num2, egui::Key::Num3, egui::Key::Num4, egui::Key::Num5, egui::Key::Num6];
        let pressed = ctx.input(|i| KEYS.iter().position(|k| i.key_pressed(*k)));
        if let Some(seat) = pressed.filter(|&s| s < view.names.len()) {
            self.claim = Some(ClaimDraft { seat, ms: view.ms, typed: String::new() });
        }
    }

    /// Whether the layout is being adjusted on the live image.
    pub fn adjusting(&self) -> bool {
        self.adjusting.is_some()
    }

    /// The deck's teaching as it stands, while the deck is taught.
    pub fn teaching(&self) -> Option<&TeachView> {
        self.teaching.as_ref().map(|_| self.teach_view.as_ref())
    }

    /// The deck profile the cards are read with.
    pub fn card_profile(&self) -> Option<&std::path::Path> {
        self.settings.card_profile.as_deref()
    }

    /// The last game offered for resuming, in words.
    pub fn resume_offer(&self) -> Option<&str> {
        self.resume_offer.as_ref().map(|(_, text)| text.as_str())
    }
}

fn spawn_worker(ctx: &egui::Context, source: &SourceSpec, options: &CaptureOptions, sink: FrameSink) -> CaptureWorker {
    let repaint = ctx.clone();
    let paced = !matches!(source, SourceSpec::Webcam(_));
    let on_frame = Box::new(move |frame: &capture::Frame| {
        sink.offer(frame, paced);
        repaint.request_repaint();
    });
    CaptureWorker::spawn(source.clone(), options.clone(), on_frame)
}

/// Writes into the scorebook, on a thread of its own, the finished games its first write left
/// out (a crash, a full disk): their journals are in the data folder.
fn catch_up_scorebook(book: &std::path::Path, data_dir: &std::path::Path) {
    let (book, journals) = (book.to_path_buf(), data_dir.join("journals"));
    let started = std::thread::Builder::new().name("scorebook-catch-up".into()).spawn(move || {
        let caught = crate::scorebook::Scorebook::open(&book)
            .and_then(|mut book| crate::scorebook::catch_up::catch_up(&mut book, &journals));
        match caught {
            Ok(caught) if caught.written > 0 => {
                tracing::info!("{} finished games written to the scorebook", caught.written)
            }
            Ok(_) => {}
            Err(e) => tracing::warn!("the scorebook: {e}"),
        }
    });
    if let Err(e) = started {
        tracing::warn!("the scorebook's catch-up did not start: {e}");
    }
}

/// The referee thread, keeping finished games in the scorebook `book` and showing the table on
/// the room's page if one is served.
fn spawn_referee(
    ctx: &egui::Context,
    game: LiveGame,
    book: &std::path::Path,
    room: Option<Arc<Room>>,
) -> RefereeWorker {
    let repaint = ctx.clone();
    RefereeWorker::spawn(game, Some(book.to_path_buf()), room, Box::new(move || repaint.request_repaint()))
}

/// The demo table referees its own scripted games; any other source is a real table with the
/// seats and names set, journalled in a new file (returned).
fn live_game(source: &SourceSpec, settings: &Settings, data_dir: &std::path::Path) -> (LiveGame, Option<PathBuf>) {
    match source {
        SourceSpec::Demo => {
            (LiveGame::Demo { width: settings.capture.width as i32, height: settings.capture.height as i32 }, None)
        }
        _ => match GameKind::from_code(&settings.game) {
            Some(kind) => {
                let journal = new_journal_path(data_dir, kind.code());
                let game = LiveGame::MiniGame {
                    kind,
                    names: settings.seat_names(),
                    deck: settings.symbol_deck.clone(),
                    profile: settings.symbol_profile.clone(),
                    journal,
                    claims: Vec::new(),
                };
                // A mini-game's journal is not offered for resuming: it is kept for disputes.
                (game, None)
            }
            None => {
                let journal = new_journal_path(data_dir, "omphala");
                let (layout, deck) = (settings.layout.clone(), settings.card_profile.clone());
                (LiveGame::Omphala { names: settings.seat_names(), layout, journal: journal.clone(), deck }, journal)
            }
        },
    }
}

/// A new journal file in the app's data folder, named by the time the game started.
fn new_journal_path(data_dir: &std::path::Path, game: &str) -> Option<PathBuf> {
    let dir = data_dir.join("journals");
    std::fs::create_dir_all(&dir).ok()?;
    Some(dir.join(format!("{game}-{}.jsonl", unix_secs())))
}

fn unix_secs() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// Large type: everything drawn half as large again, readable from the table.
fn apply_look(ctx: &egui::Context, settings: &Settings) {
    ctx.set_zoom_factor(if settings.large_type { 1.5 } else { 1.0 });
}

/// Keys for what is done often: Ctrl+N a new game, Ctrl+E end by agreement, Ctrl+Z undo the last
/// ruling (a mini-game's claim keys are in `claim_keys`).
fn shortcuts(ctx: &egui::Context) -> Vec<UiCommand> {
    ctx.input_mut(|input| {
        let mut commands = Vec::new();
        if input.consume_key(egui::Modifiers::COMMAND, egui::Key::N) {
            commands.push(UiCommand::NewGame);
        }
        if input.consume_key(egui::Modifiers::COMMAND, egui::Key::E) {
            commands.push(UiCommand::EndByAgreement);
        }
        if input.consume_key(egui::Modifiers::COMMAND, egui::Key::Z) {
            commands.push(UiCommand::Undo);
        }
        commands
    })
}

impl eframe::App for RefereeApp {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        let ctx = ui.ctx().clone();
        if let Some(shown) = self.worker.take_frame() {
            self.view.update(&ctx, &shown);
            self.frames_shown += 1;
        }
        self.status = self.worker.status();
        self.snapshot = self.referee.snapshot();
        self.unread.update(&self.snapshot);
        if let Some(teaching) = &self.teaching {
            self.teach_view = teaching.view();
        }
        if let Some(shooter) = &mut self.shooter {
            shooter.tick(&ctx);
        }
        let mut commands = shortcuts(&ctx);
        egui::Panel::top("source-bar").show(ui, |ui| {
            commands.extend(source_picker::show(
                ui,
                &self.source,
                &self.settings.capture,
                &mut self.cameras,
                &mut self.settings.typed_path,
            ));
            let bar = game_bar::BarState {
                demo: self.source == SourceSpec::Demo,
                resume: self.resume_offer.as_ref().map(|(_, text)| text.as_str()),
                suggest_teaching: self.unread.suggests() && self.snapshot.minigame.is_none(),
                teaching: self.teaching.is_some(),
            };
            commands.extend(game_bar::show(ui, &mut self.settings, &bar));
            if let Some(notice) = &self.notice {
                ui.weak(notice);
            }
        });
        egui::Panel::bottom("status-bar").show(ui, |ui| {
            status_line::show(ui, &self.status);
            match &self.teaching {
                Some(_) => status_line::show_teaching(ui, &self.teach_view),
                None => status_line::show_referee(ui, &self.snapshot),
            }
        });
        self.claim_keys(&ctx);
        egui::Panel::right("game-panel").default_size(400.0).resizable(true).show(ui, |ui| {
            match &self.snapshot.minigame {
                _ if self.teaching.is_some() => commands.extend(teach_panel::show(ui, &self.teach_view)),
                Some(view) => commands.extend(minigame_panel::show(ui, view, &mut self.claim)),
                None => {
                    let adjusting = self.adjusting.is_some();
                    commands.extend(omphala_panel::show(ui, &self.snapshot, &mut self.typed_card, adjusting))
                }
            }
        });
        egui::CentralPanel::default().show(ui, |ui| {
            let banner = match &self.snapshot.minigame {
                _ if self.teaching.is_some() => None,
                Some(view) => minigame_panel::banner(view),
                None => said::banner(&self.snapshot.log),
            };
            if let Some((colour, text)) = banner {
                ui.label(egui::RichText::new(text).size(22.0).color(colour).strong());
            }
            let shown = self.view.show(ui, "waiting for the first frame…");
            if let (Some(shown), true) = (shown, self.teaching.is_some()) {
                teach_panel::draw_outline(ui, shown, &self.teach_view);
            } else if let Some(shown) = shown {
                overlay::draw(ui, shown, &self.snapshot);
                overlay::draw_rounds(ui, shown, &self.snapshot);
                if let Some(layout) = &mut self.adjusting {
                    overlay::adjust_layout(ui, shown, self.snapshot.image_size, layout, &self.snapshot.names);
                }
            }
        });
        commands.extend(scorebook_screen::show(&ctx, &mut self.scorebook));
        if self.snapshot.games_kept > self.kept_games {
            self.kept_games = self.snapshot.games_kept;
            if self.scorebook.open {
                commands.push(UiCommand::Book(BookOrder::Reload));
            }
        }
        for command in commands {
            self.run_command(&ctx, command);
        }
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        if self.shooter.is_some() {
            return;
        }
        self.remember_journal();
        self.settings.save(storage);
    }
}
