//! The scorebook: every finished game kept in an SQLite file (`rusqlite`, no server), with its
//! players, time, record, standings and tie-break; the evening's table and each player's history
//! read back from it. A game is written in one transaction, keyed by what makes it itself
//! (`Entry::uid`), so a write retried after a crash or a record imported twice is one game.
//! Free of the referee, the vision and the window: games come in as records.

pub mod catch_up;
pub mod clock;
pub mod entry;
pub mod export;
mod schema;
pub mod steps;

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};
use serde::Serialize;

pub use entry::{Entry, EntryError, PlayerResult};
pub use steps::Step;

/// The scorebook file's name in the app's data folder.
pub const FILE_NAME: &str = "scorebook.sqlite";

/// How long a write waits for another writer (another table, a reader) before giving up.
const BUSY_WAIT: Duration = Duration::from_secs(10);

/// What went wrong with the book, with the file named.
#[derive(Debug, thiserror::Error)]
pub enum BookError {
    #[error("{path}: not a scorebook: {message}")]
    NotABook { path: String, message: String },
    #[error(
        "{path}: the scorebook is version {found}, newer than this card-referee knows ({known}); update card-referee"
    )]
    Newer { path: String, found: i64, known: i64 },
    #[error("{path}: {message}")]
    Sql { path: String, message: String },
    #[error(transparent)]
    Entry(#[from] EntryError),
}

/// An open scorebook.
pub struct Scorebook {
    conn: Connection,
    path: PathBuf,
}

/// Which games a listing or a table takes in. Dates are `YYYY-MM-DD` (UTC) or full times.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    /// From this time on.
    pub since: Option<String>,
    /// Before this time (a bare date: up to the end of that day).
    pub until: Option<String>,
    /// Only games of this kind (`omphala`, `tower`, …).
    pub kind: Option<String>,
    /// Only games this player sat in.
    pub player: Option<String>,
}

impl Filter {
    /// Only today's games (UTC): the evening's table.
    pub fn today(self) -> Filter {
        let today = clock::utc_date(std::time::SystemTime::now());
        Filter { since: Some(today.clone()), until: Some(today), ..self }
    }
}

/// A game as kept: its number in the book and when it was written.
#[derive(Clone, Debug, Serialize)]
pub struct Kept {
    pub id: i64,
    pub played_at: String,
    pub table: String,
    #[serde(flatten)]
    pub entry: Entry,
}

impl Kept {
    /// `12  2026-11-30T20:14:03Z  omphala  1. Alice 20  2. Bob 8  (front-row count)`
    pub fn summary(&self) -> String {
        let places: Vec<String> =
            self.entry.results.iter().map(|r| format!("{}. {} {}", r.place, r.player, r.points)).collect();
        let table = if self.table.is_empty() { String::new() } else { format!("  [{}]", self.table) };
        format!(
            "{}  {}  {}  {}  ({}){table}",
            self.id,
            self.played_at,
            self.entry.kind,
            places.join("  "),
            self.entry.decided_by
        )
    }
}

/// One line of a table: a player's games, wins, points, and the wins a tie-break decided.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TableLine {
    pub player: String,
    pub games: i64,
    pub wins: i64,
    pub points: i64,
    pub wins_by_tie_break: i64,
}

