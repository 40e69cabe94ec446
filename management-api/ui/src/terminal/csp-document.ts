// The document xterm.js is given (its `documentOverride`), so it renders under the dashboard's CSP (style-src 'self', nothing inline).

/**
 * What the stand-in holds for one terminal: its stylesheets, dropped when the terminal goes.
 */
export interface CspDocument {
  /** The document to pass as xterm's `documentOverride`. */
  document: Document;
  /**
   * Run `open` (xterm's `Terminal.open`) with the real document creating elements as the stand-in
   * does: xterm 6 creates a few elements from `window.document` whatever its `documentOverride`
   * (the scrollbar's `<style>`). `open` is synchronous, so nothing else runs before it is restored.
   */
  opening(open: () => void): void;
  /** Drop every stylesheet this terminal added to the page. */
  dispose(): void;
}

/**
 * The page's document for xterm.js, with one of its elements changed: xterm writes its theme and
 * cell sizes into `<style>` elements, whose text the CSP refuses (nothing would be laid out, and
 * each refusal is a console error). It gets an inert `<template>` instead (hidden, never parsed as
 * CSS) whose `textContent` goes into a constructed stylesheet adopted by the document: constructed
 * stylesheets are CSSOM, which the CSP does not govern. (Cells in 24-bit colour: `cell-styles.ts`.)
 *
 * Nothing else changes: every other property is the real document's, so the page's CSP stays as
 * strict as it is for the rest of the dashboard. The CSS text comes from xterm itself (colours it
 * has parsed into numbers, sizes it measured), never from the agent's bytes.
 */
export function cspDocument(real: Document = document): CspDocument {
  // The prototype's own method: `real.createElement` is the stand-in's while `opening` runs.
  const create = (tag: string, options?: ElementCreationOptions): HTMLElement => Document.prototype.createElement.call(real, tag, options);
  const sheets = new Set<CSSStyleSheet>();
  const adopt = (sheet: CSSStyleSheet) => {
    sheets.add(sheet);
    real.adoptedStyleSheets = [...real.adoptedStyleSheets, sheet];
  };
  const drop = (sheet: CSSStyleSheet) => {
    sheets.delete(sheet);
    real.adoptedStyleSheets = real.adoptedStyleSheets.filter((s) => s !== sheet);
  };

  const styleHolder = (): HTMLElement => {
    const holder = create('template');
    holder.dataset['xtermStyle'] = '';
    const sheet = new CSSStyleSheet();
    let text = '';
    adopt(sheet);
    Object.defineProperty(holder, 'textContent', {
      get: () => text,
      set: (value: string | null) => {
        text = value ?? '';
        sheet.replaceSync(text);
      },
    });
    const remove = holder.remove.bind(holder);
    holder.remove = () => {
      drop(sheet);
      remove();
    };
    return holder;
  };

  const createElement = (tag: string, options?: ElementCreationOptions): HTMLElement => {
    if (tag.toLowerCase() === 'style') return styleHolder();
    return create(tag, options);
  };

  // Everything else is the real document's, its methods bound to it (a native method called on the proxy would throw).
  const stand = new Proxy(real, {
    get(target, key) {
      if (key === 'createElement') return createElement;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
    set(target, key, value) {
      return Reflect.set(target, key, value, target);
    },
  });
  return {
    document: stand,
    opening(open) {
      const own = Object.getOwnPropertyDescriptor(real, 'createElement');
      real.createElement = createElement as Document['createElement'];
      try {
        open();
      } finally {
        if (own) Object.defineProperty(real, 'createElement', own);
        else delete (real as { createElement?: unknown }).createElement;
      }
    },
    dispose: () => {
      for (const sheet of [...sheets]) drop(sheet);
    },
  };
}
