/**
 * askd-form: the form look. Draws a view as semantic HTML — a tab list, radio or checkbox rows
 * with their labels, descriptions, notes and previews, the review's summary and action buttons,
 * a real text area for the open editor, the countdown, the notices — from the view's fields,
 * not from its rendered `lines`.
 *
 * It decides nothing about the flow: every element a person may click or tap carries the
 * pointer target askd takes for it (`data-target`, the JSON of an `activate` target), and the
 * controller (askd-view's `mountFlow`) sends it. Host-neutral, like askd-view.
 *
 * @module askd-form
 */

/** How many forms were made, for ids unique in a page. */
let forms = 0;

/** The label askd gives the custom row, for the editor's label. */
const PLACEHOLDERS = Object.freeze({
  custom: "Your answer",
  questionNote: "Note on the question",
  optionNote: "Note on",
});

/** Names of keys as the hints line shows them. */
const KEY_SYMBOLS = Object.freeze({
  up: "↑",
  down: "↓",
  left: "←",
  right: "→",
  enter: "Enter",
  escape: "Esc",
  space: "Space",
  tab: "Tab",
  "shift+tab": "Shift+Tab",
  backspace: "Backspace",
});

/**
 * The words of how a flow ended, from the view's `outcome` and `cancelReason`.
 *
 * @param {{ outcome: string | null, cancelReason: string | null }} view
 * @returns {string}
 */
export function outcomeText(view) {
  if (view.outcome === "submit") return "Submitted";
  if (view.outcome === "elaborate") return "Sent back to elaborate";
  if (view.outcome === "invalid") return "The question could not be shown: it is not valid";
  const reasons = {
    dismissed: "dismissed",
    aborted: "withdrawn by the asker",
    timeout: "timed out",
    closed: "closed",
    no_ui: "no one could answer",
    invalid_input: "the question was not valid",
  };
  const why = reasons[view.cancelReason];
  return why === undefined ? "Cancelled" : `Cancelled (${why})`;
}

/**
 * The countdown's words for a deadline: `4:59 left`, `1:00:00 left`, `0:00 left`, counting whole
 * seconds rounded up.
 *
 * @param {number} deadline milliseconds since the Unix epoch
 * @param {number} now milliseconds since the Unix epoch
 * @returns {string}
 */
export function countdownText(deadline, now) {
  const seconds = Math.max(0, Math.ceil((deadline - now) / 1000));
  const two = (n) => String(n).padStart(2, "0");
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const rest = seconds % 60;
  return `${hours > 0 ? `${hours}:${two(minutes)}` : minutes}:${two(rest)} left`;
}

/**
 * The words of a key hint: its keys (as symbols) and what they do.
 *
 * @param {{ action: string, keys: string[], label: string }} hint
 * @returns {string}
 */
export function hintText(hint) {
  if (hint.action === "digits" && hint.keys.length > 1) {
    return `${hint.keys[0]}-${hint.keys.at(-1)} ${hint.label}`;
  }
  return `${hint.keys.map((key) => KEY_SYMBOLS[key] ?? key).join("/")} ${hint.label}`;
}

/**
 * Whether the view lets a person click or tap a kind of target: its `activatable` says so (an
 * askd that does not send `activatable` is taken to allow tabs, rows, actions, completion items
 * and the note editors, and nothing else).
 *
 * @param {any} view
 * @param {"tabs" | "rows" | "actions" | "completion" | "filter" | "help" | "custom" |
 *   "questionNote" | "optionNote"} kind
 * @returns {boolean}
 */
export function canActivate(view, kind) {
  if (view.status !== "open") return false;
  const marks = view.activatable;
  if (marks === undefined) return !["filter", "help"].includes(kind);
  if (marks === null) return false;
  if (kind === "custom" || kind === "questionNote" || kind === "optionNote") {
    return Array.isArray(marks.editors) && marks.editors.includes(kind);
  }
  return marks[kind] === true;
}

/**
 * Creates an element with a class and, optionally, text.
 *
 * @param {Document} doc
 * @param {string} tag
 * @param {string} className
 * @param {string} [text]
 * @returns {HTMLElement}
 */
function make(doc, tag, className, text) {
  const element = doc.createElement(tag);
  if (className) element.className = className;
  if (text !== undefined) element.textContent = text;
  return element;
}

/**
 * Sets an element's text when it differs (a write that changes nothing still costs a layout).
 *
 * @param {HTMLElement} element
 * @param {string} text
 */
