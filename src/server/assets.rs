//! The browser client of `editors/web/`, embedded in the binary: what the listener serves at
//! `GET /` and under each file's name.

/// One file of the browser client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Asset {
    /// The path it is served at.
    pub path: &'static str,
    /// Its `Content-Type`.
    pub content_type: &'static str,
    /// Its bytes.
    pub body: &'static str,
}

const HTML: &str = "text/html; charset=utf-8";
const CSS: &str = "text/css; charset=utf-8";
const JAVASCRIPT: &str = "text/javascript; charset=utf-8";

/// Every file the listener serves: the page at `/`, and the styles and modules it loads.
pub const ASSETS: &[Asset] = &[
    Asset {
        path: "/",
        content_type: HTML,
        body: include_str!("../../editors/web/index.html"),
    },
    Asset {
        path: "/index.html",
        content_type: HTML,
        body: include_str!("../../editors/web/index.html"),
    },
    Asset {
        path: "/page.css",
        content_type: CSS,
        body: include_str!("../../editors/web/page.css"),
    },
    Asset {
        path: "/askd.css",
        content_type: CSS,
        body: include_str!("../../editors/web/askd.css"),
    },
    Asset {
        path: "/app.js",
        content_type: JAVASCRIPT,
        body: include_str!("../../editors/web/app.js"),
    },
    Asset {
        path: "/askd-view.js",
        content_type: JAVASCRIPT,
        body: include_str!("../../editors/web/askd-view.js"),
    },
    Asset {
        path: "/askd-lines.js",
        content_type: JAVASCRIPT,
        body: include_str!("../../editors/web/askd-lines.js"),
    },
    Asset {
        path: "/askd-keys.js",
        content_type: JAVASCRIPT,
        body: include_str!("../../editors/web/askd-keys.js"),
    },
    Asset {
        path: "/askd-form.js",
        content_type: JAVASCRIPT,
        body: include_str!("../../editors/web/askd-form.js"),
    },
    Asset {
        path: "/askd-waiting.js",
        content_type: JAVASCRIPT,
        body: include_str!("../../editors/web/askd-waiting.js"),
    },
    Asset {
        path: "/askd-wide.js",
        content_type: JAVASCRIPT,
        body: include_str!("../../editors/web/askd-wide.js"),
    },
    Asset {
        path: "/askd-socket.js",
        content_type: JAVASCRIPT,
        body: include_str!("../../editors/web/askd-socket.js"),
    },
];

/// The file served at `path`, if any.
pub fn asset(path: &str) -> Option<&'static Asset> {
    ASSETS.iter().find(|asset| asset.path == path)
}
