// The stand-in provider as a process of its own, run inside a container from its bundle (stand-in-bundle.ts): `node stand-in.mjs PORT`.
import { startStandInProvider } from '../../helpers/stand-in-provider.js';

const provider = await startStandInProvider({ port: Number(process.argv[2]) });
process.stdout.write(`stand-in listening on ${provider.url}\n`);