function setText(element, text) {
  if (element.textContent !== text) element.textContent = text;
}

/**
 * Sets or removes an attribute when it differs.
 *
 * @param {HTMLElement} element
 * @param {string} name
 * @param {string | null} value `null` removes it
 */
function setAttr(element, name, value) {
  if (value === null) {
    if (element.hasAttribute(name)) element.removeAttribute(name);
  } else if (element.getAttribute(name) !== value) {
    element.setAttribute(name, value);
  }
}

/**
 * Shows or hides an element.
 *
 * @param {HTMLElement} element
 * @param {boolean} shown
 */
function show(element, shown) {
  if (element.hidden === shown) element.hidden = !shown;
}

/**
 * Brings a container's children in line with a list: one child per item, keyed, made by
 * `create` when missing and brought up to date by `update`; children of keys no longer listed
 * are removed, and the order follows the list. Unchanged children stay the same nodes, so that
 * focus and a screen reader's place survive a redraw.
 *
 * @template T
 * @param {HTMLElement} container
 * @param {T[]} items
 * @param {(item: T, index: number) => string} keyOf
 * @param {(item: T, index: number) => HTMLElement} create
 * @param {(element: HTMLElement, item: T, index: number) => void} update
 */
function syncChildren(container, items, keyOf, create, update) {
  const existing = new Map();
  for (const child of container.children) existing.set(child.dataset.key, child);
  let previous = null;
  items.forEach((item, index) => {
    const key = keyOf(item, index);
    let element = existing.get(key);
    if (element === undefined) {
      element = create(item, index);
      element.dataset.key = key;
    } else {
      existing.delete(key);
    }
    update(element, item, index);
    const wanted = previous === null ? container.firstElementChild : previous.nextElementSibling;
    if (wanted !== element) container.insertBefore(element, wanted);
    previous = element;
  });
  for (const stale of existing.values()) stale.remove();
}

/**
 * The form look of one flow: a tree of elements made once and brought up to date with each
 * view by {@link Form.render}.
 */
