import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  chromium,
  type Browser as PlaywrightBrowser,
  type BrowserContext,
  type Page as PlaywrightPage,
} from 'playwright-core';

/**
 * Headless Chromium for the e-mail layout tests and the docs screenshots: playwright-core
 * driving Debian's `chromium` package (`/usr/bin/chromium`; `THM_CHROMIUM` names another
 * binary). playwright-core brings no browser of its own and downloads none.
 */
export const CHROMIUM_PATH = process.env.THM_CHROMIUM ?? '/usr/bin/chromium';

export function chromiumAvailable(): boolean {
  try {
    accessSync(CHROMIUM_PATH, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export interface Viewport {
  width: number;
  height: number;
  /** A phone: the viewport meta is honoured, touch-sized layout. */
  mobile: boolean;
  /** @defaultValue 1 */
  deviceScaleFactor?: number;
  /** prefers-color-scheme. @defaultValue 'light' */
  colorScheme?: 'light' | 'dark';
}

/** An iPhone 12-15 sized screen. */
export const PHONE: Viewport = { width: 390, height: 844, mobile: true };
export const DESKTOP: Viewport = { width: 1200, height: 900, mobile: false };

export interface Page {
  /** Loads a local HTML file at this viewport and waits for the load event. */
  open(file: string, viewport: Viewport): Promise<void>;
  /** Evaluates an expression in the page; the value comes back as JSON. */
  evaluate<T>(expression: string): Promise<T>;
  /** A PNG of the whole page (not just the viewport), at the viewport's width; or of a band. */
  screenshot(band?: { y: number; height: number }): Promise<Buffer>;
}

export interface Browser {
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

export async function launchChromium(): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
    timeout: 30_000,
  });
  return {
    newPage: () => Promise.resolve(openPage(browser)),
    close: () => browser.close(),
  };
}

/**
 * A page whose viewport can change from one file to the next. A phone's emulation (mobile,
 * scale factor) and the colour scheme are a browser context's, so each viewport has a context
 * and page of its own, made when first used.
 */
function openPage(browser: PlaywrightBrowser): Page {
  const pages = new Map<string, { context: BrowserContext; page: PlaywrightPage }>();
  let current: PlaywrightPage | undefined;
  const pageFor = async (vp: Viewport): Promise<PlaywrightPage> => {
    const key = JSON.stringify(vp);
    let entry = pages.get(key);
    if (!entry) {
      const context = await browser.newContext({
        viewport: { width: vp.width, height: vp.height },
        isMobile: vp.mobile,
        hasTouch: vp.mobile,
        deviceScaleFactor: vp.deviceScaleFactor ?? 1,
        colorScheme: vp.colorScheme ?? 'light',
      });
      entry = { context, page: await context.newPage() };
      pages.set(key, entry);
    }
    return entry.page;
  };
  const page = (): PlaywrightPage => {
    if (!current) throw new Error('no file opened yet');
    return current;
  };
  return {
    async open(file, vp) {
      current = await pageFor(vp);
      await current.goto(pathToFileURL(path.resolve(file)).href, { waitUntil: 'load' });
    },
    evaluate: <T>(expression: string) => page().evaluate(expression) as Promise<T>,
    async screenshot(band) {
      const width = page().viewportSize()!.width;
      return page().screenshot({
        fullPage: true,
        ...(band ? { clip: { x: 0, y: band.y, width, height: band.height } } : {}),
      });
    },
  };
}
