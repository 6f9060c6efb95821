// @ts-check
/**
 * A stand-in for the `vscode` module, enough for the extension's own logic to run under
 * `node --test`: `require("vscode")` answers it once this file is loaded (a `Module._load`
 * hook). Tests set `stub.settings`, `stub.workspaceFolders` and `stub.onPanel` (what the
 * question panel's page does), and read what the extension showed from `stub.shown`.
 *
 * It complements the end-to-end tests in a real VS Code; it never replaces them.
 */
"use strict";

const Module = require("node:module");
const path = require("node:path");

/** A minimal `vscode.EventEmitter`. */
class EventEmitter {
  constructor() {
    /** @type {Set<(value: any) => void>} */
    this.listeners = new Set();
    /** @param {(value: any) => void} listener */
    this.event = (listener) => {
      this.listeners.add(listener);
      return { dispose: () => this.listeners.delete(listener) };
    };
  }
  /** @param {unknown} value */
  fire(value) {
    for (const listener of [...this.listeners]) listener(value);
  }
  dispose() {
    this.listeners.clear();
  }
}

/** A minimal `vscode.CancellationTokenSource`. */
class CancellationTokenSource {
  constructor() {
    const emitter = new EventEmitter();
    this.emitter = emitter;
    this.token = {
      isCancellationRequested: false,
      onCancellationRequested: emitter.event,
    };
  }
  cancel() {
    if (!this.token.isCancellationRequested) {
      this.token.isCancellationRequested = true;
      this.emitter.fire(undefined);
    }
  }
  dispose() {}
}

/**
 * A fake quick pick (`createQuickPick`): once shown, `stub.onQuickPick(pick)` plays the person,
 * with `pick.accept(index)`, `pick.pressButton(index)` (an item's first button) or `pick.hide()`.
 */
function createQuickPick() {
  const accepted = new EventEmitter();
  const buttonPressed = new EventEmitter();
  const hidden = new EventEmitter();
  const pick = {
    title: "",
    placeholder: "",
    matchOnDetail: false,
    /** @type {any[]} */
    items: [],
    /** @type {any[]} */
    selectedItems: [],
    visible: false,
    onDidAccept: accepted.event,
    onDidTriggerItemButton: buttonPressed.event,
    onDidHide: hidden.event,
    show() {
      pick.visible = true;
      stub.quickPicks.push(pick);
      setImmediate(() => stub.onQuickPick(pick));
    },
    hide() {
      if (pick.visible) {
        pick.visible = false;
        hidden.fire(undefined);
      }
    },
    dispose() {},
    /** @param {number} index */
    accept(index) {
      pick.selectedItems = [pick.items[index]];
      accepted.fire(undefined);
    },
    /** @param {number} index */
    pressButton(index) {
      buttonPressed.fire({ item: pick.items[index], button: pick.items[index].buttons[0] });
    },
  };
  return pick;
}

/**
 * A message shown: its text, its buttons (a first argument of options, `{ modal }`, is kept
 * apart), and the button the person presses (`stub.choose`).
 *
 * @param {string} kind
 * @param {string} text
 * @param {unknown[]} rest
 */
function showMessage(kind, text, rest) {
  const options = typeof rest[0] === "object" && rest[0] !== null ? /** @type {{ modal?: boolean }} */ (rest[0]) : undefined;
  const buttons = /** @type {string[]} */ (options === undefined ? rest : rest.slice(1));
  stub.shown.push(options?.modal === true ? { kind, text, modal: true } : { kind, text });
  stub.buttons.set(text, buttons);
  return Promise.resolve(stub.choose(text, buttons));
}

/**
 * A fake progress notification (`withProgress`): recorded in `stub.shown` as `{ kind:
 * "progress", text }` and in `stub.notices`, where a test reads whether it is `closed`,
 * `dismiss()`es it as the person does, or `follow()`s the command link in its text.
 *
 * @param {{ title: string, cancellable?: boolean }} options
 * @param {(progress: unknown, token: unknown) => unknown} task
 */
