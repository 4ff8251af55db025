// Browser-test helpers: the real server in-process on port 0 with a manual clock (time moves only
// when a test says so), Debian's Chromium through playwright-core, and screenshots.
import { existsSync, mkdirSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { io, type Socket } from 'socket.io-client';
import { buildApp } from '../../server/app.ts';
import { stopGracefully, type StopReport } from '../../server/ops/shutdown.ts';
import { ManualClock } from '../../server/lib/clock.ts';
import { afterAll, beforeAll, expect } from 'vitest';

export const BUILD_DIR = 'build';
export const SCREENSHOTS = 'test-results/screenshots';
const CHROMIUM = '/usr/bin/chromium';
// The flags Debian's Chromium needs to run headless in a container.
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-default-apps',
  '--disable-extensions',
  '--disable-sync',
  '--metrics-recording-only',
  '--no-first-run',
  '--mute-audio',
];

/** The browser tests drive the built app: fail with the fix in the message when it is missing. */
export function assertBuilt(): void {
  if (!existsSync(join(BUILD_DIR, 'index.html'))) {
    throw new Error(
      `${BUILD_DIR}/index.html is missing: run \`npm run build\` before the browser tests (\`npm test\` builds first)`,
    );
  }
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run test/setup/ensure-chromium.sh`);
}

export interface WebServer {
  url: string;
  /**
   * With `lan`: the server at this machine's first network address (http://192.0.2.2:port), a page there
   * is no secure context — as a class's phones see it; null when the machine has none.
   */
  lanUrl: string | null;
  clock: ManualClock;
  /** Moves the room clocks by `minutes` simulated minutes at `tempo` seconds per minute. */
  minutes(n: number, tempo: number): void;
  /** Drops every socket.io connection from the server's side (as a restarting server does). */
  disconnectAll(): void;
  /** The server's own graceful stop (SIGTERM): rounds paused, every socket told SERVER_STOPPING, closed. */
  stopGracefully(): Promise<StopReport>;
  close(): Promise<void>;
}

/**
 * `publicUrl`: the server's PUBLIC_URL (where students join), as an operator sets it. `lan`: listen on
 * every address, as `npm start` does, so the page can be opened at the network address (`lanUrl`).
 */
export async function startWebServer(opts: { publicUrl?: string; lan?: boolean } = {}): Promise<WebServer> {
  // On a whole second: the server plays minutes at the end of its 20 ms beat slots, and a clock that starts
  // on one and moves by whole tempos never falls between a minute and its slot's end.
  const clock = new ManualClock(Math.floor(Date.now() / 1000) * 1000);
  // @fastify/static wants an absolute root.
  const app = await buildApp({
    databasePath: ':memory:',
    webRoot: resolve(BUILD_DIR),
    clock,
    publicUrl: opts.publicUrl ?? null,
  });
  await app.listen({ port: 0, host: opts.lan ? '0.0.0.0' : '127.0.0.1' });
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  const lan = opts.lan
    ? Object.values(networkInterfaces())
        .flat()
        .find((i) => i && i.family === 'IPv4' && !i.internal)
    : undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    lanUrl: lan ? `http://${lan.address}:${port}` : null,
    clock,
    minutes(n, tempo) {
      for (let i = 0; i < n; i++) clock.advance(tempo * 1000);
    },
    disconnectAll: () => app.io.local.disconnectSockets(true),
    stopGracefully: () => stopGracefully(app),
    close: () => app.close(),
  };
}

/** Starts the built app's server and Chromium before a file's tests, and closes both after them. */
export function useBrowserSuite(set: (server: WebServer, browser: Browser) => void): void {
  let server: WebServer | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    assertBuilt();
    server = await startWebServer();
    browser = await launchBrowser();
    set(server, browser);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    // Every page of every browser test runs under the server's Content-Security-Policy.
    if (cspViolations.length) throw new Error(`Content-Security-Policy violations:\n${cspViolations.join('\n')}`);
  });
}

/** What Chromium reported refusing under the server's Content-Security-Policy, in every context of every browser launched here. */
export const cspViolations: string[] = [];

export async function launchBrowser(): Promise<Browser> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (options) => {
    const context = await newContext(options);
    context.on('console', (msg) => {
      if (/Content Security Policy/i.test(msg.text())) cspViolations.push(`${msg.location().url}: ${msg.text()}`);
    });
    return context;
  };
  return browser;
}

export const DESKTOP = { width: 1280, height: 900 };
export const PHONE = { width: 360, height: 780 };

