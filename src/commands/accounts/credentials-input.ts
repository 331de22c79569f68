/**
 * Checks of what SetSecret and the provider actions carry, before anything is stored or decided.
 * Each refusal names the field, what was wrong, and what is accepted.
 */
import type { JsonObject, JsonValue } from '../../events/store/types.js';
import { ApiError } from '../../protocol/api-error.js';
import { PROVIDER_TYPES, type ModelProviderConfig, type ProviderType } from '../../protocol/providers.js';
import { MAX_SECRET_METADATA_BYTES, MAX_SECRET_NAME_LENGTH, MAX_SECRET_VALUE_BYTES } from '../../protocol/secrets.js';
import { PROVIDER_SPECS } from '../../providers/provider-specs.js';

/** Secret and provider names: a slug, so they are safe in messages, URLs and file names alike. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
export const MAX_MODEL_DEFAULTS_BYTES = 16 * 1024;
const MAX_BASE_URL_LENGTH = 2048;
const CONFIG_FIELDS = ['type', 'baseUrl', 'authMode', 'secretRefs', 'modelDefaults'] as const;
const SECRET_ROLES = ['apiKey'] as const;

export function parseName(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.length > MAX_SECRET_NAME_LENGTH || !NAME.test(value)) {
    throw new ApiError(
      400,
      `${field} must be a name of 1 to ${MAX_SECRET_NAME_LENGTH} characters — letters, digits, ".", "_" and "-", ` +
        `starting with a letter or digit; got ${describe(value)}`,
    );
  }
  return value;
}

export function parseSecretValue(value: unknown): Uint8Array {
  if (!(value instanceof Uint8Array)) {
    // Only the kind: a value sent as text is still the secret, and refusals can be recorded in the log.
    const kind = value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value === 'object' ? 'a map' : `a ${typeof value}`;
    throw new ApiError(400, `SetSecret.value must be bytes (a CBOR byte string), got ${value === undefined ? 'nothing' : kind}`);
  }
  if (value.length === 0 || value.length > MAX_SECRET_VALUE_BYTES) {
    throw new ApiError(400, `SetSecret.value must be 1 to ${MAX_SECRET_VALUE_BYTES} bytes (64 KiB), got ${value.length}`);
  }
  return value;
}

export function parseSecretMetadata(value: unknown): JsonObject | undefined {
  if (value === undefined) return undefined;
  return jsonObject(value, 'SetSecret.metadata', MAX_SECRET_METADATA_BYTES, '4 KiB');
}

export function parseProviderConfig(value: unknown): ModelProviderConfig {
  const field = 'SetModelProvider.provider';
  if (!isPlainObject(value)) throw new ApiError(400, `${field} must be a ModelProviderConfig map, got ${describe(value)}`);
  const unknown = Object.keys(value).filter((key) => !(CONFIG_FIELDS as readonly string[]).includes(key));
  if (unknown.length) {
    throw new ApiError(400, `${field} has unknown field ${quoted(unknown)}; accepted: ${CONFIG_FIELDS.join(', ')}`);
  }
  const type = value.type;
  if (typeof type !== 'string' || !(PROVIDER_TYPES as readonly string[]).includes(type)) {
    throw new ApiError(400, `${field}.type must be one of ${PROVIDER_TYPES.join(', ')}; got ${describe(type)}`);
  }
  const spec = PROVIDER_SPECS[type as ProviderType];
  if (value.authMode !== undefined && value.authMode !== 'api-key') {
    throw new ApiError(
      400,
      value.authMode === 'subscription'
        ? `${field}.authMode "subscription" needs the provider sign-in flow, which this server does not offer ` +
            '(subscriptionAuth is false in /api/health); use "api-key" with secretRefs.apiKey'
        : `${field}.authMode must be "api-key" (the default); got ${describe(value.authMode)}`,
    );
  }
  const secretRefs = value.secretRefs === undefined ? undefined : parseSecretRefs(value.secretRefs, `${field}.secretRefs`);
  if (spec.requireApiKey && !secretRefs?.apiKey) {
    throw new ApiError(400, `${field}.secretRefs.apiKey is required for type ${type}: the name of a secret stored with SetSecret`);
  }
  const baseUrl = value.baseUrl === undefined ? undefined : parseBaseUrl(value.baseUrl, type as ProviderType, `${field}.baseUrl`);
  if (spec.defaultBaseUrl === null && baseUrl === undefined) {
    throw new ApiError(400, `${field}.baseUrl is required for type ${type}: the http(s) URL of an OpenAI-compatible API, e.g. http://localhost:8000/v1`);
  }
  const modelDefaults =
    value.modelDefaults === undefined ? undefined : jsonObject(value.modelDefaults, `${field}.modelDefaults`, MAX_MODEL_DEFAULTS_BYTES, '16 KiB');
  return {
    type: type as ProviderType,
    ...(baseUrl === undefined ? {} : { baseUrl }),
    ...(value.authMode === undefined ? {} : { authMode: 'api-key' as const }),
    ...(secretRefs === undefined ? {} : { secretRefs }),
    ...(modelDefaults === undefined ? {} : { modelDefaults }),
  };
}

function parseSecretRefs(value: unknown, field: string): Record<string, string> {
  if (!isPlainObject(value)) throw new ApiError(400, `${field} must be a map of role → secret name, got ${describe(value)}`);
  const unknown = Object.keys(value).filter((key) => !(SECRET_ROLES as readonly string[]).includes(key));
  if (unknown.length) throw new ApiError(400, `${field} has unknown role ${quoted(unknown)}; accepted: ${SECRET_ROLES.join(', ')}`);
  const refs: Record<string, string> = {};
  for (const [role, name] of Object.entries(value)) refs[role] = parseName(name, `${field}.${role}`);
  return refs;
}

/** Trailing slashes are dropped, so `…/v1` and `…/v1/` are one provider configuration. */
function parseBaseUrl(value: unknown, type: ProviderType, field: string): string {
  const spec = PROVIDER_SPECS[type];
  let url: URL | null = null;
  if (typeof value === 'string' && value.length <= MAX_BASE_URL_LENGTH) {
    try {
      url = new URL(value);
    } catch {
      url = null; // reported below, with what is accepted
    }
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new ApiError(400, `${field} must be an http:// or https:// URL of at most ${MAX_BASE_URL_LENGTH} characters; got ${describe(value)}`);
  }
  if (url.username || url.password || url.search || url.hash) {
    throw new ApiError(
      400,
      `${field} must not carry credentials, a query or a fragment: keys belong in a secret (secretRefs.apiKey), and requests ` +
        'append their own paths to the base URL',
    );
  }
  const normalized = url.href.replace(/\/+$/, '');
  if (!spec.customBaseUrl && normalized !== spec.defaultBaseUrl) {
    throw new ApiError(
      400,
      `${field} of a ${type} provider is always ${spec.defaultBaseUrl}, so its API key cannot be sent elsewhere; ` +
        'use type "custom" (or "ollama") for another OpenAI-compatible server',
    );
  }
  return normalized;
}

