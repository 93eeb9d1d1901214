import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

// What the bell's browser tests check of what people see: an axe-core audit (the npm package, injected into the
// page), and whether every button and item of the open bell lies across the screen's width (phone layouts).

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[]; failureSummary?: string }>;
}

/** Waits for the opening fade and slide to end (not the spinner, which never does): what stays on screen. */
export async function settled(page: Page): Promise<void> {
  await page.evaluate(() =>
    Promise.all(
      document
        .getAnimations()
        .filter((animation) => animation.effect?.getComputedTiming().iterations !== Number.POSITIVE_INFINITY)
        .map((animation) => animation.finished),
    ),
  );
}

/** Runs axe over the whole page and returns the serious and critical violations, in words a person can read. */
export async function seriousViolations(page: Page): Promise<string[]> {
  await settled(page);
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ path: AXE });
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<unknown> } })
      .axe;
    const results = (await axe.run(document, { resultTypes: ['violations'] })) as {
      violations: AxeViolation[];
    };
    return results.violations;
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) =>
      v.nodes.map(
        (node) => `${v.id} (${v.impact}) ${node.target.join(' ')}: ${node.failureSummary ?? v.help}`,
      ),
    );
}

/** The visible buttons, tabs and items of the open bell that do not lie wholly across the screen's width. */
export function offScreen(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    return Array.from(
      document.querySelectorAll<HTMLElement>('.herald-bell__popover button, .herald-bell__item, [role=tab]'),
    )
      .filter((el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden')
      .filter((el) => {
        const box = el.getBoundingClientRect();
        return box.left < -0.5 || box.right > width + 0.5;
      })
      .map((el) => `${el.className} "${el.getAttribute('aria-label') ?? el.textContent?.trim()}"`);
  });
}
