import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { DynamicModule, LogLevel } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from './app.module.js';
import type { Config } from './config/config.js';
import { CborErrorFilter } from './gateway/cbor-error.filter.js';
import { AgentsWsAdapter } from './gateway/ws/raw-frames.js';
import { MAX_MESSAGE_BYTES } from './gateway/limits.js';
import { AGENTS_PROTOCOL_VERSION, PROTOCOL_HEADER } from './protocol/version.js';

const LOG_LEVELS: Record<Config['logLevel'], LogLevel[]> = {
  log: ['error', 'warn', 'log'],
  warn: ['error', 'warn'],
  error: ['error'],
};

/** `root` lets a benchmark mount a module beside the application; it defaults to the application. */
export async function createServer(config: Config, root: DynamicModule = AppModule.forRoot(config)): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(root, {
    logger: LOG_LEVELS[config.logLevel],
    // Only the parsers below: the signed action API takes raw DAG-CBOR, never JSON.
    bodyParser: false,
    // A refusal at start-up (a bad master key, a locked data dir) reaches the CLI as an error with
    // its message, instead of Nest aborting the process with a stack trace.
    abortOnError: false,
  });
  app.use((_request: unknown, response: { setHeader(name: string, value: string): void }, next: () => void) => {
    response.setHeader(PROTOCOL_HEADER, String(AGENTS_PROTOCOL_VERSION));
    next();
  });
  app.enableCors({ exposedHeaders: [PROTOCOL_HEADER] });
  app.useBodyParser('raw', { type: 'application/cbor', limit: MAX_MESSAGE_BYTES });
  app.useGlobalFilters(new CborErrorFilter());
  app.useWebSocketAdapter(new AgentsWsAdapter(app));
  app.enableShutdownHooks();
  return app;
}

/** Starts listening and returns the bound port (useful with SEED_AGENTS_PORT=0). */
export async function startServer(
  config: Config,
  root?: DynamicModule,
): Promise<{ app: NestExpressApplication; port: number }> {
  const app = await createServer(config, root);
  await app.listen(config.port, config.host);
  const address = app.getHttpServer().address() as { port: number };
  return { app, port: address.port };
}
