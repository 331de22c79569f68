import { ConfigError } from '../config/config.js';
import { DataDirLockedError } from '../projections/data-dir-lock.js';
import { audit } from './commands/audit.js';
import { call } from './commands/call.js';
import { chat } from './commands/chat.js';
import { exportEvents } from './commands/export.js';
import { keys } from './commands/keys.js';
import { rebuild } from './commands/rebuild.js';
import { secrets } from './commands/secrets.js';
import { serve } from './commands/serve.js';
import { tail } from './commands/tail.js';

/** A usage error: printed without a stack trace, exit code 2. */
export class CliError extends Error {
  override name = 'CliError';
}

export interface Command {
  summary: string;
  run(args: string[]): Promise<number | undefined>;
}

const commands: Record<string, Command> = { serve, rebuild, tail, export: exportEvents, audit, keys, call, chat, secrets };

export function usage(): string {
  const width = Math.max(...Object.keys(commands).map((c) => c.length));
  const lines = Object.entries(commands).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return [
    'Usage: seed-agents <command> [options]',
    '',
    'Commands:',
    ...lines,
    '',
    'Configuration comes from the environment: SEED_AGENTS_PORT (3050), SEED_AGENTS_HOST (127.0.0.1),',
    'SEED_AGENTS_DATA_DIR (./data), SEED_AGENTS_STORE (sqlite | kurrentdb), SEED_AGENTS_KURRENTDB_URL,',
    'SEED_AGENTS_DURABILITY (process | power-loss), SEED_AGENTS_LOG_LEVEL (log | warn | error),',
    'SEED_AGENTS_MASTER_KEY (base64, 32 bytes; default: master.key in the data directory).',
    '',
    'keys and call: SEED_AGENTS_KEY_FILE (~/.config/seed-agents/key.json) is the signing key;',
    'SEED_AGENTS_URL (http://127.0.0.1:$SEED_AGENTS_PORT) is the server call talks to.',
    '',
  ].join('\n');
}

export async function runCli(argv: string[]): Promise<number | undefined> {
  const [name, ...args] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    process.stdout.write(usage());
    return 0;
  }
  const command = commands[name];
  if (!command) throw new CliError(`unknown command "${name}"; commands are: ${Object.keys(commands).join(', ')}`);
  try {
    return await command.run(args);
  } catch (error) {
    if (error instanceof ConfigError || error instanceof DataDirLockedError) throw new CliError(error.message);
    if (String((error as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS')) {
      throw new CliError(`${name}: ${(error as Error).message}`);
    }
    throw error;
  }
}
