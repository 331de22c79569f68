/**
 * The server bench/gateway.bench.ts measures: the application, plus one unsigned route that does the
 * same CBOR work as a signed read (decode the body, encode a reply) without verification or dispatch.
 */
import { Controller, Module, Post, Req, Res } from '@nestjs/common';
import { decode, encode } from '@ipld/dag-cbor';
import type { Request, Response } from 'express';
import { AppModule } from '../src/app.module.js';
import { loadConfig } from '../src/config/config.js';
import { startServer } from '../src/server.js';

@Controller()
class UnsignedController {
  @Post('bench/unsigned')
  unsigned(@Req() request: Request, @Res() response: Response): void {
    const action = (decode(request.body as Buffer) as { action: { _: string } }).action;
    response.status(200).type('application/cbor').send(Buffer.from(encode({ _: `${action._}Response`, signers: [] })));
  }
}

@Module({ controllers: [UnsignedController] })
class UnsignedModule {}

const config = loadConfig();
const { port } = await startServer(config, { module: UnsignedModule, imports: [AppModule.forRoot(config)] });
process.stdout.write(`listening on http://127.0.0.1:${port}\n`);
