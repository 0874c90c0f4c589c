//! The scorebook: every finished game kept in an SQLite file (`rusqlite`, no server) or, for a
//! club whose tables share one book, on a PostgreSQL server (`postgres://…`), with its players,
//! time, record, standings and tie-break; the evening's table and each player's history read back
//! from it. A game is written in one transaction, keyed by what makes it itself (`Entry::uid`), so
//! a write retried after a crash, a record imported twice or the same game sent by two tables is
//! one game. Free of the referee, the vision and the window: games come in as records.

pub mod catch_up;
pub mod clock;
pub mod entry;
pub mod export;
mod schema;
pub mod steps;
pub mod store;

use std::cell::RefCell;
use std::path::Path;
use std::time::Duration;

use serde::Serialize;

pub use entry::{Entry, EntryError, PlayerResult};
pub use steps::Step;
use store::{Store, Value};

/// The scorebook file's name in the app's data folder.
pub const FILE_NAME: &str = "scorebook.sqlite";

/// How long a write waits for another writer (another table, a reader) before giving up.
const BUSY_WAIT: Duration = Duration::from_secs(10);

/// How long opening a PostgreSQL book waits for its server.
const CONNECT_WAIT: Duration = Duration::from_secs(5);

/// Held while a PostgreSQL book migrates, so that two tables opening a new book at once do not
/// both create it.
const MIGRATION_LOCK: i64 = 0x5c0e_b00c;

/// What went wrong with the book, with the file or server named.
#[derive(Debug, thiserror::Error)]
pub enum BookError {
    #[error("{path}: not a scorebook: {message}")]
    NotABook { path: String, message: String },
    #[error(
        "{path}: the scorebook is version {found}, newer than this card-referee knows ({known}); update card-referee"
    )]
    Newer { path: String, found: i64, known: i64 },
    #[error("{path}: cannot reach the PostgreSQL server: {message}")]
    Unreachable { path: String, message: String },
    #[error("{path}: {message}")]
    Sql { path: String, message: String },
    #[error(transparent)]
    Entry(#[from] EntryError),
}

