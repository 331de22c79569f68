import { Controller, Get } from '@nestjs/common';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../package-root.js';
import { AGENTS_PROTOCOL_VERSION, MIN_CLIENT_PROTOCOL } from '../protocol/version.js';

const pkg = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
const startedAt = new Date().toISOString();

@Controller()
export class VersionController {
  @Get(['api/version', 'agents/api/version'])
  version() {
    return {
      protocol: AGENTS_PROTOCOL_VERSION,
      minClientProtocol: MIN_CLIENT_PROTOCOL,
      name: pkg.name,
      version: pkg.version,
      node: process.version,
      startedAt,
    };
  }
}
