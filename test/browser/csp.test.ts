// The Content-Security-Policy in Chromium (issue 13 item 9): every page of the app loads and runs under
// it with no violation (helpers.ts fails any browser test that meets one), and a script that is not the
// app's own — injected inline — is refused.
import type { Browser } from 'playwright-core';
import { expect, test } from 'vitest';
import { createRoomOver } from './csp-room.ts';
import { cspViolations, DESKTOP, newPage, useBrowserSuite, type WebServer } from './helpers.ts';

let server: WebServer;
let browser: Browser;
useBrowserSuite((s, b) => {
  server = s;
  browser = b;
});

test('every page is served with the security headers and renders under them', async () => {
  const { code } = await createRoomOver(server.url);
  const { page, context } = await newPage(browser, DESKTOP);
  for (const [path, ready] of [
    ['/', 'main'],
    [`/join/${code}`, 'main'],
    [`/projector/${code}`, 'main'],
    ['/model/payment-switch', 'main'],
    ['/model/web-service', 'main'],
    ['/teacher', 'main'],
  ] as const) {
    const res = await page.goto(`${server.url}${path}`);
    const h = res!.headers();
    expect(h['content-security-policy'], path).toMatch(/script-src 'self' 'sha256-[A-Za-z0-9+/=]+'/);
    expect(h['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(h['content-security-policy']).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(h['x-content-type-options']).toBe('nosniff');
    expect(h['referrer-policy']).toBe('no-referrer');
    expect(h['x-frame-options']).toBe('DENY');
    // The app booted: SvelteKit's inline bootstrap ran under the policy.
    await page.locator(ready).first().waitFor();
    expect(
      await page.evaluate(() => document.querySelectorAll('[data-sveltekit-preload-data] *').length),
    ).toBeGreaterThan(3);
  }
  await context.close();
});

test('an injected inline script is refused', async () => {
  const { page, context } = await newPage(browser, DESKTOP);
  await page.goto(`${server.url}/`);
  await page.locator('main').first().waitFor();
  const before = cspViolations.length;
  await page.evaluate(() => {
    const s = document.createElement('script');
    s.textContent = 'window.__injected = true';
    document.head.append(s);
  });
  await expect.poll(() => cspViolations.length).toBe(before + 1);
  expect(await page.evaluate(() => (window as { __injected?: boolean }).__injected)).toBeUndefined();
  // Expected here: the suite's check for violations is about the app's own pages.
  cspViolations.splice(before, 1);
  await context.close();
});
