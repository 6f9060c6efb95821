// A scripted model on loopback for the real agents: it speaks the streamed APIs the agents use
// (Anthropic Messages, OpenAI Responses, OpenAI Chat Completions, Gemini streamGenerateContent),
// answers each request that offers tools with the script's next turn, and keeps every request so
// that a test can show what the model was told.
//
//   const model = await startModelServer({
//     script: [
//       { tool: { name: "ask_user", arguments: { questions: [...] } } },
//       { text: "All done." },
//     ],
//   });
//   ... point the agent at model.url ...
//   const request = await model.waitForTurn(1); // the request that got turn 2
//   toolResults(request) // what the tool answered, in the agent's words
//
// A turn is `{ text }`, `{ tool: { name, arguments, namespace? } }` (a Responses function call
// may name its namespace, as Codex wants of MCP tools), `{ tools: [...] }` for several calls at
// once, or a function of the request that returns one of those. Requests without tools (titles,
// summaries, Gemini's next-speaker check) are side requests: answered with a short text, logged,
// never taking a turn. Once the script is spent, further requests get `{ text: "(script ended)" }`.
// Only node's own modules are used.

import http from "node:http";

const END_OF_SCRIPT = { text: "(script ended)" };

/** Starts the server on 127.0.0.1, a port the system picks. */
export async function startModelServer({ script = [], sideText = "Scripted title", log } = {}) {
  const requests = [];
  const waiters = [];
  let turnIndex = 0;
  // Calls are numbered apart from messages, so that side requests never shift a call's id.
  let callIds = 0;
  let messageIds = 0;

  function record(entry) {
    requests.push(entry);
    if (log) log(`model: ${entry.api} ${entry.path}${entry.turn === null ? " (side)" : ` turn ${entry.turn}`}`);
    for (const waiter of [...waiters]) waiter();
  }

  function takeTurn(body) {
    const index = turnIndex++;
    let turn = index < script.length ? script[index] : END_OF_SCRIPT;
    if (typeof turn === "function") turn = turn(body, index);
    return { index, turn };
  }

  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      let body = null;
      try {
        body = raw ? JSON.parse(raw) : null;
      } catch {
        body = null;
      }
      try {
        route(req, res, body, raw);
      } catch (error) {
        res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: String(error && error.stack) } }));
      }
    });
  });

  function route(req, res, body, raw) {
    const url = new URL(req.url, "http://127.0.0.1");
    const path = url.pathname;
    const base = { method: req.method, path, query: url.search, headers: req.headers, body, raw, at: Date.now() };
    if (req.method === "GET" && /\/models\/?$/.test(path)) {
      record({ ...base, api: "models", turn: null });
      json(res, { object: "list", data: [{ id: "scripted", object: "model", created: 0, owned_by: "askd-tests" }], models: [] });
      return;
    }
    if (req.method !== "POST" || !body) {
      record({ ...base, api: "unknown", turn: null });
      json(res, { error: { message: `the scripted model does not serve ${req.method} ${path}` } }, 404);
      return;
    }
    if (path.endsWith("/messages/count_tokens")) {
      record({ ...base, api: "anthropic-count", turn: null });
      json(res, { input_tokens: 10 });
      return;
    }
    if (path.endsWith("/messages")) return serve(res, base, "anthropic", body, hasTools(body.tools), body.stream === true);
    if (path.endsWith("/responses")) return serve(res, base, "responses", body, hasTools(body.tools), body.stream !== false);
    if (path.endsWith("/chat/completions")) return serve(res, base, "chat", body, hasTools(body.tools), body.stream === true);
    const gemini = /:(streamGenerateContent|generateContent|countTokens)$/.exec(path);
    if (gemini) {
      if (gemini[1] === "countTokens") {
        record({ ...base, api: "gemini-count", turn: null });
        json(res, { totalTokens: 10 });
        return;
      }
      const tools = Array.isArray(body.tools) && body.tools.some((t) => hasTools(t.functionDeclarations));
      return serve(res, base, "gemini", body, tools, gemini[1] === "streamGenerateContent");
    }
    record({ ...base, api: "unknown", turn: null });
    json(res, { error: { message: `the scripted model does not serve POST ${path}` } }, 404);
  }

  function serve(res, base, api, body, offersTools, stream) {
    let turn;
    let index = null;
    if (offersTools) {
      ({ index, turn } = takeTurn(body));
    } else {
      turn = { text: sideTextFor(api, body, sideText) };
    }
    record({ ...base, api, turn: index, reply: turn });
    const calls = turn.tools ?? (turn.tool ? [turn.tool] : []);
    const plan = { text: turn.text ?? "", calls: calls.map((c) => ({ ...c, id: ++callIds })), model: body.model ?? "scripted", id: ++messageIds };
    const writer = WRITERS[api];
    if (stream) {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
      for (const event of writer.stream(plan)) res.write(event);
      res.end();
    } else {
      json(res, writer.whole(plan));
    }
  }

  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();

  const api = {
    port,
    /** `http://127.0.0.1:PORT` (agents add their own `/v1`, `/v1beta` paths). */
    url: `http://127.0.0.1:${port}`,
    requests,
    /** The requests that took a turn of the script, in order. */
    turns: () => requests.filter((r) => r.turn !== null),
    /** Resolves with the request that took turn `n` (0-based) once it arrives. */
    waitForTurn(n, timeoutMs = 60_000) {
      return api.waitFor(() => requests.find((r) => r.turn === n), timeoutMs, `turn ${n} of the script`);
    },
    /** Resolves with the first truthy value of `probe()`, checked at every request. */
    waitFor(probe, timeoutMs = 60_000, what = "a request") {
      return new Promise((resolve, reject) => {
        const check = () => {
          const value = probe();
          if (value) {
            cleanup();
            resolve(value);
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`the scripted model waited ${timeoutMs} ms for ${what}; it got: ${describe(requests)}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          const at = waiters.indexOf(check);
          if (at >= 0) waiters.splice(at, 1);
        };
        waiters.push(check);
        check();
      });
    },
    close() {
      server.closeAllConnections?.();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
  return api;
}

function describe(requests) {
  if (requests.length === 0) return "no request";
  return requests.map((r) => `${r.method} ${r.path}${r.turn === null ? "" : ` (turn ${r.turn})`}`).join(", ");
}

function hasTools(tools) {
  return Array.isArray(tools) && tools.length > 0;
}

function sideTextFor(api, body, sideText) {
  // Gemini CLI's checks ask for JSON (its next-speaker check among them): the user speaks next.
  if (api === "gemini" && body.generationConfig?.responseMimeType === "application/json") {
    return JSON.stringify({ reasoning: "The scripted turn is over.", next_speaker: "user" });
  }
  return sideText;
}

function json(res, value, status = 200) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(value));
}

function sse(data, event) {
  return `${event ? `event: ${event}\n` : ""}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;
}

const USAGE = { input: 10, output: 5 };

// Each writer turns a plan ({ text, calls: [{ id, name, arguments, namespace? }], model, id }) into
// the events of its API, in the order the API's own servers send them.
const WRITERS = {
  anthropic: {
    *stream(plan) {
      const message = {
        id: `msg_${plan.id}`,
        type: "message",
        role: "assistant",
        model: plan.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: USAGE.input, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      };
      yield sse({ type: "message_start", message }, "message_start");
      let index = 0;
      if (plan.text || plan.calls.length === 0) {
        yield sse({ type: "content_block_start", index, content_block: { type: "text", text: "" } }, "content_block_start");
        yield sse({ type: "content_block_delta", index, delta: { type: "text_delta", text: plan.text } }, "content_block_delta");
        yield sse({ type: "content_block_stop", index }, "content_block_stop");
        index++;
      }
      for (const call of plan.calls) {
        const block = { type: "tool_use", id: `toolu_${call.id}`, name: call.name, input: {} };
        yield sse({ type: "content_block_start", index, content_block: block }, "content_block_start");
        const input = JSON.stringify(call.arguments ?? {});
        yield sse({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: input } }, "content_block_delta");
        yield sse({ type: "content_block_stop", index }, "content_block_stop");
        index++;
      }
      const stop = plan.calls.length ? "tool_use" : "end_turn";
      yield sse({ type: "message_delta", delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: USAGE.output } }, "message_delta");
      yield sse({ type: "message_stop" }, "message_stop");
    },
    whole(plan) {
      const content = [];
      if (plan.text || plan.calls.length === 0) content.push({ type: "text", text: plan.text });
      for (const call of plan.calls) content.push({ type: "tool_use", id: `toolu_${call.id}`, name: call.name, input: call.arguments ?? {} });
      return {
        id: `msg_${plan.id}`,
        type: "message",
        role: "assistant",
        model: plan.model,
        content,
        stop_reason: plan.calls.length ? "tool_use" : "end_turn",
        stop_sequence: null,
        usage: { input_tokens: USAGE.input, output_tokens: USAGE.output },
      };
    },
  },

  responses: {
    *stream(plan) {
      let sequence = 0;
      const event = (data) => sse({ ...data, sequence_number: sequence++ }, data.type);
      const response = { id: `resp_${plan.id}`, object: "response", created_at: 0, model: plan.model, status: "in_progress", output: [] };
      yield event({ type: "response.created", response });
      yield event({ type: "response.in_progress", response });
      const output = [];
      let outputIndex = 0;
      if (plan.text || plan.calls.length === 0) {
        const id = `msg_${plan.id}`;
        const part = { type: "output_text", text: "", annotations: [] };
        yield event({ type: "response.output_item.added", output_index: outputIndex, item: { type: "message", id, role: "assistant", status: "in_progress", content: [] } });
        yield event({ type: "response.content_part.added", item_id: id, output_index: outputIndex, content_index: 0, part });
        yield event({ type: "response.output_text.delta", item_id: id, output_index: outputIndex, content_index: 0, delta: plan.text });
        yield event({ type: "response.output_text.done", item_id: id, output_index: outputIndex, content_index: 0, text: plan.text });
        const done = { ...part, text: plan.text };
        yield event({ type: "response.content_part.done", item_id: id, output_index: outputIndex, content_index: 0, part: done });
        const item = { type: "message", id, role: "assistant", status: "completed", content: [done] };
        yield event({ type: "response.output_item.done", output_index: outputIndex, item });
        output.push(item);
        outputIndex++;
      }
      for (const call of plan.calls) {
        const id = `fc_${call.id}`;
        const args = JSON.stringify(call.arguments ?? {});
        const named = { name: call.name, ...(call.namespace ? { namespace: call.namespace } : {}) };
        const added = { type: "function_call", id, call_id: `call_${call.id}`, ...named, arguments: "", status: "in_progress" };
        yield event({ type: "response.output_item.added", output_index: outputIndex, item: added });
        yield event({ type: "response.function_call_arguments.delta", item_id: id, output_index: outputIndex, delta: args });
        yield event({ type: "response.function_call_arguments.done", item_id: id, output_index: outputIndex, arguments: args });
        const item = { ...added, arguments: args, status: "completed" };
        yield event({ type: "response.output_item.done", output_index: outputIndex, item });
        output.push(item);
        outputIndex++;
      }
      yield event({ type: "response.completed", response: { ...response, status: "completed", output, usage: responsesUsage() } });
    },
    whole(plan) {
      return { id: `resp_${plan.id}`, object: "response", created_at: 0, model: plan.model, status: "completed", output: [], usage: responsesUsage(), output_text: plan.text };
    },
  },

  chat: {
    *stream(plan) {
      const base = { id: `chatcmpl-${plan.id}`, object: "chat.completion.chunk", created: 0, model: plan.model };
      const chunk = (delta, finish = null) => sse({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] });
      yield chunk({ role: "assistant", content: "" });
      if (plan.text) yield chunk({ content: plan.text });
      for (const [index, call] of plan.calls.entries()) {
        // The name first, then the arguments, as the OpenAI servers stream a call.
        yield chunk({ tool_calls: [{ index, id: `call_${call.id}`, type: "function", function: { name: call.name, arguments: "" } }] });
        yield chunk({ tool_calls: [{ index, function: { arguments: JSON.stringify(call.arguments ?? {}) } }] });
      }
      yield chunk({}, plan.calls.length ? "tool_calls" : "stop");
      yield sse({ ...base, choices: [], usage: chatUsage() });
      yield sse("[DONE]");
    },
    whole(plan) {
      const message = { role: "assistant", content: plan.text || null };
      if (plan.calls.length) {
        message.tool_calls = plan.calls.map((call) => ({
          id: `call_${call.id}`,
          type: "function",
          function: { name: call.name, arguments: JSON.stringify(call.arguments ?? {}) },
        }));
      }
      return {
        id: `chatcmpl-${plan.id}`,
        object: "chat.completion",
        created: 0,
        model: plan.model,
        choices: [{ index: 0, message, finish_reason: plan.calls.length ? "tool_calls" : "stop" }],
        usage: chatUsage(),
      };
    },
  },

  gemini: {
    *stream(plan) {
      yield sse(geminiResponse(plan));
    },
    whole(plan) {
      return geminiResponse(plan);
    },
  },
};

function responsesUsage() {
  return {
    input_tokens: USAGE.input,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: USAGE.output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: USAGE.input + USAGE.output,
  };
}

function chatUsage() {
  return { prompt_tokens: USAGE.input, completion_tokens: USAGE.output, total_tokens: USAGE.input + USAGE.output };
}

function geminiResponse(plan) {
  const parts = [];
  if (plan.text || plan.calls.length === 0) parts.push({ text: plan.text });
  for (const call of plan.calls) parts.push({ functionCall: { name: call.name, args: call.arguments ?? {} } });
  return {
    candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }],
    usageMetadata: { promptTokenCount: USAGE.input, candidatesTokenCount: USAGE.output, totalTokenCount: USAGE.input + USAGE.output },
    modelVersion: plan.model,
    responseId: `resp_${plan.id}`,
  };
}

