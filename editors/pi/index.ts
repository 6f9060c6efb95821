// askd for pi: registers the `ask_user` tool of the pi ask contract and answers it through askd.
// In pi's interactive TUI the flow is drawn inline (askd's own lines, pi's theme) and answered
// with the keyboard, through an `askd serve` this extension starts; where pi has no screen for
// it (RPC mode), the question goes to askd's hub and a person answers it in any of the hub's
// clients; without UI (`pi -p`) the result says that the person must be asked.
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { AskdConnection, spawnAskd, type Step, type ToolResult } from "./src/askd.ts";
import { askThroughHub } from "./src/hub.ts";
import { DESCRIPTION, PROMPT_GUIDELINES, PROMPT_SNIPPET, AskUserParams } from "./src/schema.ts";
import { FlowScreen } from "./src/screen.ts";

export default function askd(pi: ExtensionAPI) {
  let local: { connection: AskdConnection; stop: () => void } | null = null;

  /** The extension's own `askd serve`, started at the first question and kept for the session. */
  function localAskd(): AskdConnection {
    if (local && !local.connection.closed) return local.connection;
    const { connection, child } = spawnAskd();
    local = { connection, stop: () => child.kill() };
    return connection;
  }

  pi.on("session_shutdown", async () => {
    local?.connection.close();
    local = null;
  });

  pi.registerTool({
    name: "ask_user",
    label: "Ask User",
    description: DESCRIPTION,
    promptSnippet: PROMPT_SNIPPET,
    promptGuidelines: PROMPT_GUIDELINES,
    parameters: AskUserParams,

    async execute(toolCallId, params, signal, _onUpdate, ctx) {
      const askd = localAskd();
      const session = toolCallId;
      // The terminal's width (pi's TUI draws on standard output), so that the first screen is
      // drawn at the width pi gives the component; 80 where standard output is no terminal.
      const width = process.stdout.isTTY && process.stdout.columns > 0 ? process.stdout.columns : 80;
      const first = await askd.request<Step>("open", { payload: params, dialect: "pi", session, hasUI: ctx.hasUI, cwd: ctx.cwd, width });
      // An invalid payload, or no UI at all: askd's result says so at once.
      if (first.status === "done" && first.result) {
        await askd.request("close", { session });
        return first.result;
      }

      let screen: FlowScreen | undefined;
      const abort = () => screen?.abort();
      signal?.addEventListener("abort", abort, { once: true });
      let outcome: ToolResult | Error | undefined;
      try {
        outcome = await ctx.ui.custom<ToolResult | Error>((tui, theme, _keybindings, done) => {
          screen = new FlowScreen(tui, theme, askd, session, first, width, done);
          return screen;
        });
      } finally {
        signal?.removeEventListener("abort", abort);
      }
      await askd.request("close", { session }).catch(() => undefined);
      if (outcome === undefined) {
        // No custom UI here (pi's RPC mode): a person answers in one of the hub's clients.
        return askThroughHub(params, session, ctx.cwd, signal);
      }
      if (outcome instanceof Error) throw outcome;
      return outcome;
    },
  });
}
