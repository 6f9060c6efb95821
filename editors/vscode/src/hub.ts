/**
 * Attached to the hub: the long-lived askd where the questions of every agent wait. While a hub
 * runs (its discovery file `<runtime>/askd/hub.json` is there and `askd hub --status` vouches
 * for it), the extension keeps one `askd hub --pipe` process, the hub relayed over its pipes,
 * and subscribes on it as a person's client (`subscribe { attach: true }`). The hub then sends it
 * `session/opened` for every new flow, `session/changed` and `session/closed`; this module keeps
 * the list of flows waiting for an answer, oldest first, and says when one arrives. When the hub
 * goes away, the list empties and the discovery file is watched again.
 */

import * as childProcess from "node:child_process";
import * as os from "node:os";
import * as path from "node:path";
import type { Engine } from "./engine";

/** A flow of the hub as `subscribe` and `session/opened` describe it. */
export interface HubSession {
  readonly session: string;
  readonly title?: string;
  readonly status: string;
  readonly asker?: { readonly name?: string; readonly folder?: string };
  readonly openedAt?: number;
}

/**
 * The discovery file of the hub: `<runtime>/askd/hub.json`, `<runtime>` being
 * `$XDG_RUNTIME_DIR` when it is an absolute path, else `${TMPDIR:-/tmp}/askd-<uid>` (a relative
 * `TMPDIR` counts as unset), as askd finds it (protocol/README.md, The discovery file).
 */
export function hubDiscoveryFile(env: NodeJS.ProcessEnv, uid: number): string {
  const runtime = env["XDG_RUNTIME_DIR"];
  if (runtime !== undefined && path.isAbsolute(runtime)) {
    return path.join(runtime, "askd", "hub.json");
  }
  const given = env["TMPDIR"];
  const temporary = given !== undefined && path.isAbsolute(given) ? given : "/tmp";
  return path.join(temporary, `askd-${uid}`, "askd", "hub.json");
}

/** The discovery file of this process's user. */
export function processHubDiscoveryFile(): string {
  return hubDiscoveryFile(process.env, typeof process.getuid === "function" ? process.getuid() : os.userInfo().uid);
}

/**
 * The flows waiting for an answer, oldest first by `openedAt` (those without one after, in the
 * order given): the order a person answers them in. Recovered and finished flows are not waiting.
 */
export function waitingOrder(entries: readonly HubSession[]): HubSession[] {
  return entries
    .map((entry, index) => ({ entry, index }))
    .filter(({ entry }) => entry.status === "open")
    .sort((a, b) => {
      const left = typeof a.entry.openedAt === "number" ? a.entry.openedAt : Infinity;
      const right = typeof b.entry.openedAt === "number" ? b.entry.openedAt : Infinity;
      return left === right ? a.index - b.index : left - right;
    })
    .map(({ entry }) => entry);
}

/** A folder's last two parts (`…/work/shop`), the whole path being long. */
export function shortFolder(folder: string): string {
  const parts = folder.split("/").filter((part) => part !== "");
  return parts.length <= 2 ? folder : `…/${parts.slice(-2).join("/")}`;
}

/**
 * A flow's name for a person: its title (or its id) and who asked when known —
 * `Release plan — claude-code in …/work/shop`.
 */
export function sessionLabel(entry: HubSession): string {
  const title = typeof entry.title === "string" && entry.title !== "" ? entry.title : entry.session;
  const who = entry.asker?.name;
  const where = entry.asker?.folder;
  if (who && where) return `${title} — ${who} in ${shortFolder(where)}`;
  if (who) return `${title} — ${who}`;
  if (where) return `${title} — in ${shortFolder(where)}`;
  return title;
}

/** What the attachment needs from the machine; tests replace the parts. */
export interface HubAttachmentOptions {
  /** The engine's path, or undefined when none is found (nothing to attach with). */
  locate(): string | undefined;
  /** The discovery file's path. */
  readonly discoveryFile: string;
  /** Whether a file exists (and its modification time, to try a changed file again). */
  stat(file: string): { mtimeMs: number } | undefined;
  /** Whether `askd hub --status` vouches for a running hub (exit status 0). */
  hubRuns(enginePath: string): Promise<boolean>;
  /** Starts `askd hub --pipe` as an engine connection. */
  connect(enginePath: string): Engine;
  /** What `initialize` reports. */
  readonly client: { readonly name: string; readonly version: string };
  /** How often the discovery file is looked at while not attached. */
  readonly pollMs: number;
  /** Where the attachment says what it does (the output channel). */
  log(line: string): void;
}

/** Whether `askd hub --status` exits 0: a hub runs and answers. */
export function hubRunsByStatus(enginePath: string, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  return new Promise((resolve) => {
    childProcess.execFile(enginePath, ["hub", "--status"], { env, timeout: 10_000 }, (error) => resolve(error === null));
  });
}

/**
 * The extension's attachment to the hub. {@link start} begins watching for a hub; while one
 * runs, {@link waiting} lists its flows waiting for an answer and {@link engine} is the
 * connection to drive them on.
 */
export class HubAttachment {
  private connection: Engine | undefined;
  private readonly sessions = new Map<string, HubSession>();
  private timer: NodeJS.Timeout | undefined;
  private triedAt: number | undefined;
  private attaching = false;
  private stopped = true;
  private readonly changeListeners: Array<() => void> = [];
  private readonly arrivalListeners: Array<(entry: HubSession) => void> = [];
  private readonly attachListeners: Array<(waiting: readonly HubSession[]) => void> = [];

