import { Global, Module, type OnApplicationShutdown } from '@nestjs/common';
import { CONFIG } from '../config/config.module.js';
import type { Config } from '../config/config.js';
import { openSecretStore } from './open-secret-store.js';
import { SecretStore } from './secret-store.js';

@Global()
@Module({
  providers: [{ provide: SecretStore, inject: [CONFIG], useFactory: (config: Config) => openSecretStore(config).store }],
  exports: [SecretStore],
})
export class SecretsModule implements OnApplicationShutdown {
  constructor(private readonly store: SecretStore) {}

  onApplicationShutdown(): void {
    this.store.close();
  }
}
