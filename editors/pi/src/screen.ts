// askd's flow inline in pi's TUI: a component that draws the lines askd renders (styled with
// pi's theme) and forwards every key to askd, until the flow completes.
import type { Theme } from "@mariozechner/pi-coding-agent";
import { truncateToWidth, type Component, type TUI } from "@mariozechner/pi-tui";
import type { AskdConnection, Span, Step, ToolResult } from "./askd.ts";
import { translate } from "./keys.ts";

/** How each of askd's styles (protocol/README.md, "Styles") looks in pi's theme. */
export function styleSpan(theme: Theme, span: Span): string {
  const text = span.text;
  switch (span.style) {
    case "title":
      return theme.bold(theme.fg("text", text));
    case "accent":
      return theme.fg("accent", text);
    case "success":
      return theme.fg("success", text);
    case "muted":
      return theme.fg("muted", text);
    case "dim":
      return theme.fg("dim", text);
    case "warning":
      return theme.fg("warning", text);
    case "selected":
      return theme.bold(theme.fg("accent", text));
    case "cursor":
      return theme.inverse(text);
    case "border":
      return theme.fg("border", text);
    default:
      return theme.fg("text", text);
  }
}

export class FlowScreen implements Component {
  private spans: Span[][] = [];
  private width = 0;
  private version = 0;
  private finished = false;
  /** Keys and pastes wait here while one is with askd, so that they arrive in order. */
  private queue: Array<() => Promise<Step>> = [];
  private busy = false;

  constructor(
    private readonly tui: TUI,
    private readonly theme: Theme,
    private readonly askd: AskdConnection,
    private readonly session: string,
    first: Step,
    openedWidth: number,
    private readonly done: (result: ToolResult | Error) => void,
  ) {
    this.width = openedWidth;
    this.apply(first);
  }

  render(width: number): string[] {
    if (width !== this.width) {
      this.width = width;
      // Steps from now on come at this width; the view now, too.
      this.enqueue(async () => {
        await this.askd.request("subscribe", { session: this.session, width });
        const view = await this.askd.request<Step["view"]>("getView", { session: this.session, width });
        return { session: this.session, status: view.status, version: this.version, view } as Step;
      }, true);
    }
    return this.spans.map((line) => truncateToWidth(line.map((span) => styleSpan(this.theme, span)).join(""), width));
  }

  handleInput(data: string): void {
    if (this.finished) return;
    const input = translate(data);
    if (input === null) return;
    if ("paste" in input) {
      this.enqueue(() => this.askd.request<Step>("insert", { session: this.session, text: input.paste }));
    } else {
      this.enqueue(() => this.askd.request<Step>("keys", { session: this.session, keys: input.keys }));
    }
  }

  invalidate(): void {
    // Lines are styled at every render: nothing is cached.
  }

  /** Ends the flow from outside (the agent aborted the tool call). */
  abort(): void {
    this.enqueue(() => this.askd.request<Step>("cancel", { session: this.session, reason: "abort" }));
  }

  private enqueue(job: () => Promise<Step>, sameVersion = false): void {
    this.queue.push(async () => {
      const step = await job();
      if (sameVersion) this.applyView(step);
      else this.apply(step);
      return step;
    });
    void this.drain();
  }

  private async drain(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      while (this.queue.length > 0 && !this.finished) {
        const job = this.queue.shift() as () => Promise<Step>;
        try {
          await job();
        } catch (error) {
          // A refused key (an editor past its limit, an insert with no editor open) changes
          // nothing; a lost askd ends the flow with its reason.
          if (this.askd.closed) this.finish(error instanceof Error ? error : new Error(String(error)));
        }
      }
    } finally {
      this.busy = false;
    }
  }

  private applyView(step: Step): void {
    if (step.view.lines) this.spans = step.view.lines;
    this.tui.requestRender();
  }

  private apply(step: Step): void {
    if (step.version < this.version) return;
    this.version = step.version;
    if (step.view.lines) this.spans = step.view.lines;
    this.tui.requestRender();
    if (step.status === "done" && step.result) this.finish(step.result);
  }

  private finish(result: ToolResult | Error): void {
    if (this.finished) return;
    this.finished = true;
    this.queue = [];
    this.done(result);
  }
}
