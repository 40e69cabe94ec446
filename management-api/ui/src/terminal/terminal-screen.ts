// The terminal emulator on the page (xterm.js and its fit addon), loaded on demand as its own chunk: what the view draws the agent's bytes with.
import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import { colourCellsThroughCssom } from './cell-styles.js';
import { cspDocument } from './csp-document.js';

/** Columns and rows. */
export interface ScreenSize {
  cols: number;
  rows: number;
}

/** One terminal drawn into an element. */
export interface Screen {
  readonly size: ScreenSize;
  /** Terminal data from the agent, as it came. */
  write(data: Uint8Array): void;
  /** Keystrokes (and the terminal's own answers to queries), as bytes to send. */
  onInput(handler: (bytes: Uint8Array) => void): void;
  /** The terminal changed size (the element was resized). */
  onResize(handler: (size: ScreenSize) => void): void;
  focus(): void;
  dispose(): void;
}

const encoder = new TextEncoder();

/** The smallest terminal the page follows its element down to: below it, a layout in passing, not a size anyone types in. */
const MIN_COLS = 20;
const MIN_ROWS = 4;

/**
 * Open a terminal in `host`, sized to fit it and following its size. The agent's output is hostile
 * bytes: nothing it writes may act on the page. xterm.js has no clipboard write (OSC 52 needs an
 * addon, not loaded here) and no other addon is loaded; a hyperlink (OSC 8) opens only on the
 * user's click, after a confirmation naming it, only for http(s), in a new window with no access back.
 */
export function openScreen(host: HTMLElement): Screen {
  const doc = cspDocument(host.ownerDocument);
  const terminal = new Terminal({
    documentOverride: doc.document,
    cursorBlink: false,
    scrollback: 5_000,
    fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace',
    fontSize: 14,
    linkHandler: { activate: openLink, allowNonHttpProtocols: false },
  });
  const fit = new FitAddon();
  terminal.loadAddon(fit);
  doc.opening(() => terminal.open(host));
  colourCellsThroughCssom(terminal);
  fit.fit();

  // The element follows the window and the panel; the terminal follows the element, once per frame.
  let queued = false;
  const observer = new ResizeObserver(() => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => {
      queued = false;
      if (!host.isConnected) return;
      // A panel re-rendering can lay the host out as a sliver for one frame (2 columns): sent to the
      // agent, that size makes its shell redraw and erase the lines above the prompt. Only a size
      // someone could type in is taken; the next frame's real size follows.
      const proposed = fit.proposeDimensions();
      if (proposed && proposed.cols >= MIN_COLS && proposed.rows >= MIN_ROWS) fit.fit();
    });
  });
  observer.observe(host);

  return {
    get size() {
      return { cols: terminal.cols, rows: terminal.rows };
    },
    write: (data) => terminal.write(data),
    onInput(handler) {
      terminal.onData((text) => handler(encoder.encode(text)));
      // Mouse reports in the legacy encoding are bytes, not text: one byte per character.
      terminal.onBinary((text) => handler(Uint8Array.from(text, (c) => c.charCodeAt(0) & 0xff)));
    },
    onResize(handler) {
      terminal.onResize(({ cols, rows }) => handler({ cols, rows }));
    },
    focus: () => terminal.focus(),
    dispose() {
      observer.disconnect();
      terminal.dispose();
      doc.dispose();
    },
  };
}

/** An OSC 8 link, on the user's click: http(s) only, confirmed, in a new window that cannot reach the dashboard. */
function openLink(event: MouseEvent, uri: string): void {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return;
  event.preventDefault();
  if (window.confirm(`The agent's terminal links to\n\n${url.href}\n\nOpen it in a new window?`)) window.open(url.href, '_blank', 'noopener,noreferrer');
}
