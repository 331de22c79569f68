import type { VerifiedCapabilityFacts } from './signers.decider.js';

/**
 * Verifies a Capability blob's signature and shape; provided by the gateway, which owns the
 * signature checks (commands never import the gateway).
 */
export type CapabilityVerifier = (bytes: Uint8Array) => VerifiedCapabilityFacts;
export const CAPABILITY_VERIFIER = Symbol('CapabilityVerifier');
