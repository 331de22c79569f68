/** Signed actions larger than this are refused with 413 before they are read into memory. */
export const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
