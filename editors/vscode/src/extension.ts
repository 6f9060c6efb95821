/**
 * The askd extension: the `askd: Demo` and `askd: Ask from File…` commands, the `askd.ask`
 * command, and the API other extensions get from `activate` (see README.md). Every flow is
 * decided by the askd engine; the extension shows its screens in a webview panel.
 */

import * as vscode from "vscode";
import { DEMO_PAYLOAD } from "./demo";
import { locateEngine, processEnvironment } from "./discovery";
import { AskdError, Engine, EngineHost } from "./engine";
import { runFlow, type FlowOutcome } from "./flow";
import { payloadNotJson } from "./messages";
import { openQuestionPanel } from "./panel";
import { openParams, readSettings, type FlowOptions } from "./params";

/** The options of {@link AskdApi.ask}. */
export interface AskOptions extends FlowOptions {
  /** Cancelling it withdraws the question: the flow ends as aborted. */
  token?: vscode.CancellationToken;
}

/** Where a flow came from. */
export type AskSource = "demo" | "file" | "api" | "command";

/** A flow that has ended, as {@link AskdApi.onDidFinishAsk} reports it. */
export interface FinishedAsk extends FlowOutcome {
  /** Which command or API started it. */
  readonly source: AskSource;
}

/** What `activate` returns: the API for other extensions. */
export interface AskdApi {
  /** The version of this API; it grows when the API changes incompatibly. */
  readonly apiVersion: 1;
  /**
   * Asks the person `payload` (the `ask_user` tool input, or an `AskUserQuestionRequest` with
   * `dialect: "dsh"`) in a question panel and resolves with the engine's result: for the pi
   * dialect the `ask_user` tool output `{ content, details }`, ready to hand to the agent;
   * for dsh `{ answer }` or `{ error }`. Rejects with an error whose message says what went
   * wrong when the engine is missing, dies or refuses the request.
   */
  ask(payload: unknown, options?: AskOptions): Promise<unknown>;
  /** Fires when any flow ends, with its result, transcript and outcome. */
  readonly onDidFinishAsk: vscode.Event<FinishedAsk>;
  /** The payload `askd: Demo` asks. */
  readonly demoPayload: unknown;
}

/** The notification button that shows the whole result in the output channel. */
const SHOW_RESULT = "Show Result";
/** How long a new engine may take to answer `initialize`. */
const INITIALIZE_WAIT_MS = 10_000;
/** How long the question panel's page may take to load. */
const READY_WAIT_MS = 20_000;

/** The text a result is summed up by in a notification (one line: line breaks become `; `). */
export function summarise(result: unknown): string {
  if (typeof result === "object" && result !== null) {
    const pi = result as { content?: Array<{ text?: unknown }> };
    const text = pi.content?.[0]?.text;
    if (typeof text === "string") {
      return text.split(/\r?\n/).filter((line) => line.trim() !== "").join("; ");
    }
    const dsh = result as { answer?: unknown; error?: { message?: unknown } };
    if (typeof dsh.error?.message === "string") {
      return dsh.error.message;
    }
    if (dsh.answer !== undefined) {
      return JSON.stringify(dsh.answer);
    }
  }
  return JSON.stringify(result);
}

/** The panel title for a payload: its `title`, else `askd`. */
export function panelTitle(payload: unknown): string {
  const title = (payload as { title?: unknown } | null)?.title;
  return typeof title === "string" && title.trim() !== "" ? title : "askd";
}

