// Input requests: the operator lists and answers agents waiting for a person (/v1/input-requests); an agent raises, awaits and takes back its own (/v1/agents/:id/input-requests).
import type { FastifyInstance } from 'fastify';
import type {} from '@fastify/swagger';
import type {} from '@fastify/rate-limit';
import '../app-state.js';
import { agentScopes } from '../auth/agent-scopes.js';
import { callerOf } from '../auth/caller.js';
import { ApiError } from '../errors.js';
import { MAX_ANSWER_CHARS, MAX_PROMPT_CHARS, MAX_WAIT_SEC } from '../input-requests/input-request.js';
import { errors, idParams } from './agents-routes.js';
import type { MutationLimits } from './events-routes.js';

/** One request as listed (never the answer's text: its length). */
export const inputRequestSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    agentId: { type: 'string' },
    agent: { type: 'string', description: "The agent's name" },
    reason: { type: 'string', enum: ['prompt', 'explicit'], description: 'prompt: seen on its quiet terminal; explicit: the agent asked through the API' },
    prompt: { type: 'string', description: "The prompt line that matched, or the agent's own text" },
    pattern: { type: 'string', description: 'Which prompt pattern matched (a prompt)' },
    lines: { type: 'array', items: { type: 'string' }, description: 'The last lines of its screen when raised (a prompt), trimmed' },
    created: { type: 'string' },
    state: { type: 'string', enum: ['open', 'answered', 'withdrawn', 'ended'] },
    closed: {
      type: 'object',
      properties: {
        at: { type: 'string' },
        why: { type: 'string', enum: ['answer', 'output', 'input', 'agent', 'agent-ended', 'api-closed'] },
        answer: {
          type: 'object',
          properties: { length: { type: 'integer' }, enter: { type: 'boolean' }, by: { type: 'object', additionalProperties: true } },
        },
      },
    },
  },
} as const;
/** The agent's own view: an explicit request's answer with its text. */
const ownRequestSchema = {
  ...inputRequestSchema,
  properties: { ...inputRequestSchema.properties, answer: { type: 'object', properties: { text: { type: 'string' } } } },
} as const;
const requestParams = {
  type: 'object',
  additionalProperties: false,
  required: ['id'],
  properties: { id: { type: 'string', pattern: '^inp_[0-9a-f]{18}$' } },
} as const;
const ownParams = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'requestId'],
  properties: { ...idParams.properties, requestId: requestParams.properties.id },
} as const;
const answerBody = {
  type: 'object',
  additionalProperties: false,
  required: ['text'],
  properties: {
    text: { type: 'string', maxLength: MAX_ANSWER_CHARS, description: 'Typed into the terminal as keystrokes (a prompt), or handed to the agent (explicit)' },
    enter: { type: 'boolean', default: true, description: 'Press Enter (\\r) after the text' },
  },
} as const;
const raiseBody = {
  type: 'object',
  additionalProperties: false,
  required: ['prompt'],
  properties: { prompt: { type: 'string', minLength: 1, maxLength: MAX_PROMPT_CHARS, description: 'What the agent asks, shown to the operator' } },
} as const;
const one = (schema: object) => ({ type: 'object', properties: { inputRequest: schema } });

/**
 * Register the input request routes. Listing and answering are the operator's alone (an agent
 * must never answer another agent's prompt, nor read it); an agent raises, reads and takes back
 * only its own (`agentSelf`: the `:id` of the path is its own).
 */
