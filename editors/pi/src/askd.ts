// A connection to askd: JSON-RPC 2.0 as newline-delimited JSON, over the standard input and
// output of an `askd serve` child process or over a WebSocket to the hub. Requests are answered
// in order of arrival; notifications (`session/*`) go to the listeners.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";

export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

export class AskdError extends Error {
  readonly code: number;
  readonly data: unknown;
  constructor(method: string, error: RpcError) {
    super(`askd ${method}: ${error.message}`);
    this.code = error.code;
    this.data = error.data;
  }
}

/** A Step, as every session method answers it (protocol/README.md, "The Step"). */
export interface Step {
  session: string;
  status: "open" | "done";
  version: number;
  view: View;
  result?: ToolResult;
}

export interface Span {
  text: string;
  style: string;
}

export interface View {
  session: string;
  status: "open" | "done";
  title: string | null;
  focus: string;
  lines?: Span[][];
}

/** The `ask_user` tool output of the pi dialect: what the tool returns to pi, as it comes. */
export interface ToolResult {
  content: Array<{ type: "text"; text: string }>;
  details: Record<string, unknown>;
}

type Pending = { method: string; resolve: (value: unknown) => void; reject: (error: Error) => void };

/** The transport under a connection: writes one message, reports lines and its end. */
export interface Transport {
  send(line: string): void;
  onMessage(listener: (text: string) => void): void;
  onClose(listener: (reason: string) => void): void;
  close(): void;
}

export class AskdConnection {
  private readonly pending = new Map<number, Pending>();
  private readonly listeners = new Set<(method: string, params: unknown) => void>();
  private ids = 0;
  private closedReason: string | null = null;

  constructor(private readonly transport: Transport) {
    transport.onMessage((text) => this.receive(text));
    transport.onClose((reason) => {
      this.closedReason = reason;
      for (const { method, reject } of this.pending.values()) reject(new Error(`askd ${method}: ${reason}`));
      this.pending.clear();
    });
  }

  get closed(): boolean {
    return this.closedReason !== null;
  }

  request<T = unknown>(method: string, params?: unknown): Promise<T> {
    if (this.closedReason !== null) return Promise.reject(new Error(`askd ${method}: ${this.closedReason}`));
    const id = ++this.ids;
    this.transport.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { method, resolve: resolve as (value: unknown) => void, reject });
    });
  }

  /** The id the next request gets (for `$/cancelRequest` of an `ask`). */
  nextId(): number {
    return this.ids + 1;
  }

  notify(method: string, params?: unknown): void {
    if (this.closedReason === null) this.transport.send(JSON.stringify({ jsonrpc: "2.0", method, params }));
  }

  onNotification(listener: (method: string, params: unknown) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    this.transport.close();
  }

  private receive(text: string): void {
    let message: { id?: number; result?: unknown; error?: RpcError; method?: string; params?: unknown };
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    if (message.method !== undefined && message.id === undefined) {
      for (const listener of this.listeners) listener(message.method, message.params);
      return;
    }
    if (typeof message.id !== "number") return;
    const pending = this.pending.get(message.id);
    if (!pending) return;
    this.pending.delete(message.id);
    if (message.error) pending.reject(new AskdError(pending.method, message.error));
    else pending.resolve(message.result);
  }
}

/**
 * The askd binary: `ASKD_BIN` when set, else `askd` on the PATH.
 */
export function askdCommand(): string {
  return process.env.ASKD_BIN || "askd";
}

/** Starts `askd serve` as a child process and connects to its standard input and output. */
export function spawnAskd(args: string[] = []): { connection: AskdConnection; child: ChildProcessWithoutNullStreams } {
  const child = spawn(askdCommand(), ["serve", ...args], { stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  const closeListeners: Array<(reason: string) => void> = [];
  const messageListeners: Array<(text: string) => void> = [];
  let buffer = "";
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk: string) => {
    buffer += chunk;
    let at: number;
    while ((at = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, at);
      buffer = buffer.slice(at + 1);
      if (line.trim()) for (const listener of messageListeners) listener(line);
    }
  });
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk: string) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  const ended = (reason: string) => {
    for (const listener of closeListeners.splice(0)) listener(reason);
  };
  child.on("error", (error) => ended(`could not start ${askdCommand()} (${error.message}); install askd or set ASKD_BIN`));
  child.on("exit", (code, signal) => ended(`askd exited (${signal ?? `status ${code}`})${stderr ? `: ${stderr.trim()}` : ""}`));
  child.stdin.on("error", () => {
    // The process is gone; its exit says why.
  });
  const transport: Transport = {
    send: (line) => {
      child.stdin.write(`${line}\n`);
    },
    onMessage: (listener) => messageListeners.push(listener),
    onClose: (listener) => closeListeners.push(listener),
    close: () => {
      child.stdin.end();
    },
  };
  return { connection: new AskdConnection(transport), child };
}
