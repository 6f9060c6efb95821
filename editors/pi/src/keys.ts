// What a terminal sends, as askd's key names (protocol/README.md, "Key notation"): pi's TUI
// hands a component the raw input of one key (or one bracketed paste), and pi-tui parses it.
import { decodeKittyPrintable, isKeyRelease, parseKey } from "@mariozechner/pi-tui";

export type Input = { keys: string[] } | { paste: string } | null;

const PASTE_START = "\x1b[200~";
const PASTE_END = "\x1b[201~";

/** pi-tui's names that askd spells otherwise. */
const RENAMES: Record<string, string> = {
  pageUp: "pageup",
  pageDown: "pagedown",
  return: "enter",
  esc: "escape",
};

/** Turns one input of pi's terminal into askd keys, a paste, or nothing askd takes. */
export function translate(data: string): Input {
  if (data.startsWith(PASTE_START)) {
    const end = data.indexOf(PASTE_END);
    return { paste: data.slice(PASTE_START.length, end < 0 ? undefined : end) };
  }
  if (isKeyRelease(data)) return null;
  const printable = decodeKittyPrintable(data);
  if (printable !== undefined) return { keys: [printable === " " ? "space" : printable] };
  if (isPlainText(data)) return { keys: [...data].map((char) => (char === " " ? "space" : char)) };
  const id = parseKey(data);
  if (id === undefined) return null;
  const parts = id.split("+");
  // askd has no super key.
  if (parts.includes("super")) return null;
  const last = parts.pop() as string;
  const key = RENAMES[last] ?? last;
  if (parts.length === 1 && parts[0] === "shift" && key.length === 1) return { keys: [key.toUpperCase()] };
  return { keys: [[...parts, key].join("+")] };
}

/** Text without control characters: typed characters, each its own key. */
function isPlainText(data: string): boolean {
  if (data.length === 0) return false;
  for (const char of data) {
    const code = char.codePointAt(0) as number;
    if (code < 0x20 || code === 0x7f || (code >= 0x80 && code < 0xa0)) return false;
  }
  return true;
}
