/**
 * One ask: a session of the engine shown in one question panel. The panel's page sends the
 * person's keys as engine requests; the flow forwards them (only for its own session) and
 * answers the page with the engine's Steps. The flow ends when a Step comes back done, when
 * the person closes the panel (cancelled as closed by the client), when the asker's
 * cancellation token fires (aborted by the asker), when the deadline of `timeoutMs` passes
 * (the engine's timer ends it, and the flow hears of it through its subscription to the
 * session), or when the engine dies.
 *
 * A flow can also show a session opened elsewhere (in the hub, by an agent's glue): it is never
 * opened, cancelled or closed by this flow. It ends when a Step comes back done (the person
 * answered here, or another client did), when the hub closes it, or when the person closes the
 * panel, which leaves the question waiting for another client or a later answer.
 */

import { AskdError, ErrorCode } from "./engine";
import { panelDidNotLoad, panelFailed } from "./messages";
import type { OpenParams } from "./params";
import {
  PAGE_METHODS,
  isPageMessage,
  isStep,
  type HostMessage,
  type PageMessage,
  type RpcError,
  type Step,
  type Transcript,
} from "./protocol";

/** The engine as a flow uses it (an {@link Engine}, or a stand-in in tests). */
export interface FlowEngine {
  request<T>(method: string, params: object | undefined): Promise<T>;
  onExit(listener: (message: string) => void): Disposable;
  /** Calls `listener` with the params of every `session/changed` notification. */
  onSessionChanged(listener: (params: unknown) => void): Disposable;
  /** Calls `listener` with the params of every notification `method` (the hub's `session/closed`). */
  onNotification?(method: string, listener: (params: unknown) => void): Disposable;
}

/** Something that can be undone. */
export interface Disposable {
  dispose(): void;
}

/** The question panel as a flow uses it (a webview panel, or a stand-in in tests). */
export interface FlowPanel {
  /** Sends a message to the page. */
  post(message: HostMessage): void;
  /** Calls `listener` with every message the page sends. */
  onMessage(listener: (message: unknown) => void): Disposable;
  /** Calls `listener` when the person closes the panel. */
  onClosed(listener: () => void): Disposable;
  /** Closes the panel (the flow has ended). */
  close(): void;
}

/** The part of a `vscode.CancellationToken` a flow uses. */
export interface AbortSignalLike {
  readonly isCancellationRequested: boolean;
  onCancellationRequested(listener: () => void): Disposable;
}

/** How a flow ended. */
export interface FlowOutcome {
  /** The session id. */
  readonly session: string;
  /** The engine's result: the pi `ask_user` output, or the dsh `{ answer }` / `{ error }`. */
  readonly result: unknown;
  /** The chat-log texts of the flow. */
  readonly transcript: Transcript | undefined;
  /** `submit`, `elaborate`, `cancelled`, `aborted`, `invalid`, … (the view's `outcome`). */
  readonly outcome: string | null;
  /**
   * Only for a session shown from elsewhere: it ended here without an answer — the panel was
   * closed (`closed`: the question still waits) or the hub closed the session (`gone`).
   */
  readonly left?: "closed" | "gone";
}

/** What one flow needs. */
export interface FlowSetup {
  readonly engine: FlowEngine;
  /** Opens the panel (called only when the flow needs one). */
  readonly openPanel: () => FlowPanel;
  /** The params of `open`, given the columns the panel's page measured. */
  readonly openParams?: (columns: number) => OpenParams;
  /** A session opened elsewhere (in the hub) to show instead of opening one. */
  readonly attachTo?: string;
  /** How the page draws the flow: `form` (semantic widgets) or `terminal` (the rendered lines). */
  readonly look?: "form" | "terminal";
  /** Whether the page takes the keyboard when the flow starts (the person asked for it). */
  readonly focus?: boolean;
  /** The asker's cancellation. */
  readonly token: AbortSignalLike | undefined;
  /** How long the page may take to report that it has loaded. */
  readonly readyWaitMs: number;
  /** Shows a warning that does not end the flow (a limit refused a key). */
  readonly warn: (message: string) => void;
}

/** The columns a flow opens at when it has no panel to measure (an ask aborted at once). */
export const COLUMNS_WITHOUT_PANEL = 80;

/** Runs one flow to its end. */
export function runFlow(setup: FlowSetup): Promise<FlowOutcome> {
  return new Flow(setup).run();
}

