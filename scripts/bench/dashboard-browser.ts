// Headless Debian Chromium for the dashboard benchmark, driven by puppeteer-core (a devDependency, loaded only when the bench runs).
import puppeteer, { type Browser } from 'puppeteer-core';

/** Launch headless Chromium at `executablePath` with the browser tests' flags. */
export async function launchBenchBrowser(executablePath: string): Promise<Browser> {
  const args = ['--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', '--disable-extensions', '--window-size=1280,900'];
  // Chromium's sandbox refuses to start as root; the page only loads the box's own dashboard from 127.0.0.1.
  if (process.getuid?.() === 0) args.push('--no-sandbox');
  return puppeteer.launch({ executablePath, headless: true, args, defaultViewport: { width: 1280, height: 900 } });
}
