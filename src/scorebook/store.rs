//! Where a book lives: an SQLite file (the default, nothing to start) or a PostgreSQL server that
//! the tables of a club share. The book speaks one small SQL to both: `?N` parameters (written
//! `$N` for PostgreSQL), `RETURNING`, `ON CONFLICT`, and sums cast to `BIGINT`; values cross as
//! `Value`, so the book's queries are written once.

use std::cell::RefCell;

/// A value passed to or read from the store.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Int(i64),
    Bool(bool),
    Text(String),
    Bytes(Vec<u8>),
}

impl Value {
    pub fn int(&self) -> i64 {
        match self {
            Value::Int(n) => *n,
            Value::Bool(b) => i64::from(*b),
            _ => 0,
        }
    }

    pub fn bool(&self) -> bool {
        self.int() != 0
    }

    pub fn text(&self) -> String {
        self.opt_text().unwrap_or_default()
    }

    pub fn opt_text(&self) -> Option<String> {
        match self {
            Value::Text(s) => Some(s.clone()),
            _ => None,
        }
    }

    pub fn bytes(&self) -> Option<Vec<u8>> {
        match self {
            Value::Bytes(b) => Some(b.clone()),
            _ => None,
        }
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::Text(s.to_string())
    }
}

impl From<&String> for Value {
    fn from(s: &String) -> Value {
        Value::Text(s.clone())
    }
}

impl From<Option<&String>> for Value {
    fn from(s: Option<&String>) -> Value {
        s.map_or(Value::Null, Value::from)
    }
}

impl From<i64> for Value {
    fn from(n: i64) -> Value {
        Value::Int(n)
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::Bool(b)
    }
}

/// Which server a store is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    Sqlite,
    Postgres,
}

/// An open connection to the book's database.
pub enum Store {
    Sqlite(rusqlite::Connection),
    // The PostgreSQL client needs `&mut` to query; the book's readers take `&self`.
    Postgres(RefCell<postgres::Client>),
}

/// Rows as values, column by column.
pub type Rows = Vec<Vec<Value>>;

impl Store {
    pub fn dialect(&self) -> Dialect {
        match self {
            Store::Sqlite(_) => Dialect::Sqlite,
            Store::Postgres(_) => Dialect::Postgres,
        }
    }

    /// Starts a write: SQLite takes the write lock first (`IMMEDIATE`), so two tables writing at
    /// once wait their turn instead of failing on a read that has to become a write.
    pub fn begin(&self) -> Result<(), String> {
        match self {
            Store::Sqlite(conn) => conn.execute_batch("BEGIN IMMEDIATE").map_err(|e| e.to_string()),
            Store::Postgres(client) => client.borrow_mut().batch_execute("BEGIN").map_err(pg_message),
        }
    }

    pub fn commit(&self) -> Result<(), String> {
        self.batch("COMMIT")
    }

    /// Gives up a write begun with `begin`; an error here leaves nothing more to undo.
    pub fn rollback(&self) {
        let _ = self.batch("ROLLBACK");
    }

    /// Runs statements without parameters (a migration).
    pub fn batch(&self, sql: &str) -> Result<(), String> {
        match self {
            Store::Sqlite(conn) => conn.execute_batch(sql).map_err(|e| e.to_string()),
            Store::Postgres(client) => client.borrow_mut().batch_execute(sql).map_err(pg_message),
        }
    }

    /// Runs one statement with `args` for `?1`, `?2`, …
    pub fn execute(&self, sql: &str, args: &[Value]) -> Result<(), String> {
        match self {
            Store::Sqlite(conn) => {
                let mut statement = conn.prepare_cached(sql).map_err(|e| e.to_string())?;
                statement
                    .execute(rusqlite::params_from_iter(args.iter().map(sqlite_value)))
                    .map_err(|e| e.to_string())?;
                Ok(())
            }
            Store::Postgres(client) => {
                let params = pg_params(args);
                let refs: Vec<&(dyn postgres::types::ToSql + Sync)> = params.iter().map(|p| p.as_ref()).collect();
                client.borrow_mut().execute(&dollar_params(sql), &refs).map_err(pg_message)?;
                Ok(())
            }
        }
    }

    /// The rows of one query with `args` for `?1`, `?2`, …
    pub fn query(&self, sql: &str, args: &[Value]) -> Result<Rows, String> {
        match self {
            Store::Sqlite(conn) => sqlite_query(conn, sql, args).map_err(|e| e.to_string()),
            Store::Postgres(client) => {
                let params = pg_params(args);
                let refs: Vec<&(dyn postgres::types::ToSql + Sync)> = params.iter().map(|p| p.as_ref()).collect();
                let rows = client.borrow_mut().query(&dollar_params(sql), &refs).map_err(pg_message)?;
                rows.iter().map(pg_row).collect()
            }
        }
    }
}

fn sqlite_value(v: &Value) -> rusqlite::types::Value {
    use rusqlite::types::Value as V;
    match v {
        Value::Null => V::Null,
        Value::Int(n) => V::Integer(*n),
        Value::Bool(b) => V::Integer(i64::from(*b)),
        Value::Text(s) => V::Text(s.clone()),
        Value::Bytes(b) => V::Blob(b.clone()),
    }
}

