/**
 * One askd process, spoken to with vscode-jsonrpc over its standard input and output
 * (`Content-Length` framing, which the engine detects from the first bytes), and the host that
 * keeps one such process for every flow and starts a new one when it has died.
 */

import * as childProcess from "node:child_process";
import {
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
  ResponseError,
  ErrorCodes as RpcErrorCodes,
  type MessageConnection,
} from "vscode-jsonrpc/node";
import type { EngineLocation } from "./discovery";
import {
  STDERR_LINES_KEPT,
  engineConnectionFailed,
  engineCouldNotStart,
  engineExited,
  engineRefused,
  engineSilent,
} from "./messages";

/** A failure the extension reports to a person (and to the extension that asked). */
export class AskdError extends Error {
  /** The JSON-RPC error code when the engine refused a request. */
  readonly code: number | undefined;
  /** The JSON-RPC error data when the engine refused a request. */
  readonly data: unknown;

  /** A failure with the text shown to the person. */
  constructor(message: string, code?: number, data?: unknown) {
    super(message);
    this.name = "AskdError";
    this.code = code;
    this.data = data;
  }
}

/**
 * The engine could not be found or started: the `askd.path` setting (or `PATH`) is where the
 * person fixes it, and the notification offers to open it.
 */
export class EngineNotFound extends AskdError {
  /** A failure with the text shown to the person. */
  constructor(message: string) {
    super(message);
    this.name = "EngineNotFound";
  }
}

/** The JSON-RPC error codes of the engine that the extension reacts to. */
export const ErrorCode = {
  /** No session (or no recovered flow) has that id. */
  unknownSession: -32001,
  /** The session has already completed. */
  sessionCompleted: -32002,
  /** A limit (text size, message size, session count) refused the request. */
  limitExceeded: -32004,
} as const;

/** The codes vscode-jsonrpc itself fails a request with when the connection breaks. */
const CONNECTION_FAILURES: ReadonlySet<number> = new Set([
  RpcErrorCodes.MessageWriteError,
  RpcErrorCodes.MessageReadError,
  RpcErrorCodes.PendingResponseRejected,
  RpcErrorCodes.ConnectionInactive,
]);

/** How long a failed connection waits for its process to end, to report how it ended. */
const EXIT_WAIT_MS = 2000;

/** Resolves after `ms` milliseconds. */
function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** How the extension starts a process (`child_process.spawn` unless a test replaces it). */
export type Spawn = (command: string, args: readonly string[]) => childProcess.ChildProcess;

/** The version the extension reports in `initialize`. */
export interface ClientInfo {
  readonly name: string;
  readonly version: string;
}

/** One running engine process. */
export class Engine {
  /** The executable this process runs. */
  readonly path: string;
  private readonly child: childProcess.ChildProcess;
  private readonly connection: MessageConnection;
  private readonly stderrTail: string[] = [];
  private stderrPartial = "";
  private exitMessage: string | undefined;
  private readonly exitListeners: Array<(message: string) => void> = [];
  private readonly notificationListeners = new Map<string, Array<(params: unknown) => void>>();
  private readonly exited: Promise<never>;
  /** Rejects once the engine's output has closed: no answer can come any more. */
  private readonly outputClosed: Promise<never>;
  private disposed = false;

