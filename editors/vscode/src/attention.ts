/**
 * How the person is told of questions without losing their place: every question waiting for
 * an answer (the extension's own flows, and the hub's while attached) is counted in a status-bar
 * item, each new one is announced by a notification with "Answer", and the keyboard moves to a
 * question only when the person asks (the notification's "Answer", the status-bar item, or the
 * `askd.focusQuestion` key), and back to where it was (the same key, or the flow's end).
 */

/** A question waiting for an answer, as the status bar and the notifications name it. */
export interface WaitingQuestion {
  /** The session id (the hub's, or the extension's own). */
  readonly session: string;
  /** Its name for a person: the title, and who asked when known. */
  readonly label: string;
  /** When it was opened, for the order they are answered in. */
  readonly openedAt: number;
  /** Where it waits: a flow of this window (`local`) or of the hub (`hub`). */
  readonly where: "local" | "hub";
}

/** The link of a notification that opens (or brings forward) the question. */
export const ANSWER = "Answer";

/**
 * A waiting notification's text with its **Answer** link: a command link to `askd.answer`,
 * with the session when the notification is about one question (else the oldest is answered).
 * The notification is a progress notification, which the extension closes once the question
 * no longer waits (a message notification cannot be closed but by the person), and such a
 * notification takes links, not buttons.
 */
export function withAnswerLink(message: string, session: string | undefined): string {
  const args = session === undefined ? "" : `?${encodeURIComponent(JSON.stringify([session]))}`;
  return `${message} [${ANSWER}](command:askd.answer${args})`;
}

/** The status-bar item's text for `count` questions waiting (empty: the item is hidden). */
export function waitingText(count: number): string {
  if (count === 0) return "";
  return `$(bell-dot) askd: ${count} waiting`;
}

/** The status-bar item's tooltip: how many wait, and each one, oldest first. */
export function waitingTooltip(questions: readonly WaitingQuestion[]): string {
  const head =
    questions.length === 1 ? "1 question waiting for your answer" : `${questions.length} questions waiting for your answer`;
  return [`${head} (click to answer the oldest):`, ...questions.map((question) => `• ${question.label}`)].join("\n");
}

/** The notification of a question that has just arrived. */
export function arrivalMessage(question: WaitingQuestion, count: number): string {
  const others = count > 1 ? ` (${count} waiting)` : "";
  return `askd: a question is waiting: ${question.label}${others}`;
}

/** The notification on attaching to a hub where questions already wait. */
export function attachedMessage(count: number): string {
  return count === 1 ? "askd: 1 question is waiting in the hub" : `askd: ${count} questions are waiting in the hub`;
}

/** The notification after answering one when others still wait. */
export function stillWaitingMessage(count: number): string {
  return count === 1 ? "askd: 1 more question is waiting" : `askd: ${count} more questions are waiting`;
}

/** Every waiting question in the order they are answered: oldest first, the window's first on a tie. */
export function answerOrder(questions: readonly WaitingQuestion[]): WaitingQuestion[] {
  return [...questions].sort((a, b) => a.openedAt - b.openedAt || (a.where === b.where ? 0 : a.where === "local" ? -1 : 1));
}