impl Scorebook {
    /// Opens (or creates) the book at `path` and brings its schema up to date.
    pub fn open(path: &Path) -> Result<Scorebook, BookError> {
        if let Some(folder) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(folder).map_err(|e| sql_error(path, e))?;
        }
        let conn = Connection::open(path).map_err(|e| sql_error(path, e))?;
        let mut book = Scorebook { conn, path: path.to_path_buf() };
        book.prepare()?;
        Ok(book)
    }

    /// Where the book lives.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn prepare(&mut self) -> Result<(), BookError> {
        // Another table or a reader may hold the book: wait for it rather than fail.
        self.conn.busy_timeout(BUSY_WAIT).map_err(|e| self.error(e))?;
        // WAL: the page for the room reads while a table writes. The first read of the header
        // tells a corrupt or foreign file.
        self.conn.pragma_update(None, "journal_mode", "WAL").map_err(|e| self.error(e))?;
        self.conn.pragma_update(None, "foreign_keys", true).map_err(|e| self.error(e))?;
        // Two tables opening a new book at once: the first migrates, the second finds it done.
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| sql_error(&self.path, e))?;
        let version: i64 =
            tx.query_row("PRAGMA user_version", [], |r| r.get(0)).map_err(|e| sql_error(&self.path, e))?;
        if version > schema::latest() {
            return Err(BookError::Newer {
                path: self.path.display().to_string(),
                found: version,
                known: schema::latest(),
            });
        }
        let tables: i64 = tx
            .query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))
            .map_err(|e| sql_error(&self.path, e))?;
        if version == 0 && tables > 0 {
            return Err(BookError::NotABook {
                path: self.path.display().to_string(),
                message: "an SQLite file with other tables in it".into(),
            });
        }
        for (k, sql) in schema::MIGRATIONS.iter().enumerate().skip(version as usize) {
            tx.execute_batch(sql).map_err(|e| sql_error(&self.path, e))?;
            tx.pragma_update(None, "user_version", k as i64 + 1).map_err(|e| sql_error(&self.path, e))?;
        }
        tx.commit().map_err(|e| sql_error(&self.path, e))
    }

    /// An error from SQLite about this book: a file that is not a database is said as such.
    fn error(&self, e: rusqlite::Error) -> BookError {
        let path = self.path.display().to_string();
        match e.sqlite_error_code() {
            Some(rusqlite::ErrorCode::NotADatabase) => BookError::NotABook { path, message: e.to_string() },
            _ => BookError::Sql { path, message: e.to_string() },
        }
    }

    /// Writes a finished game in one transaction, now (or at `played_at`, an RFC 3339 time in
    /// UTC). Returns its number in the book, and whether it was new: the same game written
    /// again (`Entry::uid`) is kept once.
    pub fn add(&mut self, entry: &Entry, table: &str, played_at: Option<&str>) -> Result<(i64, bool), BookError> {
        self.add_game(entry, &[], table, played_at)
    }

    /// As `add`, with the game's commits step by step (`steps::from_journal`), in the same
    /// transaction.
    pub fn add_game(
        &mut self,
        entry: &Entry,
        steps: &[Step],
        table: &str,
        played_at: Option<&str>,
    ) -> Result<(i64, bool), BookError> {
        let path = self.path.clone();
        let err = |e| sql_error(&path, e);
        // Immediate: the write lock is taken first, so two tables writing at once wait their
        // turn instead of failing on a read that has to become a write.
        let tx = self.conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(err)?;
        let uid = entry.uid();
        if let Some(id) =
            tx.query_row("SELECT id FROM games WHERE uid = ?1", [&uid], |r| r.get(0)).optional().map_err(err)?
        {
            return Ok((id, false));
        }
        tx.execute(
            "INSERT INTO games (uid, kind, played_at, table_name, decided_by, tie_break, record, game_in_record, journal)
             VALUES (?1, ?2, COALESCE(?3, strftime('%Y-%m-%dT%H:%M:%SZ', 'now')), ?4, ?5, ?6, ?7, ?8, ?9)",
            params![
                uid,
                entry.kind,
                played_at,
                table,
                entry.decided_by,
                entry.tie_break.join("\n"),
                entry.record,
                entry.game_in_record as i64,
                entry.journal
            ],
        )
        .map_err(err)?;
        let id = tx.last_insert_rowid();
        for r in &entry.results {
            tx.execute(
                "INSERT INTO results (game_id, seat, player, place, points, won) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![id, r.seat as i64, r.player, r.place as i64, r.points, r.won],
            )
            .map_err(err)?;
        }
        for (k, step) in steps.iter().enumerate() {
            tx.execute(
                "INSERT INTO steps (game_id, step, frame, lines, thumbnail) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![id, k as i64, step.frame as i64, step.lines.join("\n"), step.thumbnail],
            )
            .map_err(err)?;
        }
        tx.commit().map_err(err)?;
        Ok((id, true))
    }

    /// Game `id`'s commits step by step, with their thumbnails.
    pub fn steps(&self, id: i64) -> Result<Vec<Step>, BookError> {
        let err = |e| sql_error(&self.path, e);
        let mut statement = self
            .conn
            .prepare("SELECT frame, lines, thumbnail FROM steps WHERE game_id = ?1 ORDER BY step")
            .map_err(err)?;
        let rows = statement
            .query_map([id], |r| {
                let lines: String = r.get(1)?;
                Ok(Step {
                    frame: r.get::<_, i64>(0)? as u64,
                    lines: lines.lines().map(str::to_string).collect(),
                    thumbnail: r.get(2)?,
                })
            })
            .map_err(err)?;
        rows.collect::<Result<Vec<_>, _>>().map_err(err)
    }

    /// Writes the refereed Omphala game of `record` (finished), now, with its journal and its
    /// steps read from that journal (`steps::from_journal`).
    pub fn add_refereed(&mut self, record: &str, journal: Option<&Path>) -> Result<(i64, bool), BookError> {
        let game = Entry { journal: journal.map(|j| j.display().to_string()), ..entry::omphala(record)? };
        let steps = journal.map(steps::from_journal).unwrap_or_default();
        self.add_game(&game, &steps, "", None)
    }

    /// Whether a game kept here came from the journal at `path`.
    pub fn has_journal(&self, path: &Path) -> Result<bool, BookError> {
        let journal = path.display().to_string();
        self.conn
            .query_row("SELECT count(*) FROM games WHERE journal = ?1", [journal], |r| r.get::<_, i64>(0))
            .map(|n| n > 0)
            .map_err(|e| sql_error(&self.path, e))
    }

    /// The games `filter` takes in, oldest first.
    pub fn games(&self, filter: &Filter) -> Result<Vec<Kept>, BookError> {
        let (clause, args) = where_clause(filter);
        self.query_games(&clause, &args)
    }

    /// The games of `games g` that `clause` keeps, with its arguments, oldest first.
    fn query_games(&self, clause: &str, args: &[String]) -> Result<Vec<Kept>, BookError> {
        let sql = format!(
            "SELECT id, played_at, table_name, kind, decided_by, tie_break, record, game_in_record, journal
             FROM games g {clause} ORDER BY played_at, id"
        );
        let err = |e| sql_error(&self.path, e);
        let mut statement = self.conn.prepare(&sql).map_err(err)?;
        let rows = statement
            .query_map(rusqlite::params_from_iter(args.iter()), |r| {
                let tie_break: String = r.get(5)?;
                Ok(Kept {
                    id: r.get(0)?,
                    played_at: r.get(1)?,
                    table: r.get(2)?,
                    entry: Entry {
                        kind: r.get(3)?,
                        decided_by: r.get(4)?,
                        tie_break: tie_break.lines().map(str::to_string).collect(),
                        results: Vec::new(),
                        record: r.get(6)?,
                        game_in_record: r.get::<_, i64>(7)? as usize,
                        journal: r.get(8)?,
                    },
                })
            })
            .map_err(err)?;
        let mut games = rows.collect::<Result<Vec<Kept>, _>>().map_err(err)?;
        for game in &mut games {
            game.entry.results = self.results(game.id)?;
        }
        Ok(games)
    }

    /// Game `id`, if the book holds it.
    pub fn game(&self, id: i64) -> Result<Option<Kept>, BookError> {
        Ok(self.query_games("WHERE g.id = ?1", &[id.to_string()])?.pop())
    }

    fn results(&self, id: i64) -> Result<Vec<PlayerResult>, BookError> {
        let err = |e| sql_error(&self.path, e);
        let mut statement = self
            .conn
            .prepare_cached(
                "SELECT seat, player, place, points, won FROM results WHERE game_id = ?1 ORDER BY place, seat",
            )
            .map_err(err)?;
        let rows = statement
            .query_map([id], |r| {
                Ok(PlayerResult {
                    seat: r.get::<_, i64>(0)? as usize,
                    player: r.get(1)?,
                    place: r.get::<_, i64>(2)? as usize,
                    points: r.get(3)?,
                    won: r.get(4)?,
                })
            })
            .map_err(err)?;
        rows.collect::<Result<Vec<_>, _>>().map_err(err)
    }

    /// The table of the games `filter` takes in: most wins first, then most points.
    pub fn table(&self, filter: &Filter) -> Result<Vec<TableLine>, BookError> {
        let (clause, args) = where_clause(filter);
        // The player filter picks games; the table still shows everyone who sat in them.
        let sql = format!(
            "SELECT r.player, count(*), sum(r.won), sum(r.points),
                    sum(CASE WHEN r.won AND g.decided_by NOT IN ('front-row count', 'place') THEN 1 ELSE 0 END)
             FROM results r JOIN games g ON g.id = r.game_id {clause}
             GROUP BY r.player ORDER BY sum(r.won) DESC, sum(r.points) DESC, r.player"
        );
        let err = |e| sql_error(&self.path, e);
        let mut statement = self.conn.prepare(&sql).map_err(err)?;
        let rows = statement
            .query_map(rusqlite::params_from_iter(args.iter()), |r| {
                Ok(TableLine {
                    player: r.get(0)?,
                    games: r.get(1)?,
                    wins: r.get(2)?,
                    points: r.get(3)?,
                    wins_by_tie_break: r.get(4)?,
                })
            })
            .map_err(err)?;
        rows.collect::<Result<Vec<_>, _>>().map_err(err)
    }

    /// How many games the book holds.
    pub fn count(&self) -> Result<i64, BookError> {
        self.conn.query_row("SELECT count(*) FROM games", [], |r| r.get(0)).map_err(|e| sql_error(&self.path, e))
    }
}

