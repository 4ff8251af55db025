import { startWebServer, launchBrowser, newPage, joinAsStudent, PHONE, DESKTOP } from '/work/main/test/browser/helpers.ts';
const sim = process.argv[2] ?? 'payment-switch';
const scenario = process.argv[3] ?? 'sale-surge';
const minutes = Number(process.argv[4] ?? 8);
const width = Number(process.argv[5] ?? 360);
const server = await startWebServer();
const browser = await launchBrowser();
const res = await fetch(`${server.url}/api/rooms`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ simulator: sim, scenario, minutes: 30, tempo: 1, teamCount: 1 }) });
const { code, teacherKey } = await res.json() as any;
const { page: teacher } = await newPage(browser, DESKTOP);
await teacher.goto(`${server.url}/teacher/${code}#key=${teacherKey}`);
const { page } = await newPage(browser, { width, height: 800 });
page.on('pageerror', (e) => console.log('pageerror', e.message));
await joinAsStudent(page, server.url, code, 'Ana');
await teacher.getByRole('button', { name: 'Start' }).click();
await new Promise((r) => setTimeout(r, 500));
server.minutes(minutes, 1);
await new Promise((r) => setTimeout(r, 1000));
const h = await page.evaluate(() => document.documentElement.scrollHeight);
console.log('height', h);
for (let y = 0, i = 0; y < h; y += 1400, i++) {
  await page.screenshot({ path: `.tmp-dbg/shot-${i}.png`, fullPage: true, clip: { x: 0, y, width, height: Math.min(1400, h - y) } });
}
await browser.close(); await server.close();
