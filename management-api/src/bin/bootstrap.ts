// Process entry of stage B (supervisord programme `bootstrap`, one-shot, command agentbox-bootstrap).
import { runStageB } from '../boot/stage-b.js';

process.exitCode = await runStageB(process.env);
