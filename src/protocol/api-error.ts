/**
 * The one error type of the API. The gateway writes it as `{_: 'Error', message, code?}` with its
 * HTTP status. Messages say what was wrong and what is accepted, in the spec's words where it has them.
 */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}
