//! The command's generated documents: shell completions for every shell clap supports, and
//! the man pages, produced by the real binary.

use std::process::Command;

use clap::ValueEnum;
use clap_complete::Shell;

/// The subcommands every completion script and the man page must name.
const SUBCOMMANDS: &[&str] = &[
    "serve",
    "hub",
    "ask",
    "web",
    "play",
    "demo",
    "conformance",
    "schema",
    "completions",
    "man",
    "mcp",
    "hook",
    "bridge",
];

/// The subcommands of subcommands, each with a man page of its own (`askd-hook-claude.1`).
const NESTED: &[&str] = &["hook-claude", "bridge-opencode"];

fn askd(args: &[&str]) -> (bool, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_askd"))
        .args(args)
        .output()
        .expect("askd runs");
    (
        output.status.success(),
        String::from_utf8(output.stdout).expect("UTF-8 output"),
        String::from_utf8(output.stderr).expect("UTF-8 output"),
    )
}

/// Whether `program` can be run; under CI (`CI` set) a missing checker is a failure, because
/// `.ci/run` installs it.
fn available(program: &str) -> bool {
    let found = Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        found || std::env::var_os("CI").is_none(),
        "{program} is needed to check its completion script: .ci/run installs it"
    );
    if !found {
        eprintln!("{program} is not installed here: its script is checked under CI only");
    }
    found
}

