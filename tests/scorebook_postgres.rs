//! One scorebook for a club's tables on a real PostgreSQL server, which the test starts itself
//! (Debian's `postgresql`, installed by scripts/setup) in a folder of its own on a free port:
//! four tables importing at once keep every game once, the same game sent by two tables is one
//! game, and an unreachable server is one clear line. `SCOREBOOK_PG_GAMES=1000` runs the
//! four-table test at the club's full size (the README's figure).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use card_referee::scorebook::{Filter, Scorebook};

const BIN: &str = env!("CARGO_BIN_EXE_card-referee");

/// A PostgreSQL server of the test's own, stopped when dropped.
struct Server {
    dir: tempfile::TempDir,
    port: u16,
    run_as: Option<&'static str>,
}

/// PostgreSQL's server programs: on PATH, or where Debian keeps them.
fn pg_bin(name: &str) -> PathBuf {
    let on_path = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .map(|dir| dir.join(name))
        .find(|p| p.is_file());
    if let Some(path) = on_path {
        return path;
    }
    let mut debian: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .map(|dirs| dirs.filter_map(|d| d.ok().map(|d| d.path().join("bin").join(name))).collect())
        .unwrap_or_default();
    debian.sort();
    debian.pop().filter(|p| p.is_file()).unwrap_or_else(|| {
        panic!("PostgreSQL's {name} is not installed: run scripts/setup (Debian's postgresql package)")
    })
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

impl Server {
    fn start() -> Server {
        let dir = tempfile::tempdir().unwrap();
        // PostgreSQL refuses to run as root: root runs it as the postgres user.
        let run_as = is_root().then_some("postgres");
        if run_as.is_some() {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
        }
        let server = Server { dir, port: free_port(), run_as };
        let data = server.data();
        server.run(&pg_bin("initdb"), &["-D", &data, "-U", "card", "--auth=trust", "-E", "UTF8", "--no-sync"]);
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=40",
            server.port,
            server.dir.path().display()
        );
        let log = format!("{}/server.log", server.dir.path().display());
        server.run(&pg_bin("pg_ctl"), &["-D", &data, "-o", &options, "-l", &log, "-w", "-t", "60", "start"]);
        server
    }

    fn data(&self) -> String {
        format!("{}/data", self.dir.path().display())
    }

    fn url(&self) -> String {
        format!("postgres://card@127.0.0.1:{}/postgres", self.port)
    }

    fn run(&self, program: &Path, args: &[&str]) {
        let mut command = match self.run_as {
            Some(user) => {
                let mut c = Command::new("runuser");
                c.args(["-u", user, "--"]).arg(program);
                c
            }
            None => Command::new(program),
        };
        let out = command.args(args).current_dir(self.dir.path()).output().unwrap();
        assert!(
            out.status.success(),
            "{} {args:?}: {}{}",
            program.display(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let data = self.data();
        let _ = std::panic::catch_unwind(|| self.run(&pg_bin("pg_ctl"), &["-D", &data, "-m", "immediate", "stop"]));
    }
}

fn is_root() -> bool {
    Command::new("id").arg("-u").output().is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

fn simulate(dir: &Path, players: usize, games: usize, seed: u64) {
    let out = Command::new(BIN)
        .args(["omphala", "simulate", "--players", &players.to_string(), "--games", &games.to_string()])
        .args(["--seed", &seed.to_string(), "--records", dir.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// Starts `scorebook import` of each folder into `book` at once; returns each one's output.
fn import_at_once(book: &str, folders: &[PathBuf]) -> Vec<(bool, String, String)> {
    let children: Vec<std::process::Child> = folders
        .iter()
        .map(|folder| {
            Command::new(BIN)
                .args(["scorebook", "--book", book, "import", folder.to_str().unwrap()])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    children
        .into_iter()
        .map(|child| {
            let out = child.wait_with_output().unwrap();
            let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
            (out.status.success(), text(&out.stdout), text(&out.stderr))
        })
        .collect()
}

#[test]
fn four_tables_writing_one_postgres_book_at_once_lose_and_double_nothing() {
    let server = Server::start();
    let games: usize = std::env::var("SCOREBOOK_PG_GAMES").ok().and_then(|n| n.parse().ok()).unwrap_or(150);
    let work = tempfile::tempdir().unwrap();
    let folders: Vec<PathBuf> = (0..4).map(|k| work.path().join(format!("table{k}"))).collect();
    for (k, folder) in folders.iter().enumerate() {
        std::fs::create_dir(folder).unwrap();
        simulate(folder, 2 + k % 3, games, 700 + k as u64);
    }
    let started = std::time::Instant::now();
    for (ok, out, err) in import_at_once(&server.url(), &folders) {
        assert!(ok, "{err}");
        assert!(out.starts_with(&format!("{games} games added, 0 already")), "{out}{err}");
    }
    eprintln!("4 tables x {games} games into PostgreSQL at once: {:.2} s", started.elapsed().as_secs_f64());
    let book = Scorebook::open(Path::new(&server.url())).unwrap();
    assert_eq!(book.count().unwrap(), 4 * games as i64);
    let kept = book.games(&Filter::default()).unwrap();
    let mut records: Vec<&str> = kept.iter().map(|g| g.entry.record.as_str()).collect();
    records.sort_unstable();
    records.dedup();
    assert_eq!(records.len(), 4 * games, "a game kept twice");
    assert!(
        kept.iter().all(|g| g.entry.results.iter().filter(|r| r.won).count() >= 1),
        "a game kept without its results"
    );

    // Two tables sending the same games at once (a table's operator imports another's records):
    // each game is still one game.
    let twice = [folders[0].clone(), folders[0].clone()];
    for (ok, out, err) in import_at_once(&server.url(), &twice) {
        assert!(ok && out.starts_with("0 games added"), "{out}{err}");
    }
    assert_eq!(book.count().unwrap(), 4 * games as i64);
    // The evening's table reads the same from PostgreSQL as from a file.
    let file = work.path().join("book.sqlite");
    let mut local = Scorebook::open(&file).unwrap();
    for game in &kept {
        local.add(&game.entry, &game.table, Some(&game.played_at)).unwrap();
    }
    assert_eq!(local.table(&Filter::default()).unwrap(), book.table(&Filter::default()).unwrap());
}

#[test]
fn an_unreachable_server_is_one_clear_line_and_its_password_is_never_said() {
    let port = free_port();
    let url = format!("postgres://club:secret@127.0.0.1:{port}/book");
    let out = Command::new(BIN).args(["scorebook", "--book", &url, "list"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        err.contains(&format!("postgres://club@127.0.0.1:{port}/book: cannot reach the PostgreSQL server")),
        "{err}"
    );
    assert!(!err.contains("secret"), "{err}");
}