export async function newPage(browser: Browser, viewport = DESKTOP): Promise<{ context: BrowserContext; page: Page }> {
  // Each person is a separate context: their own localStorage (token, teacher key), cookies, socket.
  const context = await browser.newContext({ viewport, locale: 'en-US', reducedMotion: 'reduce' });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  return { context, page };
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  // A sticky header would be drawn where the page was scrolled to.
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** A student joins through the start page with the room code, as in class. */
export async function joinAsStudent(page: Page, url: string, code: string, name: string): Promise<void> {
  await page.goto(`${url}/`);
  await page.getByLabel('Room code').fill(code.toLowerCase());
  await page.getByRole('button', { name: 'Join', exact: true }).click();
  await page.waitForURL(`**/join/${code}`);
  await page.getByLabel('Your name').fill(name);
  await page.getByRole('button', { name: 'Join', exact: true }).click();
  await page.waitForURL(`**/play/${code}`);
  await page.getByTestId('my-roles').waitFor();
}

/** Opens one of the desk's tabs (picture, trends, indicators, feed, about, team) in any language. */
export async function showTab(
  page: Page,
  id: 'picture' | 'trends' | 'indicators' | 'feed' | 'about' | 'team',
): Promise<void> {
  const tab = page.locator(`[role="tab"][data-tab="${id}"]`).first();
  await tab.click();
  await eventually(async () => {
    if ((await tab.getAttribute('aria-selected')) !== 'true') throw new Error(`tab ${id} not selected`);
  });
}

/** Retries an assertion until it holds (the page renders what the socket delivered) or time runs out. */
export async function eventually(check: () => Promise<void> | void, ms = 10_000): Promise<void> {
  const start = Date.now();
  for (;;) {
    try {
      await check();
      return;
    } catch (e) {
      if (Date.now() - start > ms) throw e;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/** The screens every page is looked at on: a classroom laptop, the projector, a phone. */
export const LAPTOP = { width: 1366, height: 768 };
export const WALL = { width: 1920, height: 1080 };
export const HANDSET = { width: 390, height: 844 };

/** Runs `take` with the page at each of the three screens (laptop, wall, phone), then back on the laptop. */
export async function atEveryScreen(
  page: Page,
  take: (screen: 'laptop' | 'wall' | 'phone') => Promise<unknown>,
): Promise<void> {
  for (const [screen, viewport] of [
    ['laptop', LAPTOP],
    ['wall', WALL],
    ['phone', HANDSET],
  ] as const) {
    await page.setViewportSize(viewport);
    await take(screen);
  }
  await page.setViewportSize(LAPTOP);
}

/** Opens a room as the teacher's page does; the body is the set-up (simulator, scenario, minutes…). */
export async function createRoom(url: string, body: object): Promise<{ code: string; teacherKey: string }> {
  const res = await fetch(`${url}/api/rooms`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 201) throw new Error(`create room: ${res.status} ${await res.text()}`);
  return (await res.json()) as { code: string; teacherKey: string };
}

/** The text of the first element with this test id. */
export const textOf = (page: Page, testId: string): Promise<string> => page.getByTestId(testId).first().innerText();

/** Waits until the page's clock reads minute m (of `total`, when given). */
export const minuteShown = (page: Page, minute: number, total?: number): Promise<void> =>
  eventually(async () => {
    const shown = await textOf(page, 'clock-minute');
    if (total === undefined) expect(shown).toMatch(new RegExp(`^Minute ${minute} of`));
    else expect(shown).toBe(`Minute ${minute} of ${total}`);
  });

/** Entirely on the first screen: drawn, and visible without scrolling the page. */
export async function onFirstScreen(page: Page, what: Locator, label: string): Promise<void> {
  expect(await page.evaluate(() => window.scrollY), label).toBe(0);
  const box = await what.boundingBox();
  if (!box) throw new Error(`${label} is not drawn`);
  const height = page.viewportSize()?.height ?? 0;
  expect(box.y, `${label} top`).toBeGreaterThanOrEqual(0);
  expect(box.y + box.height, `${label} bottom (viewport ${height})`).toBeLessThanOrEqual(height);
}

/**
 * Students who only need a seat: socket.io clients joined by name, each its own connection (disconnect
 * one and its seat drops), no browser.
 */
export async function quietStudents(url: string, code: string, names: readonly string[]): Promise<Socket[]> {
  const sockets: Socket[] = [];
  for (const name of names) {
    const s = io(url, { transports: ['websocket'], forceNew: true, reconnection: false });
    await new Promise<void>((resolve, reject) => {
      s.once('connect', () => resolve());
      s.once('connect_error', reject);
    });
    const res = await new Promise<{ ok: boolean }>((resolve) => s.emit('student:join', { code, name }, resolve));
    if (!res.ok) throw new Error(`join ${name}: ${JSON.stringify(res)}`);
    sockets.push(s);
  }
  return sockets;
}
