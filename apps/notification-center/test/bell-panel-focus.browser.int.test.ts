import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, type RunningCenter, seed, signIn, startCenter } from './browser.js';
import { startTogether } from './realtime-process.js';

// The side panel is a modal dialog: while it is open, Tab and Shift+Tab cycle inside it, Escape closes it and
// focus goes back to the bell button. The dropdown is not modal: Tab may leave it.

const bell = (page: Page) => page.locator('.herald-bell__button');
const dialog = (page: Page) => page.locator('[role=dialog]');

/** Tags each control Tab should reach in the dialog (enabled and shown) with its index; returns how many. */
function tagStops(page: Page): Promise<number> {
  return page.evaluate(() => {
    const panel = document.querySelector('[role=dialog]') as HTMLElement;
    const stops = Array.from(panel.querySelectorAll<HTMLElement>('button, a[href]')).filter(
      (el) => el.tabIndex >= 0 && !(el as HTMLButtonElement).disabled && el.getClientRects().length > 0,
    );
    stops.forEach((el, i) => {
      el.dataset.stop = String(i);
    });
    return stops.length;
  });
}

/** The focused control's tag, `outside` when focus is not inside the dialog, `panel` for the dialog itself. */
function focused(page: Page): Promise<string> {
  return page.evaluate(() => {
    const active = document.activeElement as HTMLElement | null;
    const panel = document.querySelector('[role=dialog]');
    if (active === panel) return 'panel';
    if (!active || !panel?.contains(active)) return `outside:${active?.className ?? ''}`;
    return active.dataset.stop ?? `untagged:${active.className}`;
  });
}

describe('the panel’s focus trap', () => {
  let browser: Browser;
  let running: RunningCenter;

  beforeAll(async () => {
    [browser, running] = await startTogether([launchChromium(), startCenter({})]);
    await seed(running.center.store, 'alice', [
      {
        title: 'Carol mentioned you',
        message: 'Can you review the plan?',
        actions: [{ name: 'reply', label: 'Reply', event: 'reply', shouldClose: true }],
        minutesAgo: 1,
      },
      { title: 'Build passed', message: 'main is green', minutesAgo: 2 },
    ]);
  });

  afterAll(async () => {
    await browser?.close();
    await running?.stop();
  });

  it('keeps Tab and Shift+Tab inside the open panel, and Escape gives focus back to the bell', async () => {
    const { context, page, errors } = await signIn(browser, running.base, 'alice');
    await page.goto(`${running.base}/?mode=panel`);
    await expect.poll(() => page.locator('.herald-bell__badge').textContent()).toBe('2');
    await bell(page).focus();
    await page.keyboard.press('Enter');
    await dialog(page).waitFor({ state: 'visible' });
    await expect.poll(() => page.locator('.herald-bell__item').count()).toBe(2);

    // A modal dialog named by its heading.
    expect(await dialog(page).getAttribute('aria-modal')).toBe('true');
    const heading = await dialog(page).getAttribute('aria-labelledby');
    expect(await page.locator(`[id="${heading}"]`).textContent()).toBe('Notifications');

    // Close, the chosen tab (the others are reached by arrow keys), mark all read; per item: open, mark read,
    // archive, snooze, delete (+ Reply on the first); below the list, "Turn on browser notifications" and
    // "Devices with browser notifications".
    const count = await tagStops(page);
    expect(count).toBe(16);
    const first = await focused(page);
    expect(first).toBe('3'); // opening moved focus to the first item

    // Tab walks forward through every control and wraps from the last to the first.
    const forward: string[] = [];
    for (let i = 0; i < count; i += 1) {
      await page.keyboard.press('Tab');
      forward.push(await focused(page));
    }
    const expectedForward = Array.from({ length: count }, (_, i) => String((4 + i) % count));
    expect(forward).toEqual(expectedForward);

    // Shift+Tab walks backwards and wraps from the first to the last.
    await page.keyboard.press('Home'); // the first item again
    expect(await focused(page)).toBe('3');
    const backward: string[] = [];
    for (let i = 0; i < count; i += 1) {
      await page.keyboard.press('Shift+Tab');
      backward.push(await focused(page));
    }
    expect(backward).toEqual(Array.from({ length: count }, (_, i) => String((2 - i + 2 * count) % count)));

    // Focus lost to the page (the focused item deleted) comes back in on the next Tab.
    await page.locator('.herald-bell__item').last().locator('.herald-bell__tool--delete').click();
    await expect.poll(() => page.locator('.herald-bell__item').count()).toBe(1);
    await page.keyboard.press('Tab');
    expect(await focused(page)).not.toMatch(/^outside/);

    await page.keyboard.press('Escape');
    await dialog(page).waitFor({ state: 'hidden' });
    expect(await page.evaluate(() => document.activeElement?.classList.contains('herald-bell__button'))).toBe(
      true,
    );
    expect(await bell(page).getAttribute('aria-expanded')).toBe('false');
    // Closed, the panel no longer holds focus: Tab goes on through the page.
    await page.keyboard.press('Tab');
    expect(await focused(page)).toMatch(/^outside/);
    expect(await page.evaluate(() => document.activeElement?.closest('form')?.getAttribute('action'))).toBe(
      '/logout',
    );

    // An action that closes the panel gives focus back to the bell too.
    await bell(page).focus();
    await page.keyboard.press('Enter');
    await dialog(page).waitFor({ state: 'visible' });
    await page.locator('.herald-bell__action', { hasText: 'Reply' }).focus();
    await page.keyboard.press('Enter');
    await dialog(page).waitFor({ state: 'hidden' });
    expect(await page.evaluate(() => document.activeElement?.classList.contains('herald-bell__button'))).toBe(
      true,
    );

    expect(errors).toEqual([]);
    await context.close();
  });

  it('leaves the dropdown as it was: Tab may leave it, Escape closes it and returns focus', async () => {
    const { context, page, errors } = await signIn(browser, running.base, 'alice');
    await page.goto(`${running.base}/?mode=dropdown`);
    await bell(page).click();
    await dialog(page).waitFor({ state: 'visible' });
    expect(await dialog(page).getAttribute('aria-modal')).toBe('false');
    await expect.poll(() => page.locator('.herald-bell__item').count()).toBeGreaterThan(0);
    const count = await tagStops(page);
    await page.locator(`[data-stop="${count - 1}"]`).focus();
    await page.keyboard.press('Tab');
    expect(await focused(page)).toMatch(/^outside/);
    await bell(page).focus();
    await page.keyboard.press('Escape');
    await dialog(page).waitFor({ state: 'hidden' });
    expect(await page.evaluate(() => document.activeElement?.classList.contains('herald-bell__button'))).toBe(
      true,
    );
    expect(errors).toEqual([]);
    await context.close();
  });
});
