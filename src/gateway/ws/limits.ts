/** What one `/agents/ws` socket may cost the server, and how often it is checked for life. */

/** A Subscribe envelope is a few hundred bytes; a larger inbound frame closes the socket (1009). */
export const MAX_INBOUND_FRAME_BYTES = 64 * 1024;

/** Keys one socket may hold; the Seed apps open one socket per key. */
export const MAX_SUBSCRIPTIONS_PER_SOCKET = 100;

/**
 * Bytes a socket may still hold unwritten when its next frames are due before it is closed as a slow
 * consumer. It resumes losslessly with afterSeq, so closing is cheaper than buffering without bound.
 */
export const MAX_UNSENT_BYTES = 4 * 1024 * 1024;

/** Writing sockets takes at most 1/FLUSH_DUTY of the server's time (connection.ts, Outbox). */
export const FLUSH_DUTY = 4;
/** The longest a frame waits for its socket's next write. */
export const MAX_FLUSH_WAIT_MS = 10;

/** A replay waits for the socket to take its frames while more than this is unsent. */
export const REPLAY_PACE_BYTES = 1024 * 1024;

/** Live events held for one subscription while it replays; more closes the socket as a slow consumer. */
export const MAX_CATCH_UP_BUFFER = 10_000;

/** Every socket is pinged this often; one that has not answered the previous ping is terminated. */
export const HEARTBEAT_MS = 30_000;
