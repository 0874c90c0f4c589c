//! The Scorebook screen: the table of the games chosen (tonight's by default: games, wins,
//! points, and the wins a tie-break decided), the games with their places, any game's
//! tie-break and record (step by step with each commit's thumbnail, for a refereed game), a filter by date, game and player, and export to CSV or JSON. The
//! screen draws what it was given; the app reads the book after drawing, when the screen asks
//! (opened, filtered, a game kept), never each frame.

use super::command::{BookOrder, UiCommand};
use crate::scorebook::{Filter, Kept, Scorebook, TableLine, clock, export};
use crate::symbols::games::GameKind;

/// One commit of the chosen game as shown: its frame, its lines and its thumbnail.
struct ShownStep {
    frame: u64,
    lines: String,
    thumbnail: Option<egui::TextureHandle>,
}

/// The screen's state: kept while the window lives, not saved.
#[derive(Default)]
pub struct ScorebookScreen {
    pub open: bool,
    /// Only today's games (UTC).
    pub today: bool,
    /// Typed: from this date on (YYYY-MM-DD), empty for all.
    pub since: String,
    /// A game's code, empty for all.
    pub game: String,
    /// Only games this player sat in, empty for all.
    pub player: String,
    /// The game whose record is shown.
    pub selected: Option<i64>,
    games: Vec<Kept>,
    table: Vec<TableLine>,
    /// The chosen game's steps.
    steps: Vec<ShownStep>,
    /// What the last read or export said (an error, or where the export went).
    message: Option<String>,
}

impl ScorebookScreen {
    /// The filter as set on the screen.
    pub fn filter(&self) -> Filter {
        let typed = |s: &String| Some(s.trim().to_string()).filter(|s| !s.is_empty());
        let filter =
            Filter { since: typed(&self.since), until: None, kind: typed(&self.game), player: typed(&self.player) };
        if self.today { filter.today() } else { filter }
    }

    /// Reads the book at `path` with the filter as set.
    pub fn reload(&mut self, path: &std::path::Path) {
        let read = Scorebook::open(path).and_then(|book| {
            let filter = self.filter();
            Ok((book.games(&filter)?, book.table(&filter)?))
        });
        match read {
            Ok((games, table)) => {
                (self.games, self.table) = (games, table);
                self.message = None;
            }
            Err(e) => self.message = Some(e.to_string()),
        }
    }

    /// Reads the chosen game's steps from the book at `path`, each thumbnail made a texture.
    pub fn load_steps(&mut self, path: &std::path::Path, ctx: &egui::Context) {
        self.steps.clear();
        let Some(id) = self.selected else { return };
        match Scorebook::open(path).and_then(|book| book.steps(id)) {
            Ok(steps) => {
                self.steps = steps
                    .into_iter()
                    .map(|step| ShownStep {
                        frame: step.frame,
                        lines: step.lines.join("  "),
                        thumbnail: step
                            .thumbnail
                            .and_then(|jpeg| texture(ctx, &format!("book-{id}-{}", step.frame), &jpeg)),
                    })
                    .collect();
            }
            Err(e) => self.message = Some(e.to_string()),
        }
    }

    /// Writes the games shown to `folder` as CSV or JSON, saying where.
    pub fn export(&mut self, folder: &std::path::Path, order: BookOrder) {
        let (text, ext) = match order {
            BookOrder::ExportJson => (export::json(&self.games), "json"),
            _ => (export::csv(&self.games), "csv"),
        };
        let stamp = clock::utc_time(std::time::SystemTime::now()).replace(':', "-");
        let path = folder.join(format!("scorebook-{stamp}.{ext}"));
        let written = std::fs::create_dir_all(folder).and_then(|()| std::fs::write(&path, text));
        self.message = Some(match written {
            Ok(()) => format!("{} games written to {}", self.games.len(), path.display()),
            Err(e) => format!("{}: cannot write: {e}", path.display()),
        });
    }
}

/// Draws the screen as a window of its own, when open.
pub fn show(ctx: &egui::Context, screen: &mut ScorebookScreen) -> Vec<UiCommand> {
    let mut commands = Vec::new();
    let mut open = screen.open;
    egui::Window::new("Scorebook").open(&mut open).default_size([640.0, 520.0]).show(ctx, |ui| {
        commands.extend(filters(ui, screen));
        if let Some(message) = &screen.message {
            ui.label(message);
        }
        ui.separator();
        table(ui, &screen.table);
        ui.separator();
        ui.strong(format!("Games ({})", screen.games.len()));
        egui::ScrollArea::vertical().id_salt("scorebook-games").max_height(160.0).show(ui, |ui| {
            for game in screen.games.iter().rev() {
                let chosen = screen.selected == Some(game.id);
                if ui.selectable_label(chosen, game.summary()).clicked() {
                    screen.selected = if chosen { None } else { Some(game.id) };
                    commands.push(UiCommand::Book(BookOrder::Steps));
                }
            }
        });
        if let Some(game) = screen.selected.and_then(|id| screen.games.iter().find(|g| g.id == id)) {
            ui.separator();
            record(ui, game, &screen.steps);
        }
    });
    screen.open = open;
    commands
}

