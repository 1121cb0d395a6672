// The suite tests the page as the sources are now: build it once before the files run.
import { build } from 'vite'

export default async function setup(): Promise<void> {
  await build({ root: new URL('..', import.meta.url).pathname, logLevel: 'warn' })
}
