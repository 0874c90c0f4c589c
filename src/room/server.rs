//! The room page's web server (axum on a one-thread tokio runtime, thread "room-page"): `GET /`
//! the page, `GET /events` the live message as server-sent events (the current one first, then
//! each change), `GET /state` the current message as JSON. Any other method or path is refused
//! by the router, so nothing a browser sends can change anything.

use std::convert::Infallible;
use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::http::header;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{Html, IntoResponse};
use axum::routing::get;
use tokio::sync::{oneshot, watch};
use tokio_stream::{Stream, StreamExt, wrappers::WatchStream};

const PAGE: &str = include_str!("page.html");

/// The page may run its own script and open its own event stream, nothing else.
const POLICY: &str = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'";

type Pages = watch::Receiver<Arc<str>>;

/// How soon a page whose event stream dropped connects again.
const RETRY: std::time::Duration = std::time::Duration::from_millis(500);

/// Serves until `stopped` fires (or its sender is dropped).
pub fn run(listener: std::net::TcpListener, pages: Pages, stopped: oneshot::Receiver<()>) {
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_io().enable_time().build() {
        Ok(runtime) => runtime,
        Err(e) => {
            tracing::error!("the room page did not start: {e}");
            return;
        }
    };
    runtime.block_on(async move {
        let listener = match tokio::net::TcpListener::from_std(listener) {
            Ok(listener) => listener,
            Err(e) => {
                tracing::error!("the room page did not start: {e}");
                return;
            }
        };
        let app = Router::new()
            .route("/", get(page))
            .route("/events", get(events))
            .route("/state", get(state))
            .with_state(pages);
        let served = axum::serve(listener, app).with_graceful_shutdown(async {
            let _ = stopped.await;
        });
        if let Err(e) = served.await {
            tracing::error!("the room page stopped: {e}");
        }
    });
}

async fn page() -> impl IntoResponse {
    (
        [
            (header::CONTENT_SECURITY_POLICY, POLICY),
            (header::CACHE_CONTROL, "no-store"),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        ],
        Html(PAGE),
    )
}

async fn events(State(pages): State<Pages>) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    // A page whose connection drops asks again after half a second, not the browser's default
    // of seconds, and hears the current message first.
    let stream = WatchStream::new(pages).map(|text| Ok(Event::default().event("room").retry(RETRY).data(&*text)));
    Sse::new(stream).keep_alive(KeepAlive::default())
}

async fn state(State(pages): State<Pages>) -> impl IntoResponse {
    let text = pages.borrow().to_string();
    ([(header::CONTENT_TYPE, "application/json"), (header::CACHE_CONTROL, "no-store")], text)
}
