/**
 * askd-view: draws askd's views in a page and turns the page's keyboard, pointer, paste and
 * input-method events into askd requests. Two looks: the terminal's (the view's rendered
 * `lines`, askd-lines) and a form of semantic widgets (askd-form).
 *
 * The module is host-neutral: it reaches the page only through the elements it is given
 * (`element.ownerDocument`, `ownerDocument.defaultView`), never through globals, and talks to the
 * engine only through the transport it is given. A browser page, a VS Code webview or a test
 * page load it unchanged.
 *
 * @module askd-view
 */

import { columnsFor, renderLines } from "./askd-lines.js";
import { keyFromEvent, textToKeys } from "./askd-keys.js";
import { Form } from "./askd-form.js";

export {
  MIN_COLUMNS,
  STYLES,
  columnsFor,
  columnsFromWidths,
  columnsOf,
  isWide,
  renderLines,
  splitWide,
} from "./askd-lines.js";
export { keyFromEvent, textToKeys } from "./askd-keys.js";
export { Form, canActivate, countdownText, hintText, outcomeText } from "./askd-form.js";

/** The JSON-RPC error code of `insert` while no editor is open. */
const NO_EDITOR = -32003;

// ---------------------------------------------------------------------------------------------
// Ordering Steps

/**
 * Whether an incoming Step is older than the one shown, and so must not replace it. When both
 * carry a `version` (askd's per-session counter), the lower version is older. Otherwise the
 * order of the requests decides: each request gets a ticket as it is sent, and the answer to a
 * request sent before the one whose answer is shown is older.
 *
 * @param {{ version: number | null, ticket: number }} shown what is on screen
 * @param {{ version: number | null, ticket: number }} incoming what arrived
 * @returns {boolean}
 */
export function isStale(shown, incoming) {
  if (shown.version != null && incoming.version != null) return incoming.version < shown.version;
  return incoming.ticket < shown.ticket;
}

/**
 * The words for a failed request, for a person.
 *
 * @param {string} method the JSON-RPC method that failed
 * @param {unknown} error what the transport rejected with (`{ code, message }` for a JSON-RPC
 *   error)
 * @returns {string}
 */
export function describeError(method, error) {
  let message = String(error);
  if (error && typeof error === "object") {
    message = typeof error.message === "string" && error.message ? error.message : "no reason given";
  }
  const code =
    error && typeof error === "object" && typeof error.code === "number" ? ` (${error.code})` : "";
  return `askd could not ${ACTIONS[method] ?? `run ${method}`}: ${message}${code}`;
}

/** What each request does, in words for {@link describeError}. */
const ACTIONS = Object.freeze({
  key: "take the key",
  keys: "take the typed text",
  insert: "insert the text",
  activate: "take the click",
  setDraft: "keep the typed text",
  saveCustom: "save the answer",
  setNote: "save the note",
  getView: "draw the flow",
  getResult: "give the result",
});

// ---------------------------------------------------------------------------------------------
// The flow controller

/** The JSON-RPC error code of a method the engine does not have. */
const NO_METHOD = -32601;

/**
 * Keys that a native text area keeps for itself (editing, moving the caret, selecting, undo):
 * askd's editor has them too, but in a text area the browser's own are what a person expects.
 */
const NATIVE_EDITING = new Set([
  "left",
  "right",
  "up",
  "down",
  "home",
  "end",
  "backspace",
  "delete",
  "space",
  "shift+enter",
  "ctrl+a",
  "ctrl+x",
  "ctrl+z",
  "ctrl+y",
]);

/**
 * Whether a key pressed in the form's text area is the text area's own: characters, editing and
 * caret keys with any modifier but Ctrl+letter chords askd binds, and, while a completion list is
 * open, not the keys that move in it.
 *
 * @param {string} key an askd key name
 * @param {boolean} completing whether a completion list is open
 * @returns {boolean}
 */