class Flow {
  private panel: FlowPanel | undefined;
  private session: string | undefined;
  private sessionWidth = 0;
  private finished = false;
  private readonly disposables: Disposable[] = [];
  private resolve: (outcome: FlowOutcome) => void = () => undefined;
  private reject: (error: Error) => void = () => undefined;

  constructor(private readonly setup: FlowSetup) {}

  run(): Promise<FlowOutcome> {
    const done = new Promise<FlowOutcome>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    this.disposables.push(
      this.setup.engine.onExit((message) => this.fail(new AskdError(message))),
      this.setup.engine.onSessionChanged((params) => this.onSessionChanged(params)),
    );
    const attached = this.setup.attachTo;
    if (attached !== undefined && this.setup.engine.onNotification !== undefined) {
      this.disposables.push(
        this.setup.engine.onNotification("session/closed", (params) => {
          if ((params as { session?: unknown } | null)?.session === attached) {
            this.leave("gone");
          }
        }),
      );
    }
    const token = this.setup.token;
    if (token?.isCancellationRequested) {
      void this.openWithoutPanel();
    } else {
      this.showPanel();
    }
    return done;
  }

  /** An ask withdrawn before it began: opened and aborted at once, with no panel shown. */
  private async openWithoutPanel(): Promise<void> {
    try {
      const step = await this.open(COLUMNS_WITHOUT_PANEL);
      if (step.status === "done") {
        this.finish(step);
      } else {
        await this.abort();
      }
    } catch (error) {
      this.fail(error);
    }
  }

  private showPanel(): void {
    const panel = this.setup.openPanel();
    this.panel = panel;
    const timer = setTimeout(() => {
      this.fail(new AskdError(panelDidNotLoad(this.setup.readyWaitMs)));
    }, this.setup.readyWaitMs);
    this.disposables.push({ dispose: () => clearTimeout(timer) });
    this.disposables.push(
      panel.onMessage((message) => {
        if (isPageMessage(message)) {
          this.onPageMessage(message, () => clearTimeout(timer));
        }
      }),
      panel.onClosed(() => {
        this.panel = undefined;
        if (this.setup.attachTo !== undefined) {
          this.leave("closed");
        } else {
          void this.cancelBy("closed");
        }
      }),
    );
    const token = this.setup.token;
    if (token !== undefined) {
      this.disposables.push(token.onCancellationRequested(() => void this.abort()));
    }
  }

  private onPageMessage(message: PageMessage, loaded: () => void): void {
    switch (message.kind) {
      case "ready":
        loaded();
        void this.start(message.columns);
        return;
      case "request":
        void this.forward(message.id, message.method, message.params);
        return;
      case "error":
        this.fail(new AskdError(panelFailed(message.message)));
        return;
    }
  }

  private async open(columns: number): Promise<Step> {
    const attached = this.setup.attachTo;
    if (attached !== undefined) {
      // The session's Steps come at the panel's width from now on; its view is read at it.
      this.sessionWidth = columns;
      await this.setup.engine.request("subscribe", { session: attached, width: columns });
      const view = await this.setup.engine.request<Step["view"] & { status?: unknown; version?: unknown }>(
        "getView",
        { session: attached, width: columns },
      );
      this.session = attached;
      const status = view.status === "done" ? "done" : "open";
      const step: Step = { session: attached, status, view };
      if (status === "done") {
        const result = await this.setup.engine.request<unknown>("getResult", { session: attached });
        return { ...step, result };
      }
      return step;
    }
    if (this.setup.openParams === undefined) {
      throw new AskdError("askd: a flow needs either open params or a session to show.");
    }
    const params = this.setup.openParams(columns);
    this.sessionWidth = params.width;
    if (params.timeoutMs !== undefined) {
      // Subscribed before it opens, the flow is told when the engine's timer ends it.
      await this.setup.engine.request("subscribe", { session: params.session });
    }
    const step = await this.setup.engine.request<Step>("open", params);
    this.session = step.session;
    return step;
  }

