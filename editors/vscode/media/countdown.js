// @ts-check
/**
 * The countdown the question panel shows above a flow that has a deadline (the view's
 * `deadline`, from `timeoutMs`): the time left in whole seconds, rounded up, as `m:ss`, or
 * `h:mm:ss` from an hour on.
 */

/** Seconds left from which on the countdown is drawn as a warning. */
export const WARNING_SECONDS = 10;

/**
 * The whole seconds left until `deadline` at `now` (both in milliseconds since the Unix
 * epoch), rounded up; 0 once it has passed.
 *
 * @param {number} deadline
 * @param {number} now
 */
export function secondsLeft(deadline, now) {
  return Math.max(0, Math.ceil((deadline - now) / 1000));
}

/**
 * The countdown's text: `Times out in 4:59`, `Times out in 1:00:00`, `Times out in 0:00`.
 *
 * @param {number} deadline
 * @param {number} now
 */
export function countdownText(deadline, now) {
  const seconds = secondsLeft(deadline, now);
  const two = (/** @type {number} */ n) => String(n).padStart(2, "0");
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const left = hours > 0 ? `${hours}:${two(minutes)}:${two(seconds % 60)}` : `${minutes}:${two(seconds % 60)}`;
  return `Times out in ${left}`;
}

/**
 * The milliseconds from `now` until the countdown's text next changes (just past the next
 * whole second before `deadline`).
 *
 * @param {number} deadline
 * @param {number} now
 */
export function nextTickIn(deadline, now) {
  const rest = (deadline - now) % 1000;
  return (rest > 0 ? rest : 1000) + 5;
}
