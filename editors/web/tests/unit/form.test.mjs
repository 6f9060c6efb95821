// The pure parts of the form look and of the waiting list: the words of a flow's end, the
// countdown, the key hints, which keys a text area keeps, and the order and names of waiting
// flows.

import assert from "node:assert/strict";
import { test } from "node:test";
import { canActivate, countdownText, hintText, isTextAreaKey, outcomeText } from "../../askd-view.js";
import { askedAgo, sessionLabel, shortFolder, waitingOrder } from "../../askd-waiting.js";

test("outcomeText says how a flow ended", () => {
  const words = (outcome, cancelReason = null) => outcomeText({ outcome, cancelReason });
  assert.equal(words("submit"), "Submitted");
  assert.equal(words("elaborate"), "Sent back to elaborate");
  assert.equal(words("cancelled", "user"), "Cancelled");
  assert.equal(words("cancelled", "timeout"), "Cancelled (timed out)");
  assert.equal(words("cancelled", "dismissed"), "Cancelled (dismissed)");
  assert.equal(words("aborted", "aborted"), "Cancelled (withdrawn by the asker)");
  assert.equal(words("cancelled", "no_ui"), "Cancelled (no one could answer)");
  assert.equal(words("invalid", "invalid_input"), "The question could not be shown: it is not valid");
});

test("countdownText counts whole seconds, rounded up", () => {
  const now = 1_000_000;
  assert.equal(countdownText(now + 299_001, now), "5:00 left");
  assert.equal(countdownText(now + 299_000, now), "4:59 left");
  assert.equal(countdownText(now + 9_500, now), "0:10 left");
  assert.equal(countdownText(now + 3_600_000, now), "1:00:00 left");
  assert.equal(countdownText(now - 5_000, now), "0:00 left");
});

test("hintText shows keys as symbols and digits as a range", () => {
  assert.equal(hintText({ action: "main.up", keys: ["up"], label: "up" }), "↑ up");
  assert.equal(
    hintText({ action: "main.nextTab", keys: ["tab", "right"], label: "next tab" }),
    "Tab/→ next tab",
  );
  assert.equal(hintText({ action: "digits", keys: ["1", "2", "3"], label: "quick select" }), "1-3 quick select");
  assert.equal(hintText({ action: "global.dismiss", keys: ["ctrl+c"], label: "dismiss" }), "ctrl+c dismiss");
});

test("a text area keeps its editing keys; askd gets Enter, Escape, Tab and its own chords", () => {
  for (const key of ["a", "é", "한", " ", "space", "backspace", "delete", "left", "right", "home",
    "end", "up", "down", "shift+enter", "shift+left", "ctrl+left", "ctrl+shift+right",
    "alt+backspace", "ctrl+a", "ctrl+x", "ctrl+z", "ctrl+y"]) {
    assert.equal(isTextAreaKey(key, false), true, key);
  }
  for (const key of ["enter", "escape", "tab", "shift+tab", "alt+enter", "pageup", "pagedown",
    "ctrl+c", "ctrl+u", "ctrl+k", "ctrl+w", "alt+b"]) {
    assert.equal(isTextAreaKey(key, false), false, key);
  }
  // While a completion list is open, up and down move in it.
  assert.equal(isTextAreaKey("up", true), false);
  assert.equal(isTextAreaKey("down", true), false);
  assert.equal(isTextAreaKey("left", true), true);
});

test("waitingOrder puts the oldest first, and flows without a time after, as given", () => {
  const entry = (session, openedAt) => ({ session, status: "open", openedAt });
  assert.deepEqual(
    waitingOrder([entry("c", 300), entry("x"), entry("a", 100), entry("y"), entry("b", 200), entry("a2", 100)])
      .map((e) => e.session),
    ["a", "a2", "b", "c", "x", "y"],
  );
});

test("who asked, in words short enough for a phone", () => {
  assert.equal(shortFolder("/home/ana/work/shop"), "…/work/shop");
  assert.equal(shortFolder("/srv/app"), "/srv/app");
  assert.equal(shortFolder("shop"), "shop");
  const base = { session: "call-1", status: "open" };
  assert.equal(sessionLabel(base), "call-1");
  assert.equal(sessionLabel({ ...base, title: "" }), "call-1");
  assert.equal(sessionLabel({ ...base, title: "Deploy" }), "Deploy");
  assert.equal(
    sessionLabel({ ...base, title: "Deploy", asker: { name: "claude-code", folder: "/home/ana/work/shop" } }),
    "Deploy — claude-code in …/work/shop",
  );
  assert.equal(sessionLabel({ ...base, title: "Deploy", asker: { name: "codex" } }), "Deploy — codex");
  assert.equal(sessionLabel({ ...base, asker: { folder: "/srv/app" } }), "call-1 — in /srv/app");
});

test("askedAgo says how long a flow has waited", () => {
  const now = 10_000_000;
  assert.equal(askedAgo(now - 4_999, now), "just now");
  assert.equal(askedAgo(now + 3_000, now), "just now");
  assert.equal(askedAgo(now - 5_000, now), "5 s ago");
  assert.equal(askedAgo(now - 59_999, now), "59 s ago");
  assert.equal(askedAgo(now - 60_000, now), "1 min ago");
  assert.equal(askedAgo(now - 3_599_999, now), "59 min ago");
  assert.equal(askedAgo(now - 7_200_000, now), "2 h ago");
  assert.equal(askedAgo(now - 3 * 86_400_000, now), "3 d ago");
});

test("canActivate follows the view's activatable marks", () => {
  const open = { status: "open" };
  // An askd that sends no marks: what every such askd offers, and neither the filter nor help.
  for (const kind of ["tabs", "rows", "actions", "completion", "custom", "questionNote", "optionNote"]) {
    assert.equal(canActivate(open, kind), true, kind);
  }
  assert.equal(canActivate(open, "filter"), false);
  assert.equal(canActivate(open, "help"), false);
  const marks = {
    tabs: true,
    rows: false,
    actions: false,
    editors: ["custom", "optionNote"],
    completion: false,
    filter: true,
    help: true,
  };
  const view = { status: "open", activatable: marks };
  assert.deepEqual(
    ["tabs", "rows", "actions", "completion", "filter", "help", "custom", "questionNote", "optionNote"].map(
      (kind) => canActivate(view, kind),
    ),
    [true, false, false, false, true, true, true, false, true],
  );
  assert.equal(canActivate({ status: "open", activatable: null }, "tabs"), false);
  assert.equal(canActivate({ status: "done", activatable: marks }, "tabs"), false);
});
