// A terminal viewer in a process of its own (so its reading costs the API's event loop nothing): connects to the URL in argv, counts the terminal data, prints {bytes, code} when the box closes it.
import WebSocket from 'ws';

const url = process.argv[2];
if (!url) throw new Error('usage: tty-viewer-peer.js WS-URL');
const socket = new WebSocket(url);
let bytes = 0;
socket.on('open', () => process.stdout.write('open\n'));
socket.on('message', (data: Buffer, binary) => {
  if (binary) bytes += data.length;
});
socket.on('close', (code, reason) => {
  process.stdout.write(`${JSON.stringify({ bytes, code, reason: reason.toString() })}\n`);
  process.exit(0);
});
socket.on('error', (err) => {
  process.stderr.write(`tty viewer peer: ${err.message}\n`);
  process.exit(1);
});
