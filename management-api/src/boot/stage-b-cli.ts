// Process entry of stage B (supervisord programme `bootstrap`).
import { runStageB } from './stage-b.js';

process.exitCode = await runStageB(process.env);
