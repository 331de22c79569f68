/**
 * The model-facing tool surface (spec/tools-and-verbs.md, "The registry"): each verb is one entry —
 * its name, the description the model reads, its JSON Schema input and its executor — so what the
 * model is told and what runs cannot drift apart. The provider's `tools` list is built from it, and
 * every call is checked against the same schema before it runs.
 *
 * Verbs are never grants: they are always on. The agent's `tools` grant list narrows the callable
 * set that `call` dispatches, which registers beside the verbs when it lands.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions';
import type { JsonObject, JsonValue } from '../events/store/types.js';

/** A title the turn asked for, and what the session is called now: a person's title stays. */
export interface RenameOutcome {
  renamed: boolean;
  title: string;
}

/** What a verb may know and do beyond its input: the call it answers, and the session's own levers. */
export interface VerbContext {
  sessionId: string;
  runId: string;
  toolCallId: string;
  signal: AbortSignal;
  renameSession(title: string): Promise<RenameOutcome>;
}

export interface Verb<Input = never> {
  name: string;
  description: string;
  /** A JSON Schema of type object: function arguments are always an object. */
  input: JsonObject;
  /** Throws to fail the call: the message becomes the tool_result's error, which the model reads. */
  execute(input: Input, context: VerbContext): Promise<JsonValue>;
}

export type VerbOutcome = { output: JsonValue } | { error: string };

export class VerbRegistry {
  private readonly verbs = new Map<string, { verb: Verb<unknown>; validate: ValidateFunction }>();

  constructor(verbs: readonly Verb<never>[]) {
    const ajv = new Ajv({ allErrors: true, strict: true });
    for (const verb of verbs) {
      if (this.verbs.has(verb.name)) throw new Error(`Verb "${verb.name}" is registered twice`);
      this.verbs.set(verb.name, { verb: verb as Verb<unknown>, validate: ajv.compile(verb.input) });
    }
  }

  names(): string[] {
    return [...this.verbs.keys()];
  }

  /** The chat completions `tools` a turn offers. */
  providerTools(): ChatCompletionFunctionTool[] {
    return [...this.verbs.values()].map(({ verb }) => ({
      type: 'function',
      function: { name: verb.name, description: verb.description, parameters: verb.input },
    }));
  }

  /**
   * Runs one call. Never throws for the model's mistakes — an unknown name, input its schema rejects,
   * a verb that fails — because those are answers the model should read and act on.
   */
  async run(name: string, input: unknown, context: VerbContext): Promise<VerbOutcome> {
    const entry = this.verbs.get(name);
    if (!entry) return { error: `There is no tool named "${name}"; the tools are ${this.names().join(', ')}` };
    if (!entry.validate(input)) {
      return {
        error:
          `The input does not match ${name}'s schema: ${describeErrors(entry.validate.errors ?? [])}. ` +
          `Call it again with input matching ${JSON.stringify(entry.verb.input)}`,
      };
    }
    try {
      return { output: await entry.verb.execute(input, context) };
    } catch (error) {
      if (context.signal.aborted) throw error;
      return { error: error instanceof Error ? error.message : String(error) };
    }
  }
}

function describeErrors(errors: readonly ErrorObject[]): string {
  return errors
    .map((error) => {
      const where = error.instancePath || 'the input';
      if (error.keyword === 'additionalProperties') return `${where} has unknown field "${String(error.params.additionalProperty)}"`;
      if (error.keyword === 'enum') return `${where} must be one of ${(error.params.allowedValues as unknown[]).join(', ')}`;
      if (error.keyword === 'minProperties') return `${where} must set at least ${String(error.params.limit)} field`;
      return `${where} ${error.message ?? 'is invalid'}`;
    })
    .join('; ');
}
