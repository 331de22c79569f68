/**
 * The client for the signed action API, free of Node built-ins so the Seed apps can bundle it.
 * `call()` signs and sends; `signAction()` and `sendAction()` are the two halves, for signers
 * and transports of the caller's own.
 */
export { omitUndefined } from './omit-undefined.js';
export { signAction, type ActionSigner, type SignActionInput, type SignedAction, type UnsignedAction } from './sign-action.js';
export { ed25519Signer, generateSigner, type Ed25519Signer } from './ed25519-signer.js';
export { agentsWsUrl, subscribe, type AgentsSubscription, type SubscribeOptions, type WebSocketConstructor, type WebSocketLike } from './subscribe.js';
export type { AgentWSEvent, SubscriptionKey } from '../protocol/ws.js';
export { AgentsClientError, AgentsTransportError, call, sendAction, type CallInput, type SendOptions } from './send-action.js';
export type { ErrorResponse, Principal, SignedActionEnvelope } from '../protocol/envelope.js';
export { AGENTS_PROTOCOL_VERSION } from '../protocol/version.js';
export { principalFromString, principalToString } from '../protocol/principal.js';
