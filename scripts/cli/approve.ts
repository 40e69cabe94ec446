// `agentbox approve ID`: approve a pending approval request (see approval-decide.ts).
import { decideUsage, runDecision } from './approval-decide.js';

export const usage = decideUsage('approve');

/** Run the command. */
export const run = (args: string[]): Promise<number> => runDecision('approve', args);
