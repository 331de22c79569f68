/**
 * The one list of every event type this service writes. Each later area adds its definitions here;
 * validation, upcasting and the generated documentation all read from it.
 */
import type { EventDefinition } from './event-definition.js';
import { ACCOUNT_EVENTS } from './account-events.js';
import { AGENT_EVENTS } from './agent-events.js';
import { IDEMPOTENCY_EVENTS } from './idempotency-events.js';
import { LOG_EVENTS } from './log-events.js';
import { RUN_EVENTS } from './run-events.js';
import { SESSION_EVENTS } from './session-events.js';

export class EventCatalog {
  private readonly byType: ReadonlyMap<string, EventDefinition>;

  constructor(readonly definitions: readonly EventDefinition[]) {
    const byType = new Map<string, EventDefinition>();
    for (const definition of definitions) {
      if (byType.has(definition.type)) throw new Error(`Event type "${definition.type}" is defined twice`);
      for (let v = 1; v < definition.version; v++) {
        if (!definition.upcasters?.[v]) {
          throw new Error(`Event type "${definition.type}" is at version ${definition.version} but has no upcaster from ${v}`);
        }
      }
      byType.set(definition.type, definition);
    }
    this.byType = byType;
  }

  get(type: string): EventDefinition | undefined {
    return this.byType.get(type);
  }

  types(): string[] {
    return [...this.byType.keys()];
  }
}

export const EVENT_CATALOG = new EventCatalog([...LOG_EVENTS, ...SESSION_EVENTS, ...RUN_EVENTS, ...ACCOUNT_EVENTS, ...AGENT_EVENTS, ...IDEMPOTENCY_EVENTS]);