/// The SQL condition on `games g` for `filter`, and its arguments.
fn where_clause(filter: &Filter) -> (String, Vec<String>) {
    let mut terms = Vec::new();
    let mut args = Vec::new();
    if let Some(since) = &filter.since {
        args.push(since.clone());
        terms.push(format!("g.played_at >= ?{}", args.len()));
    }
    if let Some(until) = &filter.until {
        // A bare date means up to the end of that day.
        let end = if until.len() == 10 { format!("{until}T99") } else { until.clone() };
        args.push(end);
        terms.push(format!("g.played_at < ?{}", args.len()));
    }
    if let Some(kind) = &filter.kind {
        args.push(kind.clone());
        terms.push(format!("g.kind = ?{}", args.len()));
    }
    if let Some(player) = &filter.player {
        args.push(player.clone());
        terms.push(format!("g.id IN (SELECT game_id FROM results WHERE player = ?{})", args.len()));
    }
    let clause = if terms.is_empty() { String::new() } else { format!("WHERE {}", terms.join(" AND ")) };
    (clause, args)
}

fn sql_error(path: &Path, e: impl std::fmt::Display) -> BookError {
    BookError::Sql { path: path.display().to_string(), message: e.to_string() }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TIE_BATTLE: &str = include_str!("../../tests/data/omphala/tie-battle.txt");
    const NATURAL_END: &str = include_str!("../../tests/data/omphala/natural-end-battle.txt");

    fn book() -> (tempfile::TempDir, Scorebook) {
        let dir = tempfile::tempdir().unwrap();
        let book = Scorebook::open(&dir.path().join("book.sqlite")).unwrap();
        (dir, book)
    }

    #[test]
    fn a_game_written_twice_is_kept_once() {
        let (_dir, mut book) = book();
        let entry = entry::omphala(TIE_BATTLE).unwrap();
        let (id, new) = book.add(&entry, "", None).unwrap();
        assert!(new);
        assert_eq!(book.add(&entry, "", None).unwrap(), (id, false));
        assert_eq!(book.count().unwrap(), 1);
        let kept = book.game(id).unwrap().unwrap();
        assert_eq!(kept.entry, entry);
        assert!(kept.played_at.ends_with('Z') && kept.played_at.len() == 20, "{}", kept.played_at);
    }

    #[test]
    fn the_table_counts_wins_points_and_tie_breaks_over_the_chosen_games() {
        let (_dir, mut book) = book();
        book.add(&entry::omphala(TIE_BATTLE).unwrap(), "", Some("2026-11-27T20:00:00Z")).unwrap();
        book.add(&entry::omphala(NATURAL_END).unwrap(), "", Some("2026-11-28T21:00:00Z")).unwrap();
        let all = book.table(&Filter::default()).unwrap();
        let alice = all.iter().find(|l| l.player == "Alice").unwrap();
        assert_eq!((alice.games, alice.wins, alice.points, alice.wins_by_tie_break), (1, 1, 2, 1));
        let night = Filter { since: Some("2026-11-28".into()), until: Some("2026-11-28".into()), ..Filter::default() };
        let players: Vec<String> = book.table(&night).unwrap().into_iter().map(|l| l.player).collect();
        assert_eq!(players, ["P1", "P2"]);
        assert_eq!(book.games(&Filter { player: Some("Bob".into()), ..Filter::default() }).unwrap().len(), 1);
        assert_eq!(book.games(&Filter { kind: Some("tower".into()), ..Filter::default() }).unwrap().len(), 0);
    }

    #[test]
    fn a_file_that_is_not_a_book_is_named_and_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("book.sqlite");
        std::fs::write(&path, "this is a text file, not a database\n".repeat(200)).unwrap();
        let err = Scorebook::open(&path).err().unwrap().to_string();
        assert!(err.contains("book.sqlite: not a scorebook"), "{err}");
        assert!(std::fs::read_to_string(&path).unwrap().starts_with("this is a text file"));
    }

    #[test]
    fn a_book_of_the_first_version_is_brought_up_to_date_with_its_games() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("book.sqlite");
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch(schema::MIGRATIONS[0]).unwrap();
        conn.pragma_update(None, "user_version", 1).unwrap();
        conn.execute(
            "INSERT INTO games (uid, kind, played_at, table_name, decided_by, tie_break, record, game_in_record)
             VALUES ('u', 'omphala', '2026-01-01T20:00:00Z', '', 'battle', '', 'seat …', 0)",
            [],
        )
        .unwrap();
        drop(conn);
        let mut book = Scorebook::open(&path).unwrap();
        assert_eq!(book.count().unwrap(), 1);
        let version: i64 = book.conn.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
        assert_eq!(version, schema::latest());
        let steps =
            [Step { frame: 3, lines: vec!["Alice draw".into(), "Alice drew 4C".into()], thumbnail: Some(vec![1, 2]) }];
        let (id, _) = book.add_game(&entry::omphala(TIE_BATTLE).unwrap(), &steps, "", None).unwrap();
        assert_eq!(book.steps(id).unwrap(), steps);
    }

    #[test]
    fn a_newer_book_is_refused_not_changed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("book.sqlite");
        drop(Scorebook::open(&path).unwrap());
        let conn = Connection::open(&path).unwrap();
        conn.pragma_update(None, "user_version", schema::latest() + 1).unwrap();
        drop(conn);
        let err = Scorebook::open(&path).err().unwrap().to_string();
        assert!(err.contains("newer than this card-referee knows"), "{err}");
    }
}
