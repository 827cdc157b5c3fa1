import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { WebSocket } from 'undici';

/**
 * Headless Chromium for the e-mail layout tests and the docs screenshots, driven over the
 * DevTools protocol with undici's WebSocket (already a dependency): no browser download, no
 * driver package. Debian's `chromium` package (`/usr/bin/chromium`); `THM_CHROMIUM` names
 * another binary.
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

interface Pending {
  resolve: (value: Record<string, unknown>) => void;
  reject: (error: Error) => void;
}

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
  const profile = mkdtempSync(path.join(tmpdir(), 'thm-chromium-'));
  const child = spawn(
    CHROMIUM_PATH,
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--hide-scrollbars',
      '--mute-audio',
      `--user-data-dir=${profile}`,
      '--remote-debugging-port=0',
      'about:blank',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  try {
    const endpoint = await devtoolsEndpoint(child, 30_000);
    const cdp = await Cdp.connect(endpoint);
    return {
      async newPage() {
        const { targetId } = await cdp.send('Target.createTarget', { url: 'about:blank' });
        const { sessionId } = await cdp.send('Target.attachToTarget', {
          targetId,
          flatten: true,
        });
        return openPage(cdp, String(sessionId));
      },
      async close() {
        await cdp.send('Browser.close').catch(() => undefined);
        cdp.close();
        await exited(child, 5_000);
        rmSync(profile, { recursive: true, force: true });
      },
    };
  } catch (error) {
    child.kill('SIGKILL');
    rmSync(profile, { recursive: true, force: true });
    throw error;
  }
}

function openPage(cdp: Cdp, sessionId: string): Page {
  const send = (method: string, params: Record<string, unknown> = {}) =>
    cdp.send(method, params, sessionId);
  let viewport: Viewport = DESKTOP;
  const ready = send('Page.enable');
  return {
    async open(file, vp) {
      await ready;
      viewport = vp;
      await send('Emulation.setDeviceMetricsOverride', {
        width: vp.width,
        height: vp.height,
        deviceScaleFactor: vp.deviceScaleFactor ?? 1,
        mobile: vp.mobile,
      });
      await send('Emulation.setEmulatedMedia', {
        features: [{ name: 'prefers-color-scheme', value: vp.colorScheme ?? 'light' }],
      });
      const loaded = cdp.once('Page.loadEventFired', sessionId, 30_000);
      await send('Page.navigate', { url: pathToFileURL(path.resolve(file)).href });
      await loaded;
    },
    async evaluate<T>(expression: string) {
      const result = await send('Runtime.evaluate', { expression, returnByValue: true });
      if (result.exceptionDetails) {
        throw new Error(`page script failed: ${JSON.stringify(result.exceptionDetails)}`);
      }
      return (result.result as { value: T }).value;
    },
    async screenshot(band) {
      const metrics = await send('Page.getLayoutMetrics');
      const size = metrics.cssContentSize as { width: number; height: number };
      const y = band?.y ?? 0;
      const height = band?.height ?? Math.ceil(size.height);
      const shot = await send('Page.captureScreenshot', {
        format: 'png',
        captureBeyondViewport: true,
        clip: { x: 0, y, width: viewport.width, height, scale: 1 },
      });
      return Buffer.from(String(shot.data), 'base64');
    },
  };
}

/** Chromium prints `DevTools listening on ws://...` on stderr once it is ready. */
function devtoolsEndpoint(child: ChildProcess, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(
      () => fail(new Error(`chromium did not start within ${timeoutMs} ms: ${seen.slice(-500)}`)),
      timeoutMs,
    );
    const onData = (chunk: Buffer) => {
      seen += chunk.toString('utf8');
      const match = /DevTools listening on (ws:\/\/\S+)/.exec(seen);
      if (match?.[1]) {
        cleanup();
        // Keep draining stderr so a chatty browser never blocks on a full pipe.
        child.stderr?.resume();
        resolve(match[1]);
      }
    };
    const onExit = (code: number | null) =>
      fail(new Error(`chromium exited (${code}) before it was ready: ${seen.slice(-500)}`));
    const fail = (error: Error) => {
      cleanup();
      reject(error);
    };
    const cleanup = () => {
      clearTimeout(timer);
      child.stderr?.off('data', onData);
      child.off('exit', onExit);
      child.off('error', fail);
    };
    child.stderr?.on('data', onData);
    child.on('exit', onExit);
    child.on('error', fail);
  });
}

function exited(child: ChildProcess, timeoutMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve();
    }, timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** The DevTools protocol over one WebSocket: commands by id, events by name and session. */
class Cdp {
  readonly #ws: WebSocket;
  readonly #pending = new Map<number, Pending>();
  readonly #listeners = new Set<(method: string, sessionId: string | undefined) => void>();
  #nextId = 1;

  private constructor(ws: WebSocket) {
    this.#ws = ws;
    ws.addEventListener('message', (event) => this.#onMessage(String(event.data)));
    ws.addEventListener('close', () => {
      for (const pending of this.#pending.values()) pending.reject(new Error('CDP closed'));
      this.#pending.clear();
    });
  }

  static connect(url: string): Promise<Cdp> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url);
      ws.addEventListener('open', () => resolve(new Cdp(ws)), { once: true });
      ws.addEventListener('error', () => reject(new Error(`cannot connect to ${url}`)), {
        once: true,
      });
    });
  }

  send(
    method: string,
    params: Record<string, unknown> = {},
    sessionId?: string,
  ): Promise<Record<string, unknown>> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#ws.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    });
  }

  once(method: string, sessionId: string, timeoutMs: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#listeners.delete(listener);
        reject(new Error(`no ${method} within ${timeoutMs} ms`));
      }, timeoutMs);
      const listener = (name: string, session: string | undefined) => {
        if (name !== method || session !== sessionId) return;
        clearTimeout(timer);
        this.#listeners.delete(listener);
        resolve();
      };
      this.#listeners.add(listener);
    });
  }

  close(): void {
    this.#ws.close();
  }

  #onMessage(data: string): void {
    const message = JSON.parse(data) as {
      id?: number;
      method?: string;
      sessionId?: string;
      result?: Record<string, unknown>;
      error?: { message: string };
    };
    if (message.id !== undefined) {
      const pending = this.#pending.get(message.id);
      if (!pending) return;
      this.#pending.delete(message.id);
      if (message.error) pending.reject(new Error(`CDP: ${message.error.message}`));
      else pending.resolve(message.result ?? {});
      return;
    }
    if (message.method) {
      for (const listener of [...this.#listeners]) listener(message.method, message.sessionId);
    }
  }
}
