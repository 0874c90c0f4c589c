//! The page for the room (`--serve ADDR`): a small read-only web server with one page that shows
//! the live table's standings, whose turn it is, the last rulings and the evening's table from
//! the scorebook, and updates itself by server-sent events as soon as anything changes. The
//! referee hands it a `RoomView` after each frame (`Room::publish`); a thread reads the
//! evening's table from the book every few seconds, so games other tables write into a shared
//! book show too. The server answers `GET` on three paths and nothing else: it changes nothing.

mod server;
pub mod view;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde::Serialize;
use tokio::sync::watch;

use crate::scorebook::{Filter, Scorebook, TableLine};
pub use view::{RoomView, Ruling, Standing};

/// How often the evening's table is read again from the book.
const BOOK_EVERY: Duration = Duration::from_secs(2);

/// What the page shows, as one JSON message.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
struct Message {
    live: RoomView,
    /// Tonight's table from the book (UTC date), and where the book is.
    evening: Vec<TableLine>,
    book: Option<String>,
    /// Why the book could not be read, if it could not.
    book_error: Option<String>,
}

struct Shared {
    message: Mutex<Message>,
    sender: watch::Sender<Arc<str>>,
    stop: AtomicBool,
}

impl Shared {
    fn message(&self) -> MutexGuard<'_, Message> {
        self.message.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Sets one part of the message and sends it to every page, if that part changed.
    fn set<T: PartialEq>(&self, part: impl FnOnce(&mut Message) -> &mut T, value: T) {
        let mut message = self.message();
        let slot = part(&mut message);
        if *slot != value {
            *slot = value;
            let text = serde_json::to_string(&*message).unwrap_or_default();
            self.sender.send_replace(text.into());
        }
    }
}

/// The running page; dropping it stops the server.
pub struct Room {
    shared: Arc<Shared>,
    address: SocketAddr,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Room {
    /// Serves the page at `address` (`127.0.0.1:8080`; port 0 picks a free one), with the
    /// evening's table from `book` if one.
    pub fn serve(address: &str, book: Option<PathBuf>) -> Result<Room, String> {
        let listener =
            std::net::TcpListener::bind(address).map_err(|e| format!("--serve {address}: cannot listen: {e}"))?;
        let bound = listener.local_addr().map_err(|e| format!("--serve {address}: {e}"))?;
        listener.set_nonblocking(true).map_err(|e| format!("--serve {address}: {e}"))?;
        let first = Message { book: book.as_deref().map(crate::scorebook::store::shown), ..Message::default() };
        let (sender, _) = watch::channel::<Arc<str>>(serde_json::to_string(&first).unwrap_or_default().into());
        let shared = Arc::new(Shared { message: Mutex::new(first), sender, stop: AtomicBool::new(false) });
        let (shutdown, stopped) = tokio::sync::oneshot::channel();
        let pages = shared.sender.subscribe();
        std::thread::Builder::new()
            .name("room-page".into())
            .spawn(move || server::run(listener, pages, stopped))
            .map_err(|e| format!("the room page's thread did not start: {e}"))?;
        if let Some(book) = book {
            let reader = Arc::clone(&shared);
            std::thread::Builder::new()
                .name("room-book".into())
                .spawn(move || read_book(&reader, &book))
                .map_err(|e| format!("the room page's book reader did not start: {e}"))?;
        }
        Ok(Room { shared, address: bound, shutdown: Some(shutdown) })
    }

    /// Where the page is served.
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// The page's address for a browser.
    pub fn url(&self) -> String {
        format!("http://{}/", self.address)
    }

    /// The live table as it stands now; the pages hear of it at once if it changed.
    pub fn publish(&self, view: RoomView) {
        self.shared.set(|m| &mut m.live, view);
    }
}

impl Drop for Room {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
    }
}

/// Reads tonight's table from the book every few seconds until the room closes. A book that
/// cannot be opened or read is said on the page and tried again.
fn read_book(shared: &Shared, path: &std::path::Path) {
    let mut book: Option<Scorebook> = None;
    while !shared.stop.load(Ordering::Relaxed) {
        if book.is_none() {
            match Scorebook::open(path) {
                Ok(opened) => book = Some(opened),
                Err(e) => shared.set(|m| &mut m.book_error, Some(e.to_string())),
            }
        }
        if let Some(open) = &book {
            match open.table(&Filter::default().today()) {
                Ok(table) => {
                    shared.set(|m| &mut m.evening, table);
                    shared.set(|m| &mut m.book_error, None);
                }
                Err(e) => {
                    shared.set(|m| &mut m.book_error, Some(e.to_string()));
                    book = None;
                }
            }
        }
        // Sleep in short steps so that a closed room lets go of the book soon.
        for _ in 0..(BOOK_EVERY.as_millis() / 100) {
            if shared.stop.load(Ordering::Relaxed) {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    /// What the event stream has sent within `wait`, read from a raw connection.
    fn events_within(room: &Room, wait: Duration) -> String {
        let mut stream = std::net::TcpStream::connect(room.address()).unwrap();
        stream.write_all(b"GET /events HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
        stream.set_read_timeout(Some(wait)).unwrap();
        let mut seen = Vec::new();
        let mut chunk = [0u8; 4096];
        while let Ok(n @ 1..) = stream.read(&mut chunk) {
            seen.extend_from_slice(&chunk[..n]);
        }
        String::from_utf8_lossy(&seen).into_owned()
    }

    #[test]
    fn the_event_stream_sends_the_current_message_first_and_asks_a_dropped_page_back_within_a_second() {
        let room = Room::serve("127.0.0.1:0", None).unwrap();
        let sent = events_within(&room, Duration::from_millis(500));
        assert!(sent.contains("text/event-stream"), "{sent}");
        assert!(sent.contains("event: room"), "{sent}");
        assert!(sent.contains("\"live\""), "{sent}");
        let retry = sent.lines().find_map(|l| l.strip_prefix("retry: ")).expect("no retry hint");
        assert!(retry.trim().parse::<u64>().is_ok_and(|ms| ms <= 1000), "{sent}");
    }
}
