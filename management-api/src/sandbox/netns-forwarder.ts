// The forwarder inside an agent's network namespace: loopback ports that lead to the box's unix sockets.
import type { ForwardedPort } from './bwrap-argv.js';

/**
 * The forwarder programme, run with `node -e` as the sandbox's first process. It listens on
 * 127.0.0.1:<port> for every `<port>=<socket>` argument before `--`, so HTTP_PROXY and the API URL
 * work unchanged inside a namespace that has no other network, and only once every listener is up
 * starts the command after `--` (so the agent can never connect before the forwarder listens).
 * It passes SIGTERM, SIGINT and SIGHUP on and exits as the command did. Once its signal handlers
 * are in place it writes one byte to fd 3 (when open) and closes it: the box waits for that byte,
 * so a SIGTERM sent after the spawn returned always reaches the agent. It is JavaScript text (not
 * a file) so the sandbox needs nothing of the application but the node binary. Builtins only.
 */
export const FORWARDER_SOURCE = `"use strict";
const net = require("node:net"), fs = require("node:fs"), { spawn } = require("node:child_process"), os = require("node:os");
const argv = process.argv.slice(1), sep = argv.indexOf("--");
const specs = argv.slice(0, sep), command = argv.slice(sep + 1);
const fail = (why) => { process.stderr.write("agentbox sandbox forwarder: " + why + "\\n"); process.exit(126); };
if (sep < 0 || command.length === 0) fail("usage: <port>=<socket>... -- command [args]");
const env = { ...process.env };
if ("AGENTBOX_AGENT_NODE_OPTIONS" in env) { env.NODE_OPTIONS = env.AGENTBOX_AGENT_NODE_OPTIONS; delete env.AGENTBOX_AGENT_NODE_OPTIONS; }
const start = () => {
  try { fs.writeSync(3, "r"); fs.closeSync(3); } catch {}
  const child = spawn(command[0], command.slice(1), { stdio: "inherit", env });
  // A signal to the group reaches the box's shell outside too, which passes it on once more: one is enough.
  const last = {};
  for (const s of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(s, () => { const now = Date.now(); if (!(now - (last[s] ?? 0) < 200)) child.kill(s); last[s] = now; });
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

/**
 * Moves the agent's NODE_OPTIONS aside for the forwarder's own node (which must start whatever
 * the agent asked its node to preload) and lets the forwarder give it back to the command.
 */
const SET_NODE_OPTIONS_ASIDE = 'if [ "${NODE_OPTIONS+set}" ]; then AGENTBOX_AGENT_NODE_OPTIONS=$NODE_OPTIONS; export AGENTBOX_AGENT_NODE_OPTIONS; unset NODE_OPTIONS; fi; exec "$@"';

/** `sh -c … node -e <forwarder> -- <port>=<socket>... --` — the prefix that puts the forwarder before a command. */
export function forwarderArgv(node: string, ports: readonly ForwardedPort[], shell = '/bin/sh'): string[] {
  // The first `--` ends node's own options, so no forward or command word is read as one.
  return [shell, '-c', SET_NODE_OPTIONS_ASIDE, 'agentbox-sandbox', node, '-e', FORWARDER_SOURCE, '--', ...ports.map((p) => `${p.port}=${p.socket}`), '--'];
}
