// The package's client entry (`agentbox/client`): the typed client, its error, credentials and the generated route types.
export {
  Agentbox,
  type AgentboxOptions,
  type Agent,
  type OutputChunk,
  type OutputEvent,
  type BoxEvent,
  type PodResource,
  type WorkspaceFile,
  type WorkspaceFileStream,
} from './agentbox.js';
export { AgentboxError, type AgentboxErrorCode } from './errors.js';
export type { Credential, Nip98Signer, Nip98Template, SignedNostrEvent } from './auth.js';
export type { CallOptions, RouteInput, RouteResponse } from './route-call.js';
export type { SseMessage } from './sse.js';
export { ROUTE_KEYS, type ErrorCode, type RouteKey, type Routes } from './generated/api-types.js';
