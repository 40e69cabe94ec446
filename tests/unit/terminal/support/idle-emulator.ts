// A process holding a terminal's emulator and nothing else: it must end on its own (emulator-worker.test.ts).
import { AgentTerminal } from '../../../../management-api/src/adapters/orchestrator/agent-terminal.js';
import { EmulatorHost } from '../../../../management-api/src/adapters/orchestrator/emulator-host.js';
import { FakeTty } from './fake-terminal.js';

const terminal = new AgentTerminal(new FakeTty().tty, new EmulatorHost());
terminal.output(Buffer.from('hello\r\n'));
const tail = await terminal.tail(2);
process.stdout.write(`screen: ${tail?.promptLine}\n`);
// The terminal is left open, its worker running: nothing here ends it.
