// The document xterm.js is given (its `documentOverride`), so it renders under the dashboard's CSP (style-src 'self', nothing inline).

/**
 * What the stand-in holds for one terminal: its stylesheets, dropped when the terminal goes.
 */
export interface CspDocument {
  /** The document to pass as xterm's `documentOverride`. */
  document: Document;
  /** Drop every stylesheet this terminal added to the page. */
  dispose(): void;
}

/**
 * The page's document for xterm.js, with two of its elements changed:
 *
 * - `<style>`: xterm writes its theme and cell sizes into `<style>` elements, whose text the CSP
 *   refuses (nothing would be laid out, and each refusal is a console error). It gets an inert
 *   `<template>` instead (hidden, never parsed as CSS) whose `textContent` goes into a constructed
 *   stylesheet adopted by the document: constructed stylesheets are CSSOM, which the CSP does not govern.
 * - `<span>`: cells in 24-bit colour get `setAttribute('style', …)`, which the CSP refuses too;
 *   on these spans a style attribute goes through `style.cssText` (CSSOM) instead.
 *
 * Nothing else changes: every other property is the real document's, so the page's CSP stays as
 * strict as it is for the rest of the dashboard. The CSS text comes from xterm itself (colours it
 * has parsed into numbers, sizes it measured), never from the agent's bytes.
 */
export function cspDocument(real: Document = document): CspDocument {
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
    const holder = real.createElement('template');
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

  const styledSpan = (): HTMLElement => {
    const span = real.createElement('span');
    span.setAttribute = function setAttribute(this: HTMLElement, name: string, value: string) {
      if (name.toLowerCase() === 'style') this.style.cssText = value;
      else Element.prototype.setAttribute.call(this, name, value);
    };
    return span;
  };

  const createElement = (tag: string, options?: ElementCreationOptions): HTMLElement => {
    const name = tag.toLowerCase();
    if (name === 'style') return styleHolder();
    if (name === 'span') return styledSpan();
    return real.createElement(tag, options);
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
    dispose: () => {
      for (const sheet of [...sheets]) drop(sheet);
    },
  };
}
