// One browser page on a box's dashboard for a test file: the box, the browser, the page and what the page did wrong, closed together.
import type { Browser, Page } from 'puppeteer-core';
import { launchBrowser, watchPage, type PageProblems } from './browser.js';
import { startUiBox, type UiBox, type UiBoxOptions } from './ui-box.js';

/** A box serving its dashboard and one headless browser page watched for problems. */
export interface UiPage {
  ui: UiBox;
  browser: Browser;
  page: Page;
  problems: PageProblems;
  /** Close the browser, then the box. */
  close(): Promise<void>;
}

/** Start the box (see {@link startUiBox}) and a browser with one watched page. */
export async function openUiPage(toml: string, options: UiBoxOptions = {}): Promise<UiPage> {
  const ui = await startUiBox(toml, options);
  let browser: Browser | undefined;
  try {
    browser = await launchBrowser();
    const page = await browser.newPage();
    const opened = browser;
    return {
      ui,
      browser: opened,
      page,
      problems: watchPage(page),
      async close() {
        await opened.close();
        await ui.close();
      },
    };
  } catch (err) {
    await browser?.close();
    await ui.close();
    throw err;
  }
}
