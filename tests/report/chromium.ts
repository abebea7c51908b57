/**
 * Headless Chromium for the report's browser test: the system package at /usr/bin/chromium
 * (Debian's `chromium`), driven by playwright-core, with everything that could reach the
 * network at start-up turned off. When it is missing, a developer's run skips the browser test
 * and says how to install it; a CI run (CI set) fails instead, as .ci/run installs it.
 */
import { accessSync, constants } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface ChromiumGate {
  available: boolean;
  /** True in CI without Chromium: the test file must fail, not skip. */
  mustFail: boolean;
  /** Why the browser tests do not run, or '' when they do. */
  message: string;
}

const executable = (path: string): boolean => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

export function chromiumGate(
  env: NodeJS.ProcessEnv = process.env,
  path = CHROMIUM_PATH,
  exists = executable,
): ChromiumGate {
  if (exists(path)) return { available: true, mustFail: false, message: '' };
  const missing = `Chromium is missing at ${path}`;
  if (env.CI) {
    return {
      available: false,
      mustFail: true,
      message: `${missing}, and CI is set: .ci/run must install it (apt-get install -y chromium)`,
    };
  }
  return {
    available: false,
    mustFail: false,
    message: `${missing}: skipping the browser test (install it with: apt-get install -y chromium)`,
  };
}

export const launchChromium = (): Promise<Browser> =>
  chromium.launch({ executablePath: CHROMIUM_PATH, args: ARGS });

export interface OpenedPage {
  page: Page;
  /** Every URL the page asked for. */
  requests: string[];
  /** Console errors and uncaught page errors, as they came. */
  errors: string[];
}

/** Opens a local file in a new 1280 x 900 page that records what it fetches and every error. */
export async function openFile(browser: Browser, url: string): Promise<OpenedPage> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const requests: string[] = [];
  const errors: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => errors.push(`page: ${e.message}`));
  await page.goto(url);
  return { page, requests, errors };
}

export interface HtmlPage extends OpenedPage {
  /** The file:// URL the page was opened from. */
  url: string;
  /** Closes the browser and removes the page's folder. */
  close(): Promise<void>;
}

/** Writes `html` to a new temporary folder and opens it from a file:// URL in a fresh Chromium. */
export async function openHtml(html: string, prefix: string): Promise<HtmlPage> {
  const { mkdtempSync, rmSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { pathToFileURL } = await import('node:url');
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const file = join(dir, 'page.html');
  writeFileSync(file, html);
  const browser = await launchChromium();
  const url = pathToFileURL(file).href;
  const opened = await openFile(browser, url);
  return {
    ...opened,
    url,
    close: async () => {
      await browser.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
