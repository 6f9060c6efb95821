//! The layering of `src/`, checked on the source: each folder imports only the layers below
//! it, the pure core does no I/O, and only the shell is async.

use std::path::{Path, PathBuf};

/// The layers, lowest first; a layer may import only the layers before it.
const LAYERS: &[&str] = &["core", "dialect", "session", "view", "server", "cli"];

/// What no file of the pure core may mention: I/O, async, clocks and ready-made JSON.
const CORE_FORBIDDEN: &[&str] = &[
    "std::fs",
    "std::process",
    "std::net",
    "std::io",
    "std::time",
    "std::thread",
    "tokio",
    "async ",
    ".await",
    "RawValue",
    "jsonrpsee",
];

/// What no file below the shell may mention: the async runtime and the JSON-RPC library.
const BELOW_SHELL_FORBIDDEN: &[&str] = &["tokio", "async fn", ".await", "jsonrpsee"];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `dir`, with its text.
fn sources(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("src is readable") {
            let path = entry.expect("src is readable").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).expect("sources are UTF-8");
                files.push((path, text));
            }
        }
    }
    files.sort();
    files
}

/// The code of a source file without its test module (the part after `#[cfg(test)]`) and
/// without comments, so that documentation may name any layer.
fn code(text: &str) -> String {
    let body = text.split("#[cfg(test)]").next().unwrap_or(text);
    body.lines()
        .map(|line| match line.trim_start() {
            l if l.starts_with("//") => "",
            _ => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `(file, layer it belongs to, what it mentions that it may not)` for every breach.
fn breaches() -> Vec<(String, &'static str, String)> {
    let mut found = Vec::new();
    for (position, layer) in LAYERS.iter().enumerate() {
        for (path, text) in sources(&src().join(layer)) {
            let code = code(&text);
            let name = path
                .strip_prefix(src())
                .unwrap_or(&path)
                .display()
                .to_string();
            for higher in &LAYERS[position + 1..] {
                let path = format!("crate::{higher}");
                if code.contains(&path) {
                    found.push((name.clone(), *layer, path));
                }
            }
            let forbidden: &[&str] = match *layer {
                "core" => CORE_FORBIDDEN,
                "server" | "cli" => &[],
                _ => BELOW_SHELL_FORBIDDEN,
            };
            for word in forbidden {
                if code.contains(word) {
                    found.push((name.clone(), *layer, (*word).to_owned()));
                }
            }
        }
    }
    found
}

/// No layer imports a layer above it, the core is pure and only the shell is async.
#[test]
fn layers_import_only_what_lies_below() {
    assert_eq!(breaches(), Vec::<(String, &str, String)>::new());
}

/// The core's code names no dialect: what a dialect needs from the flow reaches it as data.
#[test]
fn the_core_names_no_dialect() {
    let mut found = Vec::new();
    for (path, text) in sources(&src().join("core")) {
        let code = code(&text).to_lowercase();
        let words: Vec<&str> = code
            .split(|c: char| !c.is_alphanumeric() && c != '_')
            .collect();
        for dialect in askd::dialect::DIALECTS {
            if words.contains(&dialect.name()) {
                found.push((path.display().to_string(), dialect.name()));
            }
        }
    }
    assert_eq!(found, Vec::<(String, &str)>::new());
}

/// Every file of `src/` belongs to a layer (or is the crate root, the binary or the bench),
/// so that the check above sees all of them.
#[test]
fn every_source_file_is_in_a_layer() {
    let outside: Vec<String> = sources(&src())
        .into_iter()
        .map(|(path, _)| path.strip_prefix(src()).unwrap().display().to_string())
        .filter(|name| {
            !LAYERS
                .iter()
                .any(|layer| name.starts_with(&format!("{layer}/")))
                && !["lib.rs", "main.rs", "bin/askd-bench.rs"].contains(&name.as_str())
        })
        .collect();
    assert_eq!(outside, Vec::<String>::new());
}

/// Every folder's first file says what it owns and what it may not import.
#[test]
fn every_layer_states_its_invariant() {
    for layer in LAYERS {
        let text = std::fs::read_to_string(src().join(layer).join("mod.rs")).unwrap();
        assert!(
            text.starts_with("//! "),
            "{layer}/mod.rs opens with its documentation"
        );
        assert!(
            text.contains("Architecture invariant:"),
            "{layer}/mod.rs states its architecture invariant"
        );
    }
}

/// The check finds what it looks for: a core file naming the view, or reading a file.
#[test]
fn the_check_sees_a_breach() {
    let text = "//! Doc naming crate::view is fine.\nuse crate::view::View;\nfn f() { std::fs::read(\"x\"); }\n#[cfg(test)]\nmod tests { use crate::server; }\n";
    let code = code(text);
    assert!(code.contains("crate::view"));
    assert!(code.contains("std::fs"));
    assert!(!code.contains("crate::server"));
    assert!(!code.contains("Doc naming"));
}