  private async start(columns: number): Promise<void> {
    if (this.session !== undefined || this.finished) {
      return;
    }
    try {
      const step = await this.open(columns);
      if (this.finished) {
        return;
      }
      if (step.status === "done") {
        this.finish(step);
        return;
      }
      this.panel?.post({
        kind: "start",
        step,
        stepWidth: this.sessionWidth,
        look: this.setup.look ?? "terminal",
        focus: this.setup.focus ?? true,
      });
      if (this.setup.token?.isCancellationRequested) {
        await this.abort();
      }
    } catch (error) {
      this.fail(error);
    }
  }

  /** Forwards a page request to the engine and answers the page. */
  private async forward(id: number, method: string, params: unknown): Promise<void> {
    const session = this.session;
    const refuse = (error: RpcError): void => this.panel?.post({ kind: "response", id, error });
    if (session === undefined || this.finished) {
      refuse({ code: ErrorCode.sessionCompleted, message: "the flow has ended" });
      return;
    }
    if (!PAGE_METHODS.has(method)) {
      refuse({ code: -32601, message: `method not available to the panel: ${method}` });
      return;
    }
    const own = typeof params === "object" && params !== null && !Array.isArray(params) ? params : {};
    try {
      const result = await this.setup.engine.request<unknown>(method, { ...own, session });
      this.panel?.post({ kind: "response", id, result });
      if (isStep(result, session) && result.status === "done") {
        this.finish(result);
      }
    } catch (error) {
      const failure = error instanceof AskdError ? error : new AskdError(String(error));
      if (failure.code === undefined) {
        this.fail(failure);
        return;
      }
      if (failure.code === ErrorCode.limitExceeded) {
        this.setup.warn(failure.message);
      }
      refuse({ code: failure.code, message: failure.message, data: failure.data });
    }
  }

  /** A change the engine made by itself: a flow that timed out is done, and the page is told. */
  private onSessionChanged(params: unknown): void {
    const session = this.session;
    if (session === undefined || this.finished || !isStep(params, session) || params.status !== "done") {
      return;
    }
    this.panel?.post({ kind: "notification", method: "session/changed", params });
    this.finish(params);
  }

  /** Ends the flow as cancelled: its panel closed (`closed`), or withdrawn by the asker (`abort`). */
  private async cancelBy(reason: "closed" | "abort"): Promise<void> {
    const session = this.session;
    if (this.finished) {
      return;
    }
    if (session === undefined) {
      if (reason === "closed") {
        // Closed before the session opened: there is nothing for the engine to cancel.
        this.fail(new AskdError("askd: the question panel was closed before the flow opened."));
      }
      return;
    }
    try {
      const step = await this.setup.engine.request<Step>("cancel", { session, reason });
      if (reason === "abort") {
        this.panel?.post({ kind: "notification", method: "session/changed", params: step });
      }
      this.finish(step);
    } catch (error) {
      if (error instanceof AskdError && error.code === ErrorCode.sessionCompleted) {
        // The flow completed meanwhile: its Step is on its way to the page.
        return;
      }
      this.fail(error);
    }
  }

  private abort(): Promise<void> {
    return this.cancelBy("abort");
  }

  private finish(step: Step): void {
    if (this.finished) {
      return;
    }
    this.finished = true;
    this.release();
    if (this.setup.attachTo === undefined) {
      // The flow's own session: its result has been taken, the engine may forget it. A session
      // shown from the hub is its opener's to close.
      this.setup.engine.request("close", { session: step.session }).catch(() => undefined);
    }
    this.resolve({
      session: step.session,
      result: step.result,
      transcript: step.transcript,
      outcome: step.view.outcome ?? null,
    });
  }

  /** A session shown from elsewhere is left without an answer: `closed` here, or `gone` there. */
  private leave(why: "closed" | "gone"): void {
    if (this.finished) {
      return;
    }
    this.finished = true;
    this.release();
    this.resolve({ session: this.setup.attachTo ?? "", result: undefined, transcript: undefined, outcome: null, left: why });
  }

  private fail(error: unknown): void {
    if (this.finished) {
      return;
    }
    this.finished = true;
    this.release();
    if (this.session !== undefined && this.setup.attachTo === undefined) {
      this.setup.engine.request("close", { session: this.session }).catch(() => undefined);
    }
    this.reject(error instanceof Error ? error : new AskdError(String(error)));
  }

  private release(): void {
    for (const disposable of this.disposables.splice(0)) {
      disposable.dispose();
    }
    const panel = this.panel;
    this.panel = undefined;
    panel?.close();
  }
}
