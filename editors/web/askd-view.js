/**
 * askd-view: draws askd's views in a page and turns the page's keyboard, paste and input-method
 * events into askd requests.
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
  getView: "draw the flow",
  getResult: "give the result",
});

// ---------------------------------------------------------------------------------------------
// The flow controller

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
 * @property {number} [stepWidth] the width the session's Steps arrive rendered at (the `width`
 *   it was opened with, or the connection's); while it equals the element's columns, Steps are
 *   drawn as they come, otherwise each change is followed by a `getView` at the element's columns
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
 * Shows one askd session in an element and sends it the user's keys.
 *
 * The element becomes focusable and holds a hidden text area that takes the keyboard, so that
 * input methods and pastes work. A keydown is sent as `key` (see {@link keyFromEvent}); Ctrl+C
 * with text selected in the flow is left to the browser, to copy. Text (a paste, the text an
 * input method composed, text typed without a key event) goes in with `insert` while an editor
 * is open (`view.editor` is not `null`), and otherwise with `keys`, one key per character
 * ({@link textToKeys}); an `insert` that finds the editor closed by then is sent as keys.
 * Resizing the element asks for `getView` at the new columns. A Step older than the one shown is
 * ignored ({@link isStale}). `session/changed` notifications for the session are shown like
 * Steps; `session/closed` says the flow is gone. Once the session is done, the result is shown
 * below the final screen and keys go back to the browser. Errors are shown in words in the
 * element and passed to `options.onError`.
 *
 * @param {HTMLElement} element where to draw; its contents are replaced
 * @param {Transport} transport how to reach askd
 * @param {FlowOptions} options
 * @returns {{ setView: (view: object) => void, refresh: () => Promise<void>,
 *   dispose: () => void, readonly session: string, readonly columns: number,
 *   readonly view: object | null }}
 */
