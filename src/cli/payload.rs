//! What the interactive commands (`askd ask`, `askd web`) share: the payload, its dialect, the
//! flow's behaviour options and deadline, read from the command line and opened into a
//! [`Session`], with every problem worded for a person at a terminal.
//!
//! Both commands are a person's client, so a cancel or dismiss of a flow that holds answers,
//! notes or a draft asks first (`confirmDismissWhenDirty` is on unless `--behaviour` says
//! otherwise or `--no-confirm-dismiss` is given).

use std::time::Duration;

use serde_json::Value;

use crate::core::Limits;
use crate::dialect::pi::EXAMPLE;
use crate::dialect::{DIALECTS, DialectId};
use crate::session::{BehaviourOptions, OpenOptions, Session};

/// The payload and the flow's options, as `askd ask` and `askd web` take them.
#[derive(Debug, clap::Args)]
pub struct FlowArgs {
    /// The payload file (JSON); `-` reads stdin.
    #[arg(required_unless_present = "example", conflicts_with = "example")]
    pub file: Option<String>,
    /// Answer the built-in example flow instead of a payload file.
    #[arg(long)]
    pub example: bool,
    /// The payload's dialect: `pi`, `dsh`, `claude`, `codex`, `opencode` or `mcp` (inferred from
    /// the payload when left out; a payload that fails in the inferred dialect but opens in
    /// another is told which).
    #[arg(long)]
    pub dialect: Option<String>,
    /// Behaviour options of the flow, a JSON object as `open` takes them: `profile` (`seed` or
    /// `pi-0.9`) and the flags `confirmDismissWhenDirty` (on here unless given),
    /// `doublePressReviewShortcuts`, `autoSubmitWhenAnsweredWithoutNotes`,
    /// `presentSingleAsMulti`, and `cursorOnAnswer` (a tab opens on the answer it holds; by
    /// default on in every dialect but `pi`).
    #[arg(long, value_name = "JSON")]
    pub behaviour: Option<String>,
    /// Let one Esc or Ctrl+C end a flow that holds answers, notes or a draft (by default the
    /// first only warns that they would be lost).
    #[arg(long)]
    pub no_confirm_dismiss: bool,
    /// End the flow unanswered after DURATION (`90`, `30s`, `2m`, `1h30m`, `1500ms`), in place
    /// of the deadline the request gives itself (codex's `autoResolutionMs`).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub timeout: Option<Duration>,
}

/// Why an interactive command stopped before or without a finished flow: the message for
/// stderr and the exit status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The exit status.
    pub status: u8,
    /// What went wrong, in words.
    pub message: String,
}

impl Failure {
    /// A failure with status `status`.
    pub fn new(status: u8, message: impl Into<String>) -> Failure {
        Failure {
            status,
            message: message.into(),
        }
    }
}

/// Exit status of a payload that cannot be read or fails validation, or of a bad argument
/// (the same in every interactive command).
pub const EXIT_INVALID: u8 = 2;

fn invalid(message: impl Into<String>) -> Failure {
    Failure::new(EXIT_INVALID, message)
}

/// A payload read from the command line, not opened yet.
#[derive(Debug, Clone)]
pub struct Payload {
    /// The request as JSON.
    pub value: Value,
    /// The dialect given with `--dialect`.
    pub dialect: Option<DialectId>,
    /// The behaviour options, with the interactive default for `confirmDismissWhenDirty`.
    pub behaviour: BehaviourOptions,
    /// `--timeout`.
    pub timeout: Option<Duration>,
}

impl Payload {
    /// Reads the payload (a file, stdin for `-`, or the built-in example) and the options.
    pub fn read(args: &FlowArgs) -> Result<Payload, Failure> {
        let text = match (&args.file, args.example) {
            (_, true) => EXAMPLE.to_owned(),
            (Some(path), false) => read_text(path)?,
            (None, false) => return Err(invalid("no payload: give a file, `-` or --example")),
        };
        let value: Value = serde_json::from_str(&text)
            .map_err(|e| invalid(format!("the payload is not valid JSON: {e}")))?;
        Limits::default()
            .check_payload(&value)
            .map_err(|e| invalid(format!("the payload is too large: {e}")))?;
        let dialect = match args.dialect.as_deref() {
            None => None,
            Some(name) => Some(DialectId::named(name).ok_or_else(|| {
                invalid(format!(
                    "unknown dialect {name:?}: one of {}",
                    dialect_names().join(", ")
                ))
            })?),
        };
        let given = match &args.behaviour {
            Some(text) => parse_behaviour(text)?,
            None => BehaviourOptions::default(),
        };
        let interactive = BehaviourOptions {
            confirm_dismiss_when_dirty: Some(!args.no_confirm_dismiss),
            ..BehaviourOptions::default()
        };
        Ok(Payload {
            value,
            dialect,
            behaviour: given.over(interactive),
            timeout: args.timeout,
        })
    }

