/**
 * From what an extension (or the person's settings) asks for to the params of the engine's
 * `open`. Every option is an `open` param: those the extension merges with the settings
 * (`keymap`, `keymapPreset`, `behaviour`) or decides a default for (`session`, `width`, `cwd`),
 * and every other one — `dialect`, `timeoutMs`, `asker`, the dialects' own options such as
 * `mcp: { requester }` and `claude: { previewFormat }`, and params a newer engine knows — passed
 * through unchanged, for the engine to validate.
 */

/** Behaviour flags of the engine (`behaviour` of `open`). */
export interface Behaviour {
  /** `"seed"` (the reference behaviour) or `"pi-0.9"`. */
  profile?: string;
  /** A second Esc / Ctrl+C is needed to discard answers, notes or drafts. */
  confirmDismissWhenDirty?: boolean;
  /** A review digit first selects its action, the same digit again runs it. */
  doublePressReviewShortcuts?: boolean;
  /** Reaching the review tab with everything answered and no note submits at once. */
  autoSubmitWhenAnsweredWithoutNotes?: boolean;
  /** Single questions are shown as multi ones. */
  presentSingleAsMulti?: boolean;
  /** Flags a newer engine knows, passed through unchanged. */
  [flag: string]: unknown;
}

/** Keymap overrides: `{ "<context>.<action>": ["<key>", …] }` (a single string is one key). */
export type Keymap = Record<string, string | readonly string[]>;

/** What the engine-facing part of an ask may set (the `ask` API's options, less the token). */
export interface FlowOptions {
  /** `"pi"` (default), `"dsh"`, or any dialect a newer engine knows. */
  dialect?: string;
  /** The session id, e.g. the tool-call id; the extension makes one when absent. */
  session?: string;
  /** Behaviour flags, over those of the settings. */
  behaviour?: Behaviour;
  /** Keymap overrides, over those of the settings (action by action). */
  keymap?: Keymap;
  /** A keymap preset (`"vim"`), instead of the settings' one. */
  keymapPreset?: string;
  /** Milliseconds after which the engine ends the flow as cancelled (`timeout`). */
  timeoutMs?: number;
  /** The folder `@` completion lists, instead of the first workspace folder. */
  cwd?: string;
  /** Who asks (`{ name?, folder? }`), so that a person can tell flows apart. */
  asker?: { name?: string; folder?: string };
  /** The claude dialect's options, e.g. `{ previewFormat: "html" }`. */
  claude?: Record<string, unknown>;
  /** The mcp dialect's options, e.g. `{ requester: { name: "deploy-server" } }`. */
  mcp?: Record<string, unknown>;
  /** Any other `open` param (one a newer engine knows), passed through unchanged. */
  [param: string]: unknown;
}

/**
 * Options of the `ask` API that are the extension's own, never sent to the engine: the
 * cancellation token, and `focus` (whether the panel takes the keyboard when it opens).
 */
export const EXTENSION_OPTIONS: ReadonlySet<string> = new Set(["token", "focus"]);

/** The settings of the `askd.*` configuration that shape a flow. */
export interface FlowSettings {
  /** Columns to render at; 0 follows the panel. */
  readonly width: number;
  /** `"default"` or a preset name. */
  readonly keymapPreset: string;
  /** Keymap overrides. */
  readonly keymap: Keymap;
  /** The behaviour flags the person changed from their defaults. */
  readonly behaviour: Behaviour;
}

/** The params of the engine's `open`, as sent. */
export interface OpenParams {
  [param: string]: unknown;
  payload: unknown;
  session: string;
  width: number;
  dialect?: string;
  cwd?: string;
  keymap?: Keymap;
  keymapPreset?: string;
  behaviour?: Behaviour;
  timeoutMs?: number;
}

/** The defaults of the behaviour settings: a setting left at its default is not sent. */
export const BEHAVIOUR_DEFAULTS: Readonly<Required<Pick<Behaviour,
  "profile" | "confirmDismissWhenDirty" | "doublePressReviewShortcuts" |
  "autoSubmitWhenAnsweredWithoutNotes" | "presentSingleAsMulti">>> = {
  profile: "seed",
  confirmDismissWhenDirty: false,
  doublePressReviewShortcuts: false,
  autoSubmitWhenAnsweredWithoutNotes: false,
  presentSingleAsMulti: false,
};

/** Reads the `askd.*` settings through `get` (a `WorkspaceConfiguration.get`). */
export function readSettings(get: (key: string) => unknown): FlowSettings {
  const width = get("width");
  const preset = get("keymapPreset");
  const keymap = get("keymap");
  const behaviour: Behaviour = {};
  for (const [flag, fallback] of Object.entries(BEHAVIOUR_DEFAULTS)) {
    const value = get(`behaviour.${flag}`);
    if (value !== undefined && value !== null && value !== fallback) {
      behaviour[flag] = value;
    }
  }
  return {
    width: typeof width === "number" && Number.isInteger(width) && width > 0 ? width : 0,
    keymapPreset: typeof preset === "string" && preset !== "" ? preset : "default",
    keymap: isRecord(keymap) ? (keymap as Keymap) : {},
    behaviour,
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `base` with `over`'s entries on top, or undefined when the two hold nothing. */
function merged<T extends object>(base: T, over: T | undefined): T | undefined {
  const result = { ...base, ...(over ?? {}) };
  return Object.keys(result).length === 0 ? undefined : result;
}

/**
 * The params of `open` for `payload`: `options` first, then the settings, then what the
 * extension decides (`session`, `width`, `cwd`).
 */
export function openParams(
  payload: unknown,
  options: FlowOptions,
  settings: FlowSettings,
  decided: { session: string; width: number; cwd: string | undefined },
): OpenParams {
  const params: OpenParams = {
    payload,
    session: options.session ?? decided.session,
    width: settings.width > 0 ? settings.width : decided.width,
  };
  const handled = new Set(["payload", "session", "width", "cwd", "keymap", "keymapPreset", "behaviour"]);
  for (const [name, value] of Object.entries(options)) {
    if (value !== undefined && !handled.has(name) && !EXTENSION_OPTIONS.has(name)) {
      params[name] = value;
    }
  }
  const cwd = options.cwd ?? decided.cwd;
  if (cwd !== undefined) {
    params.cwd = cwd;
  }
  const keymap = merged(settings.keymap, options.keymap);
  if (keymap !== undefined) {
    params.keymap = keymap;
  }
  const preset =
    options.keymapPreset ?? (settings.keymapPreset === "default" ? undefined : settings.keymapPreset);
  if (preset !== undefined) {
    params.keymapPreset = preset;
  }
  const behaviour = merged(settings.behaviour, options.behaviour);
  if (behaviour !== undefined) {
    params.behaviour = behaviour;
  }
  return params;
}