function withProgress(options, task) {
  const source = new CancellationTokenSource();
  const notice = {
    text: options.title,
    cancellable: options.cancellable === true,
    closed: false,
    dismiss: () => source.cancel(),
    /** Runs the command of the text's first `[…](command:…)` link, as a click on it does. */
    follow() {
      const link = /\]\(command:([^?)]+)(?:\?([^)]*))?\)/.exec(notice.text);
      if (link === null) throw new Error(`no command link in ${notice.text}`);
      const args = link[2] === undefined ? [] : JSON.parse(decodeURIComponent(link[2]));
      return stub.vscode.commands.executeCommand(link[1] ?? "", ...args);
    },
  };
  stub.notices.push(notice);
  stub.shown.push({ kind: "progress", text: options.title });
  return Promise.resolve(task({ report: () => undefined }, source.token)).then((value) => {
    notice.closed = true;
    return value;
  });
}

/** A file URI. */
function fileUri(/** @type {string} */ fsPath) {
  return { scheme: "file", fsPath, path: fsPath, toString: () => `file://${fsPath}` };
}

/**
 * A fake webview panel. The page's side is played by `stub.onPanel(page)`, where
 * `page.send(message)` posts a message to the extension and `page.received` lists what the
 * extension posted (`page.onMessage(listener)` is called for each).
 */
function createWebviewPanel(
  /** @type {string} */ viewType,
  /** @type {string} */ title,
  /** @type {{ viewColumn: number, preserveFocus: boolean }} */ showOptions,
) {
  const fromPage = new EventEmitter();
  const disposed = new EventEmitter();
  /** @type {Array<(message: any) => void>} */
  const pageListeners = [];
  const page = {
    viewType,
    title,
    showOptions,
    html: "",
    /** @type {unknown[]} */
    received: [],
    disposed: false,
    /** How often the extension brought the panel to the front. */
    revealed: 0,
    /** @param {unknown} message */
    send(message) {
      setImmediate(() => fromPage.fire(message));
    },
    /** @param {(message: any) => void} listener */
    onMessage(listener) {
      pageListeners.push(listener);
    },
    /** Closes the panel as the person does. */
    closeByPerson() {
      panel.dispose();
    },
  };
  const webview = {
    cspSource: "vscode-resource:",
    get html() {
      return page.html;
    },
    set html(value) {
      page.html = value;
      setImmediate(() => stub.onPanel(page));
    },
    asWebviewUri: (/** @type {{ fsPath: string }} */ uri) => ({ toString: () => `vscode-resource:${uri.fsPath}` }),
    postMessage(/** @type {unknown} */ message) {
      page.received.push(message);
      for (const listener of pageListeners) setImmediate(() => listener(message));
      return Promise.resolve(true);
    },
    onDidReceiveMessage: fromPage.event,
  };
  const panel = {
    webview,
    iconPath: undefined,
    active: false,
    reveal() {
      page.revealed += 1;
    },
    onDidDispose: disposed.event,
    dispose() {
      if (!page.disposed) {
        page.disposed = true;
        disposed.fire(undefined);
      }
    },
  };
  stub.panels.push(page);
  return panel;
}

