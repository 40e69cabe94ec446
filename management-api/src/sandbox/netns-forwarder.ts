// The forwarder inside an agent's network namespace: loopback ports that lead to the box's unix sockets.
import type { ForwardedPort } from './bwrap-argv.js';

/**
 * The forwarder programme, run with `node -e` as the sandbox's first process. It listens on
 * 127.0.0.1:<port> for every `<port>=<socket>` argument before `--`, so HTTP_PROXY and the API URL
 * work unchanged inside a namespace that has no other network, and only once every listener is up
 * starts the command after `--` (so the agent can never connect before the forwarder listens).
 * It passes SIGTERM, SIGINT and SIGHUP on and exits as the command did. It is JavaScript text (not
 * a file) so the sandbox needs nothing of the application but the node binary. Builtins only.
 */
export const FORWARDER_SOURCE = `"use strict";
const net = require("node:net"), { spawn } = require("node:child_process"), os = require("node:os");
const argv = process.argv.slice(1), sep = argv.indexOf("--");
const specs = argv.slice(0, sep), command = argv.slice(sep + 1);
const fail = (why) => { process.stderr.write("agentbox sandbox forwarder: " + why + "\\n"); process.exit(126); };
if (sep < 0 || command.length === 0) fail("usage: <port>=<socket>... -- command [args]");
const start = () => {
  const child = spawn(command[0], command.slice(1), { stdio: "inherit" });
  for (const s of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(s, () => child.kill(s));
  child.on("error", (e) => fail("cannot start " + command[0] + ": " + e.code));
  child.on("exit", (code, signal) => process.exit(code ?? 128 + (os.constants.signals[signal] ?? 0)));
};
let waiting = specs.length;
for (const spec of specs) {
  const at = spec.indexOf("="), port = Number(spec.slice(0, at)), socket = spec.slice(at + 1);
  if (!(at > 0 && Number.isInteger(port) && port > 0 && port < 65536 && socket)) fail("bad forward " + JSON.stringify(spec));
  const server = net.createServer((inside) => {
    const outside = net.connect(socket);
    inside.pipe(outside).pipe(inside);
    inside.on("error", () => outside.destroy());
    outside.on("error", () => inside.destroy());
  });
  server.on("error", (e) => fail("cannot listen on 127.0.0.1:" + port + ": " + e.code));
  server.listen(port, "127.0.0.1", () => { if (--waiting === 0) start(); });
}
if (waiting === 0) start();
`;

/** `node -e <forwarder> -- <port>=<socket>... --` — the prefix that puts the forwarder before a command. */
export function forwarderArgv(node: string, ports: readonly ForwardedPort[]): string[] {
  // The first `--` ends node's own options, so no forward or command word is read as one.
  return [node, '-e', FORWARDER_SOURCE, '--', ...ports.map((p) => `${p.port}=${p.socket}`), '--'];
}