  /** An attachment that finds and joins the hub as `options` says. */
  constructor(private readonly options: HubAttachmentOptions) {}

  /** The connection to the hub while attached. */
  get engine(): Engine | undefined {
    return this.connection?.alive === true ? this.connection : undefined;
  }

  /** The flows of the hub waiting for an answer, oldest first (none while not attached). */
  get waiting(): HubSession[] {
    return waitingOrder([...this.sessions.values()]);
  }

  /** A flow of the hub by its id, while the hub holds it. */
  session(id: string): HubSession | undefined {
    return this.sessions.get(id);
  }

  /** Calls `listener` whenever the waiting list changes (attached, detached, a flow came or went). */
  onDidChange(listener: () => void): void {
    this.changeListeners.push(listener);
  }

  /** Calls `listener` with each flow that opens in the hub once attached. */
  onDidArrive(listener: (entry: HubSession) => void): void {
    this.arrivalListeners.push(listener);
  }

  /** Calls `listener` on attaching, with the flows that were already waiting. */
  onDidAttach(listener: (waiting: readonly HubSession[]) => void): void {
    this.attachListeners.push(listener);
  }

  /** Starts watching for a hub (and attaches at once when one runs). */
  start(): void {
    if (!this.stopped) {
      return;
    }
    this.stopped = false;
    void this.poll();
  }

  /**
   * Records that a flow ended through this connection (answered in a panel here): the hub does
   * not tell a connection of its own changes, so the list learns it from the flow.
   */
  ended(session: string): void {
    const entry = this.sessions.get(session);
    if (entry !== undefined && entry.status !== "done") {
      this.sessions.set(session, { ...entry, status: "done" });
      this.changed();
    }
  }

  /** Detaches and stops watching. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.triedAt = undefined;
    const connection = this.connection;
    this.connection = undefined;
    connection?.dispose();
    if (this.sessions.size > 0) {
      this.sessions.clear();
      this.changed();
    }
  }

  private schedule(): void {
    clearTimeout(this.timer);
    if (!this.stopped && this.connection === undefined) {
      this.timer = setTimeout(() => void this.poll(), this.options.pollMs);
      this.timer.unref?.();
    }
  }

  /** Looks at the discovery file; a new or changed one is tried. */
  private async poll(): Promise<void> {
    if (this.stopped || this.connection !== undefined || this.attaching) {
      return;
    }
    const found = this.options.stat(this.options.discoveryFile);
    if (found === undefined) {
      this.triedAt = undefined;
    } else if (found.mtimeMs !== this.triedAt) {
      this.triedAt = found.mtimeMs;
      await this.attach();
    }
    this.schedule();
  }

  private async attach(): Promise<void> {
    const enginePath = this.options.locate();
    if (enginePath === undefined) {
      return;
    }
    this.attaching = true;
    try {
      if (!(await this.options.hubRuns(enginePath)) || this.stopped) {
        this.options.log(`hub: ${this.options.discoveryFile} names no running hub; not attached`);
        return;
      }
      const connection = this.options.connect(enginePath);
      connection.onExit((message) => this.detached(connection, message));
      connection.onNotification("session/opened", (params) => this.opened(params));
      connection.onNotification("session/changed", (params) => this.statusChanged(params));
      connection.onNotification("session/closed", (params) => this.closed(params));
      try {
        await connection.initialize(this.options.client, 10_000);
        const listed = await connection.request<HubSession[]>("subscribe", { attach: true });
        if (this.stopped) {
          connection.dispose();
          return;
        }
        this.connection = connection;
        for (const entry of Array.isArray(listed) ? listed : []) {
          if (isHubSession(entry) && !this.sessions.has(entry.session)) {
            this.sessions.set(entry.session, { ...entry });
          }
        }
      } catch (error) {
        connection.dispose();
        this.options.log(`hub: could not attach: ${error instanceof Error ? error.message : String(error)}`);
        return;
      }
      this.options.log(`hub: attached (${this.waiting.length} waiting)`);
      const waiting = this.waiting;
      for (const listener of this.attachListeners) listener(waiting);
      this.changed();
    } finally {
      this.attaching = false;
    }
  }

  private detached(connection: Engine, message: string): void {
    if (this.connection !== connection) {
      return;
    }
    this.connection = undefined;
    this.options.log(`hub: detached: ${message}`);
    this.sessions.clear();
    this.changed();
    this.triedAt = undefined;
    this.schedule();
  }

  private opened(params: unknown): void {
    if (!isHubSession(params)) {
      return;
    }
    const known = this.sessions.has(params.session);
    this.sessions.set(params.session, { ...params });
    this.changed();
    if (!known && params.status === "open" && this.connection !== undefined) {
      for (const listener of this.arrivalListeners) listener(params);
    }
  }

  private statusChanged(params: unknown): void {
    const step = params as { session?: unknown; status?: unknown } | null;
    if (typeof step?.session !== "string" || typeof step.status !== "string") {
      return;
    }
    const entry = this.sessions.get(step.session);
    if (entry === undefined || entry.status === step.status) {
      return;
    }
    this.sessions.set(step.session, { ...entry, status: step.status });
    this.changed();
  }

  private closed(params: unknown): void {
    const session = (params as { session?: unknown } | null)?.session;
    if (typeof session === "string" && this.sessions.delete(session)) {
      this.changed();
    }
  }

  private changed(): void {
    for (const listener of this.changeListeners) listener();
  }
}

function isHubSession(value: unknown): value is HubSession {
  const entry = value as Partial<HubSession> | null;
  return typeof entry?.session === "string" && typeof entry.status === "string";
}