export function mountFlow(element, transport, options) {
  const session = options.session;
  const doc = element.ownerDocument;
  const win = doc.defaultView;

  const input = doc.createElement("textarea");
  input.className = "askd-input";
  input.setAttribute("aria-label", "Keyboard input for the askd flow");
  input.setAttribute("autocomplete", "off");
  input.setAttribute("autocapitalize", "off");
  input.setAttribute("spellcheck", "false");
  input.style.position = "absolute";
  input.style.opacity = "0";
  const screen = doc.createElement("div");
  screen.className = "askd-screen";
  const done = doc.createElement("div");
  done.className = "askd-done";
  done.hidden = true;
  const problem = doc.createElement("div");
  problem.className = "askd-error";
  problem.setAttribute("role", "alert");
  problem.hidden = true;

  element.classList.add("askd", "askd-flow");
  if (!element.hasAttribute("tabindex")) element.tabIndex = 0;
  element.replaceChildren(input, screen, done, problem);

  let disposed = false;
  let tickets = 0;
  let shown = { version: null, ticket: 0 };
  let view = null;
  let status = "open";
  let columns = columnsFor(element);
  element.dataset.columns = String(columns);
  /** The width the session's Steps arrive rendered at, when known. */
  let stepWidth = options.stepWidth;

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

  /** Puts the hidden text area over the cursor, so that an input method pops up there. */
  function placeInput() {
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

  /**
   * Shows a Step if it is not older than the one shown.
   *
   * @param {object} step `{ status, view, version?, result?, transcript? }`
   * @param {number} ticket the ticket of the request it answers
   * @returns {boolean} whether it was shown
   */
  function show(step, ticket) {
    const version = typeof step.version === "number" ? step.version : null;
    if (disposed || isStale(shown, { version, ticket })) return false;
    shown = { version: version ?? shown.version, ticket: Math.max(ticket, shown.ticket) };
    view = step.view ?? view;
    if (view && Array.isArray(view.lines)) renderLines(screen, view.lines);
    const wasDone = status === "done";
    status = step.status ?? view?.status ?? status;
    element.dataset.status = status;
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

  /** Whether Steps arrive at the element's columns, so that no `getView` need follow them. */
  function stepsFit() {
    return stepWidth === columns;
  }

  /**
   * Sends a request that changes the session and shows its Step, followed by a `getView` at the
   * element's columns when Steps do not arrive at them (sent at once, so both are answered
   * together, in order).
   *
   * @param {string} method
   * @param {object} params
   * @returns {Promise<void>}
   */
  async function change(method, params) {
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
        return;
      }
      if (!disposed) showProblem(describeError(method, error));
      return;
    }
    if (viewPromise !== null) {
      try {
        step = { ...step, view: await viewPromise };
      } catch (error) {
        show(step, ticket);
        showProblem(describeError("getView", error));
        return;
      }
    }
    show(step, ticket);
  }

  /**
   * Sends a text: with `insert` into an open editor, otherwise as keys.
   *
   * @param {string} text
   */
  function sendText(text) {
    if (text === "" || status === "done") return;
    if (view && view.editor != null) {
      change("insert", { session, text });
      return;
    }
    const keys = textToKeys(text);
    if (keys.length > 0) change("keys", { session, keys });
  }

  /** Whether the user has selected text inside the flow (Ctrl+C then copies it). */
  function hasSelection() {
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
    if (status === "done") return;
    const key = keyFromEvent(event);
    if (key === null || (key === "ctrl+c" && hasSelection())) return;
    event.preventDefault();
    change("key", { session, key });
  }

  /** @param {ClipboardEvent} event */
  function onPaste(event) {
    if (status === "done") return;
    event.preventDefault();
    sendText(event.clipboardData ? event.clipboardData.getData("text/plain") : "");
  }

  /** @param {CompositionEvent} event */
  function onCompositionEnd(event) {
    input.value = "";
    sendText(event.data ?? "");
  }

  /** @param {InputEvent} event */
  function onInput(event) {
    if (event.isComposing || String(event.inputType).includes("Composition")) return;
    const text = event.data ?? input.value;
    input.value = "";
    sendText(text);
  }

  /** Whether a mouse button went down in the flow and is not up yet. */
  let pressing = false;

  /**
   * Keeps the keyboard on the hidden text area while the flow has focus, except while a mouse
   * button is down, which may be selecting text (moving the focus would clear the selection).
   *
   * @param {FocusEvent} event
   */
  function onFocus(event) {
    if (event.target === element && !pressing) input.focus({ preventScroll: true });
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
    if (options.setStepWidth && stepWidth !== columns) {
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
      show({ status: fresh.status, view: fresh }, ticket);
    } catch (error) {
      if (!disposed) showProblem(describeError("getView", error));
    }
  }

  element.addEventListener("keydown", onKeyDown);
  element.addEventListener("paste", onPaste);
  element.addEventListener("focus", onFocus);
  element.addEventListener("mousedown", onMouseDown);
  element.addEventListener("mouseup", onMouseUp);
  input.addEventListener("compositionend", onCompositionEnd);
  input.addEventListener("input", onInput);
  const removeNotification = transport.onNotification(onNotification);
  const observer =
    typeof win.ResizeObserver === "function"
      ? new win.ResizeObserver(() => {
          if (columnsFor(element) !== columns) refresh();
        })
      : null;
  observer?.observe(element);

  refresh();
  if (options.autofocus) input.focus({ preventScroll: true });

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
    /** Stops listening, forgets the session and empties the element. */
    dispose() {
      if (disposed) return;
      disposed = true;
      observer?.disconnect();
      if (typeof removeNotification === "function") removeNotification();
      element.removeEventListener("keydown", onKeyDown);
      element.removeEventListener("paste", onPaste);
      element.removeEventListener("focus", onFocus);
      element.removeEventListener("mousedown", onMouseDown);
      element.removeEventListener("mouseup", onMouseUp);
      element.replaceChildren();
      element.classList.remove("askd-flow");
      delete element.dataset.columns;
      delete element.dataset.status;
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
