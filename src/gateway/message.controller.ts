import { Controller, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { MessageService, errorOutcome } from './message.service.js';

export const CBOR = 'application/cbor';

@Controller()
export class MessageController {
  constructor(private readonly messages: MessageService) {}

  @Post(['api/message', 'agents/api/message'])
  async message(@Req() request: Request, @Res() response: Response): Promise<void> {
    // The raw body parser only takes application/cbor; anything else arrives unparsed. A CBOR
    // request with no body at all (no length, no chunks) arrives unparsed too.
    const outcome = Buffer.isBuffer(request.body)
      ? await this.messages.handle(request.body)
      : request.is(CBOR)
        ? errorOutcome(400, 'Invalid CBOR request: the body is empty; send a signed AgentsAction envelope')
        : errorOutcome(415, `Content-Type must be ${CBOR} (got ${request.headers['content-type'] ?? 'none'})`);
    response.status(outcome.status).type(CBOR).send(Buffer.from(outcome.body));
  }
}