export function jsonObject(value: unknown, field: string, maxBytes: number, maxLabel: string): JsonObject {
  if (!isPlainObject(value)) throw new ApiError(400, `${field} must be a map (a JSON object), got ${describe(value)}`);
  checkJson(value, field);
  const bytes = Buffer.byteLength(JSON.stringify(value), 'utf8');
  if (bytes > maxBytes) throw new ApiError(400, `${field} is ${bytes} bytes as JSON; at most ${maxBytes} (${maxLabel}) are accepted`);
  return value as JsonObject;
}

/** It is recorded in the log as JSON: bytes, CIDs, big integers and non-finite numbers have no JSON form. */
export function checkJson(value: unknown, path: string): asserts value is JsonValue {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return;
  if (typeof value === 'number' && Number.isFinite(value)) return;
  if (Array.isArray(value)) {
    value.forEach((item, index) => checkJson(item, `${path}[${index}]`));
    return;
  }
  if (isPlainObject(value)) {
    for (const [key, item] of Object.entries(value)) checkJson(item, `${path}.${key}`);
    return;
  }
  throw new ApiError(
    400,
    `${path} is ${describe(value)}; only JSON values are accepted (strings, finite numbers, booleans, null, arrays and maps)`,
  );
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

function quoted(keys: string[]): string {
  return keys.map((k) => JSON.stringify(k)).join(', ');
}

export function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (value instanceof Uint8Array) return `${value.length} bytes`;
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'bigint') return `the integer ${value} (beyond JSON's safe range)`;
  if (typeof value === 'string') return value.length > 64 ? `a ${value.length}-character string` : JSON.stringify(value);
  if (typeof value === 'object') return isPlainObject(value) ? 'a map' : `a ${value.constructor?.name ?? 'non-JSON'} value`;
  return `${typeof value} ${String(value)}`;
}