export function registerInputRequestRoutes(app: FastifyInstance, limits: MutationLimits): void {
  const queue = () => app.agentbox.inputRequests;
  const rateLimit = { max: limits.max, timeWindow: limits.timeWindowMs };

  app.get(
    '/v1/input-requests',
    {
      config: { agent: 'deny' },
      schema: {
        summary: 'Agents waiting for a person: the open input requests, oldest first',
        tags: ['input-requests'],
        response: { 200: { type: 'object', properties: { inputRequests: { type: 'array', items: inputRequestSchema } } }, ...errors },
      },
    },
    async () => ({ inputRequests: queue().list() }),
  );

  app.get<{ Params: { id: string } }>(
    '/v1/input-requests/:id',
    {
      config: { agent: 'deny' },
      schema: {
        summary: 'One input request, open or recently closed',
        tags: ['input-requests'],
        params: requestParams,
        response: { 200: one(inputRequestSchema), ...errors },
      },
    },
    async (request) => ({ inputRequest: queue().get(request.params.id) }),
  );

  app.post<{ Params: { id: string }; Body: { text: string; enter: boolean } }>(
    '/v1/input-requests/:id',
    {
      bodyLimit: 64 * 1024,
      config: { agent: 'deny', rateLimit },
      schema: {
        summary:
          "Answer an open input request: a prompt's text (and Enter) is typed into the agent's terminal; an explicit request's text is handed to the agent. 409 once it is answered, withdrawn or ended",
        tags: ['input-requests'],
        params: requestParams,
        body: answerBody,
        response: { 200: one(inputRequestSchema), ...errors },
      },
    },
    async (request) => {
      const { text, enter } = request.body;
      if (text.length === 0 && !enter)
        throw new ApiError('ABX_ERR_VALIDATION', 'body: an answer with an empty text and "enter": false types nothing; send a text, or Enter');
      const by = callerOf(request) as unknown as Record<string, unknown>;
      return { inputRequest: await queue().answer(request.params.id, { text, enter }, by) };
    },
  );

  app.post<{ Params: { id: string }; Body: { prompt: string } }>(
    '/v1/agents/:id/input-requests',
    {
      bodyLimit: 64 * 1024,
      config: { agent: agentScopes.agentSelf, rateLimit },
      schema: {
        summary:
          'An agent asks a person for input (with its own token; for itself only). 201 with the open request; await the answer with GET /v1/agents/{id}/input-requests/{requestId}?wait=SECONDS',
        tags: ['input-requests'],
        params: idParams,
        body: raiseBody,
        response: { 201: one(inputRequestSchema), ...errors },
      },
    },
    async (request, reply) => {
      const agent = await app.agentbox.resolver.slot('orchestrator').status(request.params.id);
      if (agent.state !== 'starting' && agent.state !== 'running')
        throw new ApiError('ABX_ERR_CONFLICT', `agent ${agent.id} has ended (${agent.state}): it waits for nobody`);
      const inputRequest = queue().raise({ id: agent.id, name: agent.name }, request.body.prompt);
      return reply.code(201).send({ inputRequest });
    },
  );

  app.get<{ Params: { id: string; requestId: string }; Querystring: { wait: number } }>(
    '/v1/agents/:id/input-requests/:requestId',
    {
      config: { agent: agentScopes.agentSelf },
      schema: {
        summary: `An agent's own input request, with the answer's text once answered; \`wait\` (seconds, at most ${MAX_WAIT_SEC}) holds the call while it is open`,
        tags: ['input-requests'],
        params: ownParams,
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: { wait: { type: 'integer', minimum: 0, maximum: MAX_WAIT_SEC, default: 0 } },
        },
        response: { 200: one(ownRequestSchema), ...errors },
      },
    },
    async (request) => {
      // The wait ends early when the caller goes away (or the API closes: every open request ends then).
      const gone = new AbortController();
      request.raw.once('close', () => gone.abort());
      const own = await queue().own(request.params.requestId, request.params.id, request.query.wait * 1000, gone.signal);
      return { inputRequest: own };
    },
  );

  app.delete<{ Params: { id: string; requestId: string } }>(
    '/v1/agents/:id/input-requests/:requestId',
    {
      config: { agent: agentScopes.agentSelf, rateLimit },
      schema: {
        summary: 'An agent takes back its own open input request (state withdrawn); 409 once closed',
        tags: ['input-requests'],
        params: ownParams,
        response: { 200: one(inputRequestSchema), ...errors },
      },
    },
    async (request) => ({ inputRequest: queue().withdraw(request.params.requestId, request.params.id) }),
  );
}
