/**
 * Issue 37 item 4 from the dashboard: the Runner starts a Tier 1 run over ONNX Runtime's CPU
 * settings (engine onnx-cpu, backend onnxruntime) on a llama shape the server synthesizes, the
 * real server measures it with onnxruntime-node, and the run page shows the measured result with
 * the roofline bounds beside it, labelled a prediction. Real chromium, real server, no mocks.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import process from 'node:process'
import { requireOrSkip } from '@kerneltune/tooling/test-skip'
import type { Browser, Page } from 'playwright-core'
import { afterAll, describe, expect, it } from 'vitest'
import { browserHooks, CHROMIUM, hasChromium, open, serious, type Server } from './harness.ts'

// The server the harness spawns inherits this: the synthesized model goes to a folder of the test's own.
const cache = mkdtempSync(join(tmpdir(), 'kt-web-onnx-'))
process.env.KERNELTUNE_CACHE_DIR = cache
afterAll(() => rmSync(cache, { recursive: true, force: true }))

interface Combo { isBaseline: boolean; simulated: boolean; status: string; repetitions: { decodeTps?: number }[] }

describe.skipIf(requireOrSkip(hasChromium, `chromium at ${CHROMIUM} (apt-get install -y chromium)`))('the Runner over ONNX Runtime', () => {
  let server: Server
  let browser: Browser
  let page: Page | undefined

  browserHooks({ started: (s, b) => { server = s; browser = b }, page: () => page, pageClosed: () => { page = undefined } })

  it('starts an ORT run on a synthesized shape, and the run page shows the measurement with the roofline labelled a prediction', async () => {
    page = await open(browser, server)
    await page.locator('#engine option[value="onnx-cpu"]').waitFor({ state: 'attached' })
    await page.selectOption('#backend', 'onnxruntime')
    await expect.poll(() => page!.locator('#start-reason').textContent()).toMatch(/pick the engine onnx-cpu/)
    await page.selectOption('#engine', 'onnx-cpu')
    // The model is a shape the server synthesizes, the CLI's --params choice; the preset list is gone.
    expect(await page.locator('#model').count()).toBe(0)
    await page.fill('#onnx-params', 'lots')
    await expect.poll(() => page!.locator('#start-reason').textContent()).toMatch(/Parameters must be a count such as 2M/)
    expect(await page.locator('#start').isDisabled()).toBe(true)
    await page.fill('#onnx-params', '2M')
    await page.fill('#onnx-vocab', '320')
    await page.selectOption('#onnx-weights', 'q4')
    // This server's machine, detected, as the hardware: the roofline is then of the CPU that measures.
    const local = page.locator('#hardware option[value="this-machine"]')
    expect(await local.textContent()).toMatch(/^This server: /)
    await page.selectOption('#hardware', 'this-machine')
    await page.fill('#prompt-tokens', '8')
    await page.fill('#generated-tokens', '4')
    await page.getByTestId('preview-legal').waitFor()
    const legal = Number(await page.getByTestId('preview-legal').textContent())
    expect(legal).toBeGreaterThan(1)
    await expect.poll(() => page!.locator('#start-reason').textContent()).toBe('')
    // The ONNX fields keep the form as accessible as the suite requires of every page.
    expect(await serious(page)).toEqual([])
    expect(await page.locator('#start').isDisabled()).toBe(false)
    await page.locator('#start').click()
    await page.waitForURL(/tab=run&run=/)
    const runId = new URL(page.url()).searchParams.get('run')!

    await expect.poll(() => page!.getByTestId('run-status').textContent(), { timeout: 240_000, interval: 500 }).toMatch(/^(succeeded|failed)$/)
    expect(await page.getByTestId('run-status').textContent()).toBe('succeeded')
    expect(await page.locator('label[for="run-progress"]').textContent()).toMatch(new RegExp(`Combinations measured: ${legal} of ${legal}`))
    expect(await page.getByText('simulated: nothing was run').count()).toBe(0)

    // The roofline beside the baseline's measurement, labelled a prediction.
    const roofline = page.getByTestId('roofline')
    await roofline.waitFor()
    expect(await roofline.textContent()).toMatch(/prediction, not measured/)
    expect(await roofline.textContent()).toMatch(/decode: at most [\d.]+ tok\/s \((memory|compute)-bound\)/)
    const measured = parseFloat((await page.getByTestId('roofline-measured-decode').textContent())!)
    expect(measured).toBeGreaterThan(0)
    expect(await serious(page)).toEqual([])
    // A best candidate's card gives ORT's settings as it takes them: session options in a file, no command line.
    if (await page.getByTestId('command').count()) await page.getByTestId('command').getByText(/^# session_options\.json/).waitFor()

    // What the page showed is the server's: real ORT sessions on the synthesized file.
    const run = await server.api<{ backend: string; target: { engine: string; model: { name: string; vocabSize: number }; hardware: { name: string } }; roofline: { kind: string; decode: { boundTps: number } } }>(`/runs/${runId}`)
    expect(run).toMatchObject({ backend: 'onnxruntime', target: { engine: 'onnx-cpu', model: { name: 'synthetic llama 2M (q4)', vocabSize: 320 } }, roofline: { kind: 'prediction' } })
    const combos = (await server.api<{ items: Combo[] }>(`/runs/${runId}/combos`)).items
    expect(combos).toHaveLength(legal)
    for (const c of combos) {
      expect([c.status, c.simulated]).toEqual(['measured', false])
      for (const r of c.repetitions) expect(r.decodeTps).toBeGreaterThan(0)
    }
    const reps = combos.find((c) => c.isBaseline)!.repetitions.map((r) => r.decodeTps!).sort((a, b) => a - b)
    const median = reps.length % 2 ? reps[(reps.length - 1) / 2]! : (reps[reps.length / 2 - 1]! + reps[reps.length / 2]!) / 2
    expect(measured).toBeCloseTo(median, median >= 100 ? -1 : 0)
    expect(readdirSync(join(cache, 'onnx'))).toEqual([expect.stringMatching(/^llama-2M-q4-v320-.*\.onnx$/)])
  }, 300_000)
})