/// Checks `script` with the shell's own parser, where the shell has one that does not run it.
fn parses(shell: Shell, script: &str) {
    let (program, args): (&str, &[&str]) = match shell {
        Shell::Bash => ("bash", &["-n"]),
        Shell::Zsh => ("zsh", &["-n"]),
        Shell::Fish => ("fish", &["--no-execute"]),
        // Elvish's compiler needs its interactive `edit:` module: the script runs in
        // `completes` instead. No PowerShell can be installed here; its content is checked by
        // the caller.
        Shell::Elvish | Shell::PowerShell => return,
        _ => return,
    };
    if !available(program) {
        return;
    }
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("askd-completion");
    std::fs::write(&path, script).expect("the script is written");
    let output = Command::new(program)
        .args(args)
        .arg(&path)
        .output()
        .expect("the shell runs");
    assert!(
        output.status.success(),
        "{program} refuses the {shell} script: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The candidates the shell offers, with `script` loaded, for the command line `line` (whose
/// last word is the one completed), one per line; `None` for a shell that cannot be driven here.
fn completes(shell: Shell, script: &str, line: &[&str]) -> Option<String> {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("askd-completion");
    let words = line.join(" ");
    let (program, driver) = match shell {
        Shell::Bash => {
            let quoted: Vec<String> = line.iter().map(|w| format!("'{w}'")).collect();
            (
                "bash",
                format!(
                    "source {path}\nCOMP_WORDS=({words})\nCOMP_CWORD={cword}\n\
                     COMP_LINE='{line}'\nCOMP_POINT=${{#COMP_LINE}}\n\
                     _askd askd '{last}' '{previous}'\nprintf '%s\\n' \"${{COMPREPLY[@]}}\"\n",
                    path = path.display(),
                    words = quoted.join(" "),
                    cword = line.len() - 1,
                    line = words,
                    last = line[line.len() - 1],
                    previous = line[line.len() - 2],
                ),
            )
        }
        Shell::Fish => (
            "fish",
            format!(
                "source {}\ncomplete -C '{words}' | string replace -r '\\t.*' ''\n",
                path.display()
            ),
        ),
        // The stand-in `edit:` module prints each candidate the script offers.
        Shell::Elvish => (
            "elvish",
            format!(
                "var edit: = (ns [&complex-candidate~={{|text &display=''| echo $text }} \
                 &completion:=(ns [&arg-completer=[&]])])\n{script}\n\
                 $edit:completion:arg-completer[askd] {args}\n",
                args = line
                    .iter()
                    .map(|w| format!("'{w}'"))
                    .collect::<Vec<_>>()
                    .join(" "),
            ),
        ),
        _ => return None,
    };
    if !available(program) {
        return None;
    }
    std::fs::write(&path, script).expect("the script is written");
    let driver_path = dir.path().join("driver");
    std::fs::write(&driver_path, driver).expect("the driver is written");
    let output = Command::new(program)
        .arg(&driver_path)
        .output()
        .expect("the shell runs");
    assert!(
        output.status.success(),
        "{program} fails completing {words:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    Some(String::from_utf8(output.stdout).expect("UTF-8 candidates"))
}

/// Bash, fish and elvish, driven with the script loaded, offer exactly the subcommands after
/// `askd ` and exactly the one flag a prefix names.
#[test]
fn completions_complete() {
    let mut subcommands: Vec<&str> = SUBCOMMANDS.iter().copied().chain(["help"]).collect();
    subcommands.sort_unstable();
    for shell in [Shell::Bash, Shell::Fish, Shell::Elvish] {
        let (ok, script, stderr) = askd(&["completions", &shell.to_string()]);
        assert!(ok, "{stderr}");
        let Some(offered) = completes(shell, &script, &["askd", ""]) else {
            continue;
        };
        let mut words: Vec<&str> = offered.lines().filter(|w| !w.starts_with('-')).collect();
        words.sort_unstable();
        assert_eq!(words, subcommands, "{shell} after `askd `");
        let offered = completes(shell, &script, &["askd", "serve", "--max-s"]).expect("checked");
        // Elvish's completer offers every flag and its editor keeps those the prefix matches.
        let flags: Vec<&str> = offered
            .lines()
            .filter(|c| shell != Shell::Elvish || c.starts_with("--max-s"))
            .collect();
        assert_eq!(
            flags,
            ["--max-sessions"],
            "{shell} after `askd serve --max-s`"
        );
    }
}

/// Every shell clap supports gets a script that its shell parses, naming every subcommand and
/// the flags of serve.
#[test]
fn completions_for_every_shell() {
    let shells = Shell::value_variants();
    assert_eq!(shells.len(), 5, "a new shell needs a parser check here");
    for shell in shells {
        let name = shell.to_possible_value().expect("shells have names");
        let (ok, script, stderr) = askd(&["completions", name.get_name()]);
        assert!(ok, "askd completions {shell}: {stderr}");
        assert_eq!(stderr, "");
        for sub in SUBCOMMANDS {
            assert!(script.contains(sub), "the {shell} script names {sub}");
        }
        for flag in ["max-sessions", "max-message-bytes", "keys", "width"] {
            assert!(script.contains(flag), "the {shell} script names --{flag}");
        }
        parses(*shell, &script);
    }
    let (ok, _, stderr) = askd(&["completions", "tcsh"]);
    assert!(!ok);
    assert!(stderr.contains("invalid value 'tcsh'"), "{stderr}");
}

/// `askd man` prints a page groff reads without a warning; `--out-dir` writes one per
/// subcommand.
#[test]
fn man_pages() {
    let (ok, page, stderr) = askd(&["man"]);
    assert!(ok, "{stderr}");
    assert!(page.contains(".TH askd 1"), "{page}");
    assert!(page.contains("A headless ask\\-flow engine speaking JSON\\-RPC 2.0"));
    for sub in SUBCOMMANDS {
        assert!(
            page.contains(&format!("askd\\-{sub}(1)")),
            "the page names askd-{sub}(1)"
        );
    }
    if available("groff") {
        let mut groff = Command::new("groff")
            .args(["-man", "-z", "-ww"])
            .stdin(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("groff runs");
        use std::io::Write;
        groff
            .stdin
            .take()
            .expect("piped")
            .write_all(page.as_bytes())
            .expect("groff reads the page");
        let output = groff.wait_with_output().expect("groff finishes");
        assert!(output.status.success());
        assert_eq!(String::from_utf8_lossy(&output.stderr), "");
    }
    let dir = tempfile::tempdir().expect("a temporary directory");
    let out = dir.path().join("man");
    let (ok, _, stderr) = askd(&["man", "--out-dir", out.to_str().expect("UTF-8 path")]);
    assert!(ok, "{stderr}");
    let mut written: Vec<String> = std::fs::read_dir(&out)
        .expect("the pages are written")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .into_string()
                .expect("UTF-8")
        })
        .collect();
    written.sort();
    let mut expected: Vec<String> = SUBCOMMANDS
        .iter()
        .chain(NESTED)
        .map(|sub| format!("askd-{sub}.1"))
        .chain(["askd.1".to_owned()])
        .collect();
    expected.sort();
    assert_eq!(written, expected);
}
