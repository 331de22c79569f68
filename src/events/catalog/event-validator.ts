/**
 * Validates event data and metadata against the catalog's JSON Schemas (ajv, compiled once).
 * A refusal names the event type and the failing path, and nothing is appended.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { EventCatalog } from './catalog.js';
import { loadEventSchemas } from './schema-files.js';

export class InvalidEventError extends Error {
  override name = 'InvalidEventError';
  constructor(
    readonly eventType: string,
    readonly path: string,
    readonly reason: string,
  ) {
    super(`Invalid ${eventType} event: ${path} ${reason}`);
  }
}

export class EventValidator {
  private readonly data = new Map<string, ValidateFunction>();
  private readonly metadata: ValidateFunction;

  constructor(private readonly catalog: EventCatalog) {
    const ajv = new Ajv({ allErrors: false, strict: true });
    for (const schema of loadEventSchemas()) ajv.addSchema(schema);
    this.metadata = ajv.getSchema('metadata.v1.json')!;
    for (const definition of catalog.definitions) {
      const validate = ajv.getSchema(definition.schema);
      if (!validate) throw new Error(`Schema ${definition.schema} for "${definition.type}" is missing in schemas/events/`);
      this.data.set(definition.type, validate);
    }
  }

  validate(type: string, data: unknown, metadata: Record<string, unknown>): void {
    const definition = this.catalog.get(type);
    if (!definition) {
      throw new InvalidEventError(type, 'type', `is not in the event catalog; known types: ${this.catalog.types().join(', ')}`);
    }
    const validateData = this.data.get(type)!;
    if (!validateData(data)) throw fromAjv(type, 'data', validateData.errors);
    if (!this.metadata(metadata)) throw fromAjv(type, 'metadata', this.metadata.errors);
    for (const key of definition.requiredMetadata ?? []) {
      if (metadata[key] === undefined) throw new InvalidEventError(type, `metadata.${key}`, 'is required for this event type');
    }
  }
}

function fromAjv(type: string, root: string, errors: ErrorObject[] | null | undefined): InvalidEventError {
  const error = errors?.[0];
  if (!error) return new InvalidEventError(type, root, 'does not match its schema');
  const path = `${root}${error.instancePath.replaceAll('/', '.')}`;
  if (error.keyword === 'additionalProperties') {
    const extra = (error.params as { additionalProperty: string }).additionalProperty;
    return new InvalidEventError(type, `${path}.${extra}`, 'is not an accepted property');
  }
  if (error.keyword === 'required') {
    const missing = (error.params as { missingProperty: string }).missingProperty;
    return new InvalidEventError(type, `${path}.${missing}`, 'is required');
  }
  if (error.keyword === 'enum') {
    const allowed = (error.params as { allowedValues: unknown[] }).allowedValues;
    return new InvalidEventError(type, path, `must be one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}`);
  }
  return new InvalidEventError(type, path, error.message ?? 'does not match its schema');
}