/// An open scorebook.
pub struct Scorebook {
    store: Store,
    /// The file, or the server's address without its password.
    name: String,
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
    /// Opens (or creates) the book at `place`, a file or a `postgres://` address, and brings its
    /// schema up to date.
    pub fn open(place: &Path) -> Result<Scorebook, BookError> {
        let text = place.to_string_lossy().into_owned();
        if store::is_postgres(&text) {
            return Scorebook::open_postgres(&text);
        }
        if let Some(folder) = place.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(folder).map_err(|e| sql_error(&text, e))?;
        }
        let conn = rusqlite::Connection::open(place).map_err(|e| sql_error(&text, e))?;
        let book = Scorebook { store: Store::Sqlite(conn), name: text };
        book.prepare_sqlite()?;
        Ok(book)
    }

    fn open_postgres(url: &str) -> Result<Scorebook, BookError> {
        let name = store::without_password(url);
        let mut config: postgres::Config =
            url.parse().map_err(|e| BookError::Sql { path: name.clone(), message: store::pg_message(e) })?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_WAIT);
        }
        let client = config
            .connect(postgres::NoTls)
            .map_err(|e| BookError::Unreachable { path: name.clone(), message: store::pg_message(e) })?;
        let book = Scorebook { store: Store::Postgres(RefCell::new(client)), name };
        book.prepare_postgres()?;
        Ok(book)
    }

    /// Where the book lives: its file, or its server's address without the password.
    pub fn name(&self) -> &str {
        &self.name
    }

    fn prepare_sqlite(&self) -> Result<(), BookError> {
        let Store::Sqlite(conn) = &self.store else { unreachable!("an SQLite book") };
        // Another table or a reader may hold the book: wait for it rather than fail.
        conn.busy_timeout(BUSY_WAIT).map_err(|e| self.sqlite_error(e))?;
        // WAL: the page for the room reads while a table writes. The first read of the header
        // tells a corrupt or foreign file.
        conn.pragma_update(None, "journal_mode", "WAL").map_err(|e| self.sqlite_error(e))?;
        conn.pragma_update(None, "foreign_keys", true).map_err(|e| self.sqlite_error(e))?;
        // Two tables opening a new book at once: the first migrates, the second finds it done.
        self.write(|book| {
            let version = book.one_int("PRAGMA user_version", &[])?;
            let tables = book.one_int("SELECT count(*) FROM sqlite_master", &[])?;
            book.migrate(version, tables > 0)?;
            book.store.batch(&format!("PRAGMA user_version = {}", schema::latest())).map_err(|e| book.error(e))
        })
    }

    fn prepare_postgres(&self) -> Result<(), BookError> {
        self.write(|book| {
            // Two tables opening a new book at once: the first migrates, the second waits here.
            book.execute("SELECT pg_advisory_xact_lock(?1)", &[MIGRATION_LOCK.into()])?;
            book.store
                .batch("CREATE TABLE IF NOT EXISTS scorebook_version (version BIGINT NOT NULL)")
                .map_err(|e| book.error(e))?;
            let version = book.one_int("SELECT COALESCE(max(version), 0) FROM scorebook_version", &[])?;
            let tables = book.one_int(
                "SELECT count(*) FROM information_schema.tables
                 WHERE table_schema = current_schema() AND table_name IN ('games', 'results', 'steps')",
                &[],
            )?;
            book.migrate(version, tables > 0)?;
            book.execute("DELETE FROM scorebook_version", &[])?;
            book.execute("INSERT INTO scorebook_version (version) VALUES (?1)", &[schema::latest().into()])
        })
    }

    /// Applies the migrations after `version`; a book of version 0 that already has tables is
    /// someone else's database, left alone.
    fn migrate(&self, version: i64, has_tables: bool) -> Result<(), BookError> {
        if version > schema::latest() {
            return Err(BookError::Newer { path: self.name.clone(), found: version, known: schema::latest() });
        }
        if version == 0 && has_tables {
            return Err(BookError::NotABook {
                path: self.name.clone(),
                message: "a database with other tables in it".into(),
            });
        }
        for sql in schema::migrations(self.store.dialect()).iter().skip(version as usize) {
            self.store.batch(sql).map_err(|e| self.error(e))?;
        }
        Ok(())
    }

    /// Runs `work` in one transaction: all of it is written, or none.
    fn write<T>(&self, work: impl FnOnce(&Scorebook) -> Result<T, BookError>) -> Result<T, BookError> {
        self.store.begin().map_err(|e| self.error(e))?;
        match work(self) {
            Ok(value) => {
                self.store.commit().map_err(|e| self.error(e))?;
                Ok(value)
            }
            Err(e) => {
                self.store.rollback();
                Err(e)
            }
        }
    }

    fn execute(&self, sql: &str, args: &[Value]) -> Result<(), BookError> {
        self.store.execute(sql, args).map_err(|e| self.error(e))
    }

    fn query(&self, sql: &str, args: &[Value]) -> Result<store::Rows, BookError> {
        self.store.query(sql, args).map_err(|e| self.error(e))
    }

    fn one_int(&self, sql: &str, args: &[Value]) -> Result<i64, BookError> {
        Ok(self.query(sql, args)?.first().and_then(|row| row.first()).map_or(0, Value::int))
    }

    fn error(&self, message: String) -> BookError {
        sql_error(&self.name, message)
    }

    /// An error from SQLite about this book: a file that is not a database is said as such.
    fn sqlite_error(&self, e: rusqlite::Error) -> BookError {
        let path = self.name.clone();
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
        let uid = entry.uid();
        let played_at = played_at.map_or_else(|| clock::utc_time(std::time::SystemTime::now()), str::to_string);
        self.write(|book| {
            // Two tables sending the same game at once: the second waits for the first and then
            // inserts nothing.
            let inserted = book.query(
                "INSERT INTO games (uid, kind, played_at, table_name, decided_by, tie_break, record, game_in_record, journal)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) ON CONFLICT (uid) DO NOTHING RETURNING id",
                &[
                    (&uid).into(),
                    (&entry.kind).into(),
                    (&played_at).into(),
                    table.into(),
                    (&entry.decided_by).into(),
                    entry.tie_break.join("\n").as_str().into(),
                    (&entry.record).into(),
                    (entry.game_in_record as i64).into(),
                    entry.journal.as_ref().into(),
                ],
            )?;
            let Some(id) = inserted.first().map(|row| row[0].int()) else {
                return Ok((book.one_int("SELECT id FROM games WHERE uid = ?1", &[(&uid).into()])?, false));
            };
            for r in &entry.results {
                book.execute(
                    "INSERT INTO results (game_id, seat, player, place, points, won) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                    &[id.into(), (r.seat as i64).into(), (&r.player).into(), (r.place as i64).into(), r.points.into(), r.won.into()],
                )?;
            }
            for (k, step) in steps.iter().enumerate() {
                book.execute(
                    "INSERT INTO steps (game_id, step, frame, lines, thumbnail) VALUES (?1, ?2, ?3, ?4, ?5)",
                    &[
                        id.into(),
                        (k as i64).into(),
                        (step.frame as i64).into(),
                        step.lines.join("\n").as_str().into(),
                        step.thumbnail.clone().map_or(Value::Null, Value::Bytes),
                    ],
                )?;
            }
            Ok((id, true))
        })
    }

    /// Game `id`'s commits step by step, with their thumbnails.
    pub fn steps(&self, id: i64) -> Result<Vec<Step>, BookError> {
        let rows =
            self.query("SELECT frame, lines, thumbnail FROM steps WHERE game_id = ?1 ORDER BY step", &[id.into()])?;
        Ok(rows
            .iter()
            .map(|r| Step {
                frame: r[0].int() as u64,
                lines: r[1].text().lines().map(str::to_string).collect(),
                thumbnail: r[2].bytes(),
            })
            .collect())
    }

    /// Writes the refereed Omphala game of `record` (finished), now, with its journal and its
    /// steps read from that journal (`steps::from_journal`).
    pub fn add_refereed(&mut self, record: &str, journal: Option<&Path>) -> Result<(i64, bool), BookError> {
        let game = Entry { journal: journal.map(|j| j.display().to_string()), ..entry::omphala(record)? };
        let steps = journal.map(steps::from_journal).unwrap_or_default();
        self.add_game(&game, &steps, "", None)
    }

    /// Writes a refereed mini-game, finished with `result` between `names`, now, kept once by
    /// its `journal` (a live mini-game has no record).
    pub fn add_mini_game(
        &mut self,
        result: &crate::symbols::games::GameResult,
        names: &[String],
        journal: Option<&Path>,
    ) -> Result<(i64, bool), BookError> {
        let game = Entry {
            journal: journal.map(|j| j.display().to_string()),
            ..entry::mini_game(result, names, String::new())
        };
        self.add(&game, "", None)
    }

    /// Whether a game kept here came from the journal at `path`.
    pub fn has_journal(&self, path: &Path) -> Result<bool, BookError> {
        let journal = path.display().to_string();
        Ok(self.one_int("SELECT count(*) FROM games WHERE journal = ?1", &[(&journal).into()])? > 0)
    }

    /// The games `filter` takes in, oldest first.
    pub fn games(&self, filter: &Filter) -> Result<Vec<Kept>, BookError> {
        let (clause, args) = where_clause(filter);
        self.query_games(&clause, &args)
    }

    /// The games of `games g` that `clause` keeps, with its arguments, oldest first.
    fn query_games(&self, clause: &str, args: &[Value]) -> Result<Vec<Kept>, BookError> {
        let sql = format!(
            "SELECT id, played_at, table_name, kind, decided_by, tie_break, record, game_in_record, journal
             FROM games g {clause} ORDER BY played_at, id"
        );
        let mut games: Vec<Kept> = self
            .query(&sql, args)?
            .iter()
            .map(|r| Kept {
                id: r[0].int(),
                played_at: r[1].text(),
                table: r[2].text(),
                entry: Entry {
                    kind: r[3].text(),
                    decided_by: r[4].text(),
                    tie_break: r[5].text().lines().map(str::to_string).collect(),
                    results: Vec::new(),
                    record: r[6].text(),
                    game_in_record: r[7].int() as usize,
                    journal: r[8].opt_text(),
                },
            })
            .collect();
        for game in &mut games {
            game.entry.results = self.results(game.id)?;
        }
        Ok(games)
    }

    /// Game `id`, if the book holds it.
    pub fn game(&self, id: i64) -> Result<Option<Kept>, BookError> {
        Ok(self.query_games("WHERE g.id = ?1", &[id.into()])?.pop())
    }

    fn results(&self, id: i64) -> Result<Vec<PlayerResult>, BookError> {
        let rows = self.query(
            "SELECT seat, player, place, points, won FROM results WHERE game_id = ?1 ORDER BY place, seat",
            &[id.into()],
        )?;
        Ok(rows
            .iter()
            .map(|r| PlayerResult {
                seat: r[0].int() as usize,
                player: r[1].text(),
                place: r[2].int() as usize,
                points: r[3].int(),
                won: r[4].bool(),
            })
            .collect())
    }

    /// The table of the games `filter` takes in: most wins first, then most points.
    pub fn table(&self, filter: &Filter) -> Result<Vec<TableLine>, BookError> {
        let (clause, args) = where_clause(filter);
        // The player filter picks games; the table still shows everyone who sat in them.
        let sql = format!(
            "SELECT r.player, count(*) AS games,
                    CAST(sum(CASE WHEN r.won THEN 1 ELSE 0 END) AS BIGINT) AS wins,
                    CAST(sum(r.points) AS BIGINT) AS points,
                    CAST(sum(CASE WHEN r.won AND g.decided_by NOT IN ('front-row count', 'place') THEN 1 ELSE 0 END)
                         AS BIGINT)
             FROM results r JOIN games g ON g.id = r.game_id {clause}
             GROUP BY r.player ORDER BY wins DESC, points DESC, r.player"
        );
        Ok(self
            .query(&sql, &args)?
            .iter()
            .map(|r| TableLine {
                player: r[0].text(),
                games: r[1].int(),
                wins: r[2].int(),
                points: r[3].int(),
                wins_by_tie_break: r[4].int(),
            })
            .collect())
    }

    /// How many games the book holds.
    pub fn count(&self) -> Result<i64, BookError> {
        self.one_int("SELECT count(*) FROM games", &[])
    }
}