    /// Opens the payload: the session (a pi payload that fails validation opens finished, its
    /// issues already on stderr), or the failure to report. A payload that fails in the
    /// dialect it was taken for but opens in another says so.
    pub fn open(&self, has_ui: bool) -> Result<Session, Failure> {
        let options = OpenOptions {
            dialect: self.dialect,
            has_ui,
            behaviour: self.behaviour.behaviour(),
            ..OpenOptions::default()
        };
        let hint = || self.other_dialect_hint();
        let session = Session::open(&self.value, &options).map_err(|e| {
            let code = e
                .data
                .as_ref()
                .and_then(|d| d.get("code"))
                .and_then(Value::as_str);
            let mut message = match code {
                Some(code) => format!("invalid payload: {code}: {}", e.message),
                None => format!("invalid payload: {}", e.message),
            };
            message.push_str(&hint());
            invalid(message)
        })?;
        if let Some(issues) = session.issues() {
            let mut message = String::from("askd: invalid payload:");
            for issue in issues {
                message.push_str(&format!("\n- {}: {}", issue.path, issue.message));
            }
            message.push_str(&hint());
            eprintln!("{message}");
        }
        Ok(session)
    }

    /// The deadline of the flow, in milliseconds since the Unix epoch: `--timeout` from `now`,
    /// else the time the request gives itself, else none.
    pub fn deadline(&self, session: &Session, now: u64) -> Option<u64> {
        let limit = match self.timeout {
            Some(timeout) => Some(u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX)),
            None => session.time_limit(),
        };
        limit.map(|ms| now.saturating_add(ms))
    }

    /// When no `--dialect` was given and the payload fails in the dialect inferred for it:
    /// the sentence naming the first other dialect that opens it, else nothing.
    fn other_dialect_hint(&self) -> String {
        if self.dialect.is_some() {
            return String::new();
        }
        let inferred = DialectId::infer(&self.value);
        let fits = DIALECTS
            .iter()
            .filter_map(|d| DialectId::named(d.name()))
            .filter(|&d| d != inferred)
            .find(|&d| {
                let options = OpenOptions {
                    dialect: Some(d),
                    ..OpenOptions::default()
                };
                matches!(Session::open(&self.value, &options), Ok(s) if s.issues().is_none())
            });
        match fits {
            Some(d) => format!(
                "\nIt was read as a {} request; it looks like a {} one: try --dialect {}",
                inferred.name(),
                d.name(),
                d.name()
            ),
            None => String::new(),
        }
    }
}

/// The names of the dialects, in registry order.
fn dialect_names() -> Vec<&'static str> {
    DIALECTS.iter().map(|d| d.name()).collect()
}

/// Reads a payload file, or stdin for `-`.
fn read_text(path: &str) -> Result<String, Failure> {
    let read = if path == "-" {
        std::io::read_to_string(std::io::stdin())
    } else {
        std::fs::read_to_string(path)
    };
    read.map_err(|e| invalid(format!("cannot read {path}: {e}")))
}

/// Reads `--behaviour`: a JSON object of behaviour options, as `open` takes them.
fn parse_behaviour(text: &str) -> Result<BehaviourOptions, Failure> {
    match serde_json::from_str::<Value>(text) {
        Ok(options @ Value::Object(_)) => {
            serde_json::from_value(options).map_err(|e| invalid(format!("--behaviour: {e}")))
        }
        Ok(_) => Err(invalid("--behaviour: expected a JSON object")),
        Err(e) => Err(invalid(format!("--behaviour: not valid JSON: {e}"))),
    }
}

/// Reads a duration: a number of seconds, or numbers with units `ms`, `s`, `m`, `h` in a row
/// (`1h30m`, `2m`, `1500ms`). At least one millisecond.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    if let Ok(seconds) = text.parse::<u64>() {
        return positive(Duration::from_secs(seconds));
    }
    let mut total = Duration::ZERO;
    let mut rest = text;
    while !rest.is_empty() {
        let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        let (number, after) = rest.split_at(digits);
        let number: u64 = number
            .parse()
            .map_err(|_| format!("{text:?} is not a duration (e.g. 90, 30s, 2m, 1h30m, 500ms)"))?;
        let unit_len = after.len() - after.trim_start_matches(char::is_alphabetic).len();
        let (unit, next) = after.split_at(unit_len);
        let part = match unit {
            "ms" => Duration::from_millis(number),
            "s" => Duration::from_secs(number),
            "m" => Duration::from_secs(number.saturating_mul(60)),
            "h" => Duration::from_secs(number.saturating_mul(3600)),
            _ => {
                return Err(format!(
                    "{text:?} is not a duration: {unit:?} is not a unit (ms, s, m, h)"
                ));
            }
        };
        total = total.saturating_add(part);
        rest = next;
    }
    positive(total)
}

fn positive(duration: Duration) -> Result<Duration, String> {
    if duration.is_zero() {
        Err("a timeout must be longer than zero".to_owned())
    } else {
        Ok(duration)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_gum_takes_them() {
        let ms = |ms| Ok(Duration::from_millis(ms));
        assert_eq!(parse_duration("90"), ms(90_000));
        assert_eq!(parse_duration("30s"), ms(30_000));
        assert_eq!(parse_duration("2m"), ms(120_000));
        assert_eq!(parse_duration("1h30m"), ms(5_400_000));
        assert_eq!(parse_duration("1500ms"), ms(1_500));
        assert_eq!(parse_duration(" 1m5s "), ms(65_000));
        assert_eq!(
            parse_duration("0"),
            Err("a timeout must be longer than zero".to_owned())
        );
        assert_eq!(
            parse_duration("5d"),
            Err("\"5d\" is not a duration: \"d\" is not a unit (ms, s, m, h)".to_owned())
        );
        assert_eq!(
            parse_duration("soon"),
            Err("\"soon\" is not a duration (e.g. 90, 30s, 2m, 1h30m, 500ms)".to_owned())
        );
        assert_eq!(parse_duration("5"), ms(5_000), "a bare number is seconds");
    }
}
