/**
 * askd-waiting: the list of flows waiting for an answer across agents, oldest first, each with
 * who asked (the agent, its folder) and when, as askd's `sessions` and `session/opened` carry
 * them (`asker: { name?, folder? }`, `openedAt` in milliseconds since the Unix epoch).
 *
 * Host-neutral, like askd-view: it reaches the page only through the elements it is given.
 *
 * @module askd-waiting
 */

/**
 * @typedef {object} SessionEntry
 * @property {string} session
 * @property {string} [title]
 * @property {string} status
 * @property {{ name?: string, folder?: string }} [asker]
 * @property {number} [openedAt]
 */

/**
 * Sessions in the order they wait: by `openedAt`, oldest first; those without one after, in
 * the order given.
 *
 * @param {SessionEntry[]} entries
 * @returns {SessionEntry[]}
 */
export function waitingOrder(entries) {
  return entries
    .map((entry, index) => ({ entry, index }))
    .sort((a, b) => {
      const left = typeof a.entry.openedAt === "number" ? a.entry.openedAt : Infinity;
      const right = typeof b.entry.openedAt === "number" ? b.entry.openedAt : Infinity;
      return left === right ? a.index - b.index : left - right;
    })
    .map(({ entry }) => entry);
}

/**
 * A folder's last two parts (`…/askd/editors`), short enough for a phone; the whole path is
 * given to the element's title.
 *
 * @param {string} folder
 * @returns {string}
 */
export function shortFolder(folder) {
  const parts = folder.split("/").filter((part) => part !== "");
  if (parts.length <= 2) return folder;
  return `…/${parts.slice(-2).join("/")}`;
}

/**
 * How long ago a flow was opened, in words: `just now`, `5 s ago`, `3 min ago`, `2 h ago`,
 * `4 d ago`.
 *
 * @param {number} openedAt milliseconds since the Unix epoch
 * @param {number} now milliseconds since the Unix epoch
 * @returns {string}
 */
export function askedAgo(openedAt, now) {
  const seconds = Math.max(0, Math.floor((now - openedAt) / 1000));
  if (seconds < 5) return "just now";
  if (seconds < 60) return `${seconds} s ago`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)} h ago`;
  return `${Math.floor(seconds / 86400)} d ago`;
}

/**
 * A flow's name for a person: its title (or its id), and who asked when known —
 * `Release plan — claude-code in …/work/shop`.
 *
 * @param {SessionEntry} entry
 * @returns {string}
 */
export function sessionLabel(entry) {
  const title = typeof entry.title === "string" && entry.title !== "" ? entry.title : entry.session;
  const who = entry.asker?.name;
  const where = entry.asker?.folder;
  if (who && where) return `${title} — ${who} in ${shortFolder(where)}`;
  if (who) return `${title} — ${who}`;
  if (where) return `${title} — in ${shortFolder(where)}`;
  return title;
}

/**
 * Draws the waiting flows (oldest first, with a count) and the finished ones, each a button that
 * shows it; the flow shown is marked `aria-current`.
 *
 * @param {HTMLElement} container its contents are replaced
 * @param {SessionEntry[]} open the flows waiting, in order
 * @param {SessionEntry[]} finished flows done, to look at
 * @param {string | null} shown the id of the flow shown
 * @param {(session: string) => void} onPick called with the id of the flow chosen
 * @param {number} [now] the time, for "asked 3 min ago"
 */
export function renderWaitingList(container, open, finished, shown, onPick, now = Date.now()) {
  const doc = container.ownerDocument;
  const heading = doc.createElement("h2");
  heading.className = "askd-waiting-heading";
  heading.textContent =
    open.length === 0
      ? "No question is waiting"
      : open.length === 1
        ? "1 question waiting"
        : `${open.length} questions waiting, oldest first`;
  const parts = [heading];
  if (open.length > 0) parts.push(listOf(doc, open, shown, onPick, now, "askd-waiting-list"));
  if (finished.length > 0) {
    const done = doc.createElement("h3");
    done.className = "askd-waiting-done-heading";
    done.textContent = "Finished";
    parts.push(done, listOf(doc, finished, shown, onPick, now, "askd-waiting-finished"));
  }
  container.replaceChildren(...parts);
}

/**
 * @param {Document} doc
 * @param {SessionEntry[]} entries
 * @param {string | null} shown
 * @param {(session: string) => void} onPick
 * @param {number} now
 * @param {string} className
 * @returns {HTMLElement}
 */
function listOf(doc, entries, shown, onPick, now, className) {
  const list = doc.createElement("ul");
  list.className = `askd-waiting-items ${className}`;
  for (const entry of entries) {
    const item = doc.createElement("li");
    const button = doc.createElement("button");
    button.type = "button";
    button.className = "askd-waiting-item";
    button.dataset.session = entry.session;
    if (entry.session === shown) button.setAttribute("aria-current", "true");
    const title = doc.createElement("span");
    title.className = "askd-waiting-title";
    title.textContent =
      typeof entry.title === "string" && entry.title !== "" ? entry.title : entry.session;
    const about = doc.createElement("span");
    about.className = "askd-waiting-about";
    const words = [];
    if (entry.asker?.name) words.push(entry.asker.name);
    if (entry.asker?.folder) {
      words.push(`in ${shortFolder(entry.asker.folder)}`);
      about.title = entry.asker.folder;
    }
    if (typeof entry.openedAt === "number") words.push(`asked ${askedAgo(entry.openedAt, now)}`);
    if (entry.status !== "open") words.push(entry.status === "done" ? "done" : entry.status);
    about.textContent = words.join(" · ");
    button.append(title, " ", about);
    button.addEventListener("click", () => onPick(entry.session));
    item.append(button);
    list.append(item);
  }
  return list;
}