export class Form {
  /** @param {Document} doc */
  constructor(doc) {
    forms += 1;
    const id = (name) => `askd-f${forms}-${name}`;
    this.doc = doc;
    this.ids = {
      title: id("title"),
      prompt: id("prompt"),
      panel: id("panel"),
      editor: id("editor"),
      editorLabel: id("editor-label"),
      completion: id("completion"),
      hints: id("hints"),
    };
    this.tabId = (index) => id(`tab-${index}`);
    this.rowId = (value) => id(`row-${encodeURIComponent(value)}`);

    const root = make(doc, "div", "askd-form");
    this.root = root;

    const head = make(doc, "div", "askd-form-head");
    this.title = make(doc, "h2", "askd-form-title");
    this.title.id = this.ids.title;
    this.countdown = make(doc, "p", "askd-countdown");
    this.countdown.setAttribute("role", "timer");
    this.countdown.hidden = true;
    this.progress = make(doc, "p", "askd-progress");
    this.helpButton = make(doc, "button", "askd-button askd-help-button");
    this.helpButton.type = "button";
    this.helpButton.hidden = true;
    head.append(this.title, this.countdown, this.progress, this.helpButton);

    this.tabs = make(doc, "div", "askd-tabs");
    this.tabs.setAttribute("role", "tablist");
    this.tabs.setAttribute("aria-label", "Questions");

    this.panel = make(doc, "div", "askd-panel");
    this.panel.id = this.ids.panel;
    this.panel.setAttribute("role", "tabpanel");

    // A question: its prompt, detail, filter, rows and preview, and its note.
    this.question = make(doc, "div", "askd-question");
    this.prompt = make(doc, "h3", "askd-prompt");
    this.prompt.id = this.ids.prompt;
    this.detail = make(doc, "p", "askd-detail");
    this.filter = make(doc, "p", "askd-filter");
    this.filter.hidden = true;
    this.filterButton = make(doc, "button", "askd-button askd-filter-button");
    this.filterButton.type = "button";
    this.filterButton.hidden = true;
    this.above = make(doc, "p", "askd-more");
    this.below = make(doc, "p", "askd-more");
    this.rows = make(doc, "div", "askd-rows");
    this.rows.setAttribute("aria-labelledby", this.ids.prompt);
    const body = make(doc, "div", "askd-question-body");
    const list = make(doc, "div", "askd-question-list");
    list.append(this.above, this.rows, this.below);
    this.previewBox = make(doc, "figure", "askd-preview");
    this.previewCaption = make(doc, "figcaption", "askd-preview-caption");
    this.preview = make(doc, "pre", "askd-preview-text");
    this.previewBox.append(this.previewCaption, this.preview);
    body.append(list, this.previewBox);
    this.questionNote = make(doc, "div", "askd-question-note");
    this.questionNoteText = make(doc, "p", "askd-note-text");
    this.questionNoteButton = make(doc, "button", "askd-button askd-note-button");
    this.questionNoteButton.type = "button";
    this.questionNoteButton.dataset.target = JSON.stringify({ editor: "questionNote" });
    this.questionNote.append(this.questionNoteText, this.questionNoteButton);
    this.filterLine = make(doc, "div", "askd-filter-line");
    this.filterLine.append(this.filter, this.filterButton);
    this.question.append(this.prompt, this.detail, this.filterLine, body, this.questionNote);

    // The open editor: a real text area, and its buttons.
    this.editor = make(doc, "div", "askd-editor");
    this.editor.hidden = true;
    this.editorLabel = make(doc, "label", "askd-editor-label");
    this.editorLabel.id = this.ids.editorLabel;
    this.editorLabel.htmlFor = this.ids.editor;
    this.textarea = /** @type {HTMLTextAreaElement} */ (make(doc, "textarea", "askd-editor-text"));
    this.textarea.id = this.ids.editor;
    this.textarea.rows = 3;
    this.textarea.setAttribute("enterkeyhint", "done");
    this.textarea.setAttribute("aria-describedby", this.ids.hints);
    this.completion = make(doc, "ul", "askd-completion");
    this.completion.id = this.ids.completion;
    this.completion.setAttribute("role", "listbox");
    this.completion.setAttribute("aria-label", "Files");
    this.completion.hidden = true;
    const buttons = make(doc, "div", "askd-editor-buttons");
    this.saveButton = make(doc, "button", "askd-button askd-primary", "Save");
    this.saveButton.type = "button";
    this.saveButton.dataset.command = "save";
    this.closeButton = make(doc, "button", "askd-button", "Close");
    this.closeButton.type = "button";
    this.closeButton.dataset.command = "close";
    buttons.append(this.saveButton, this.closeButton);
    this.editor.append(this.editorLabel, this.textarea, this.completion, buttons);

    // The review: a summary of the answers and the actions.
    this.review = make(doc, "div", "askd-review");
    this.review.hidden = true;
    const reviewHeading = make(doc, "h3", "askd-prompt", "Review your answers");
    this.summary = make(doc, "dl", "askd-summary");
    this.actions = make(doc, "div", "askd-actions");
    this.actions.setAttribute("role", "group");
    this.actions.setAttribute("aria-label", "Actions");
    this.review.append(reviewHeading, this.summary, this.actions);

    // The help overlay.
    this.help = make(doc, "section", "askd-help");
    this.help.hidden = true;

    // The end of the flow.
    this.end = make(doc, "p", "askd-end");
    this.end.hidden = true;
    // Once done, the keyboard rests on the words of how the flow ended.
    this.end.tabIndex = -1;

    this.panel.append(this.question, this.editor, this.review, this.help, this.end);

    this.notices = make(doc, "div", "askd-notices");
    this.notices.setAttribute("role", "status");
    this.notices.setAttribute("aria-live", "polite");
    this.hints = make(doc, "p", "askd-hints");
    this.hints.id = this.ids.hints;

    root.append(head, this.tabs, this.panel, this.notices, this.hints);

    /** The editor target shown, as JSON, to tell a new editor from the same one. */
    this.editorKey = null;
    /** The notices of the view, to say them once. */
    this.viewNotices = "";
    /** The notices of the client (a paste outside an editor, …). */
    this.ownNotices = [];
    this.view = null;
  }

