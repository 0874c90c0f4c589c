//! The book's schema as numbered migrations. A file records the last one applied in SQLite's
//! `user_version`; opening a book applies the rest in one transaction.

/// The migrations, oldest first: the book's version is the number applied.
pub const MIGRATIONS: &[&str] = &[
    // 1: games and each player's result.
    "CREATE TABLE games (
        id INTEGER PRIMARY KEY,
        uid TEXT NOT NULL UNIQUE,
        kind TEXT NOT NULL,
        played_at TEXT NOT NULL,
        table_name TEXT NOT NULL,
        decided_by TEXT NOT NULL,
        tie_break TEXT NOT NULL,
        record TEXT NOT NULL,
        game_in_record INTEGER NOT NULL,
        journal TEXT
    );
    CREATE INDEX games_by_time ON games (played_at);
    CREATE TABLE results (
        game_id INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        seat INTEGER NOT NULL,
        player TEXT NOT NULL,
        place INTEGER NOT NULL,
        points INTEGER NOT NULL,
        won INTEGER NOT NULL,
        PRIMARY KEY (game_id, seat)
    );
    CREATE INDEX results_by_player ON results (player);",
    // 2: a refereed game's commits, each with its frame's thumbnail.
    "CREATE TABLE steps (
        game_id INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        step INTEGER NOT NULL,
        frame INTEGER NOT NULL,
        lines TEXT NOT NULL,
        thumbnail BLOB,
        PRIMARY KEY (game_id, step)
    );",
];

/// The version a book has once every migration here is applied.
pub fn latest() -> i64 {
    MIGRATIONS.len() as i64
}
