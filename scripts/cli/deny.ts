// `agentbox deny ID`: deny a pending approval request (see approval-decide.ts).
import { decideUsage, runDecision } from './approval-decide.js';

export const usage = decideUsage('deny');

/** Run the command. */
export const run = (args: string[]): Promise<number> => runDecision('deny', args);
