/**
 * askd-keys: which askd key a browser keyboard event is, and the keys that type a text.
 *
 * @module askd-keys
 */

// ---------------------------------------------------------------------------------------------
// Keys

/** Browser key values that askd has a name for. */
const NAMED_KEYS = Object.freeze({
  ArrowUp: "up",
  ArrowDown: "down",
  ArrowLeft: "left",
  ArrowRight: "right",
  Up: "up",
  Down: "down",
  Left: "left",
  Right: "right",
  Tab: "tab",
  Enter: "enter",
  Escape: "escape",
  Esc: "escape",
  Backspace: "backspace",
  Delete: "delete",
  Del: "delete",
  Home: "home",
  End: "end",
  PageUp: "pageup",
  PageDown: "pagedown",
});

/**
 * Whether a key value is one code point (a surrogate pair counts as one).
 *
 * @param {string} key
 * @returns {boolean}
 */
function isOneCodePoint(key) {
  return key.length === 1 || (key.length === 2 && key.codePointAt(0) > 0xffff);
}

/**
 * The lower-case ASCII letter a key stands for under Ctrl or Alt: the letter itself, or, on a
 * layout whose letters are not Latin, the letter of the physical key (`event.code` `KeyC`).
 *
 * @param {string} key
 * @param {string | undefined} code
 * @returns {string | null}
 */
function letterOf(key, code) {
  if (/^[A-Za-z]$/.test(key)) return key.toLowerCase();
  const physical = /^Key([A-Z])$/.exec(code ?? "");
  return physical ? physical[1].toLowerCase() : null;
}

/**
 * Maps a browser `KeyboardEvent` to an askd key name (see protocol/README.md, "Key notation"),
 * or `null` for a key to leave to the browser.
 *
 * - Named keys: `up down left right tab enter escape backspace delete home end pageup pagedown`,
 *   with the modifiers held, in askd's order: `ctrl+`, `alt+`, `shift+` (`shift+tab`,
 *   `alt+enter`, `ctrl+left`).
 * - A printable character is itself, whatever Shift did to it (`n`, `N`, `?`, `é`, `한`); the
 *   space bar is `space` (`ctrl+space`, `alt+space` under those modifiers).
 * - Ctrl with a letter is `ctrl+<letter>` (lower case, by physical key on non-Latin layouts),
 *   Ctrl with Alt and a letter `ctrl+alt+<letter>`; Alt with an ASCII letter is `alt+<letter>`
 *   (`alt+shift+<letter>` with Shift). Alt with any other character is that character: macOS's
 *   Option key and AltGr (Ctrl+Alt on Windows) type characters.
 * - `null`: modifier-only presses, dead keys, `Unidentified`, `Process` and function keys; any
 *   key during IME composition (`isComposing`, or `keyCode` 229); anything with Meta (Cmd, the
 *   Windows key); Ctrl+V and Ctrl+Shift+V, which the browser turns into a paste; every other
 *   Ctrl+Shift chord and Ctrl with a non-letter (the browser's shortcuts); key values of more
 *   than one code point, which arrive as text through the input event instead.
 *
 * @param {KeyboardEvent} event
 * @returns {string | null}
 */
export function keyFromEvent(event) {
  if (event.isComposing || event.keyCode === 229) return null;
  const key = event.key;
  if (typeof key !== "string" || key === "" || event.metaKey) return null;
  const ctrl = event.ctrlKey === true;
  const alt = event.altKey === true;
  const shift = event.shiftKey === true;

  const named = NAMED_KEYS[key];
  if (named !== undefined) {
    return `${ctrl ? "ctrl+" : ""}${alt ? "alt+" : ""}${shift ? "shift+" : ""}${named}`;
  }
  if (!isOneCodePoint(key) || /^\p{Cc}$/u.test(key)) return null;
  if (key === " ") {
    return `${ctrl ? "ctrl+" : ""}${alt ? "alt+" : ""}space`;
  }
  const altGraph =
    (typeof event.getModifierState === "function" && event.getModifierState("AltGraph")) ||
    (ctrl && alt && !/^[A-Za-z]$/.test(key));
  if (altGraph) return key;
  if (ctrl) {
    const letter = letterOf(key, event.code);
    if (letter === null || shift || letter === "v") return null;
    return `ctrl+${alt ? "alt+" : ""}${letter}`;
  }
  if (alt && /^[A-Za-z]$/.test(key)) {
    return `alt+${shift ? "shift+" : ""}${key.toLowerCase()}`;
  }
  return key;
}

/**
 * The keys that type a text outside an editor: one key per code point (a space is `" "`, which
 * askd reads as the space key). Control characters, line breaks and tabs included, are left out,
 * so that pasted text never confirms or changes tabs by itself.
 *
 * @param {string} text
 * @returns {string[]}
 */
export function textToKeys(text) {
  return Array.from(text).filter((char) => !/^\p{Cc}$/u.test(char));
}