export function isTextAreaKey(key, completing) {
  if (completing && (key === "up" || key === "down")) return false;
  if (NATIVE_EDITING.has(key)) return true;
  // Single characters (typed text) and caret moves under modifiers (shift+left, ctrl+right, …).
  if (Array.from(key).length === 1) return true;
  return /^(ctrl\+)?(alt\+)?(shift\+)?(left|right|up|down|home|end|backspace|delete)$/.test(key);
}

/**
 * @typedef {object} Transport
 * @property {(method: string, params?: object) => Promise<any>} request sends a JSON-RPC
 *   request and settles with its `result`, or rejects with its `error` (`{ code, message, data? }`)
 *   or with an `Error` when the connection failed
 * @property {(handler: (method: string, params: any) => void) => (void | (() => void))}
 *   onNotification registers a handler for the server's notifications; may return a function
 *   that removes it
 */

/**
 * @typedef {object} FlowOptions
 * @property {string} session the id of the session to show
 * @property {"terminal" | "form"} [look] how the flow is drawn: `"terminal"` (the default) draws
 *   the view's rendered `lines`; `"form"` draws semantic widgets from the view's fields
 * @property {number} [stepWidth] the width the session's Steps arrive rendered at (the `width`
 *   it was opened with, or the connection's); while it equals the element's columns, Steps are
 *   drawn as they come, otherwise each change is followed by a `getView` at the element's columns
 *   (the terminal look only: the form look draws any Step as it comes)
 * @property {(columns: number) => Promise<unknown>} [setStepWidth] makes the session's Steps
 *   (and its notifications) arrive rendered at `columns` from then on — over askd's listener,
 *   `initialize { capabilities: { width } }`. When given, it is called whenever the element's
 *   columns differ from the Steps' width (at mount and on resize), and once it has resolved
 *   Steps are taken to arrive at those columns
 * @property {(step: object) => void} [onStep] called after each Step (or view) is shown
 * @property {(message: string) => void} [onError] called with the words of each error shown
 * @property {boolean} [autofocus] focus the flow once mounted
 */

/**
 * Shows one askd session in an element and sends it what the person does.
 *
 * Keys: a keydown is sent as `key` (see {@link keyFromEvent}); Ctrl+C with text selected in the
 * flow is left to the browser, to copy. In the terminal look the element holds a hidden text
 * area that takes the keyboard, so that input methods work: text typed without a key event or
 * composed by an input method goes in with `insert` while an editor is open and as `keys`
 * otherwise; a line break typed as text (a soft keyboard's Enter) is the `enter` key. In the form
 * look the open editor is a real text area: its text is the browser's (typing, input methods,
 * pastes, selection, spell-check) and reaches askd whole with `setDraft`; Enter, Escape, Tab and
 * askd's other editor keys go to askd after it. A paste outside an editor types nothing: it is
 * said in the notices. Clicks and taps in the form look go through `activate` with the target
 * the clicked element names. A Step older than the one shown is ignored ({@link isStale}).
 * `session/changed` notifications for the session are shown like Steps; `session/closed` says
 * the flow is gone. Once the session is done, the result is shown below the final screen and
 * keys go back to the browser. Errors are shown in words in the element and passed to
 * `options.onError`.
 *
 * @param {HTMLElement} element where to draw; its contents are replaced
 * @param {Transport} transport how to reach askd
 * @param {FlowOptions} options
 * @returns {{ setView: (view: object) => void, refresh: () => Promise<void>,
 *   activate: (target: object) => Promise<void>, setOffline: (offline: boolean) => void,
 *   hasDraft: () => boolean, focus: () => void, dispose: () => void, readonly session: string,
 *   readonly columns: number, readonly view: object | null, readonly look: string }}
 */