  /**
   * Brings the form up to date with a view.
   *
   * @param {any} view
   * @param {{ keepDraft?: boolean, now?: number }} [options] `keepDraft`: the text area holds
   *   text askd has not answered yet (or an input method composes), so it is not overwritten
   */
  render(view, options = {}) {
    this.view = view;
    const done = view.status === "done";
    this.root.dataset.focus = view.focus ?? "";
    this.root.classList.toggle("askd-form-done", done);
    setText(this.title, view.title ?? "");
    show(this.title, typeof view.title === "string" && view.title !== "");
    this.renderProgress(view);
    this.renderCountdown(view, options.now ?? Date.now());
    this.renderTabs(view, done);

    const question = view.question;
    show(this.question, question != null && view.help == null);
    if (question != null) this.renderQuestion(question, view);
    show(this.review, view.review != null && view.help == null);
    if (view.review != null) this.renderReview(view.review, view);
    this.renderEditor(view, options.keepDraft === true);
    this.renderHelp(view.help);
    const helpOpen = view.help != null;
    show(this.helpButton, canActivate(view, "help"));
    setText(this.helpButton, helpOpen ? "Close the keys" : "Keys");
    setAttr(this.helpButton, "aria-expanded", helpOpen ? "true" : "false");
    this.helpButton.dataset.target = JSON.stringify({ help: !helpOpen });
    show(this.end, done);
    if (done) setText(this.end, outcomeText(view));
    const active = view.tabs?.[view.activeTab];
    setAttr(this.panel, "aria-labelledby", active ? `${this.tabId(view.activeTab)}-label` : this.ids.title);

    const viewNotices = (view.notices ?? []).map((notice) => notice.text).join("\n");
    if (viewNotices !== this.viewNotices) {
      this.viewNotices = viewNotices;
      this.renderNotices();
    }
    setText(this.hints, done ? "" : (view.hints ?? []).map(hintText).join(" · "));
  }

  /**
   * Says something in the live region beside the view's notices, or clears what the client said
   * with `null`.
   *
   * @param {string | null} text
   */
  say(text) {
    this.ownNotices = text === null ? [] : [text];
    this.renderNotices();
  }

  /** Draws the notices: the view's, then the client's. */
  renderNotices() {
    const lines = [
      ...(this.viewNotices === "" ? [] : this.viewNotices.split("\n")),
      ...this.ownNotices,
    ];
    syncChildren(
      this.notices,
      lines,
      (text) => text,
      () => make(this.doc, "p", "askd-notice"),
      (element, text) => setText(element, text),
    );
  }

  /** @param {any} view */
  renderProgress(view) {
    const progress = view.progress;
    const many = progress && progress.total > 1 && view.status !== "done";
    show(this.progress, Boolean(many));
    if (many) setText(this.progress, `${progress.answered} of ${progress.total} answered`);
  }

  /**
   * Draws the countdown of an open flow with a deadline.
   *
   * @param {any} view
   * @param {number} now
   */
  renderCountdown(view, now) {
    const deadline = view.status === "open" && typeof view.deadline === "number" ? view.deadline : null;
    show(this.countdown, deadline !== null);
    if (deadline === null) return;
    setText(this.countdown, countdownText(deadline, now));
    this.countdown.classList.toggle("askd-countdown-warning", deadline - now <= 10000);
  }

  /** Brings the countdown's text up to date (the controller calls it every second). */
  tick() {
    if (this.view !== null) this.renderCountdown(this.view, Date.now());
  }

  /**
   * @param {any} view
   * @param {boolean} done
   */
  renderTabs(view, done) {
    const tabs = view.tabs ?? [];
    show(this.tabs, tabs.length > 1 || (tabs.length === 1 && tabs[0].kind !== "review"));
    syncChildren(
      this.tabs,
      tabs,
      (tab, index) => String(index),
      (tab, index) => {
        const button = make(this.doc, "button", "askd-tab");
        button.type = "button";
        button.id = this.tabId(index);
        button.setAttribute("role", "tab");
        button.setAttribute("aria-controls", this.ids.panel);
        button.tabIndex = -1;
        button.dataset.target = JSON.stringify({ tab: index });
        const mark = make(this.doc, "span", "askd-tab-mark");
        mark.setAttribute("aria-hidden", "true");
        const label = make(this.doc, "span", "askd-tab-label");
        label.id = `${button.id}-label`;
        button.append(mark, label);
        return button;
      },
      (button, tab) => {
        setAttr(button, "aria-selected", tab.active ? "true" : "false");
        button.classList.toggle("askd-tab-answered", tab.answered === true);
        button.classList.toggle("askd-tab-review", tab.kind === "review");
        const [mark, label] = button.children;
        const symbol = tab.kind === "review" ? "✓" : tab.answered ? "■" : "□";
        setText(mark, `${symbol}${tab.hasNotes ? " ✎" : ""}`);
        setText(label, tab.label);
        // A screen reader hears the marks in words: "Scope, answered, has notes".
        const words = [tab.label];
        if (tab.kind === "question") words.push(tab.answered ? "answered" : "not answered");
        if (tab.hasNotes) words.push("has notes");
        setAttr(button, "aria-label", words.join(", "));
        button.disabled = done || !canActivate(view, "tabs");
      },
    );
  }