/// The SQL condition on `games g` for `filter`, and its arguments.
fn where_clause(filter: &Filter) -> (String, Vec<Value>) {
    let mut terms = Vec::new();
    let mut args: Vec<Value> = Vec::new();
    if let Some(since) = &filter.since {
        args.push(since.into());
        terms.push(format!("g.played_at >= ?{}", args.len()));
    }
    if let Some(until) = &filter.until {
        // A bare date means up to the end of that day.
        let end = if until.len() == 10 { format!("{until}T99") } else { until.clone() };
        args.push(Value::Text(end));
        terms.push(format!("g.played_at < ?{}", args.len()));
    }
    if let Some(kind) = &filter.kind {
        args.push(kind.into());
        terms.push(format!("g.kind = ?{}", args.len()));
    }
    if let Some(player) = &filter.player {
        args.push(player.into());
        terms.push(format!("g.id IN (SELECT game_id FROM results WHERE player = ?{})", args.len()));
    }
    let clause = if terms.is_empty() { String::new() } else { format!("WHERE {}", terms.join(" AND ")) };
    (clause, args)
}

fn sql_error(path: &str, e: impl std::fmt::Display) -> BookError {
    BookError::Sql { path: path.to_string(), message: e.to_string() }
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
        let conn = rusqlite::Connection::open(&path).unwrap();
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
        let version = book.one_int("PRAGMA user_version", &[]).unwrap();
        assert_eq!(version, schema::latest());
        let steps =
            [Step { frame: 3, lines: vec!["Alice draw".into(), "Alice drew 4C".into()], thumbnail: Some(vec![1, 2]) }];
        let (id, _) = book.add_game(&entry::omphala(TIE_BATTLE).unwrap(), &steps, "", None).unwrap();
        assert_eq!(book.steps(id).unwrap(), steps);
    }

    #[test]
    fn a_full_disk_is_one_line_and_leaves_the_book_as_it_was() {
        let (_dir, mut book) = book();
        book.add(&entry::omphala(TIE_BATTLE).unwrap(), "", None).unwrap();
        // SQLite's own limit on the file's pages fails a write as a full disk does.
        let pages = book.one_int("PRAGMA page_count", &[]).unwrap();
        book.store.batch(&format!("PRAGMA max_page_count = {pages}")).unwrap();
        let steps = [Step { frame: 1, lines: vec!["P1 draw".into()], thumbnail: Some(vec![7; 200_000]) }];
        let err = book.add_game(&entry::omphala(NATURAL_END).unwrap(), &steps, "", None).err().unwrap().to_string();
        assert!(err.contains("full") && !err.contains('\n'), "{err}");
        assert_eq!(book.count().unwrap(), 1);
        book.store.batch("PRAGMA max_page_count = 1000000").unwrap();
        assert!(book.add_game(&entry::omphala(NATURAL_END).unwrap(), &steps, "", None).unwrap().1);
        assert_eq!(book.count().unwrap(), 2);
    }

    #[test]
    fn a_newer_book_is_refused_not_changed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("book.sqlite");
        drop(Scorebook::open(&path).unwrap());
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.pragma_update(None, "user_version", schema::latest() + 1).unwrap();
        drop(conn);
        let err = Scorebook::open(&path).err().unwrap().to_string();
        assert!(err.contains("newer than this card-referee knows"), "{err}");
    }
}