export function mountFlow(element, transport, options) {
  const session = options.session;
  const look = options.look === "form" ? "form" : "terminal";
  const doc = element.ownerDocument;
  const win = doc.defaultView;

  /** The terminal look's hidden text area, which takes the keyboard. */
  let input = null;
  /** The form look. */
  let form = null;
  let screen;
  if (look === "form") {
    form = new Form(doc);
    screen = form.root;
  } else {
    input = doc.createElement("textarea");
    input.className = "askd-input";
    input.setAttribute("aria-label", "Keyboard input for the askd flow");
    input.setAttribute("autocomplete", "off");
    input.setAttribute("autocapitalize", "off");
    input.setAttribute("spellcheck", "false");
    input.style.position = "absolute";
    input.style.opacity = "0";
    screen = doc.createElement("div");
    screen.className = "askd-screen";
  }
  const notices = doc.createElement("div");
  notices.className = "askd-notices";
  notices.setAttribute("role", "status");
  notices.setAttribute("aria-live", "polite");
  const done = doc.createElement("div");
  done.className = "askd-done";
  done.hidden = true;
  const problem = doc.createElement("div");
  problem.className = "askd-error";
  problem.setAttribute("role", "alert");
  problem.hidden = true;

  element.classList.add("askd", "askd-flow", `askd-look-${look}`);
  if (!element.hasAttribute("tabindex")) element.tabIndex = 0;
  if (look === "form") element.replaceChildren(screen, done, problem);
  else element.replaceChildren(input, screen, notices, done, problem);

  let disposed = false;
  let offline = false;
  let tickets = 0;
  let shown = { version: null, ticket: 0 };
  let view = null;
  let status = "open";
  let columns = columnsFor(element);
  element.dataset.columns = String(columns);
  element.dataset.look = look;
  /** The width the session's Steps arrive rendered at, when known. */
  let stepWidth = options.stepWidth;
  /** Whether the engine has `activate` and `setDraft`: unknown until one is refused. */
  let canActivate = true;
  let canSetDraft = true;
  /** The form look's draft: what was last sent with `setDraft`, and how many are unanswered. */
  let sentDraft = null;
  let draftsInFlight = 0;
  let composing = false;
  /** Whether a line break the text area is about to take is a new line a key asked for. */
  let newlineKey = false;
  /** Whether the next view shown should take the focus (mount with `autofocus`). */
  let wantFocus = options.autofocus === true;
  let countdown = null;

  /**
   * Shows the words of an error, or hides the error line with `null`.
   *
   * @param {string | null} message
   */
  function showProblem(message) {
    problem.hidden = message === null;
    problem.textContent = message ?? "";
    if (message !== null) options.onError?.(message);
  }

  /**
   * Says something in the flow's live region (`null` clears it).
   *
   * @param {string | null} text
   */
  function say(text) {
    if (form !== null) {
      form.say(text);
      return;
    }
    notices.replaceChildren();
    if (text !== null) {
      const line = doc.createElement("p");
      line.className = "askd-notice";
      line.textContent = text;
      notices.append(line);
    }
  }

  /** Puts the hidden text area over the cursor, so that an input method pops up there. */
  function placeInput() {
    if (input === null) return;
    const cursor = screen.querySelector(".askd-cursor");
    if (cursor === null) return;
    input.style.left = `${cursor.offsetLeft}px`;
    input.style.top = `${cursor.offsetTop}px`;
  }

  /**
   * Shows the end of the flow: the transcript's words and the result JSON.
   *
   * @param {object} step
   */
  function showDone(step) {
    const heading = doc.createElement("p");
    heading.className = "askd-done-heading";
    heading.textContent = "This flow is complete.";
    const parts = [heading];
    if (step.transcript && typeof step.transcript.result === "string") {
      const summary = doc.createElement("pre");
      summary.className = "askd-done-summary";
      summary.textContent = step.transcript.result;
      parts.push(summary);
    }
    if (step.result !== undefined) {
      const details = doc.createElement("details");
      const label = doc.createElement("summary");
      label.textContent = "Result JSON";
      const json = doc.createElement("pre");
      json.className = "askd-result-json";
      json.textContent = JSON.stringify(step.result, null, 2);
      details.append(label, json);
      parts.push(details);
    }
    done.replaceChildren(...parts);
    done.hidden = false;
  }

  /** Whether the keyboard focus is in the flow. */
  function hasFocus() {
    const active = doc.activeElement;
    return active !== null && (active === element || element.contains(active));
  }

  /** Keeps the countdown of a flow with a deadline running, a tick a second. */
  function runCountdown() {
    win.clearTimeout(countdown);
    countdown = null;
    if (form === null || disposed || status !== "open" || typeof view?.deadline !== "number") return;
    form.tick();
    countdown = win.setTimeout(runCountdown, 1000 - (Date.now() % 1000) + 5);
  }

  /**
   * Draws the form look, keeping the text area's text while it holds what askd has not answered,
   * and moves the keyboard to where the view's keys go when the flow had it.
   *
   * @param {boolean} ownDraft the Step answers one of this flow's own `setDraft`s
   * @param {boolean} byPointer the Step answers a click or a tap (`activate`)
   */
  function drawForm(ownDraft, byPointer) {
    const focused = hasFocus() || wantFocus;
    const textarea = form.textarea;
    const keepDraft =
      composing ||
      draftsInFlight > (ownDraft ? 1 : 0) ||
      (sentDraft !== null && textarea.value !== sentDraft.text && !form.editor.hidden);
    form.render(view, { keepDraft });
    textarea.readOnly = offline;
    if (!keepDraft && view.editor != null) {
      sentDraft = { text: view.editor.text, caret: view.editor.cursor?.utf16 ?? null };
    }
    if (view.editor == null) sentDraft = null;
    runCountdown();
    if (!focused) return;
    wantFocus = false;
    const target = form.activeElement() ?? element;
    const current = doc.activeElement;
    // After a click or a tap the keyboard stays where the pointer put it while that is still
    // on screen (a tab, a toggled row), unless an editor opened or the flow ended: moving it
    // would make the browser lay the page out at once, and the person is not using keys.
    const stays =
      byPointer &&
      current !== null &&
      current !== element &&
      element.contains(current) &&
      current.closest("[hidden]") === null &&
      target !== form.textarea &&
      target !== form.end;
    if (stays) return;
    if (current !== target) target.focus({ preventScroll: true });
    if (typeof target.scrollIntoView === "function" && target !== element) {
      target.scrollIntoView({ block: "nearest" });
    }
  }

  /**
   * Shows a Step if it is not older than the one shown.
   *
   * @param {object} step `{ status, view, version?, result?, transcript? }`
   * @param {number} ticket the ticket of the request it answers
   * @param {boolean} [ownDraft] it answers one of this flow's own `setDraft`s
   * @param {boolean} [byPointer] it answers a click or a tap
   * @returns {boolean} whether it was shown
   */
  function show(step, ticket, ownDraft = false, byPointer = false) {
    const version = typeof step.version === "number" ? step.version : null;
    if (disposed || isStale(shown, { version, ticket })) return false;
    shown = { version: version ?? shown.version, ticket: Math.max(ticket, shown.ticket) };
    view = step.view ?? view;
    const wasDone = status === "done";
    status = step.status ?? view?.status ?? status;
    element.dataset.status = offline ? "offline" : status;
    if (view && form !== null) drawForm(ownDraft, byPointer);
    else if (view && Array.isArray(view.lines)) renderLines(screen, view.lines);
    if (status === "done") {
      if (step.result !== undefined) showDone(step);
      else if (!wasDone) fetchResult(step);
    }
    placeInput();
    showProblem(null);
    options.onStep?.(step);
    return true;
  }

  /**
   * Reads the result of a session found done without one, then shows the end of the flow.
   *
   * @param {object} step
   */
  function fetchResult(step) {
    showDone(step);
    transport.request("getResult", { session }).then(
      (result) => {
        if (!disposed && result != null) showDone({ ...step, result });
      },
      (error) => showProblem(describeError("getResult", error)),
    );
  }

  /** Whether Steps arrive drawable, so that no `getView` need follow them. */
  function stepsFit() {
    return form !== null || stepWidth === columns;
  }

  /**
   * Sends a request that changes the session and shows its Step, followed by a `getView` at the
   * element's columns when Steps do not arrive at them (sent at once, so both are answered
   * together, in order).
   *
   * @param {string} method
   * @param {object} params
   * @returns {Promise<boolean>} whether askd took it
   */
  async function change(method, params) {
    if (offline) return false;
    const ticket = ++tickets;
    const stepPromise = transport.request(method, params);
    const viewPromise = stepsFit()
      ? null
      : transport.request("getView", { session, width: columns });
    let step;
    try {
      step = await stepPromise;
    } catch (error) {
      viewPromise?.catch(() => {});
      if (method === "insert" && error && error.code === NO_EDITOR) {
        const keys = textToKeys(params.text);
        if (keys.length > 0) await change("keys", { session, keys });
        return false;
      }
      if (error && error.code === NO_METHOD && method === "activate") {
        canActivate = false;
        say("This askd does not take clicks or taps: answer with the keys shown below.");
        return false;
      }
      if (error && error.code === NO_METHOD && method === "setDraft") {
        canSetDraft = false;
        return false;
      }
      if (!disposed && !offline) showProblem(describeError(method, error));
      return false;
    }
    if (viewPromise !== null) {
      try {
        step = { ...step, view: await viewPromise };
      } catch (error) {
        show(step, ticket);
        showProblem(describeError("getView", error));
        return true;
      }
    }
    show(step, ticket, method === "setDraft", method === "activate");
    return true;
  }

  /**
   * Sends a text in the terminal look: with `insert` into an open editor, otherwise as keys.
   *
   * @param {string} text
   */
  function sendText(text) {
    if (text === "" || status !== "open") return;
    if (view && view.editor != null) {
      change("insert", { session, text });
      return;
    }
    const keys = textToKeys(text);
    if (keys.length > 0) change("keys", { session, keys });
  }

  /**
   * Activates what a person clicked or tapped: `activate { session, target }`, the target being
   * the one the element names (see protocol/README.md, "Pointer actions").
   *
   * @param {object} target
   * @returns {Promise<void>}
   */
  async function activate(target) {
    if (status !== "open" || offline) return;
    if (!canActivate) {
      say("This askd does not take clicks or taps: answer with the keys shown below.");
      return;
    }
    if (form !== null && view?.editor != null) await sendDraft();
    await change("activate", { session, target });
  }

  /**
   * Sends the form's text area whole with `setDraft` when it differs from what askd holds.
   *
   * @returns {Promise<void>}
   */
  async function sendDraft() {
    if (form === null || !canSetDraft || composing || view?.editor == null) return;
    const textarea = form.textarea;
    const draft = { text: textarea.value, caret: textarea.selectionEnd };
    if (sentDraft !== null && sentDraft.text === draft.text && sentDraft.caret === draft.caret) return;
    sentDraft = draft;
    draftsInFlight += 1;
    try {
      await change("setDraft", { session, text: draft.text, caret: draft.caret });
    } finally {
      draftsInFlight -= 1;
    }
  }

  /**
   * The first key of a hint of the open editor, e.g. its `submit` or `close` action's.
   *
   * @param {string} action the end of the action's name
   * @param {string} fallback the default key
   * @returns {string}
   */
  function editorKey(action, fallback) {
    const hint = (view?.hints ?? []).find((h) => h.action.endsWith(`.${action}`));
    return hint?.keys?.[0] ?? fallback;
  }

  /**
   * Saves the open editor's text as Enter would, where askd lacks `setDraft`: `saveCustom` or
   * `setNote`, which act on the answer directly.
   *
   * @returns {Promise<void>}
   */
  async function saveWithoutDraft() {
    const target = view.editor.target;
    const text = form.textarea.value;
    if (target.kind === "custom") {
      await change("saveCustom", { session, questionId: target.questionId, text, submit: true });
      return;
    }
    const params = { session, questionId: target.questionId, text };
    if (target.kind === "optionNote") params.optionValue = target.optionValue;
    await change("setNote", params);
  }

  /**
   * Sends a key of the form's editor to askd, after its text.
   *
   * @param {string} key
   */
  async function editorKeyToAskd(key) {
    await sendDraft();
    if (!canSetDraft && key === editorKey("submit", "enter") && view?.editor != null) {
      await saveWithoutDraft();
      return;
    }
    await change("key", { session, key });
  }

  /** Whether the user has selected text inside the flow (Ctrl+C then copies it). */
  function hasSelection() {
    const active = doc.activeElement;
    if (form !== null && active === form.textarea) {
      return form.textarea.selectionStart !== form.textarea.selectionEnd;
    }
    const selection = doc.getSelection();
    return (
      selection !== null &&
      !selection.isCollapsed &&
      selection.anchorNode !== null &&
      element.contains(selection.anchorNode)
    );
  }

  /** @param {KeyboardEvent} event */
  function onKeyDown(event) {
    if (status !== "open") return;
    if (offline) {
      if (keyFromEvent(event) !== null && event.target !== form?.textarea) event.preventDefault();
      return;
    }
    const key = keyFromEvent(event);
    if (key === null || (key === "ctrl+c" && hasSelection())) return;
    if (form !== null && event.target === form.textarea) {
      if (isTextAreaKey(key, view?.editor?.completion != null)) {
        newlineKey = key === "shift+enter";
        return;
      }
      event.preventDefault();
      if (key === "alt+enter" && editorKey("newline", "shift+enter") !== "") {
        form.textarea.setRangeText("\n", form.textarea.selectionStart, form.textarea.selectionEnd, "end");
        sendDraft();
        return;
      }
      editorKeyToAskd(key);
      return;
    }
    event.preventDefault();
    change("key", { session, key });
  }

  /** @param {ClipboardEvent} event */
  function onPaste(event) {
    if (status !== "open") return;
    if (form !== null && event.target === form.textarea) return;
    event.preventDefault();
    const text = event.clipboardData ? event.clipboardData.getData("text/plain") : "";
    if (text === "" || offline) return;
    if (input !== null && view && view.editor != null) {
      change("insert", { session, text });
      return;
    }
    say("Nothing was pasted: paste into a text box — open “Type your own” or a note first.");
  }

  /** @param {CompositionEvent} event */
  function onCompositionEnd(event) {
    input.value = "";
    sendText(event.data ?? "");
  }

  /**
   * Whether an input event is a line break typed as text: the Enter of a soft keyboard that
   * sends no key event for it.
   *
   * @param {InputEvent} event
   * @param {string} text
   */
  function isTypedLineBreak(event, text) {
    return (
      event.inputType === "insertLineBreak" ||
      event.inputType === "insertParagraph" ||
      /^(\r\n|\r|\n)$/.test(text)
    );
  }

  /** @param {InputEvent} event */
  function onInput(event) {
    if (event.isComposing || String(event.inputType).includes("Composition")) return;
    const text = event.data ?? input.value;
    input.value = "";
    if (isTypedLineBreak(event, text)) {
      if (status === "open") change("key", { session, key: "enter" });
      return;
    }
    sendText(text);
  }

  /** @param {InputEvent} event the form's text area is about to change */
  function onBeforeInput(event) {
    const lineBreak =
      event.inputType === "insertLineBreak" ||
      event.inputType === "insertParagraph" ||
      (event.inputType === "insertText" && /^(\r\n|\r|\n)$/.test(event.data ?? ""));
    if (!lineBreak) return;
    if (newlineKey) {
      newlineKey = false;
      return;
    }
    // A soft keyboard's Enter: askd's Enter, as on a keyboard.
    event.preventDefault();
    if (status === "open" && !offline) editorKeyToAskd(editorKey("submit", "enter"));
  }

  function onDraftInput(event) {
    if (event.isComposing) return;
    newlineKey = false;
    sendDraft();
  }

  function onCompositionStart() {
    composing = true;
  }

  function onDraftCompositionEnd() {
    composing = false;
    sendDraft();
  }

  /**
   * A click or tap in the form: the element's target goes to `activate`; the editor's buttons
   * press its save and close keys.
   *
   * @param {MouseEvent} event
   */
  function onClick(event) {
    const origin = /** @type {Element | null} */ (event.target);
    const control = origin?.closest?.("[data-target], [data-command]");
    if (!control || !element.contains(control) || control.disabled) return;
    event.preventDefault();
    if (status !== "open" || offline) return;
    const command = control.dataset.command;
    if (command === "save") editorKeyToAskd(editorKey("submit", "enter"));
    else if (command === "close") editorKeyToAskd(editorKey("close", "escape"));
    else activate(JSON.parse(control.dataset.target));
  }

  /** Whether a mouse button went down in the flow and is not up yet. */
  let pressing = false;

  /**
   * Keeps the keyboard where the flow's keys go while the flow has focus: on the hidden text area
   * (the terminal look; not while a mouse button is down, which may be selecting text) or on the
   * active row, action or editor (the form look).
   *
   * @param {FocusEvent} event
   */
  function onFocus(event) {
    if (event.target !== element) return;
    if (form !== null) {
      const target = form.activeElement();
      if (target !== null) target.focus({ preventScroll: true });
    } else if (!pressing) {
      input.focus({ preventScroll: true });
    }
  }

  function onMouseDown() {
    pressing = true;
    doc.addEventListener("mouseup", () => (pressing = false), { once: true });
  }

  /** A click in the flow that selected nothing gives the hidden text area the keyboard. */
  function onMouseUp() {
    if (!hasSelection()) input.focus({ preventScroll: true });
  }

  /**
   * @param {string} method
   * @param {any} params
   */
  function onNotification(method, params) {
    if (disposed || !params || params.session !== session) return;
    if (method === "session/changed") {
      const version = typeof params.version === "number" ? params.version : null;
      if (version !== null && shown.version !== null && version <= shown.version) return;
      // A view at another width waits for the `getView` that follows; the status shows at once.
      if (stepsFit()) show(params, tickets);
      else if (show({ ...params, view: undefined }, tickets)) refresh();
    } else if (method === "session/closed") {
      status = "closed";
      element.dataset.status = status;
      showProblem("This flow was closed: askd no longer holds it.");
    }
  }

  /**
   * Asks for the view again at the element's columns (measured anew) and shows it.
   *
   * @returns {Promise<void>}
   */
  async function refresh() {
    if (disposed) return;
    columns = columnsFor(element);
    element.dataset.columns = String(columns);
    if (form === null && options.setStepWidth && stepWidth !== columns) {
      const wanted = columns;
      try {
        await options.setStepWidth(wanted);
        // Requests are answered in order: Steps sent from now on are at this width.
        stepWidth = wanted;
      } catch {
        // Steps stay at their width, and each change is followed by a view at the columns.
      }
      if (disposed) return;
    }
    const ticket = ++tickets;
    try {
      const fresh = await transport.request("getView", { session, width: columns });
      // Text typed while askd could not hear it goes to askd now.
      const unsent =
        form !== null &&
        sentDraft !== null &&
        fresh.editor != null &&
        form.textarea.value !== fresh.editor.text;
      if (unsent) draftsInFlight += 1;
      show({ status: fresh.status, view: fresh }, ticket);
      if (unsent) {
        draftsInFlight -= 1;
        sentDraft = null;
        await sendDraft();
      }
    } catch (error) {
      if (!disposed && !offline) showProblem(describeError("getView", error));
    }
  }

  element.addEventListener("keydown", onKeyDown);
  element.addEventListener("paste", onPaste);
  element.addEventListener("focus", onFocus);
  if (form !== null) {
    element.addEventListener("click", onClick);
    const textarea = form.textarea;
    textarea.addEventListener("input", onDraftInput);
    textarea.addEventListener("beforeinput", onBeforeInput);
    textarea.addEventListener("compositionstart", onCompositionStart);
    textarea.addEventListener("compositionend", onDraftCompositionEnd);
  } else {
    element.addEventListener("mousedown", onMouseDown);
    element.addEventListener("mouseup", onMouseUp);
    input.addEventListener("compositionend", onCompositionEnd);
    input.addEventListener("input", onInput);
  }
  const removeNotification = transport.onNotification(onNotification);
  const observer =
    typeof win.ResizeObserver === "function" && form === null
      ? new win.ResizeObserver(() => {
          if (columnsFor(element) !== columns) refresh();
        })
      : null;
  observer?.observe(element);

  refresh();
  if (options.autofocus && input !== null) input.focus({ preventScroll: true });

  return {
    /**
     * Shows a view (or a Step, `{ status, view, version?, result? }`) the host received some
     * other way; an older one than the one shown is ignored.
     *
     * @param {object} given
     */
    setView(given) {
      const step = given && given.view ? given : { status: given?.status, view: given };
      show(step, tickets);
    },
    refresh,
    activate,
    /**
     * Makes the flow read-only while the host has no connection to askd (the screen and any
     * draft stay readable; keys, clicks and text are not sent), or takes input again. Coming
     * back, the host calls `refresh()` once it is connected.
     *
     * @param {boolean} value
     */
    setOffline(value) {
      offline = value === true;
      element.classList.toggle("askd-offline", offline);
      element.setAttribute("aria-busy", offline ? "true" : "false");
      element.dataset.status = offline ? "offline" : status;
      if (form !== null) form.textarea.readOnly = offline;
      if (!offline) {
        showProblem(null);
        // askd may have started again since: its versions of the session start afresh.
        shown = { version: null, ticket: tickets };
      }
    },
    /** Whether the form's text area holds text (a half-typed answer or note). */
    hasDraft() {
      return form !== null && !form.editor.hidden && form.textarea.value !== "";
    },
    /** Gives the flow the keyboard, where its keys go. */
    focus() {
      const target = form?.activeElement() ?? input ?? element;
      target.focus({ preventScroll: true });
    },
    /** Stops listening, forgets the session and empties the element. */
    dispose() {
      if (disposed) return;
      disposed = true;
      win.clearTimeout(countdown);
      observer?.disconnect();
      if (typeof removeNotification === "function") removeNotification();
      element.removeEventListener("keydown", onKeyDown);
      element.removeEventListener("paste", onPaste);
      element.removeEventListener("focus", onFocus);
      element.removeEventListener("click", onClick);
      element.removeEventListener("mousedown", onMouseDown);
      element.removeEventListener("mouseup", onMouseUp);
      element.replaceChildren();
      element.classList.remove("askd-flow", `askd-look-${look}`, "askd-offline");
      delete element.dataset.columns;
      delete element.dataset.status;
      delete element.dataset.look;
    },
    get session() {
      return session;
    },
    get columns() {
      return columns;
    },
    get view() {
      return view;
    },
    get look() {
      return look;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The session list

/**
 * Draws a list of sessions (as `sessions` answers them) to choose from: one button per session,
 * labelled with its title (or its id) and its status.
 *
 * @param {HTMLElement} container its contents are replaced
 * @param {Array<{ session: string, title?: string, status: string }>} sessions
 * @param {(session: string) => void} onPick called with the id of the session chosen
 */
export function renderSessionList(container, sessions, onPick) {
  const doc = container.ownerDocument;
  const list = doc.createElement("ul");
  list.className = "askd-sessions";
  for (const entry of sessions) {
    const item = doc.createElement("li");
    const button = doc.createElement("button");
    button.type = "button";
    button.className = "askd-session";
    button.dataset.session = entry.session;
    const name = doc.createElement("span");
    name.className = "askd-session-name";
    name.textContent = entry.title ?? entry.session;
    const state = doc.createElement("span");
    state.className = `askd-session-status askd-session-${entry.status}`;
    state.textContent = entry.status === "done" ? "done" : "waiting for an answer";
    button.append(name, " ", state);
    button.addEventListener("click", () => onPick(entry.session));
    item.append(button);
    list.append(item);
  }
  container.replaceChildren(list);
}
