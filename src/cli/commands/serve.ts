import { parseArgs } from 'node:util';
import { loadConfig } from '../../config/config.js';
import type { Command } from '../run-cli.js';

export const serve: Command = {
  summary: 'start the HTTP and WebSocket server (the default for npm start)',
  async run(args) {
    const { values } = parseArgs({ args, options: { port: { type: 'string' } }, strict: true });
    const env = values.port === undefined ? process.env : { ...process.env, SEED_AGENTS_PORT: values.port };
    const config = loadConfig(env);
    // Loaded here, not at the top: the other commands need none of Nest.
    const { startServer } = await import('../../server.js');
    const { port } = await startServer(config);
    const where = config.store === 'sqlite' ? `${config.dataDir} (sqlite)` : `${config.kurrentDbUrl} (kurrentdb)`;
    process.stdout.write(`seed-agents listening on http://${config.host}:${port} — event store: ${where}\n`);
    return undefined;
  },
};
