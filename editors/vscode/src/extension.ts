/**
 * The askd extension: the `askd: Demo` and `askd: Ask from File…` commands, the `askd.ask`
 * command, the API other extensions get from `activate` (see README.md), and the attachment to
 * the hub, whose flows it offers to answer. Every flow is decided by the askd engine; the
 * extension shows it in a webview panel beside the editor, taking the keyboard only when the
 * person asks for it.
 */

import * as fs from "node:fs";
import * as vscode from "vscode";
import {
  answerOrder,
  arrivalMessage,
  attachedMessage,
  stillWaitingMessage,
  waitingText,
  waitingTooltip,
  withAnswerLink,
  type WaitingQuestion,
} from "./attention";
import { DEMO_PAYLOAD } from "./demo";
import { locateEngine, processEnvironment } from "./discovery";
import { AskdError, Engine, EngineHost, EngineNotFound, ErrorCode } from "./engine";
import { runFlow, type FlowOutcome } from "./flow";
import { HubAttachment, hubRunsByStatus, processHubDiscoveryFile, sessionLabel } from "./hub";
import { payloadNotJson } from "./messages";
import { openQuestionPanel, type QuestionPanel } from "./panel";
import { openParams, readSettings, type FlowOptions } from "./params";
import {
  CONFIRM_DISCARD,
  DISCARD,
  LATER,
  RESUME,
  discardOffer,
  discardQuestion,
  listOffers,
  offerName,
  offerState,
  offersMessage,
  resumeOffer,
  type Offer,
  type OfferPlace,
  type RecoveryEngine,
} from "./recovery";

/** The options of {@link AskdApi.ask}. */
export interface AskOptions extends FlowOptions {
  /** Cancelling it withdraws the question: the flow ends as aborted. */
  token?: vscode.CancellationToken;
  /**
   * Whether the panel takes the keyboard when it opens: `false` (the default) leaves it where
   * the person is typing and announces the question instead; `true` is for a question the
   * person has just asked for.
   */
  focus?: boolean;
}

/**
 * Where a flow came from: the extension's commands, its API, the hub, or an unfinished flow
 * the person resumed (`recovered`).
 */
