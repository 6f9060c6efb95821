/**
 * The parts of the engine's protocol the extension reads, and the messages between the
 * extension and its question panel's page (`media/panel.js`).
 */

/** A Step as the engine answers it (`protocol/README.md`, The Step); the view stays opaque. */
export interface Step {
  readonly session: string;
  readonly status: "open" | "done";
  readonly view: View;
  readonly result?: unknown;
  readonly transcript?: Transcript;
}

/** The few fields of a view the extension itself reads; the page draws the rest. */
export interface View {
  readonly outcome?: string | null;
  readonly [field: string]: unknown;
}

/** The one-line call text and the result text of a completed flow. */
export interface Transcript {
  readonly call: string;
  readonly result: string;
}

/** True when `value` is a Step of `session` (a response to a method that answers one). */
export function isStep(value: unknown, session: string): value is Step {
  if (typeof value !== "object" || value === null) {
    return false;
  }
  const step = value as Partial<Step>;
  return (
    step.session === session &&
    (step.status === "open" || step.status === "done") &&
    typeof step.view === "object" &&
    step.view !== null
  );
}

/**
 * The methods the page may call, always on its own session. `subscribe` is how it gives askd
 * its new width after a resize (`subscribe { session, width }`): the session's Steps then come
 * rendered at it, and `up`/`down` in an editor move between the lines drawn at it. `activate`
 * (a click or tap on a row, tab, action or editor) and `setDraft` (the form's text area, whole)
 * go to engines that have them; one that lacks them answers -32601 and the form falls back to
 * keys and `saveCustom` / `setNote`.
 */
export const PAGE_METHODS: ReadonlySet<string> = new Set([
  "activate",
  "setDraft",
  "key",
  "keys",
  "insert",
  "saveCustom",
  "setNote",
  "submitAnswers",
  "getView",
  "getResult",
  "cancel",
  "subscribe",
]);

/** A JSON-RPC error object as the page receives it. */
export interface RpcError {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/** What the page sends the extension. */
export type PageMessage =
  /** The page has loaded; `columns` is how many terminal columns its flow element holds. */
  | { readonly kind: "ready"; readonly columns: number }
  /** A request for the engine; answered by a `response` with the same `id`. */
  | { readonly kind: "request"; readonly id: number; readonly method: string; readonly params?: unknown }
  /** The page failed (a script error): the flow cannot go on. */
  | { readonly kind: "error"; readonly message: string };

/** What the extension sends the page. */
export type HostMessage =
  /**
   * Draw this first Step of the flow in `look` (`form` or `terminal`); the session's Steps
   * arrive rendered at `stepWidth`. The page takes the keyboard only when `focus` says so.
   */
  | {
      readonly kind: "start";
      readonly step: Step;
      readonly stepWidth: number;
      readonly look: "form" | "terminal";
      readonly focus: boolean;
    }
  /** The panel has been brought to the front with the keyboard: give it to the flow. */
  | { readonly kind: "focus" }
  /** The answer to a `request`. */
  | { readonly kind: "response"; readonly id: number; readonly result?: unknown; readonly error?: RpcError }
  /** A change the page did not ask for (the flow was aborted by the asker, or timed out). */
  | { readonly kind: "notification"; readonly method: string; readonly params: unknown };

/** True when `value` has the shape of a {@link PageMessage}. */
export function isPageMessage(value: unknown): value is PageMessage {
  if (typeof value !== "object" || value === null) {
    return false;
  }
  const message = value as { kind?: unknown; columns?: unknown; id?: unknown; method?: unknown; message?: unknown };
  switch (message.kind) {
    case "ready":
      return typeof message.columns === "number" && Number.isFinite(message.columns);
    case "request":
      return typeof message.id === "number" && typeof message.method === "string";
    case "error":
      return typeof message.message === "string";
    default:
      return false;
  }
}