fn filters(ui: &mut egui::Ui, screen: &mut ScorebookScreen) -> Vec<UiCommand> {
    let mut changed = false;
    ui.horizontal(|ui| {
        changed |= ui.checkbox(&mut screen.today, "Tonight").changed();
        let caption = ui.label("Since:");
        ui.add_enabled_ui(!screen.today, |ui| {
            let typed =
                ui.add(egui::TextEdit::singleline(&mut screen.since).hint_text("YYYY-MM-DD").desired_width(90.0));
            changed |= typed.labelled_by(caption.id).lost_focus();
        });
        let caption = ui.label("Game:");
        let title = if screen.game.is_empty() { "All".to_string() } else { game_title(&screen.game) };
        egui::ComboBox::from_id_salt("scorebook-game")
            .selected_text(title)
            .show_ui(ui, |ui| {
                for code in
                    std::iter::once("").chain(std::iter::once("omphala")).chain(GameKind::ALL.iter().map(|k| k.code()))
                {
                    let title = if code.is_empty() { "All".to_string() } else { game_title(code) };
                    if ui.selectable_label(screen.game == code, title).clicked() {
                        screen.game = code.to_string();
                        changed = true;
                    }
                }
            })
            .response
            .labelled_by(caption.id);
        let caption = ui.label("Player:");
        let typed = ui.add(egui::TextEdit::singleline(&mut screen.player).desired_width(90.0));
        changed |= typed.labelled_by(caption.id).lost_focus();
    });
    let mut commands = Vec::new();
    ui.horizontal(|ui| {
        if ui.button("Show").clicked() || changed {
            commands.push(UiCommand::Book(BookOrder::Reload));
        }
        if ui.button("Export CSV").on_hover_text("A row per player per game, for a spreadsheet").clicked() {
            commands.push(UiCommand::Book(BookOrder::ExportCsv));
        }
        if ui.button("Export JSON").on_hover_text("Each game whole, with its record").clicked() {
            commands.push(UiCommand::Book(BookOrder::ExportJson));
        }
    });
    commands
}

fn table(ui: &mut egui::Ui, lines: &[TableLine]) {
    ui.strong("Table");
    egui::Grid::new("scorebook-table").striped(true).num_columns(5).show(ui, |ui| {
        for heading in ["Player", "Games", "Wins", "Points", "By tie-break"] {
            ui.strong(heading);
        }
        ui.end_row();
        for line in lines {
            ui.label(&line.player);
            ui.label(line.games.to_string());
            ui.label(line.wins.to_string());
            ui.label(line.points.to_string());
            ui.label(line.wins_by_tie_break.to_string());
            ui.end_row();
        }
    });
}

fn record(ui: &mut egui::Ui, game: &Kept, steps: &[ShownStep]) {
    ui.strong(format!("Game {}: {}", game.id, game_title(&game.entry.kind)));
    for line in &game.entry.tie_break {
        ui.monospace(line);
    }
    if !steps.is_empty() {
        // Step by step: each commit with the frame it was decided on.
        egui::ScrollArea::vertical().id_salt("scorebook-steps").max_height(240.0).show(ui, |ui| {
            for step in steps {
                ui.horizontal(|ui| {
                    if let Some(texture) = &step.thumbnail {
                        let size = texture.size_vec2();
                        ui.image((texture.id(), size * (120.0 / size.x.max(1.0))));
                    }
                    ui.label(format!("frame {}: {}", step.frame, step.lines));
                });
            }
        });
        return;
    }
    // The moves without the record's comments (free text, in any script the font may lack).
    let moves: Vec<&str> = game
        .entry
        .record
        .lines()
        .map(|l| l.split('#').next().unwrap_or("").trim_end())
        .filter(|l| !l.is_empty())
        .collect();
    egui::ScrollArea::vertical().id_salt("scorebook-record").max_height(200.0).show(ui, |ui| {
        ui.monospace(moves.join("\n"));
    });
}

/// A JPEG thumbnail as a texture; one that does not decode is left out.
fn texture(ctx: &egui::Context, name: &str, jpeg: &[u8]) -> Option<egui::TextureHandle> {
    let image = image::load_from_memory(jpeg).ok()?.to_rgba8();
    let size = [image.width() as usize, image.height() as usize];
    Some(ctx.load_texture(name, egui::ColorImage::from_rgba_unmultiplied(size, image.as_raw()), Default::default()))
}

/// "Omphala" or the mini-game's title.
fn game_title(code: &str) -> String {
    GameKind::from_code(code).map_or_else(|| "Omphala".to_string(), |k| k.to_string())
}