export type AskSource = "demo" | "file" | "api" | "command" | "hub" | "recovered";

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
/** How often the hub's discovery file is looked at while not attached. */
const HUB_POLL_MS = 2_000;
/** The notification button of a missing engine: it opens the `askd.path` setting. */
export const OPEN_SETTINGS = "Open Settings";

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
  const configuration = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration("askd");
  const locate = () =>
    locateEngine(configuration().get<string>("path") ?? "", processEnvironment(context.extensionPath, firstFolder()));
  const client = { name: "askd-vscode", version: String(context.extension.packageJSON.version ?? "0") };
  const host = new EngineHost({
    locate,
    start: (enginePath) => new Engine(enginePath),
    client,
    initializeWaitMs: INITIALIZE_WAIT_MS,
    // Each engine started looks for the flows an ended one left unfinished.
    started: (engine) => lookForOffers(engine, "local"),
  });
  const look = (): "form" | "terminal" => (configuration().get<string>("look") === "terminal" ? "terminal" : "form");
  let sessions = 0;

  // Where the keyboard goes back to: the text editor last active before a question took it.
  let lastEditor: vscode.TextEditor | undefined = vscode.window.activeTextEditor;
  /** The open question panels, by session; a session's panel is shown once. */
  const panels = new Map<string, QuestionPanel>();
  /** The window's own flows waiting for an answer, by session. */
  const ownWaiting = new Map<string, WaitingQuestion>();
  /**
   * Unfinished flows resumed in this window and not finished yet, by their live id: their
   * panel was closed, which leaves them waiting (counted, and answered like any other).
   */
  const resumed = new Map<string, { where: OfferPlace; title: string; openedAt: number }>();
  /** The offers already named in a notification (place, id and last save), not named again. */
  const announcedOffers = new Set<string>();

  /** Gives the keyboard back to the text editor the person was in. */
  const focusBack = async (): Promise<void> => {
    const editor = lastEditor;
    if (editor !== undefined && vscode.workspace.textDocuments.includes(editor.document)) {
      const options: vscode.TextDocumentShowOptions =
        editor.viewColumn === undefined ? { preserveFocus: false } : { viewColumn: editor.viewColumn, preserveFocus: false };
      await vscode.window.showTextDocument(editor.document, options);
    } else {
      await vscode.commands.executeCommand("workbench.action.focusFirstEditorGroup");
    }
  };

  /** Opens a question panel for `session`; when it closes with the keyboard, the keyboard goes back. */
  const openPanel = (session: string, title: string, focus: boolean): QuestionPanel => {
    const panel = openQuestionPanel(context.extensionUri, title, focus);
    panels.set(session, panel);
    const forget = (): void => {
      if (panels.get(session) === panel) panels.delete(session);
    };
    return {
      get active() {
        return panel.active;
      },
      reveal: () => panel.reveal(),
      post: (message) => panel.post(message),
      onMessage: (listener) => panel.onMessage(listener),
      onClosed: (listener) =>
        panel.onClosed(() => {
          forget();
          listener();
        }),
      close() {
        const hadKeyboard = panel.active;
        forget();
        panel.close();
        if (hadKeyboard) void focusBack();
      },
    };
  };

  const hub = new HubAttachment({
    locate: () => {
      const location = locate();
      return location.found ? location.path : undefined;
    },
    discoveryFile: processHubDiscoveryFile(),
    stat: (file) => {
      try {
        return { mtimeMs: fs.statSync(file).mtimeMs };
      } catch {
        return undefined;
      }
    },
    hubRuns: (enginePath) => hubRunsByStatus(enginePath),
    connect: (enginePath) => new Engine(enginePath, undefined, ["hub", "--pipe"]),
    client,
    pollMs: HUB_POLL_MS,
    log: (line) => output.appendLine(line),
  });

  /** Every question waiting, in the order they are answered. */
  const waiting = (): WaitingQuestion[] =>
    answerOrder([
      ...ownWaiting.values(),
      ...[...resumed.entries()]
        .filter(([session]) => !panels.has(session))
        .map(([session, flow]) => ({ session, label: flow.title, openedAt: flow.openedAt, where: "local" as const })),
      ...hub.waiting.map((entry) => ({
        session: entry.session,
        label: sessionLabel(entry),
        openedAt: typeof entry.openedAt === "number" ? entry.openedAt : Number.MAX_SAFE_INTEGER,
        where: "hub" as const,
      })),
    ]);

  const waitingItem = vscode.window.createStatusBarItem("askd.waiting", vscode.StatusBarAlignment.Right, 1);
  waitingItem.name = "askd: questions waiting";
  waitingItem.command = "askd.answer";
  const drawWaiting = (): void => {
    const questions = waiting();
    closeStaleNotices(questions);
    if (questions.length === 0) {
      waitingItem.hide();
      return;
    }
    waitingItem.text = waitingText(questions.length);
    waitingItem.tooltip = waitingTooltip(questions);
    waitingItem.show();
  };

  /**
   * The waiting notifications shown, each with the question it is about (none: it counts
   * several). Each is closed once what it announces no longer waits.
   */
  const notices = new Set<{ readonly session: string | undefined; close(): void }>();

  /** Closes the notifications of questions no longer waiting (of any, once none waits). */
  const closeStaleNotices = (questions: readonly WaitingQuestion[]): void => {
    for (const notice of [...notices]) {
      const over =
        notice.session === undefined
          ? questions.every((question) => panels.has(question.session))
          : !questions.some((question) => question.session === notice.session);
      if (over) notice.close();
    }
  };

  /** Closes the notifications about `session`, and those about none (the person went to it). */
  const closeNoticesOf = (session: string): void => {
    for (const notice of [...notices]) if (notice.session === session || notice.session === undefined) notice.close();
  };

  /**
   * Announces a question without moving the keyboard, in a notification whose **Answer** link
   * opens it. The notification goes away when the question no longer waits (answered here or
   * elsewhere, withdrawn, gone with the hub) or when the person dismisses it.
   */
  const announce = (message: string, session: string | undefined): void => {
    let close = (): void => undefined;
    const closed = new Promise<void>((resolve) => {
      close = resolve;
    });
    const notice = { session, close: () => close() };
    notices.add(notice);
    void vscode.window
      .withProgress(
        { location: vscode.ProgressLocation.Notification, title: withAnswerLink(message, session), cancellable: true },
        (_progress, dismissed) => {
          dismissed.onCancellationRequested(() => close());
          return closed;
        },
      )
      .then(() => notices.delete(notice));
  };

  /** Shows a flow of the hub in a panel of its own, until it is answered (here or elsewhere). */
  const showHubFlow = async (session: string, focus: boolean): Promise<void> => {
    const engine = hub.engine;
    const entry = hub.session(session);
    if (engine === undefined || entry === undefined) {
      void vscode.window.showWarningMessage("askd: that question is no longer waiting.");
      return;
    }
    const outcome = await runFlow({
      engine,
      attachTo: session,
      openPanel: () => openPanel(session, entry.title ?? session, focus),
      look: look(),
      focus,
      token: undefined,
      readyWaitMs: READY_WAIT_MS,
      warn: (message) => void vscode.window.showWarningMessage(message),
    });
    if (outcome.left === undefined) {
      hub.ended(session);
      output.appendLine(`hub: session ${outcome.session} ended (${outcome.outcome ?? "done"})`);
      output.appendLine(JSON.stringify(outcome.result, null, 2));
      finished.fire({ ...outcome, source: "hub" });
    }
    const left = waiting().filter((question) => !panels.has(question.session));
    if (outcome.left !== "closed" && left.length > 0) {
      announce(stillWaitingMessage(left.length), undefined);
    }
  };

  /**
   * Takes the person to a question, with the keyboard: `session`'s, else the oldest waiting one.
   * An open panel is brought forward; a question of the hub gets a panel.
   */
  const answer = async (session?: string): Promise<void> => {
    const target = session ?? waiting()[0]?.session ?? [...panels.keys()][0];
    if (target === undefined) {
      void vscode.window.showInformationMessage("askd: no question is waiting.");
      return;
    }
    closeNoticesOf(target);
    const panel = panels.get(target);
    if (panel !== undefined) {
      panel.reveal();
      return;
    }
    if (hub.session(target) !== undefined) {
      try {
        await showHubFlow(target, true);
      } catch (error) {
        reportFailure(error);
      }
      return;
    }
    const flow = resumed.get(target);
    if (flow !== undefined) {
      await showResumed(target, flow.where, true);
      return;
    }
    void vscode.window.showWarningMessage("askd: that question is no longer waiting.");
  };

  /** The engine that holds offers of `where`, and how to give it back. */
  const engineOf = async (where: OfferPlace): Promise<{ engine: Engine; release(): void }> => {
    if (where === "hub") {
      const engine = hub.engine;
      if (engine === undefined) throw new AskdError("askd: the hub is no longer attached.");
      return { engine, release: () => undefined };
    }
    const engine = await host.acquire();
    return { engine, release: () => host.release(engine) };
  };

  /** Names the offers not named yet in a notification: Resume, Discard… (confirmed), Later. */
  const announceOffers = (offers: readonly Offer[]): void => {
    const key = (offer: Offer): string => `${offer.where}\n${offer.session}\n${offer.savedAt}`;
    const fresh = offers.filter((offer) => !announcedOffers.has(key(offer)));
    const first = fresh[0];
    if (first === undefined) return;
    for (const offer of fresh) announcedOffers.add(key(offer));
    void vscode.window.showInformationMessage(offersMessage(fresh), RESUME, DISCARD, LATER).then((choice) => {
      if (choice === RESUME) void (fresh.length === 1 ? resumeFlow(first) : recoverFlow());
      else if (choice === DISCARD) void (fresh.length === 1 ? confirmDiscard(first) : recoverFlow());
    });
  };

  /** Lists the offers of a new engine (or of the hub just attached) and names them. */
  const lookForOffers = (engine: RecoveryEngine, where: OfferPlace): void => {
    listOffers(engine, where).then(announceOffers, (error: unknown) =>
      output.appendLine(`recovery: the unfinished flows could not be listed: ${error instanceof Error ? error.message : String(error)}`),
    );
  };

  /** Every offer, of the window's engine and of the hub, the most recently saved first. */
  const allOffers = async (): Promise<Offer[]> => {
    const offers: Offer[] = [];
    for (const where of ["local", "hub"] as const) {
      if (where === "hub" && hub.engine === undefined) continue;
      const lease = await engineOf(where);
      try {
        offers.push(...(await listOffers(lease.engine, where)));
      } finally {
        lease.release();
      }
    }
    return offers.sort((a, b) => b.savedAt - a.savedAt);
  };

  /** Resumes an offer exactly where it was, in a panel with the keyboard. */
  const resumeFlow = async (offer: Offer): Promise<void> => {
    let id: string;
    try {
      const lease = await engineOf(offer.where);
      try {
        id = await resumeOffer(lease.engine, offer, firstFolder());
      } finally {
        lease.release();
      }
    } catch (error) {
      reportFailure(error instanceof AskdError && error.code === ErrorCode.unknownSession ? new AskdError(OFFER_GONE) : error);
      return;
    }
    resumed.set(id, { where: offer.where, title: offer.title ?? offer.session, openedAt: offer.openedAt });
    await showResumed(id, offer.where, true);
  };

  /**
   * Shows a resumed flow in a panel until it ends: its result then goes where every result
   * goes. Closing the panel leaves it waiting; an engine that dies offers it again.
   */
  const showResumed = async (session: string, where: OfferPlace, focus: boolean): Promise<void> => {
    const flow = resumed.get(session);
    if (flow === undefined) return;
    let lease: { engine: Engine; release(): void } | undefined;
    try {
      lease = await engineOf(where);
      const engine = lease.engine;
      const outcome = await runFlow({
        engine,
        attachTo: session,
        openPanel: () => openPanel(session, flow.title, focus),
        look: look(),
        focus,
        token: undefined,
        readyWaitMs: READY_WAIT_MS,
        warn: (message) => void vscode.window.showWarningMessage(message),
      });
      if (outcome.left !== undefined) return;
      resumed.delete(session);
      // Its result has been taken: the engine may forget it.
      engine.request("close", { session }).catch(() => undefined);
      output.appendLine(`recovered: session ${session} ended (${outcome.outcome ?? "done"})`);
      output.appendLine(JSON.stringify(outcome.result, null, 2));
      finished.fire({ ...outcome, source: "recovered" });
      void vscode.window
        .showInformationMessage(`askd: ${summarise(outcome.result)}`, SHOW_RESULT)
        .then((choice) => choice === SHOW_RESULT && output.show(true));
    } catch (error) {
      // The engine went away with it: the next one offers it again.
      resumed.delete(session);
      reportFailure(error);
    } finally {
      lease?.release();
      drawWaiting();
    }
  };

  /** Asks the person to confirm, then discards the offer and its files. */
  const confirmDiscard = async (offer: Offer): Promise<void> => {
    const choice = await vscode.window.showWarningMessage(discardQuestion(offer), { modal: true }, CONFIRM_DISCARD);
    if (choice !== CONFIRM_DISCARD) return;
    try {
      const lease = await engineOf(offer.where);
      let discarded: boolean;
      try {
        discarded = await discardOffer(lease.engine, offer);
      } finally {
        lease.release();
      }
      if (discarded) {
        output.appendLine(`recovery: discarded ${offer.session}`);
        void vscode.window.showInformationMessage(`askd: discarded ${offerName(offer)}.`);
      } else {
        void vscode.window.showWarningMessage(OFFER_GONE);
      }
    } catch (error) {
      reportFailure(error);
    }
  };

  /**
   * `askd: Recover Unfinished Flow…`: a quick pick of every offer (what it asked, when, how far
   * it got, whether something was typed); picking one resumes it, its trash button discards it
   * (once confirmed).
   */
  const recoverFlow = async (): Promise<void> => {
    let offers: Offer[];
    try {
      offers = await allOffers();
    } catch (error) {
      reportFailure(error);
      return;
    }
    if (offers.length === 0) {
      void vscode.window.showInformationMessage("askd: no unfinished flow to recover.");
      return;
    }
    const chosen = await pickOffer(offers);
    if (chosen === undefined) return;
    if (chosen.action === "resume") await resumeFlow(chosen.offer);
    else await confirmDiscard(chosen.offer);
  };

  /** The key of `askd.focusQuestion`: to the question, and back to the editor. */
  const toggleFocus = async (): Promise<void> => {
    if ([...panels.values()].some((panel) => panel.active)) {
      await focusBack();
      return;
    }
    await answer();
  };

  hub.onDidChange(drawWaiting);
  hub.onDidArrive((entry) => {
    const question = waiting().find((candidate) => candidate.session === entry.session);
    if (question !== undefined) announce(arrivalMessage(question, waiting().length), entry.session);
  });
  hub.onDidAttach((already) => {
    if (already.length > 0) announce(attachedMessage(already.length), undefined);
    const engine = hub.engine;
    if (engine !== undefined) lookForOffers(engine, "hub");
  });
  const followAttachSetting = (): void => {
    if (configuration().get<boolean>("attachToHub") === false) hub.stop();
    else hub.start();
  };

  const ask = async (payload: unknown, options: AskOptions, source: AskSource): Promise<FinishedAsk> => {
    const engine = await host.acquire();
    sessions += 1;
    let session = options.session ?? `vscode-${sessions}`;
    // A flow resumed in this window keeps its id: a new one takes the next free number.
    while (options.session === undefined && (panels.has(session) || resumed.has(session))) {
      sessions += 1;
      session = `vscode-${sessions}`;
    }
    // A question the person asked for (a command they ran) takes the keyboard; one that
    // arrives while they work waits beside, announced.
    const focus = options.focus ?? (source === "demo" || source === "file");
    const title = panelTitle(payload);
    try {
      const settings = readSettings((key) => configuration().get(key));
      if (!focus) {
        ownWaiting.set(session, { session, label: title, openedAt: Date.now(), where: "local" });
        drawWaiting();
        announce(arrivalMessage({ session, label: title, openedAt: 0, where: "local" }, waiting().length), session);
      }
      const outcome = await runFlow({
        engine,
        openPanel: () => openPanel(session, title, focus),
        openParams: (columns) => openParams(payload, options, settings, { session, width: columns, cwd: firstFolder() }),
        look: look(),
        focus,
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
      ownWaiting.delete(session);
      drawWaiting();
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
    if (error instanceof EngineNotFound) {
      // Where the person looks for it: the settings editor, at askd.path.
      void vscode.window.showErrorMessage(message, OPEN_SETTINGS).then((choice) => {
        if (choice === OPEN_SETTINGS) void vscode.commands.executeCommand("workbench.action.openSettings", "askd.path");
      });
      return;
    }
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
    waitingItem,
    { dispose: () => host.dispose() },
    { dispose: () => hub.stop() },
    vscode.window.onDidChangeActiveTextEditor((editor) => {
      if (editor !== undefined) lastEditor = editor;
    }),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration("askd.attachToHub")) followAttachSetting();
    }),
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
    vscode.commands.registerCommand("askd.answer", (session?: unknown) =>
      answer(typeof session === "string" ? session : undefined),
    ),
    vscode.commands.registerCommand("askd.focusQuestion", toggleFocus),
    vscode.commands.registerCommand("askd.recover", recoverFlow),
    // Bound to keys the flow uses (ctrl+w, ctrl+k, …) while the panel is active, so that the
    // workbench does not also act on them (close the editor, start a chord): the panel's page
    // has already sent them to the engine.
    vscode.commands.registerCommand("askd.keepKeyInFlow", () => undefined),
  );
  followAttachSetting();
  // The engine starts with the window, so that the flows an ended one left unfinished are
  // offered at once (a missing engine is said when a flow needs it, not here).
  host.acquire().then(
    (engine) => host.release(engine),
    () => undefined,
  );
  return api;
}

