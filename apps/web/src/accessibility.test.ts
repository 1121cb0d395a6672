/**
 * Accessibility in a real browser: axe-core finds no serious or critical violation on the main
 * pages, and the Runner can be used with the keyboard alone (Tab to the form, Enter on Start).
 */
import { requireOrSkip } from '@kerneltune/tooling/test-skip'
import type { Browser, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { CHROMIUM, hasChromium, keepScreenshot, launch, open, serious, startServer, tinyRun, waitFor, type Server } from './harness.ts'

describe.skipIf(requireOrSkip(hasChromium, `chromium at ${CHROMIUM} (apt-get install -y chromium)`))('the dashboard, accessibility', () => {
  let server: Server
  let browser: Browser
  let page: Page | undefined
  let run = ''

  beforeAll(async () => {
    [server, browser] = await Promise.all([startServer(), launch()])
    run = await tinyRun(server, 'vllm')
    await waitFor(async () => ((await server.api<{ status: string }>(`/runs/${run}`)).status === 'succeeded' ? true : undefined))
    await server.api('/registry', { method: 'POST', body: { name: 'marlin-w4', kernelFamily: 'gemm', provider: 'ist', source: 'kernel void k() {}' } })
  })
  afterAll(async () => {
    await browser?.close()
    await server?.close()
  })
  afterEach(async (ctx) => {
    if (ctx.task.result?.state === 'fail') await keepScreenshot(page, ctx.task.name)
    await page?.close()
    page = undefined
  })

  it('Runner: no serious or critical axe violation', async () => {
    page = await open(browser, server)
    await page.getByTestId('preview-legal').waitFor()
    expect(await serious(page)).toEqual([])
  })

  it('Run History: no serious or critical axe violation', async () => {
    page = await open(browser, server, '?tab=history')
    await page.locator('tr[data-run-id]').first().waitFor()
    expect(await serious(page)).toEqual([])
  })

  it('Run detail: no serious or critical axe violation', async () => {
    page = await open(browser, server, `?tab=run&run=${run}`)
    await page.getByTestId('pareto').locator('circle').first().waitFor()
    expect(await serious(page)).toEqual([])
  })

  it('Registry: no serious or critical axe violation', async () => {
    page = await open(browser, server, '?tab=registry')
    await page.locator('tr[data-entry-id]').first().waitFor()
    expect(await serious(page)).toEqual([])
  })

  it('the Runner works with the keyboard alone', async () => {
    page = await open(browser, server)
    await page.getByTestId('preview-legal').waitFor()
    // Tab from the top of the page until the prompt-token field has the focus, then type in it.
    const focusedId = () => page!.evaluate(() => document.activeElement?.id ?? '')
    for (let i = 0; i < 30 && (await focusedId()) !== 'prompt-tokens'; i++) await page.keyboard.press('Tab')
    expect(await focusedId()).toBe('prompt-tokens')
    await page.keyboard.press('Control+A')
    await page.keyboard.type('256')
    for (let i = 0; i < 30 && (await focusedId()) !== 'start'; i++) await page.keyboard.press('Tab')
    expect(await focusedId()).toBe('start')
    await page.keyboard.press('Enter')
    await page.waitForURL(/tab=run&run=/)
    const id = new URL(page.url()).searchParams.get('run')!
    const created = await server.api<{ target: { workload: { promptTokens: number } } }>(`/runs/${id}`)
    expect(created.target.workload.promptTokens).toBe(256)
  })
})