  /**
   * @param {any} question
   * @param {any} view
   */
  renderQuestion(question, view) {
    const multi = question.type === "multi";
    setText(this.prompt, question.prompt ?? "");
    const detail = question.planReview?.plan ?? question.detail;
    show(this.detail, typeof detail === "string" && detail !== "");
    setText(this.detail, detail ?? "");
    this.detail.classList.toggle("askd-plan", question.planReview != null);

    const filter = view.filter;
    show(this.filter, filter != null);
    if (filter != null) {
      const matches =
        filter.matches === 0 ? "no option matches" : `${filter.matches} of ${filter.total} match`;
      setText(this.filter, `Filter: ${filter.text}${filter.editing ? "▏" : ""} — ${matches}`);
    }
    // The filter opens (a keyboard then types it) and, once applied, clears.
    const filtering = filter != null;
    show(this.filterButton, canActivate(view, "filter"));
    show(this.filterLine, filtering || !this.filterButton.hidden);
    setText(this.filterButton, filtering ? "Clear the filter" : "Filter the options");
    this.filterButton.dataset.target = JSON.stringify({ filter: !filtering });
    show(this.above, question.rowsAbove > 0);
    setText(this.above, `↑ ${question.rowsAbove} more`);
    show(this.below, question.rowsBelow > 0);
    setText(this.below, `↓ ${question.rowsBelow} more`);

    setAttr(this.rows, "role", multi ? "group" : "radiogroup");
    const editing = view.editor?.target ?? null;
    syncChildren(
      this.rows,
      question.rows ?? [],
      (row) => `${row.custom ? "custom" : "option"}:${row.value}`,
      (row) => this.createRow(row),
      (element, row) => this.updateRow(element, row, question, multi, editing, view),
    );

    const preview = question.preview;
    show(this.previewBox, typeof preview === "string" && preview !== "");
    if (typeof preview === "string") {
      const activeRow = (question.rows ?? []).find((row) => row.active);
      setText(this.previewCaption, activeRow ? `Preview of ${activeRow.label}` : "Preview");
      setText(this.preview, preview);
    }
    this.question.classList.toggle("askd-has-preview", question.hasPreviews === true);

    const note = question.note;
    setText(this.questionNoteText, note ? `Note: ${note}` : "");
    show(this.questionNoteText, Boolean(note));
    setText(this.questionNoteButton, note ? "Edit the question's note" : "Add a note to the question");
    show(this.questionNoteButton, canActivate(view, "questionNote"));
    show(this.questionNote, Boolean(note) || canActivate(view, "questionNote"));
  }

  /**
   * @param {any} row
   * @returns {HTMLElement}
   */
  createRow(row) {
    const element = make(this.doc, "div", "askd-row");
    element.id = this.rowId(`${row.custom ? "custom" : "option"}:${row.value}`);
    element.tabIndex = -1;
    const choice = make(this.doc, "div", "askd-row-choice");
    const mark = make(this.doc, "span", "askd-row-mark");
    mark.setAttribute("aria-hidden", "true");
    const text = make(this.doc, "span", "askd-row-text");
    const label = make(this.doc, "span", "askd-row-label");
    label.id = `${element.id}-label`;
    const badge = make(this.doc, "span", "askd-badge", "Recommended");
    label.append(make(this.doc, "span", "askd-row-name"), " ", badge);
    const description = make(this.doc, "span", "askd-row-description");
    description.id = `${element.id}-description`;
    const extra = make(this.doc, "span", "askd-row-extra");
    extra.id = `${element.id}-extra`;
    text.append(label, description, extra);
    choice.append(mark, text);
    element.append(choice);
    element.setAttribute("aria-labelledby", label.id);
    if (!row.custom) {
      const note = make(this.doc, "button", "askd-button askd-row-note");
      note.type = "button";
      note.dataset.target = JSON.stringify({ editor: "optionNote", option: row.value });
      // The note button sits beside the row, not inside it: a control inside a radio is not
      // allowed. The row and its button are wrapped together.
      const wrap = make(this.doc, "div", "askd-row-wrap");
      wrap.append(element, note);
      return wrap;
    }
    const wrap = make(this.doc, "div", "askd-row-wrap");
    wrap.append(element);
    return wrap;
  }

