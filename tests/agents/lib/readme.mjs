// The README's snippets, as a reader copies them: the code block that follows a
// `<!-- snippet: NAME -->` comment in README.md, exactly as written.
import fs from "node:fs";
import path from "node:path";
import { REPO_DIR } from "./proc.mjs";

export function snippet(name, file = path.join(REPO_DIR, "README.md")) {
  const text = fs.readFileSync(file, "utf8");
  const marker = `<!-- snippet: ${name} -->\n`;
  const at = text.indexOf(marker);
  if (at < 0) throw new Error(`${path.basename(file)} has no snippet named ${name}`);
  const block = /^```[a-z]*\n([\s\S]*?)^```$/m.exec(text.slice(at + marker.length));
  if (!block || block.index !== 0) throw new Error(`the snippet ${name} is not a code block right after its marker`);
  return block[1];
}
