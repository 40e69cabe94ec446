// E027: pgvector's HNSW index supports at most 2000 dimensions; a larger vector table cannot be indexed.
import type { Rule } from './rule.js';
import { finding } from './helpers/findings.js';
import { slotImpls } from './helpers/slots.js';

const HNSW_MAX_DIMENSIONS = 2000;

/** With `memory = "external-pg"`, `integrations.memory.dimension` is at most 2000. */
export const pgvectorDimensionLimit: Rule = {
  id: 'E027',
  alias: 'pgvector-dimension-limit',
  severity: 'error',
  summary: `the ${slotImpls.memory.external} memory adapter supports at most ${HNSW_MAX_DIMENSIONS} vector dimensions (pgvector HNSW)`,
  check(m) {
    const dim = m.integrations.memory.dimension;
    if (m.adapters.memory !== slotImpls.memory.external || dim <= HNSW_MAX_DIMENSIONS) return [];
    return [
      finding(
        ['integrations', 'memory', 'dimension'],
        `integrations.memory.dimension = ${dim} exceeds the ${HNSW_MAX_DIMENSIONS} dimensions pgvector's HNSW index supports (adapters.memory = "${slotImpls.memory.external}")`,
        `use an embedding of at most ${HNSW_MAX_DIMENSIONS} dimensions (for example dimension = 1536), or adapters.memory = "${slotImpls.memory.local}"`,
      ),
    ];
  },
};