  /**
   * @param {HTMLElement} wrap
   * @param {any} row
   * @param {any} question
   * @param {boolean} multi
   * @param {any} editing the open editor's target, or `null`
   * @param {any} view
   */
  updateRow(wrap, row, question, multi, editing, view) {
    const element = /** @type {HTMLElement} */ (wrap.firstElementChild);
    setAttr(element, "role", multi ? "checkbox" : "radio");
    setAttr(element, "aria-checked", row.selected ? "true" : "false");
    if (canActivate(view, "rows")) element.dataset.target = JSON.stringify({ row: row.index });
    else delete element.dataset.target;
    setAttr(element, "aria-disabled", view.status === "open" ? null : "true");
    element.dataset.index = String(row.index);
    element.classList.toggle("askd-row-active", row.active === true);
    element.classList.toggle("askd-row-selected", row.selected === true);
    element.classList.toggle("askd-row-custom", row.custom === true);
    const [mark, text] = element.firstElementChild.children;
    setText(mark, multi ? (row.selected ? "☑" : "☐") : row.selected ? "●" : "○");
    const [label, description, extra] = text.children;
    const [name, badge] = label.children;
    setText(name, row.label);
    show(badge, row.recommended === true);
    const describe = [];
    show(description, typeof row.description === "string" && row.description !== "");
    setText(description, row.description ?? "");
    if (!description.hidden) describe.push(description.id);
    let more = "";
    if (row.custom && typeof question.customText === "string" && question.customText !== "") {
      more = `${row.selected ? "Your answer" : "Set aside"}: ${question.customText}`;
    } else if (typeof row.note === "string" && row.note !== "") {
      more = `Note: ${row.note}`;
    }
    show(extra, more !== "");
    setText(extra, more);
    extra.classList.toggle("askd-row-note-text", !row.custom);
    if (more !== "") describe.push(extra.id);
    setAttr(element, "aria-describedby", describe.length > 0 ? describe.join(" ") : null);
    const noteButton = /** @type {HTMLElement | null} */ (element.nextElementSibling);
    if (noteButton !== null) {
      show(noteButton, canActivate(view, "optionNote"));
      setText(noteButton, row.note ? "Edit note" : "Note");
      // The name starts with the words shown (WCAG's label in name), then says whose note.
      setAttr(noteButton, "aria-label", `${row.note ? "Edit note" : "Note"} on ${row.label}`);
      const open =
        editing !== null && editing.kind === "optionNote" && editing.optionValue === row.value;
      setAttr(noteButton, "aria-expanded", open ? "true" : "false");
    }
  }

  /**
   * @param {any} review
   * @param {any} view
   */
  renderReview(review, view) {
    syncChildren(
      this.summary,
      review.questions ?? [],
      (entry) => entry.id,
      () => {
        const item = make(this.doc, "div", "askd-summary-item");
        item.append(make(this.doc, "dt", "askd-summary-label"), make(this.doc, "dd", "askd-summary-answer"));
        return item;
      },
      (item, entry) => {
        const [label, answer] = item.children;
        setText(label, entry.label);
        const parts = [];
        if (!entry.answered) parts.push(make(this.doc, "span", "askd-unanswered", "not answered"));
        for (const line of entry.answers ?? []) {
          const part = make(this.doc, "span", "askd-summary-line");
          part.append(make(this.doc, "span", line.custom ? "askd-answer askd-custom" : "askd-answer", line.label));
          if (line.note) part.append(make(this.doc, "span", "askd-note-text", ` — note: ${line.note}`));
          parts.push(part);
        }
        if (entry.note) parts.push(make(this.doc, "span", "askd-note-text askd-summary-line", `Note: ${entry.note}`));
        for (const other of entry.otherNotes ?? []) {
          parts.push(
            make(this.doc, "span", "askd-note-text askd-summary-line", `${other.label} — note: ${other.note}`),
          );
        }
        answer.replaceChildren(...parts);
      },
    );
    syncChildren(
      this.actions,
      review.actions ?? [],
      (action, index) => String(index),
      (action, index) => {
        const button = make(this.doc, "button", "askd-button askd-action");
        button.type = "button";
        button.tabIndex = -1;
        button.dataset.target = JSON.stringify({ action: index });
        return button;
      },
      (button, action) => {
        setText(button, action.label);
        button.classList.toggle("askd-action-active", action.active === true);
        button.classList.toggle("askd-primary", action.label === "Submit");
        setAttr(button, "aria-keyshortcuts", action.key ?? null);
        button.disabled = !canActivate(view, "actions");
      },
    );
  }

