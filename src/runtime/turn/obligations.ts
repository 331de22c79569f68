/**
 * What a run still owes when its turn ends (spec/tools-and-verbs.md, "Obligations"): plan steps
 * neither finished nor closed. A run hands the turn back with every open obligation named at once,
 * up to MAX_RUN_CONTINUATIONS times; then it ends and says what was left, and nothing is ever ticked
 * off on the agent's behalf. Both messages are runtime-authored: actor `system`, role `user`, so the
 * model reads them as it reads anything else said to it.
 */
import { currentPlan, unfinishedSteps } from '../../verbs/plan.js';
import type { LogEntry } from '../transcript/log-entry.js';

/** One budget for the whole run, not one per kind of debt. */
export const MAX_RUN_CONTINUATIONS = 3;

/** Upstream's wire shape; a typed delegate child adds `{kind: 'typed-result'}` when delegation lands. */
export type UnmetObligation = { kind: 'plan'; steps: string[] };

export function openObligations(entries: readonly LogEntry[]): UnmetObligation[] {
  const steps = unfinishedSteps(currentPlan(entries));
  return steps.length ? [{ kind: 'plan', steps: steps.map((step) => step.label) }] : [];
}

export function continuationPrompt(obligations: readonly UnmetObligation[]): string {
  return [
    'Your turn ended with work still open:',
    ...obligations.map((o) => `- Plan steps not finished: ${quoted(o.steps)}.`),
    'Finish them now, or close each one with the plan verb: done only when it is done; failed or skipped, with the reason, ' +
      'when it will not be. (This reminder comes from the runtime, not from the user.)',
  ].join('\n');
}

export function unmetObligationsNotice(obligations: readonly UnmetObligation[]): string {
  return [
    `The turn ended with work left open after ${MAX_RUN_CONTINUATIONS} reminders:`,
    ...obligations.map((o) => `- Plan steps neither finished nor closed: ${quoted(o.steps)}.`),
    'Nothing was marked done on the agent’s behalf.',
  ].join('\n');
}

/** Labels are model-written: JSON quoting keeps each one visibly one label. */
function quoted(labels: readonly string[]): string {
  return labels.map((label) => JSON.stringify(label)).join(', ');
}
