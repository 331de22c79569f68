import { Global, Module } from '@nestjs/common';
import { loadConfig, type Config } from './config.js';

export const CONFIG = Symbol('Config');

@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: Config = loadConfig()) {
    return { module: ConfigModule, providers: [{ provide: CONFIG, useValue: config }], exports: [CONFIG] };
  }
}
