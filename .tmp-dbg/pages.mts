import { startWebServer, launchBrowser, newPage, PHONE, DESKTOP } from '/work/main/test/browser/helpers.ts';
const server = await startWebServer();
const browser = await launchBrowser();
const res = await fetch(`${server.url}/api/rooms`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ simulator: 'payment-switch', scenario: 'sale-surge', minutes: 30, tempo: 1, teamCount: 3 }) });
const { code } = await res.json() as any;
for (const [name, vp, path] of [['home-phone', PHONE, '/'], ['home', DESKTOP, '/'], ['join-phone', PHONE, `/join/${code}`], ['proj-lobby', { width: 1600, height: 900 }, `/projector/${code}`], ['model', DESKTOP, '/model/payment-switch'], ['model-ws-phone', PHONE, '/model/web-service'], ['bad-join', PHONE, '/join/ZZZZZZ']] as const) {
  const { page } = await newPage(browser, vp as any);
  page.on('pageerror', (e) => console.log('pageerror', name, e.message));
  await page.goto(server.url + path);
  await new Promise((r) => setTimeout(r, 800));
  await page.screenshot({ path: `.tmp-dbg/p-${name}.png`, fullPage: name !== 'model' && name !== 'model-ws-phone' });
}
await browser.close(); await server.close();
