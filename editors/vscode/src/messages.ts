/**
 * Every text the extension shows a person about the engine itself: where it was looked for,
 * why it could not start, how it died. Kept in one place so that the tests can check them
 * exactly.
 */

/** How many of the engine's last stderr lines an error message carries. */
export const STDERR_LINES_KEPT = 20;

/** The engine named by the `askd.path` setting is not an executable file. */
export function configuredEngineMissing(configured: string, resolved: string): string {
  const shown = configured === resolved ? `"${configured}"` : `"${configured}" (${resolved})`;
  return `askd: the engine ${shown} set in askd.path was not found or is not executable.`;
}

/** No engine was found where the extension looks when `askd.path` is empty. */
export function noEngineFound(tried: readonly string[]): string {
  return `askd: no engine found. Tried ${tried.join(", ")}. Install askd on PATH or set askd.path.`;
}

/** The process could not be spawned at all (the operating system refused). */
export function engineCouldNotStart(path: string, reason: string): string {
  return `askd: the engine "${path}" could not be started: ${reason}`;
}

/** How a process ended, as a person reads it. */
function howItEnded(code: number | null, signal: string | null): string {
  if (signal !== null) {
    return `was killed by ${signal}`;
  }
  return `exited with code ${code ?? "unknown"}`;
}

/** The engine process ended while the extension still needed it. */
export function engineExited(
  path: string,
  code: number | null,
  signal: string | null,
  stderr: readonly string[],
): string {
  const head = `askd: the engine "${path}" ${howItEnded(code, signal)}.`;
  if (stderr.length === 0) {
    return `${head} It wrote nothing on stderr.`;
  }
  return `${head} Its last stderr lines:\n${stderr.join("\n")}`;
}

/** The connection to a running engine failed (a write to its closed input, for instance). */
export function engineConnectionFailed(path: string, reason: string): string {
  return `askd: the connection to the engine "${path}" failed: ${reason}`;
}

/** The engine started but never answered `initialize`. */
export function engineSilent(path: string, waitedMs: number): string {
  return `askd: the engine "${path}" did not answer initialize within ${waitedMs} ms; is it askd?`;
}

/** The engine answered a request with a JSON-RPC error. */
export function engineRefused(message: string): string {
  return `askd: ${message}`;
}

/** The question panel's page never reported that it had loaded. */
export function panelDidNotLoad(waitedMs: number): string {
  return `askd: the question panel did not load within ${waitedMs} ms.`;
}

/** The question panel's page failed while drawing the flow. */
export function panelFailed(reason: string): string {
  return `askd: the question panel failed: ${reason}`;
}

/** A payload file that is not JSON. */
export function payloadNotJson(file: string, reason: string): string {
  return `askd: ${file} is not valid JSON: ${reason}`;
}