  /**
   * Starts `path` with `args`: `askd serve` (the default) on its default framing detection, or
   * `askd hub --pipe`, the hub relayed over the same pipes.
   */
  constructor(
    path: string,
    spawn: Spawn = (command, args) => childProcess.spawn(command, args),
    args: readonly string[] = ["serve"],
  ) {
    this.path = path;
    let rejectExited: (error: AskdError) => void = () => undefined;
    this.exited = new Promise<never>((_resolve, reject) => {
      rejectExited = reject;
    });
    // Nobody may be waiting when the process ends: that is not an unhandled failure.
    this.exited.catch(() => undefined);
    let rejectOutputClosed: (error: Error) => void = () => undefined;
    this.outputClosed = new Promise<never>((_resolve, reject) => {
      rejectOutputClosed = reject;
    });
    this.outputClosed.catch(() => undefined);
    this.child = spawn(path, args);
    const { stdin, stdout, stderr } = this.child;
    if (stdin === null || stdout === null || stderr === null) {
      throw new AskdError(engineCouldNotStart(path, "its standard streams are not pipes"));
    }
    this.connection = createMessageConnection(
      new StreamMessageReader(stdout),
      new StreamMessageWriter(stdin),
    );
    stdin.on("error", () => undefined);
    stderr.setEncoding("utf8");
    stderr.on("data", (chunk: string) => this.keepStderr(chunk));
    const end = (message: string, notStarted = false): void => {
      if (this.exitMessage !== undefined) {
        return;
      }
      this.exitMessage = message;
      rejectExited(notStarted ? new EngineNotFound(message) : new AskdError(message));
      this.connection.dispose();
      for (const listener of this.exitListeners.splice(0)) {
        listener(message);
      }
    };
    this.child.on("error", (error) => end(engineCouldNotStart(path, error.message), true));
    this.child.on("close", (code, signal) => {
      this.flushStderr();
      end(engineExited(path, code, signal, this.stderrTail));
    });
    this.connection.onError(() => undefined);
    // The output can close while the process lives on for a moment (a hub relay whose hub was
    // killed): the requests waiting then fail instead of waiting for answers that cannot come.
    this.connection.onClose(() => rejectOutputClosed(new Error("its output closed")));
    this.connection.onNotification((method: string, params: unknown) => {
      for (const listener of [...(this.notificationListeners.get(method) ?? [])]) {
        listener(params);
      }
    });
    this.connection.listen();
  }

  /** True until the process has ended (or failed to start). */
  get alive(): boolean {
    return this.exitMessage === undefined && !this.disposed;
  }

  /** Calls `listener` once with the exit message when the process ends (until disposed). */
  onExit(listener: (message: string) => void): { dispose(): void } {
    if (this.exitMessage !== undefined) {
      listener(this.exitMessage);
      return { dispose: () => undefined };
    }
    this.exitListeners.push(listener);
    return {
      dispose: () => {
        const index = this.exitListeners.indexOf(listener);
        if (index >= 0) {
          this.exitListeners.splice(index, 1);
        }
      },
    };
  }

  /**
   * Calls `listener` with the params of every `session/changed` notification the engine sends
   * (a subscribed session changed by no request of this connection: its deadline passed).
   */
  onSessionChanged(listener: (params: unknown) => void): { dispose(): void } {
    return this.onNotification("session/changed", listener);
  }

  /** Calls `listener` with the params of every notification `method` the engine sends. */
  onNotification(method: string, listener: (params: unknown) => void): { dispose(): void } {
    const listeners = this.notificationListeners.get(method) ?? [];
    listeners.push(listener);
    this.notificationListeners.set(method, listeners);
    return {
      dispose: () => {
        const index = listeners.indexOf(listener);
        if (index >= 0) {
          listeners.splice(index, 1);
        }
      },
    };
  }

  /**
   * Sends a request and resolves with its result; rejects with an {@link AskdError} carrying
   * the engine's error (code, data, message) or how the process ended.
   */
  async request<T>(method: string, params: object | undefined): Promise<T> {
    if (this.exitMessage !== undefined) {
      throw new AskdError(this.exitMessage);
    }
    let sent: Promise<T> | undefined;
    try {
      // Without params the request has none (vscode-jsonrpc would send `[null]` for undefined).
      // A connection already closed throws here, before there is a promise.
      sent =
        params === undefined
          ? this.connection.sendRequest<T>(method)
          : this.connection.sendRequest<T>(method, params);
      return await Promise.race([sent, this.exited, this.outputClosed]);
    } catch (error) {
      if (error instanceof ResponseError && !CONNECTION_FAILURES.has(error.code)) {
        throw new AskdError(engineRefused(error.message), error.code, error.data);
      }
      if (error instanceof AskdError) {
        throw error;
      }
      // The connection failed: the process is going, and how it ended says more.
      const reason = error instanceof Error ? error.message : String(error);
      await Promise.race([this.exited, delay(EXIT_WAIT_MS)]);
      throw new AskdError(engineConnectionFailed(this.path, reason));
    } finally {
      sent?.catch(() => undefined);
    }
  }

