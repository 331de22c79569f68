/**
 * Runs (spec/http-api.md, "GetRun", "ListRuns", "CancelRun", "RetrySession"; RunInfo as the upstream
 * wire types have it): every agent turn is a durable run.
 */
import type { ActionBase } from './envelope.js';
import type { AgentRunUsage } from './sessions.js';

export type RunStatus = 'queued' | 'claimed' | 'running' | 'waiting' | 'succeeded' | 'failed' | 'canceled';
export const RUN_STATUSES: readonly RunStatus[] = ['queued', 'claimed', 'running', 'waiting', 'succeeded', 'failed', 'canceled'];

export const DEFAULT_RUN_PAGE = 50;
export const MAX_RUN_PAGE = 200;

export interface RunInfo {
  id: string;
  account: string;
  rootRunId: string;
  parentRunId?: string;
  depth: number;
  kind: 'agent' | 'workflow';
  agentId?: string;
  sessionId?: string;
  origin: 'user' | 'trigger' | 'agent' | 'workflow' | 'system';
  title?: string;
  childRunCount?: number;
  status: RunStatus;
  error?: { code: string; message: string };
  usage?: AgentRunUsage;
  createdAt: number;
  startedAt?: number;
  finishedAt?: number;
  updatedAt: number;
}

export interface GetRun extends ActionBase {
  _: 'GetRun';
  runId: string;
}

export interface GetRunResponse {
  _: 'GetRunResponse';
  run: RunInfo;
}

export interface ListRuns extends ActionBase {
  _: 'ListRuns';
  rootRunId?: string;
  sessionId?: string;
  agentId?: string;
  status?: RunStatus;
  limit?: number;
}

export interface ListRunsResponse {
  _: 'ListRunsResponse';
  runs: RunInfo[];
}

export interface CancelRun extends ActionBase {
  _: 'CancelRun';
  runId: string;
}

export interface CancelRunResponse {
  _: 'CancelRunResponse';
  runId: string;
  canceled: boolean;
}

export interface RetrySession extends ActionBase {
  _: 'RetrySession';
  sessionId: string;
}

export interface RetrySessionResponse {
  _: 'RetrySessionResponse';
  sessionId: string;
  assistantEventId: string;
}
