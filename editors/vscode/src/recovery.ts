/**
 * Recovery as a person meets it. A flow left unfinished by an engine that ended (killed, or gone
 * with flows open) stays in askd's state directory, and the next engine *offers* it: `sessions`
 * lists it with status `recovered`, what it asked, when, how far it got and whether something
 * was typed (protocol/README.md, The state directory). This module reads those offers, words
 * them for a notification and a quick pick, and resumes (`recover`) or discards (`discard`) one;
 * the extension does either only on the person's word, and a discard only once confirmed.
 *
 * An offer is never mixed into another flow: a new flow that gets the id of an offer is a new
 * flow (the engine keeps the offer beside it), and an offer resumed while its id is in use by a
 * live session is resumed under another id (`recover { as }`).
 */

import { sessionLabel } from "./hub";

/** The engine as recovery uses it (an {@link Engine}, the hub's connection, or a stand-in). */
export interface RecoveryEngine {
  request<T>(method: string, params: object | undefined): Promise<T>;
}

/** Where an offer is held: by the window's own engine, or by the hub. */
export type OfferPlace = "local" | "hub";

/** A flow offered for recovery, as `sessions` lists it. */
export interface Offer {
  /** The id it had (and is offered under). */
  readonly session: string;
  /** What it asked: its title, when it has one. */
  readonly title?: string;
  /** Who asked it, when known. */
  readonly asker?: { readonly name?: string; readonly folder?: string };
  /** When it was opened (milliseconds since the Unix epoch, by the engine's clock). */
  readonly openedAt: number;
  /** When it was last saved (the same clock). */
  readonly savedAt: number;
  /** How long ago it was last saved, when listed. */
  readonly ageMs: number;
  /** Its questions answered, of all. */
  readonly progress: { readonly answered: number; readonly total: number };
  /** Whether a custom answer, a note or an editor's draft was typed in it. */
  readonly typed: boolean;
  /** Which engine holds it. */
  readonly where: OfferPlace;
}

/** The notification's buttons. */
export const RESUME = "Resume";
export const DISCARD = "Discard…";
export const LATER = "Later";
/** The confirming button of a discard. */
export const CONFIRM_DISCARD = "Discard";

/** The JSON-RPC code of invalid params (the engine's answer to an id in use). */
const INVALID_PARAMS = -32602;

/** The offers among what `sessions` answered, held by `where`, the most recently saved first. */
export function offersIn(listed: unknown, where: OfferPlace): Offer[] {
  if (!Array.isArray(listed)) return [];
  const offers: Offer[] = [];
  for (const entry of listed as Array<Record<string, unknown>>) {
    if (entry?.["status"] !== "recovered" || typeof entry["session"] !== "string") continue;
    const progress = entry["progress"] as { answered?: unknown; total?: unknown } | undefined;
    const number = (value: unknown): number => (typeof value === "number" && Number.isFinite(value) ? value : 0);
    const asker = entry["asker"];
    offers.push({
      session: entry["session"],
      ...(typeof entry["title"] === "string" && entry["title"] !== "" ? { title: entry["title"] } : {}),
      ...(typeof asker === "object" && asker !== null ? { asker: asker as Offer["asker"] & object } : {}),
      openedAt: number(entry["openedAt"]),
      savedAt: number(entry["savedAt"]),
      ageMs: number(entry["ageMs"]),
      progress: { answered: number(progress?.answered), total: number(progress?.total) },
      typed: entry["typed"] === true,
      where,
    });
  }
  return offers.sort((a, b) => b.savedAt - a.savedAt);
}

/** The offers `engine` holds (listing them makes it take over those of ended processes). */
export async function listOffers(engine: RecoveryEngine, where: OfferPlace): Promise<Offer[]> {
  return offersIn(await engine.request<unknown>("sessions", undefined), where);
}

/** A duration as a person reads it: `just now`, `5 minutes ago`, `1 hour ago`, `3 days ago`. */
export function ago(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 1) return "just now";
  const unit = (count: number, name: string): string => `${count} ${name}${count === 1 ? "" : "s"} ago`;
  if (minutes < 60) return unit(minutes, "minute");
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return unit(hours, "hour");
  return unit(Math.floor(hours / 24), "day");
}

/** What an offer asked, for a person: its title (or id), and who asked when known. */
export function offerName(offer: Offer): string {
  return sessionLabel({ ...offer, status: "recovered" });
}

/**
 * When it was asked, how far it got and whether something was typed:
 * `asked 12 minutes ago, 1 of 3 answered, text typed`. The ages are the engine's (its clock
 * measured them), so that a clock of the window that differs changes nothing.
 */
export function offerState(offer: Offer): string {
  const askedAgo = offer.ageMs + Math.max(0, offer.savedAt - offer.openedAt);
  const parts = [`asked ${ago(askedAgo)}`];
  if (offer.savedAt > offer.openedAt && ago(offer.ageMs) !== ago(askedAgo)) {
    parts.push(`last changed ${ago(offer.ageMs)}`);
  }
  const { answered, total } = offer.progress;
  parts.push(total === 1 ? (answered === 1 ? "answered" : "not answered") : `${answered} of ${total} answered`);
  parts.push(offer.typed ? "text typed" : "nothing typed");
  return parts.join(", ");
}

/** The notification that names the unfinished flows found (`offers` holds at least one). */
export function offersMessage(offers: readonly Offer[]): string {
  const first = offers[0];
  if (first === undefined) return "";
  if (offers.length === 1) {
    return `askd: an unfinished flow was kept: ${offerName(first)} (${offerState(first)}).`;
  }
  return `askd: ${offers.length} unfinished flows were kept; the latest: ${offerName(first)} (${offerState(first)}).`;
}

/** The question that confirms a discard. */
export function discardQuestion(offer: Offer): string {
  return `Discard the unfinished flow ${offerName(offer)}? What was answered and typed in it is lost.`;
}

/**
 * Resumes `offer` on `engine` exactly where it was, as a live session, and answers its id: the
 * offer's own, or, when a live session has it, the first of `<id>-resumed`, `<id>-resumed-2`, …
 * that is free. `cwd` is the root of `@` completion.
 */
export async function resumeOffer(engine: RecoveryEngine, offer: Offer, cwd: string | undefined): Promise<string> {
  const base = `${offer.session}-resumed`;
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const as = attempt === 0 ? undefined : attempt === 1 ? base : `${base}-${attempt}`;
    try {
      const step = await engine.request<{ session?: unknown }>("recover", {
        session: offer.session,
        ...(as === undefined ? {} : { as }),
        ...(cwd === undefined ? {} : { cwd }),
      });
      return typeof step.session === "string" ? step.session : (as ?? offer.session);
    } catch (error) {
      const failure = error as { code?: unknown; message?: unknown } | null;
      const inUse = failure?.code === INVALID_PARAMS && String(failure.message).includes("already in use");
      if (!inUse) throw error;
    }
  }
  throw new Error(`askd: no free id to resume ${offer.session} under.`);
}

/** Discards `offer` and its files; answers whether the engine still held it. */
export async function discardOffer(engine: RecoveryEngine, offer: Offer): Promise<boolean> {
  const answer = await engine.request<{ discarded?: unknown }>("discard", { session: offer.session });
  return answer.discarded === true;
}
