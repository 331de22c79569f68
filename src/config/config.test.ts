import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

describe('loadConfig', () => {
  it('defaults to the embedded store on port 3050 in ./data', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ port: 3050, store: 'sqlite', kurrentDbUrl: null, durability: 'process', logLevel: 'log', masterKey: null });
    expect(config.dataDir.endsWith('/data')).toBe(true);
  });

  it('reads KurrentDB settings', () => {
    const config = loadConfig({ SEED_AGENTS_STORE: 'kurrentdb', SEED_AGENTS_KURRENTDB_URL: 'esdb://db:2113?tls=false' });
    expect(config).toMatchObject({ store: 'kurrentdb', kurrentDbUrl: 'esdb://db:2113?tls=false' });
  });

  it('reads a 32-byte base64 master key', () => {
    const key = Buffer.alloc(32, 7);
    expect(loadConfig({ SEED_AGENTS_MASTER_KEY: key.toString('base64') }).masterKey).toEqual(key);
    expect(loadConfig({ SEED_AGENTS_MASTER_KEY: key.toString('base64url') }).masterKey).toEqual(key);
  });

  it('refuses a bad master key without echoing it', () => {
    for (const [value, message] of [
      ['not base64 at all!', /SEED_AGENTS_MASTER_KEY is not base64: it must be 32 random bytes in base64/],
      [Buffer.alloc(16, 1).toString('base64'), /SEED_AGENTS_MASTER_KEY is 16 bytes; it must be exactly 32 random bytes/],
      [Buffer.alloc(33, 1).toString('base64'), /is 33 bytes/],
    ] as const) {
      expect(() => loadConfig({ SEED_AGENTS_MASTER_KEY: value })).toThrow(message);
      expect(() => loadConfig({ SEED_AGENTS_MASTER_KEY: value })).not.toThrow(value);
    }
  });

  it.each([
    [{ SEED_AGENTS_PORT: 'abc' }, /SEED_AGENTS_PORT "abc" must be an integer/],
    [{ SEED_AGENTS_PORT: '70000' }, /between 0 and 65535/],
    [{ SEED_AGENTS_STORE: 'postgres' }, /use one of: sqlite, kurrentdb/],
    [{ SEED_AGENTS_STORE: 'kurrentdb' }, /needs SEED_AGENTS_KURRENTDB_URL/],
    [{ SEED_AGENTS_KURRENTDB_URL: 'http://x' }, /must start with esdb:\/\//],
    [{ SEED_AGENTS_DURABILITY: 'fast' }, /use one of: process, power-loss/],
    [{ SEED_AGENTS_LOG_LEVEL: 'debug' }, /SEED_AGENTS_LOG_LEVEL "debug" is not supported; use one of: log, warn, error/],
  ])('refuses %o', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});
