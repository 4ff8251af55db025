// axe-core (the accessibility engine) run inside a page of the browser tests: every rule axe has
// for WCAG 2.x A/AA and its best practices, on the page as the user sees it at that moment.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/** The page's violations, each with the selectors of the elements concerned (empty: none). */
export async function axeViolations(page: Page): Promise<Violation[]> {
  // Evaluated through the browser's debugging protocol rather than added as an inline <script>: the app's
  // Content-Security-Policy (rightly) refuses inline scripts, and the tests run every page under it.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE);
  return page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run: (
            ctx: Document,
            opts: object,
          ) => Promise<{
            violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[];
          }>;
        };
      }
    ).axe;
    const res = await axe.run(document, { resultTypes: ['violations'] });
    return res.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => n.target.join(' ')),
    }));
  });
}

/** The violations in a form a failing test prints readably. */
export const describeViolations = (vs: Violation[]): string[] =>
  vs.map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.slice(0, 4).join(' | ')}`);

/** Fails, naming each violation, unless axe finds none on the page as it is now. */
export async function noViolations(page: Page, where: string): Promise<void> {
  expect(describeViolations(await axeViolations(page)), where).toEqual([]);
}
