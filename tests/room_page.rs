//! The page for the room in a real headless Chromium (Debian's `chromium`, installed by
//! scripts/setup), driven over the DevTools protocol: `referee omphala --serve` referees a game
//! from the views a perfect camera gives, paced in real time, and the page shows each ruling
//! within a second of the referee printing it, with the standings, whose turn and tonight's
//! table from the scorebook. The server refuses anything but reading. `ROOM_SCREENSHOT=FILE`
//! saves the page as the README shows it; a failed run saves it beside the test's output.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use base64::Engine;
use card_referee::referee::omphala::script::ideal_views;
use card_referee::rules::omphala::RuleOptions;
use card_referee::rules::omphala::simulate::play_out;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};
use tungstenite::Message;

const BIN: &str = env!("CARGO_BIN_EXE_card-referee");

/// The views of the first `count` steps of a random 2-seat game, each given twice a second apart
/// as a settled view that stays is, the first `lead_ms` after the start.
fn write_views(path: &Path, count: usize, lead_ms: usize) {
    let mut rng = ChaCha8Rng::seed_from_u64(23);
    let game = play_out(&mut rng, 2, RuleOptions::default(), true).unwrap();
    let views = ideal_views(RuleOptions::default(), &game.inputs).unwrap();
    let mut file = std::fs::File::create(path).unwrap();
    for (k, v) in views.iter().take(count).enumerate() {
        for again in [0, 1] {
            let at = lead_ms + (2 * k + again) * 1000;
            writeln!(file, "{}", json!({"frame": 2 * k + again, "ms": at, "view": v.view})).unwrap();
        }
    }
}

/// A child process killed when dropped.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Reads `child`'s standard error on a thread until a line starts with `prefix`; the rest of that
/// line.
fn line_after(stderr: impl Read + Send + 'static, prefix: &'static str) -> String {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut sent = false;
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if !sent && let Some(rest) = line.strip_prefix(prefix) {
                let _ = tx.send(rest.trim().to_string());
                sent = true;
            }
        }
    });
    rx.recv_timeout(Duration::from_secs(60)).unwrap_or_else(|_| panic!("no line starting {prefix:?} in 60 s"))
}

/// A page in headless Chromium, driven over the DevTools protocol.
struct Browser {
    _process: Killed,
    _profile: tempfile::TempDir,
    socket: tungstenite::WebSocket<tungstenite::stream::MaybeTlsStream<TcpStream>>,
    session: String,
    next_id: u64,
}

impl Browser {
    fn open(url: &str) -> Browser {
        let profile = tempfile::tempdir().unwrap();
        let mut process = Command::new("chromium")
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--hide-scrollbars",
                "--window-size=1280,860",
                "--remote-debugging-port=0",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg(url)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("Chromium is not installed: run scripts/setup (Debian's chromium package)");
        let devtools = line_after(process.stderr.take().unwrap(), "DevTools listening on ");
        let (socket, _) = tungstenite::connect(devtools.as_str()).unwrap();
        let mut browser =
            Browser { _process: Killed(process), _profile: profile, socket, session: String::new(), next_id: 0 };
        let page = browser.page_target(url);
        let attached = browser.call("Target.attachToTarget", json!({"targetId": page, "flatten": true}));
        browser.session = attached["sessionId"].as_str().unwrap().to_string();
        browser
    }

