// Cells in 24-bit colour under the dashboard's CSP: xterm.js's DOM renderer colours them with a style attribute, which the CSP refuses; CSSOM it allows.
import type { Terminal } from '@xterm/xterm';

/** The renderer's row factory, as xterm 6 keeps it (not public: see {@link colourCellsThroughCssom}). */
interface RowFactory {
  _addStyle?: (element: HTMLElement, css: string) => void;
}
interface TerminalInternals {
  _core?: { _renderService?: { _renderer?: { value?: { _rowFactory?: RowFactory } } } };
}

/** The same declarations as the attribute, set through CSSOM, which the CSP does not govern. */
function addStyle(element: HTMLElement, css: string): void {
  element.style.cssText += `${css};`;
}

/**
 * xterm 6 gives a cell in 24-bit colour (and one whose colour it adjusts for contrast) its colour
 * with `setAttribute('style', …)` in `DomRendererRowFactory._addStyle`: the CSP refuses it (the
 * colour is lost, and each cell is a console error). The factory is created with the global
 * `document`, out of reach of the `documentOverride` (csp-document.ts), so the method is replaced
 * on its prototype once the terminal is open. No public API does this; tests/ui/terminal.test.ts
 * checks a 24-bit colour is drawn with no CSP report, so a later xterm that moves it fails there.
 */
export function colourCellsThroughCssom(terminal: Terminal): void {
  const factory = (terminal as unknown as TerminalInternals)._core?._renderService?._renderer?.value?._rowFactory;
  const proto = factory ? (Object.getPrototypeOf(factory) as RowFactory) : undefined;
  if (proto && typeof proto._addStyle === 'function') proto._addStyle = addStyle;
}
