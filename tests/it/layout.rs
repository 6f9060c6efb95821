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

/// The modules of `server/` that each module of it names (`crate::server::NAME`), a folder
/// counting as one module; the shell's root (`server/mod.rs`, which declares them all) is no
/// node.
fn server_imports() -> std::collections::BTreeMap<String, std::collections::BTreeSet<String>> {
    let dir = src().join("server");
    let module_of = |path: &Path| -> String {
        let relative = path.strip_prefix(&dir).unwrap();
        let first = relative.components().next().unwrap().as_os_str();
        first.to_string_lossy().trim_end_matches(".rs").to_owned()
    };
    let mut graph = std::collections::BTreeMap::new();
    for (path, text) in sources(&dir) {
        let module = module_of(&path);
        if module == "mod" {
            continue;
        }
        let names: &mut std::collections::BTreeSet<String> =
            graph.entry(module.clone()).or_default();
        let code = code(&text);
        for (at, _) in code.match_indices("crate::server::") {
            let rest = &code[at + "crate::server::".len()..];
            let mut named: Vec<&str> = Vec::new();
            if let Some(list) = rest.strip_prefix('{') {
                let list = &list[..list.find('}').unwrap_or(list.len())];
                named.extend(
                    list.split(',')
                        .map(|item| item.trim().split("::").next().unwrap()),
                );
            } else {
                named.push(
                    rest.split(|c: char| !c.is_alphanumeric() && c != '_')
                        .next()
                        .unwrap(),
                );
            }
            for name in named {
                // A lower-case name is a module; anything else is an item of the folder's root.
                if name.starts_with(|c: char| c.is_ascii_lowercase())
                    && name != "self"
                    && name != module
                {
                    names.insert(name.to_owned());
                }
            }
        }
    }
    graph
}

/// The modules of the shell import one another without a circle: each can be read knowing
/// only those it names.
#[test]
fn the_shell_has_no_circle() {
    let graph = server_imports();
    // Depth-first: a module met again while it is on the path closes a circle.
    fn visit(
        module: &str,
        graph: &std::collections::BTreeMap<String, std::collections::BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut std::collections::BTreeSet<String>,
        circles: &mut Vec<String>,
    ) {
        if let Some(at) = path.iter().position(|m| m == module) {
            let mut circle = path[at..].to_vec();
            circle.push(module.to_owned());
            circles.push(circle.join(" → "));
            return;
        }
        if !done.insert(module.to_owned()) {
            return;
        }
        path.push(module.to_owned());
        for next in graph.get(module).into_iter().flatten() {
            visit(next, graph, path, done, circles);
        }
        path.pop();
    }
    let (mut done, mut circles) = (Default::default(), Vec::new());
    for module in graph.keys() {
        visit(module, &graph, &mut Vec::new(), &mut done, &mut circles);
    }
    assert_eq!(circles, Vec::<String>::new());
    // The check sees what it looks for: the shell's lowest modules name none of the others,
    // and the session table names its outbox.
    assert_eq!(graph["protocol"], Default::default());
    assert!(graph["state"].contains("outbox"), "{:?}", graph["state"]);
}
