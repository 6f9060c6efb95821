//! How params that do not parse, and the refusals of a flow, become the errors of a request.

use jsonrpsee::types::ErrorObjectOwned;
use serde_json::Value;

use crate::core::{FlowError, Keymap, Preset};
use crate::server::params::Params;
use crate::server::protocol::{code, error};

pub(super) fn parse<T: Params>(params: Option<&str>) -> Result<T, ErrorObjectOwned> {
    T::parse(params).map_err(|m| error(code::INVALID_PARAMS, m))
}

/// A flow's refusal as the error of a request, naming the param it concerns (`questionId`,
/// `optionValue`) when there is one.
pub(super) fn flow_error(e: FlowError) -> ErrorObjectOwned {
    match e {
        FlowError::Completed => error(code::COMPLETED, e.to_string()),
        FlowError::NoEditor => error(code::NO_EDITOR, e.to_string()),
        FlowError::TextLimit { .. } | FlowError::StoredLimit { .. } => {
            error(code::LIMIT, e.to_string())
        }
        FlowError::UnknownQuestion(_) | FlowError::NoCustomAnswer(_) => error(
            code::INVALID_PARAMS,
            format!("invalid params: questionId: {e}"),
        ),
        FlowError::UnknownOption { .. } => error(
            code::INVALID_PARAMS,
            format!("invalid params: optionValue: {e}"),
        ),
        FlowError::NoNotes(_) => error(
            code::INVALID_PARAMS,
            format!("invalid params: questionId: {e}"),
        ),
        FlowError::NoOptionNotes(_) => error(
            code::INVALID_PARAMS,
            format!("invalid params: optionValue: {e}"),
        ),
        FlowError::NoDecline(_) => {
            error(code::INVALID_PARAMS, format!("invalid params: reason: {e}"))
        }
        FlowError::Refused(_) => error(code::INVALID_PARAMS, format!("invalid params: text: {e}")),
        FlowError::NotOnScreen(_) => {
            error(code::INVALID_PARAMS, format!("invalid params: target: {e}"))
        }
        FlowError::Caret { .. } => {
            error(code::INVALID_PARAMS, format!("invalid params: caret: {e}"))
        }
        FlowError::InvalidAnswers(_) => error(code::INVALID_PARAMS, format!("invalid params: {e}")),
    }
}

pub(super) fn keymap_error(e: impl std::fmt::Display) -> ErrorObjectOwned {
    error(code::INVALID_PARAMS, format!("invalid params: keymap: {e}"))
}

/// The default keymap with `preset` added, then each of `overrides` applied in turn.
pub(super) fn keymap_of<'a>(
    preset: Option<Preset>,
    overrides: impl IntoIterator<Item = Option<&'a Value>>,
) -> Result<Keymap, ErrorObjectOwned> {
    let mut keymap = match preset {
        Some(preset) => Keymap::default().with_preset(preset),
        None => Keymap::default(),
    };
    for overrides in overrides.into_iter().flatten() {
        keymap = keymap.with_overrides(overrides).map_err(keymap_error)?;
    }
    Ok(keymap)
}
