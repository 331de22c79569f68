/**
 * Server configuration, from the environment as the Seed service reads it. Every bad value is refused
 * at start-up with the variable's name and what it accepts.
 */
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Durability } from '../events/store/sqlite/schema.js';

export type StoreKind = 'sqlite' | 'kurrentdb';

export interface Config {
  port: number;
  /** Interface to listen on; loopback unless told otherwise (containers set 0.0.0.0). */
  host: string;
  dataDir: string;
  store: StoreKind;
  kurrentDbUrl: string | null;
  /** SQLite only: `power-loss` fsyncs every commit (synchronous=FULL). */
  durability: Durability;
  /** The least severe server log lines printed. */
  logLevel: LogLevel;
  /**
   * Wraps the keys of stored secrets (SEED_AGENTS_MASTER_KEY). Null: the key file `master.key` in
   * the data directory is used, created on first start.
   */
  masterKey: Buffer | null;
  /**
   * SQLite only: the store file (SEED_AGENTS_EVENTS_FILE). Null: `events.db` in the data directory.
   * Set, several servers — each with its own data directory — share one log.
   */
  eventsFile: string | null;
  /** How long a claimed run is held without a renewal before another process may take it over. */
  runLeaseMs: number;
  /** Runs this process executes at once. */
  maxConcurrentRuns: number;
  /**
   * Whether this process claims and executes runs (SEED_AGENTS_DISPATCH). Off, it only serves the
   * API: a scaled-out deployment can keep model turns on separate workers.
   */
  dispatchRuns: boolean;
}

export type LogLevel = 'log' | 'warn' | 'error';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const store = oneOf(env, 'SEED_AGENTS_STORE', ['sqlite', 'kurrentdb'] as const, 'sqlite');
  const kurrentDbUrl = env.SEED_AGENTS_KURRENTDB_URL?.trim() || null;
  if (store === 'kurrentdb' && !kurrentDbUrl) {
    throw new ConfigError(
      'SEED_AGENTS_STORE=kurrentdb needs SEED_AGENTS_KURRENTDB_URL, e.g. esdb://localhost:2113?tls=false',
    );
  }
  if (kurrentDbUrl && !/^(esdb|kurrentdb|kdb)(\+discover)?:\/\//.test(kurrentDbUrl)) {
    throw new ConfigError(
      `SEED_AGENTS_KURRENTDB_URL "${kurrentDbUrl}" is not a connection string: it must start with esdb:// or esdb+discover://`,
    );
  }
  return {
    port: port(env.SEED_AGENTS_PORT),
    host: env.SEED_AGENTS_HOST?.trim() || '127.0.0.1',
    dataDir: resolve(env.SEED_AGENTS_DATA_DIR?.trim() || './data'),
    store,
    kurrentDbUrl,
    durability: oneOf(env, 'SEED_AGENTS_DURABILITY', ['process', 'power-loss'] as const, 'process'),
    logLevel: oneOf(env, 'SEED_AGENTS_LOG_LEVEL', ['log', 'warn', 'error'] as const, 'log'),
    masterKey: parseMasterKey('SEED_AGENTS_MASTER_KEY', env.SEED_AGENTS_MASTER_KEY),
    eventsFile: env.SEED_AGENTS_EVENTS_FILE?.trim() ? resolve(env.SEED_AGENTS_EVENTS_FILE.trim()) : null,
    runLeaseMs: wholeNumber(env, 'SEED_AGENTS_RUN_LEASE_MS', 30_000, 1_000, 3_600_000),
    maxConcurrentRuns: wholeNumber(env, 'SEED_AGENTS_MAX_RUNS', 8, 1, 1_000),
    dispatchRuns: oneOf(env, 'SEED_AGENTS_DISPATCH', ['on', 'off'] as const, 'on') === 'on',
  };
}

export const MASTER_KEY_BYTES = 32;

/** The value is a secret: refusals describe it, never echo it. */
export function parseMasterKey(name: string, value: string | undefined): Buffer | null {
  const text = value?.trim();
  if (!text) return null;
  const key = Buffer.from(text, 'base64');
  // Buffer.from skips characters that are not base64: re-encoding shows whether any were dropped.
  if (key.toString('base64') !== text && key.toString('base64url') !== text) {
    throw new ConfigError(
      `${name} is not base64: it must be ${MASTER_KEY_BYTES} random bytes in base64 (44 characters), e.g. from \`openssl rand -base64 32\``,
    );
  }
  if (key.length !== MASTER_KEY_BYTES) {
    throw new ConfigError(
      `${name} is ${key.length} bytes; it must be exactly ${MASTER_KEY_BYTES} random bytes in base64 (44 characters), e.g. from \`openssl rand -base64 32\``,
    );
  }
  return key;
}

function port(value: string | undefined): number {
  if (value === undefined || value.trim() === '') return 3050;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) {
    throw new ConfigError(`SEED_AGENTS_PORT "${value}" must be an integer port between 0 and 65535`);
  }
  return n;
}

function wholeNumber(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const value = env[name]?.trim();
  if (!value) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) throw new ConfigError(`${name} "${value}" must be a whole number from ${min} to ${max}`);
  return n;
}

function oneOf<T extends string>(env: NodeJS.ProcessEnv, name: string, accepted: readonly T[], fallback: T): T {
  const value = env[name]?.trim();
  if (!value) return fallback;
  if (!(accepted as readonly string[]).includes(value)) {
    throw new ConfigError(`${name} "${value}" is not supported; use one of: ${accepted.join(', ')}`);
  }
  return value as T;
}

/** The data directory holds the store file, read models and keys: owner-only. */
export function ensureDataDir(config: Config): string {
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  return config.dataDir;
}