  /**
   * @param {any} view
   * @param {boolean} keepDraft
   */
  renderEditor(view, keepDraft) {
    const editor = view.editor;
    show(this.editor, editor != null);
    if (editor == null) {
      this.editorKey = null;
      return;
    }
    const target = editor.target ?? {};
    const key = JSON.stringify([target.kind, target.questionId, target.optionValue ?? null]);
    let label = PLACEHOLDERS[target.kind] ?? "Your answer";
    if (target.kind === "optionNote") {
      const row = (view.question?.rows ?? []).find((r) => r.value === target.optionValue);
      label = `Note on ${row ? row.label : target.optionValue}`;
    } else if (target.kind === "custom" && view.question) {
      label = `Your answer to: ${view.question.prompt}`;
    }
    setText(this.editorLabel, label);
    setAttr(this.textarea, "placeholder", editor.placeholder ?? null);
    const fresh = key !== this.editorKey;
    this.editorKey = key;
    if (fresh || (!keepDraft && this.textarea.value !== editor.text)) {
      this.textarea.value = editor.text ?? "";
      const caret = editor.cursor?.utf16 ?? this.textarea.value.length;
      this.textarea.setSelectionRange(caret, caret);
    }
    const completion = editor.completion;
    show(this.completion, completion != null);
    setAttr(this.textarea, "aria-controls", completion != null ? this.ids.completion : null);
    setAttr(this.textarea, "aria-autocomplete", completion != null ? "list" : null);
    if (completion != null) {
      syncChildren(
        this.completion,
        completion.items ?? [],
        (item) => item.path,
        (item, index) => {
          const option = make(this.doc, "li", "askd-completion-item");
          option.id = `${this.ids.completion}-${index}`;
          option.setAttribute("role", "option");
          return option;
        },
        (option, item, index) => {
          setText(option, `${item.path}${item.isDir ? "/" : ""}`);
          if (canActivate(view, "completion")) option.dataset.target = JSON.stringify({ completion: index });
          else delete option.dataset.target;
          setAttr(option, "aria-selected", index === completion.selected ? "true" : "false");
        },
      );
      const selected = this.completion.children[completion.selected];
      setAttr(this.textarea, "aria-activedescendant", selected ? selected.id : null);
    } else {
      setAttr(this.textarea, "aria-activedescendant", null);
    }
  }

  /** @param {any} help */
  renderHelp(help) {
    show(this.help, help != null);
    if (help == null) return;
    const parts = [make(this.doc, "h3", "askd-prompt", help.title ?? "Keys")];
    for (const section of help.sections ?? []) {
      parts.push(make(this.doc, "h4", "askd-help-heading", section.label));
      const list = make(this.doc, "dl", "askd-help-list");
      for (const binding of section.bindings ?? []) {
        list.append(
          make(this.doc, "dt", "askd-help-keys", binding.keys.map((k) => KEY_SYMBOLS[k] ?? k).join(" / ")),
          make(this.doc, "dd", "askd-help-label", binding.label),
        );
      }
      parts.push(list);
    }
    this.help.replaceChildren(...parts);
  }

  /**
   * The element that stands for where the view's keys go, to hold the keyboard focus: the text
   * area of an open editor, the active row, the active review action, or the active tab; once
 * done, the words of how the flow ended.
   *
   * @returns {HTMLElement | null}
   */
  activeElement() {
    const view = this.view;
    if (view === null) return null;
    if (view.status === "done") return this.end;
    if (view.editor != null) return this.textarea;
    if (view.review != null) {
      return /** @type {HTMLElement | null} */ (this.actions.querySelector(".askd-action-active"));
    }
    const row = this.rows.querySelector(".askd-row-active");
    if (row !== null && !this.question.hidden) return /** @type {HTMLElement} */ (row);
    return /** @type {HTMLElement | null} */ (this.tabs.querySelector('[aria-selected="true"]'));
  }
}
