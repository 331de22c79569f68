/**
 * The `plan` verb (spec/tools-and-verbs.md, "plan"): the thread's visible checklist. Each call
 * replaces the whole plan. The plan has no store of its own: a successful call's tool_result carries
 * the plan as accepted, and the current plan is the last one of those in the session's Log — so
 * resume, retry and replay all read the same checklist the model published.
 */
import type { JsonObject } from '../events/store/types.js';
import type { LogEntry } from '../runtime/transcript/log-entry.js';
import type { Verb } from './registry.js';

export const PLAN_STEP_STATUSES = ['pending', 'running', 'done', 'failed', 'skipped'] as const;
export type PlanStepStatus = (typeof PLAN_STEP_STATUSES)[number];
/** Statuses that can never move again: the work is done, written off, or given up on. */
export const TERMINAL_STEP_STATUSES: readonly PlanStepStatus[] = ['done', 'failed', 'skipped'];

export const MAX_PLAN_STEPS = 100;
const MAX_LABEL_CHARS = 200;

export interface PlanStep {
  id: string;
  label: string;
  status: PlanStepStatus;
}

export interface Plan {
  title?: string;
  steps: PlanStep[];
}

interface PlanInput {
  title?: string;
  steps: { id?: string; label: string; status?: PlanStepStatus }[];
}

export const planVerb: Verb<PlanInput> = {
  name: 'plan',
  description:
    'Publish or update the visible checklist for this thread. Each call replaces the whole plan, so send every step each time. ' +
    'Give each step a short stable id and keep it across updates; mark a step running while you work on it and done when it is. ' +
    'A step you cannot or will not finish is failed or skipped, never done. A turn that ends with steps still pending or running ' +
    'is handed back to you to finish or close them.',
  input: {
    type: 'object',
    additionalProperties: false,
    required: ['steps'],
    properties: {
      title: { type: 'string', minLength: 1, maxLength: MAX_LABEL_CHARS, description: 'What the checklist is for' },
      steps: {
        type: 'array',
        maxItems: MAX_PLAN_STEPS,
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['label'],
          properties: {
            id: { type: 'string', minLength: 1, maxLength: 64, description: 'Stable across updates; defaults to step-<position>' },
            label: { type: 'string', minLength: 1, maxLength: MAX_LABEL_CHARS },
            status: { enum: [...PLAN_STEP_STATUSES], description: 'Defaults to pending' },
          },
        },
      },
    },
  },
  async execute(input) {
    const steps = input.steps.map((step, index) => ({ id: step.id ?? `step-${index + 1}`, label: step.label, status: step.status ?? 'pending' }));
    const seen = new Set<string>();
    for (const { id } of steps) {
      if (seen.has(id)) throw new Error(`Step ids must be unique: "${id}" appears twice`);
      seen.add(id);
    }
    const plan: JsonObject = { ...(input.title === undefined ? {} : { title: input.title }), steps };
    return plan;
  },
};

/** The plan as the session's last successful plan call left it; undefined before the first. */
export function currentPlan(entries: readonly LogEntry[]): Plan | undefined {
  for (let index = entries.length - 1; index >= 0; index--) {
    const { actor, event } = entries[index]!;
    if (event.type === 'tool_result' && event.name === planVerb.name && actor !== 'user' && event.error === undefined && isPlan(event.output)) {
      return event.output;
    }
  }
  return undefined;
}

export function unfinishedSteps(plan: Plan | undefined): PlanStep[] {
  return (plan?.steps ?? []).filter((step) => !TERMINAL_STEP_STATUSES.includes(step.status));
}

/**
 * The checklist as the model's last reminder of it, appended to every turn's replay and never
 * stored: the Log records what happened, not what the runtime reminded the model of. Labels are
 * model-written, so every `<` is escaped and the text cannot close the frame.
 */
export function planStateBlock(plan: Plan): string {
  return [
    '<plan_state>',
    'Your checklist (from the plan verb) as it stands now; update it with the plan verb as work moves:',
    JSON.stringify(plan).replace(/</g, '\\u003c'),
    '</plan_state>',
  ].join('\n');
}

function isPlan(value: unknown): value is Plan {
  if (typeof value !== 'object' || value === null || !Array.isArray((value as Plan).steps)) return false;
  return (value as Plan).steps.every(
    (step) => typeof step?.id === 'string' && typeof step.label === 'string' && (PLAN_STEP_STATUSES as readonly unknown[]).includes(step.status),
  );
}