fn sqlite_query(conn: &rusqlite::Connection, sql: &str, args: &[Value]) -> rusqlite::Result<Rows> {
    use rusqlite::types::ValueRef;
    let mut statement = conn.prepare_cached(sql)?;
    let columns = statement.column_count();
    let mut rows = statement.query(rusqlite::params_from_iter(args.iter().map(sqlite_value)))?;
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        let mut values = Vec::with_capacity(columns);
        for k in 0..columns {
            values.push(match row.get_ref(k)? {
                ValueRef::Null => Value::Null,
                ValueRef::Integer(n) => Value::Int(n),
                ValueRef::Real(x) => Value::Int(x as i64),
                ValueRef::Text(t) => Value::Text(String::from_utf8_lossy(t).into_owned()),
                ValueRef::Blob(b) => Value::Bytes(b.to_vec()),
            });
        }
        out.push(values);
    }
    Ok(out)
}

type PgParam = Box<dyn postgres::types::ToSql + Sync>;

fn pg_params(args: &[Value]) -> Vec<PgParam> {
    args.iter()
        .map(|v| -> PgParam {
            match v {
                Value::Null => Box::new(Option::<String>::None),
                Value::Int(n) => Box::new(*n),
                Value::Bool(b) => Box::new(*b),
                Value::Text(s) => Box::new(s.clone()),
                Value::Bytes(b) => Box::new(b.clone()),
            }
        })
        .collect()
}

fn pg_row(row: &postgres::Row) -> Result<Vec<Value>, String> {
    use postgres::types::Type;
    let mut values = Vec::with_capacity(row.len());
    for (k, column) in row.columns().iter().enumerate() {
        let ty = column.type_();
        let value = if *ty == Type::INT8 {
            row.try_get::<_, Option<i64>>(k).map(|v| v.map_or(Value::Null, Value::Int))
        } else if *ty == Type::INT4 {
            row.try_get::<_, Option<i32>>(k).map(|v| v.map_or(Value::Null, |n| Value::Int(n.into())))
        } else if *ty == Type::BOOL {
            row.try_get::<_, Option<bool>>(k).map(|v| v.map_or(Value::Null, Value::Bool))
        } else if *ty == Type::BYTEA {
            row.try_get::<_, Option<Vec<u8>>>(k).map(|v| v.map_or(Value::Null, Value::Bytes))
        } else {
            row.try_get::<_, Option<String>>(k).map(|v| v.map_or(Value::Null, Value::Text))
        };
        values.push(value.map_err(|e| format!("column {}: {e}", column.name()))?);
    }
    Ok(values)
}

/// A PostgreSQL error in one line: the server's own message where there is one.
pub fn pg_message(e: postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => db.message().to_string(),
        None => {
            let mut text = e.to_string();
            let mut source = std::error::Error::source(&e);
            while let Some(cause) = source {
                text = format!("{text}: {cause}");
                source = cause.source();
            }
            text
        }
    }
}

/// `?1` → `$1`: the book writes SQLite's numbered parameters; PostgreSQL numbers them with `$`.
/// The book's SQL has no `?` inside a string literal.
pub fn dollar_params(sql: &str) -> String {
    sql.replace('?', "$")
}

/// Whether `place` names a PostgreSQL server rather than a file.
pub fn is_postgres(place: &str) -> bool {
    place.starts_with("postgres://") || place.starts_with("postgresql://")
}

/// A book's place as said on screen: the file, or the server without its password.
pub fn shown(place: &std::path::Path) -> String {
    let text = place.to_string_lossy();
    if is_postgres(&text) { without_password(&text) } else { text.into_owned() }
}

/// A server's address as said in messages: any password left out.
pub fn without_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else { return url.to_string() };
    let (authority, tail) = match rest.find('/') {
        Some(at) => rest.split_at(at),
        None => (rest, ""),
    };
    match authority.rsplit_once('@') {
        Some((user, host)) => {
            let user = user.split(':').next().unwrap_or("");
            format!("{scheme}://{user}@{host}{tail}")
        }
        None => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_servers_password_is_never_said() {
        assert_eq!(without_password("postgres://club:secret@db.local:5432/book"), "postgres://club@db.local:5432/book");
        assert_eq!(without_password("postgres://db.local/book"), "postgres://db.local/book");
        assert!(is_postgres("postgresql://x") && !is_postgres("/home/a/scorebook.sqlite"));
        assert_eq!(
            dollar_params("SELECT id FROM games WHERE uid = ?1 AND kind = ?2"),
            "SELECT id FROM games WHERE uid = $1 AND kind = $2"
        );
    }

    #[test]
    fn values_cross_sqlite_as_they_went_in() {
        let store = Store::Sqlite(rusqlite::Connection::open_in_memory().unwrap());
        store.batch("CREATE TABLE t (a INTEGER, b TEXT, c BLOB, d INTEGER)").unwrap();
        let row = [Value::Int(7), Value::from("x"), Value::Bytes(vec![1, 2]), Value::Bool(true)];
        store.execute("INSERT INTO t VALUES (?1, ?2, ?3, ?4)", &row).unwrap();
        let rows = store.query("SELECT a, b, c, d FROM t WHERE b = ?1", &[Value::from("x")]).unwrap();
        assert_eq!(rows[0][..3], row[..3]);
        assert!(rows[0][3].bool());
    }
}
