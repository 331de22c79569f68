import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { INestApplication } from '@nestjs/common';
import { AppModule } from './app.module.js';
import type { Config } from './config/config.js';

export async function createServer(config: Config): Promise<INestApplication> {
  const app = await NestFactory.create(AppModule.forRoot(config), { logger: ['error', 'warn', 'log'] });
  app.enableShutdownHooks();
  return app;
}

/** Starts listening and returns the bound port (useful with SEED_AGENTS_PORT=0). */
export async function startServer(config: Config): Promise<{ app: INestApplication; port: number }> {
  const app = await createServer(config);
  await app.listen(config.port, config.host);
  const address = app.getHttpServer().address() as { port: number };
  return { app, port: address.port };
}