  /**
   * Sends `initialize` and waits at most `waitMs` for the answer: a program that is not askd
   * (or hangs) is reported instead of leaving a flow waiting.
   */
  async initialize(client: ClientInfo, waitMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const silent = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new AskdError(engineSilent(this.path, waitMs))), waitMs);
    });
    try {
      await Promise.race([this.request("initialize", { clientInfo: client }), silent]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Ends the process: `exit` first, then a signal if it is still there. */
  dispose(): void {
    if (this.disposed) {
      return;
    }
    this.disposed = true;
    if (this.exitMessage === undefined) {
      // The connection may already be closed (the process is going away on
      // its own); `sendNotification` then throws before it returns a promise.
      try {
        this.connection.sendNotification("exit").catch(() => undefined);
      } catch {
        // Nothing to tell: the signal below ends whatever is left.
      }
      this.child.stdin?.end();
      const kill = setTimeout(() => this.child.kill(), 1000);
      kill.unref();
      this.child.on("close", () => clearTimeout(kill));
    }
  }

  private keepStderr(chunk: string): void {
    const lines = (this.stderrPartial + chunk).split(/\r?\n/);
    this.stderrPartial = lines.pop() ?? "";
    for (const line of lines) {
      this.keepLine(line);
    }
  }

  private flushStderr(): void {
    if (this.stderrPartial !== "") {
      this.keepLine(this.stderrPartial);
      this.stderrPartial = "";
    }
  }

  private keepLine(line: string): void {
    if (line.trim() === "") {
      return;
    }
    this.stderrTail.push(line);
    if (this.stderrTail.length > STDERR_LINES_KEPT) {
      this.stderrTail.shift();
    }
  }
}

/** How the host finds and starts engines; tests replace the parts. */
export interface EngineHostOptions {
  /** Finds the engine (re-run on every start, so that a changed setting applies). */
  locate(): EngineLocation;
  /** Starts an engine at a path. */
  start(path: string): Engine;
  /** What `initialize` reports. */
  readonly client: ClientInfo;
  /** How long a new engine may take to answer `initialize`. */
  readonly initializeWaitMs: number;
  /** Called with each engine once it has answered `initialize` (the extension looks for offers). */
  started?(engine: Engine): void;
}

/**
 * Keeps one engine for every flow. A flow takes it with {@link acquire} and gives it back with
 * {@link release}; a dead engine is replaced on the next {@link acquire}, and an engine whose
 * path is no longer the one discovery finds is ended once its last flow gives it back.
 */
export class EngineHost {
  private current: Engine | undefined;
  private starting: Promise<Engine> | undefined;
  private readonly users = new Map<Engine, number>();
  private readonly retired = new Set<Engine>();
  private disposed = false;

  /** A host that starts engines as `options` says. */
  constructor(private readonly options: EngineHostOptions) {}

  /** The engine to use now, started (and initialised) if needed. */
  async acquire(): Promise<Engine> {
    const location = this.options.locate();
    if (!location.found) {
      throw new EngineNotFound(location.message);
    }
    const current = this.current;
    if (current !== undefined && current.alive && current.path === location.path) {
      this.use(current);
      return current;
    }
    if (this.starting === undefined) {
      this.starting = this.startAt(location.path).finally(() => {
        this.starting = undefined;
      });
    }
    const engine = await this.starting;
    this.use(engine);
    return engine;
  }

  /** Gives back an engine taken with {@link acquire}. */
  release(engine: Engine): void {
    const count = (this.users.get(engine) ?? 1) - 1;
    if (count > 0) {
      this.users.set(engine, count);
      return;
    }
    this.users.delete(engine);
    if (this.retired.delete(engine)) {
      engine.dispose();
    }
  }

  /** Ends every engine (the extension is being deactivated), and one still starting once started. */
  dispose(): void {
    this.disposed = true;
    this.current?.dispose();
    for (const engine of this.retired) {
      engine.dispose();
    }
    this.retired.clear();
    this.current = undefined;
  }

  private use(engine: Engine): void {
    this.users.set(engine, (this.users.get(engine) ?? 0) + 1);
  }

  private async startAt(path: string): Promise<Engine> {
    const previous = this.current;
    this.current = undefined;
    if (previous !== undefined) {
      if (previous.alive && (this.users.get(previous) ?? 0) > 0) {
        this.retired.add(previous);
      } else {
        previous.dispose();
      }
    }
    const engine = this.options.start(path);
    try {
      await engine.initialize(this.options.client, this.options.initializeWaitMs);
    } catch (error) {
      engine.dispose();
      throw error;
    }
    if (this.disposed) {
      // Deactivated while it started: nothing may keep it running.
      engine.dispose();
      throw new AskdError("askd: the extension was deactivated while the engine started.");
    }
    this.current = engine;
    this.options.started?.(engine);
    return engine;
  }
}