/**
 * What the tools answered, as the request that followed carries it: one entry per tool result,
 * `{ id, name?, text }` with the text the model reads (Gemini's function responses as JSON).
 */
export function toolResults(request) {
  const body = request.body ?? {};
  const out = [];
  const textOf = (content) => {
    if (typeof content === "string") return content;
    if (Array.isArray(content)) return content.map((p) => (typeof p === "string" ? p : p.text ?? "")).join("");
    if (content == null) return "";
    return JSON.stringify(content);
  };
  switch (request.api) {
    case "anthropic":
      for (const message of body.messages ?? []) {
        if (!Array.isArray(message.content)) continue;
        for (const block of message.content) {
          if (block.type === "tool_result") out.push({ id: block.tool_use_id, text: textOf(block.content), isError: block.is_error === true });
        }
      }
      break;
    case "chat":
      for (const message of body.messages ?? []) {
        if (message.role === "tool") out.push({ id: message.tool_call_id, text: textOf(message.content) });
      }
      break;
    case "responses":
      for (const item of body.input ?? []) {
        if (item.type === "function_call_output" || item.type === "custom_tool_call_output") {
          out.push({ id: item.call_id, text: textOf(item.output) });
        }
      }
      break;
    case "gemini":
      for (const content of body.contents ?? []) {
        for (const part of content.parts ?? []) {
          if (part.functionResponse) {
            out.push({ id: part.functionResponse.id, name: part.functionResponse.name, text: JSON.stringify(part.functionResponse.response) });
          }
        }
      }
      break;
    default:
      break;
  }
  return out;
}

/** The names of the tools a request offers the model (Codex's namespaces as `namespace/name`). */
export function offeredTools(request) {
  const body = request.body ?? {};
  const names = [];
  const walk = (tools, prefix = "") => {
    for (const tool of tools ?? []) {
      if (tool.type === "namespace" && Array.isArray(tool.tools)) walk(tool.tools, `${tool.name}/`);
      else if (tool.functionDeclarations) walk(tool.functionDeclarations, prefix);
      else if (tool.function?.name) names.push(prefix + tool.function.name);
      else if (tool.name) names.push(prefix + tool.name);
    }
  };
  walk(body.tools);
  return names;
}
