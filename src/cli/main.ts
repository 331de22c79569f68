#!/usr/bin/env node
/**
 * The `seed-agents` command line. Each command lives in its own file under src/cli/commands.
 */
import 'reflect-metadata';
import { CliError, runCli } from './run-cli.js';

runCli(process.argv.slice(2)).then(
  (code) => {
    if (code !== undefined) process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof CliError) {
      process.stderr.write(`seed-agents: ${error.message}\n`);
      process.exitCode = 2;
      return;
    }
    process.stderr.write(`seed-agents: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