/** The words for an offer that another window (or engine) resumed or discarded meanwhile. */
const OFFER_GONE = "askd: that unfinished flow is no longer offered (resumed or discarded elsewhere).";

/** What the person did in the quick pick of offers. */
interface OfferChoice {
  readonly offer: Offer;
  readonly action: "resume" | "discard";
}

/** The quick pick of `askd: Recover Unfinished Flow…`. */
function pickOffer(offers: readonly Offer[]): Promise<OfferChoice | undefined> {
  type Item = vscode.QuickPickItem & { offer: Offer };
  const discardButton: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon("trash"), tooltip: "Discard…" };
  const pick = vscode.window.createQuickPick<Item>();
  pick.title = "askd: Recover Unfinished Flow";
  pick.placeholder = "Pick a flow to resume it where it was (the trash button discards it)";
  pick.matchOnDetail = true;
  pick.items = offers.map((offer) => ({
    label: offerName(offer),
    detail: offerState(offer),
    ...(offer.where === "hub" ? { description: "in the hub" } : {}),
    buttons: [discardButton],
    offer,
  }));
  return new Promise((resolve) => {
    let chosen: OfferChoice | undefined;
    pick.onDidAccept(() => {
      const item = pick.selectedItems[0];
      if (item !== undefined) chosen = { offer: item.offer, action: "resume" };
      pick.hide();
    });
    pick.onDidTriggerItemButton((event) => {
      chosen = { offer: event.item.offer, action: "discard" };
      pick.hide();
    });
    pick.onDidHide(() => {
      pick.dispose();
      resolve(chosen);
    });
    pick.show();
  });
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