    /// The target of the page showing `url` once Chromium has opened it.
    fn page_target(&mut self, url: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let targets = self.call("Target.getTargets", json!({}));
            let found = targets["targetInfos"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|t| t["type"] == "page" && t["url"].as_str().is_some_and(|u| u.starts_with(url)));
            if let Some(target) = found {
                return target["targetId"].as_str().unwrap().to_string();
            }
            assert!(Instant::now() < deadline, "Chromium never opened {url}: {targets}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Calls a DevTools method (on the page once attached) and returns its result.
    fn call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let mut message = json!({"id": id, "method": method, "params": params});
        if !self.session.is_empty() {
            message["sessionId"] = json!(self.session);
        }
        self.socket.send(Message::Text(message.to_string().into())).unwrap();
        loop {
            let reply = self.socket.read().unwrap();
            let Ok(text) = reply.to_text() else { continue };
            let value: Value = serde_json::from_str(text).unwrap_or_default();
            if value["id"] == id {
                assert!(value.get("error").is_none(), "{method}: {value}");
                return value["result"].clone();
            }
        }
    }

    /// The value of a JavaScript expression in the page.
    fn eval(&mut self, expression: &str) -> Value {
        let result = self.call("Runtime.evaluate", json!({"expression": expression, "returnByValue": true}));
        result["result"]["value"].clone()
    }

    fn screenshot(&mut self, path: &Path) {
        let shot = self.call("Page.captureScreenshot", json!({"format": "png"}));
        let png = base64::engine::general_purpose::STANDARD.decode(shot["data"].as_str().unwrap()).unwrap();
        if let Some(folder) = path.parent() {
            std::fs::create_dir_all(folder).unwrap();
        }
        std::fs::write(path, png).unwrap();
        eprintln!("the page saved as {}", path.display());
    }
}

/// The status line of a raw HTTP request to the page's server.
fn status_of(address: &str, request: &str) -> String {
    let mut stream = TcpStream::connect(address).unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut first = String::new();
    BufReader::new(stream).read_line(&mut first).unwrap();
    first.trim().to_string()
}

#[test]
fn the_room_page_in_chromium_shows_each_ruling_within_a_second() {
    let work = tempfile::tempdir().unwrap();
    let views = work.path().join("game.views");
    // Four seconds of lead at four times real speed, for Chromium to open the page.
    write_views(&views, 36, 16_000);
    let book = work.path().join("book.sqlite");
    let tonight = card_referee::scorebook::clock::utc_time(std::time::SystemTime::now());
    let imported = Command::new(BIN)
        .args(["scorebook", "--book", book.to_str().unwrap(), "import", "tests/data/omphala/tie-battle.txt"])
        .args(["--played-at", &tonight])
        .output()
        .unwrap();
    assert!(imported.status.success(), "{}", String::from_utf8_lossy(&imported.stderr));

    let mut referee = Command::new(BIN)
        .args(["referee", "omphala", "--names", "Alice,Bob", "--speed", "4", "--serve", "127.0.0.1:0"])
        .arg("--views")
        .arg(&views)
        .arg("--scorebook")
        .arg(&book)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = referee.stdout.take().unwrap();
    let url = line_after(referee.stderr.take().unwrap(), "# the page for the room: ");
    let _referee = Killed(referee);
    // Each commit's frame, with when the referee printed it.
    let (commits_tx, commits) = mpsc::channel::<(u64, Instant)>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let event: Value = serde_json::from_str(&line).unwrap_or_default();
            if event["event"] == "input" {
                let _ = commits_tx.send((event["frame"].as_u64().unwrap(), Instant::now()));
            }
        }
    });

    // Read-only: nothing but GET of its three paths.
    let address = url.trim_start_matches("http://").trim_end_matches('/');
    let post = status_of(address, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    assert!(post.contains(" 405 "), "{post}");
    let other = status_of(address, "GET /admin HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    assert!(other.contains(" 404 "), "{other}");

    let mut browser = Browser::open(&url);
    let shown_frame = |browser: &mut Browser| {
        browser.eval("document.body.dataset.lastFrame").as_str().and_then(|s| s.parse::<u64>().ok())
    };
    // A cold Chromium on a fresh machine may take seconds to build its caches and open the
    // page: rulings said before the page first heard from the server must show, but are not
    // timed.
    let connected = connected_at(&mut browser);
    let mut latencies = Vec::new();
    let mut failure = None;
    let deadline = Instant::now() + Duration::from_secs(60);
    while let Ok((frame, printed)) = commits.recv_timeout(Duration::from_secs(10)) {
        loop {
            if shown_frame(&mut browser).is_some_and(|shown| shown >= frame) {
                if printed >= connected {
                    latencies.push((printed.elapsed(), frame));
                }
                break;
            }
            if printed.elapsed() > Duration::from_secs(3) || Instant::now() > deadline {
                failure = Some(format!("the ruling of frame {frame} was not on the page after 3 s"));
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        if failure.is_some() {
            break;
        }
    }
    let text = browser.eval("document.body.innerText").as_str().unwrap_or_default().to_string();
    let screenshot = std::env::var_os("ROOM_SCREENSHOT").map(std::path::PathBuf::from);
    let checks = check_page(&text, &latencies).err().or(failure);
    match (&checks, screenshot) {
        (None, Some(path)) => browser.screenshot(&path),
        (Some(_), _) => browser.screenshot(&Path::new(env!("CARGO_TARGET_TMPDIR")).join("room-page-failure.png")),
        (None, None) => {}
    }
    if let Some(message) = checks {
        panic!("{message}\nthe page said:\n{text}");
    }
}

/// When the page first showed a message from the server (its footer says when it was updated).
fn connected_at(browser: &mut Browser) -> Instant {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let footer = browser.eval("document.getElementById('link').textContent");
        if footer.as_str().is_some_and(|text| text.starts_with("Updated")) {
            return Instant::now();
        }
        assert!(Instant::now() < deadline, "the page never heard from the server in 30 s: {footer}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// What the page must show by the end, and how fast it showed each ruling (with its frame).
fn check_page(text: &str, latencies: &[(Duration, u64)]) -> Result<(), String> {
    if latencies.len() < 10 {
        return Err(format!("only {} rulings timed on the page", latencies.len()));
    }
    let mut sorted = latencies.to_vec();
    sorted.sort();
    let (median, (worst, frame)) = (sorted[sorted.len() / 2].0, sorted[sorted.len() - 1]);
    eprintln!(
        "{} rulings on the page: median {median:?}, slowest {worst:?} (frame {frame}) after the referee said them",
        sorted.len()
    );
    if worst > Duration::from_secs(1) {
        return Err(format!("the ruling of frame {frame} took {worst:?} to reach the page"));
    }
    for expected in ["Omphala: Alice, Bob", "to play", "Front Row card", "last rulings", "tonight"] {
        // Headings are shown in capitals.
        if !text.contains(expected) && !text.to_lowercase().contains(expected) {
            return Err(format!("the page does not show {expected:?}"));
        }
    }
    // Tonight's table holds the game imported into the book (Alice won it by a battle).
    if !text.lines().any(|l| l.starts_with("Alice") && l.split_whitespace().skip(1).take(2).eq(["1", "1"])) {
        return Err("tonight's table does not show Alice's game".into());
    }
    Ok(())
}
