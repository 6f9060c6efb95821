// @ts-check
/**
 * Copies the askd web renderer from `editors/web/` into `media/` (a build product, git-ignored):
 * `askd.css`, `askd-view.js` and every module it imports, as they are.
 */
"use strict";

const fs = require("node:fs");
const path = require("node:path");

const web = path.resolve(__dirname, "..", "..", "web");
const media = path.resolve(__dirname, "..", "media");

/** Relative module imports of a module's source (`import … from "./x.js"`). */
function importsOf(source) {
  const found = [];
  const pattern = /^\s*(?:import|export)\b[^;]*?\bfrom\s*["'](\.\/[^"']+)["']/gm;
  for (const match of source.matchAll(pattern)) found.push(match[1]);
  return found;
}

/** Copies `file` (relative to `editors/web/`) and, for a module, what it imports. */
function copy(file, copied) {
  if (copied.has(file)) return;
  copied.add(file);
  const from = path.join(web, file);
  if (!fs.existsSync(from)) {
    throw new Error(`copy-web: ${path.relative(process.cwd(), from)} is missing`);
  }
  fs.copyFileSync(from, path.join(media, path.basename(file)));
  if (file.endsWith(".js")) {
    for (const imported of importsOf(fs.readFileSync(from, "utf8"))) {
      copy(path.posix.normalize(path.posix.join(path.posix.dirname(file), imported)), copied);
    }
  }
}

const copied = new Set();
copy("askd.css", copied);
copy("askd-view.js", copied);
console.log(`copy-web: ${[...copied].join(", ")} → media/`);