const stub = {
  /** The user settings, by full key (`askd.path`). */
  /** @type {Record<string, unknown>} */
  settings: {},
  /** @type {Array<{ uri: ReturnType<typeof fileUri> }> | undefined} */
  workspaceFolders: undefined,
  /** What the page of each new panel does; by default it never loads. */
  /** @type {(page: any) => void} */
  onPanel: () => undefined,
  /** Every panel opened, as its page sees it. */
  /** @type {any[]} */
  panels: [],
  /** Messages shown: `{ kind: "info" | "warning" | "error", text }` (and `modal: true` for a modal one). */
  /** @type {Array<{ kind: string, text: string, modal?: boolean }>} */
  shown: [],
  /** The buttons of each message shown, by its text. */
  /** @type {Map<string, string[]>} */
  buttons: new Map(),
  /** Which button the person presses on a message (by default none: it is dismissed). */
  /** @type {(text: string, buttons: string[]) => string | undefined} */
  choose: () => undefined,
  /** What the person does in each quick pick shown (by default nothing: it stays open). */
  /** @type {(pick: any) => void} */
  onQuickPick: () => undefined,
  /** Every progress notification shown. */
  /** @type {any[]} */
  notices: [],
  /** Every quick pick shown. */
  /** @type {any[]} */
  quickPicks: [],
  /** Commands run with `executeCommand` that the stub does not register: `[id, ...args]`. */
  /** @type {unknown[][]} */
  ran: [],
  /** Every status-bar item created, by id. */
  /** @type {Map<string, any>} */
  statusItems: new Map(),
  /** Lines written to the output channel. */
  /** @type {string[]} */
  output: [],
  /** @type {Map<string, (...args: any[]) => any>} */
  commands: new Map(),
  /** Forgets everything but the hook. */
  reset() {
    stub.settings = {};
    stub.workspaceFolders = undefined;
    stub.onPanel = () => undefined;
    stub.panels = [];
    stub.shown = [];
    stub.buttons = new Map();
    stub.choose = () => undefined;
    stub.onQuickPick = () => undefined;
    stub.quickPicks = [];
    stub.notices = [];
    stub.ran = [];
    stub.statusItems = new Map();
    stub.output = [];
    stub.commands = new Map();
  },
  vscode: {
    EventEmitter,
    CancellationTokenSource,
    ViewColumn: { Active: -1, Beside: -2 },
    StatusBarAlignment: { Left: 1, Right: 2 },
    ProgressLocation: { Notification: 15 },
    ConfigurationTarget: { Global: 1 },
    ThemeIcon: class {
      /** @param {string} id */
      constructor(id) {
        this.id = id;
      }
    },
    Uri: {
      file: fileUri,
      joinPath: (/** @type {{ fsPath: string }} */ base, /** @type {string[]} */ ...parts) => fileUri(path.join(base.fsPath, ...parts)),
    },
    window: {
      createOutputChannel: () => ({
        appendLine: (/** @type {string} */ line) => stub.output.push(line),
        show: () => undefined,
        dispose: () => undefined,
      }),
      createStatusBarItem: (/** @type {string} */ id) => {
        const item = {
          visible: false,
          text: "",
          show() {
            item.visible = true;
          },
          hide() {
            item.visible = false;
          },
          dispose: () => undefined,
        };
        stub.statusItems.set(id, item);
        return item;
      },
      activeTextEditor: undefined,
      onDidChangeActiveTextEditor: () => ({ dispose: () => undefined }),
      createWebviewPanel,
      showInformationMessage: (/** @type {string} */ text, /** @type {unknown[]} */ ...rest) => showMessage("info", text, rest),
      showWarningMessage: (/** @type {string} */ text, /** @type {unknown[]} */ ...rest) => showMessage("warning", text, rest),
      showErrorMessage: (/** @type {string} */ text, /** @type {unknown[]} */ ...rest) => showMessage("error", text, rest),
      showQuickPick: () => Promise.resolve(undefined),
      createQuickPick,
      withProgress,
    },
    workspace: {
      onDidChangeConfiguration: () => ({ dispose: () => undefined }),
      textDocuments: [],
      getConfiguration: (/** @type {string} */ section) => ({
        get: (/** @type {string} */ key) => stub.settings[`${section}.${key}`],
      }),
      get workspaceFolders() {
        return stub.workspaceFolders;
      },
      asRelativePath: (/** @type {{ fsPath: string }} */ uri) => {
        const root = stub.workspaceFolders?.[0]?.uri.fsPath;
        return root === undefined ? uri.fsPath : path.relative(root, uri.fsPath);
      },
      findFiles: () => Promise.resolve([]),
      fs: {
        readFile: (/** @type {{ fsPath: string }} */ uri) => require("node:fs/promises").readFile(uri.fsPath),
      },
    },
    commands: {
      registerCommand: (/** @type {string} */ id, /** @type {(...args: any[]) => any} */ handler) => {
        stub.commands.set(id, handler);
        return { dispose: () => stub.commands.delete(id) };
      },
      executeCommand: (/** @type {string} */ id, /** @type {any[]} */ ...args) => {
        const handler = stub.commands.get(id);
        if (handler === undefined && id.startsWith("workbench.")) {
          stub.ran.push([id, ...args]);
          return Promise.resolve(undefined);
        }
        return handler === undefined ? Promise.reject(new Error(`no command ${id}`)) : Promise.resolve(handler(...args));
      },
    },
  },
};

const load = /** @type {any} */ (Module)._load;
/** @type {any} */ (Module)._load = function (/** @type {string} */ request, /** @type {unknown[]} */ ...rest) {
  if (request === "vscode") return stub.vscode;
  return load.call(this, request, ...rest);
};

module.exports = stub;