/** Activates the extension and returns its API. */
export function activate(context: vscode.ExtensionContext): AskdApi {
  const output = vscode.window.createOutputChannel("askd");
  const finished = new vscode.EventEmitter<FinishedAsk>();
  const firstFolder = (): string | undefined => {
    const folder = vscode.workspace.workspaceFolders?.[0];
    return folder?.uri.scheme === "file" ? folder.uri.fsPath : undefined;
  };
  const host = new EngineHost({
    locate: () =>
      locateEngine(
        vscode.workspace.getConfiguration("askd").get<string>("path") ?? "",
        processEnvironment(context.extensionPath, firstFolder()),
      ),
    start: (enginePath) => new Engine(enginePath),
    client: { name: "askd-vscode", version: String(context.extension.packageJSON.version ?? "0") },
    initializeWaitMs: INITIALIZE_WAIT_MS,
  });
  let sessions = 0;

  const ask = async (payload: unknown, options: AskOptions, source: AskSource): Promise<FinishedAsk> => {
    const engine = await host.acquire();
    try {
      const configuration = vscode.workspace.getConfiguration("askd");
      const settings = readSettings((key) => configuration.get(key));
      sessions += 1;
      const session = `vscode-${sessions}`;
      const outcome = await runFlow({
        engine,
        openPanel: () => openQuestionPanel(context.extensionUri, panelTitle(payload)),
        openParams: (columns) => openParams(payload, options, settings, { session, width: columns, cwd: firstFolder() }),
        token: options.token,
        readyWaitMs: READY_WAIT_MS,
        warn: (message) => void vscode.window.showWarningMessage(message),
      });
      const report: FinishedAsk = { ...outcome, source };
      output.appendLine(`${source}: session ${outcome.session} ended (${outcome.outcome ?? "done"})`);
      output.appendLine(JSON.stringify(outcome.result, null, 2));
      finished.fire(report);
      return report;
    } finally {
      host.release(engine);
    }
  };

  /** Runs an ask for a command: the result goes to the output channel and a notification. */
  const askAndShow = async (payload: unknown, source: AskSource): Promise<unknown> => {
    try {
      const report = await ask(payload, {}, source);
      void vscode.window
        .showInformationMessage(`askd: ${summarise(report.result)}`, SHOW_RESULT)
        .then((choice) => choice === SHOW_RESULT && output.show(true));
      return report.result;
    } catch (error) {
      reportFailure(error);
      return undefined;
    }
  };

  const reportFailure = (error: unknown): void => {
    const message = error instanceof Error ? error.message : String(error);
    output.appendLine(message);
    void vscode.window.showErrorMessage(message);
  };

  const askFromFile = async (uri?: vscode.Uri): Promise<unknown> => {
    const file = uri ?? (await pickPayloadFile());
    if (file === undefined) {
      return undefined;
    }
    const shown = vscode.workspace.asRelativePath(file);
    let payload: unknown;
    try {
      payload = JSON.parse(new TextDecoder().decode(await vscode.workspace.fs.readFile(file)));
    } catch (error) {
      reportFailure(new AskdError(payloadNotJson(shown, error instanceof Error ? error.message : String(error))));
      return undefined;
    }
    return askAndShow(payload, "file");
  };

  const api: AskdApi = {
    apiVersion: 1,
    async ask(payload, options) {
      try {
        return (await ask(payload, options ?? {}, "api")).result;
      } catch (error) {
        reportFailure(error);
        throw error;
      }
    },
    onDidFinishAsk: finished.event,
    demoPayload: DEMO_PAYLOAD,
  };

  const status = vscode.window.createStatusBarItem("askd.status", vscode.StatusBarAlignment.Right, 0);
  status.name = "askd";
  status.text = "$(comment-discussion) askd";
  status.tooltip = "askd: run the demo flow";
  status.command = "askd.demo";
  status.show();

  context.subscriptions.push(
    output,
    finished,
    status,
    { dispose: () => host.dispose() },
    vscode.commands.registerCommand("askd.demo", () => askAndShow(DEMO_PAYLOAD, "demo")),
    vscode.commands.registerCommand("askd.askFromFile", askFromFile),
    vscode.commands.registerCommand("askd.ask", async (payload: unknown, options?: AskOptions) => {
      try {
        return (await ask(payload, options ?? {}, "command")).result;
      } catch (error) {
        reportFailure(error);
        throw error;
      }
    }),
    // Bound to keys the flow uses (ctrl+w, ctrl+k, …) while the panel is active, so that the
    // workbench does not also act on them (close the editor, start a chord): the panel's page
    // has already sent them to the engine.
    vscode.commands.registerCommand("askd.keepKeyInFlow", () => undefined),
  );
  return api;
}

/** Lets the person choose a JSON file of the workspace. */
async function pickPayloadFile(): Promise<vscode.Uri | undefined> {
  const files = await vscode.workspace.findFiles("**/*.json", "**/{node_modules,target,.git}/**", 2000);
  if (files.length === 0) {
    void vscode.window.showWarningMessage("askd: the workspace has no JSON file to ask from.");
    return undefined;
  }
  const items = files
    .map((uri) => ({ label: vscode.workspace.asRelativePath(uri), uri }))
    .sort((a, b) => a.label.localeCompare(b.label));
  const picked = await vscode.window.showQuickPick(items, {
    title: "askd: Ask from File",
    placeHolder: "A payload JSON file (ask_user input or AskUserQuestionRequest)",
  });
  return picked?.uri;
}
