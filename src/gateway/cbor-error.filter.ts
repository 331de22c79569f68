import { Catch, HttpException, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { Request, Response } from 'express';
import { MAX_MESSAGE_BYTES } from './limits.js';
import { errorOutcome } from './message.service.js';

const MESSAGE_PATHS = new Set(['/api/message', '/agents/api/message']);

/** Express routes case-insensitively and ignores a trailing slash; so does this check. */
function isMessagePath(path: string): boolean {
  return MESSAGE_PATHS.has(path.toLowerCase().replace(/\/+$/, ''));
}

/**
 * Errors raised before a message reaches its controller — a body over the size limit, a body that
 * is not even readable — answered in the API's own shape: DAG-CBOR `{_: 'Error', message}` with the
 * status. Other routes keep Nest's JSON errors.
 */
@Catch()
export class CborErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('CborErrorFilter');

  catch(error: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<Request>();
    const response = http.getResponse<Response>();
    const status = statusOf(error);
    if (status >= 500) this.logger.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    if (!isMessagePath(request.path)) {
      const message = status >= 500 ? 'Internal server error' : (error as Error).message;
      response.status(status).json({ statusCode: status, message });
      return;
    }
    const message =
      status === 413
        ? `Request body is larger than ${MAX_MESSAGE_BYTES} bytes`
        : status >= 500
          ? 'Internal server error'
          : (error as Error).message;
    const outcome = errorOutcome(status, message);
    response.status(status).type('application/cbor').send(Buffer.from(outcome.body));
  }
}

function statusOf(error: unknown): number {
  if (error instanceof HttpException) return error.getStatus();
  // body-parser's errors carry their status (413 too large, 400 unreadable).
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' && status >= 400 && status < 600 ? status : 500;
}
