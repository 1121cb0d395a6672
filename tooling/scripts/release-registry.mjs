// A throwaway npm registry for the @kerneltune scope, serving the tarballs `release:check` just
// packed. npm is pointed at it for that scope only (`--@kerneltune:registry=URL`), so the scratch
// project and the global CLI install resolve @kerneltune/* dependencies exactly as they would from
// npmjs.org after a publish, and everything else from the real registry.
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { basename } from 'node:path'

/** The package.json inside a packed tarball. */
export function tarballManifest(file) {
  return JSON.parse(execFileSync('tar', ['-xzOf', file, 'package/package.json'], { encoding: 'utf8' }))
}

/**
 * Starts the registry on 127.0.0.1 (a free port) for the given tarballs.
 * Resolves with { url, close() }.
 */
export async function startScopeRegistry(tarballs) {
  const byName = new Map()
  const files = new Map()
  for (const file of tarballs) {
    const manifest = tarballManifest(file)
    const data = readFileSync(file)
    files.set(basename(file), data)
    byName.set(manifest.name, { manifest, file: basename(file), data })
  }
  let base = ''
  const server = createServer((req, res) => {
    const path = decodeURIComponent((req.url ?? '/').split('?')[0])
    if (path.startsWith('/-/tarballs/')) {
      const data = files.get(path.slice('/-/tarballs/'.length))
      if (!data) return void res.writeHead(404).end()
      return void res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': data.length }).end(data)
    }
    const entry = byName.get(path.slice(1))
    if (!entry) {
      res.writeHead(404, { 'content-type': 'application/json' })
      return void res.end(JSON.stringify({ error: `not packed by release:check: ${path.slice(1)}` }))
    }
    const { manifest, file, data } = entry
    const dist = {
      tarball: `${base}/-/tarballs/${file}`,
      shasum: createHash('sha1').update(data).digest('hex'),
      integrity: `sha512-${createHash('sha512').update(data).digest('base64')}`,
    }
    const packument = {
      name: manifest.name,
      'dist-tags': { latest: manifest.version },
      versions: { [manifest.version]: { ...manifest, _id: `${manifest.name}@${manifest.version}`, dist } },
    }
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify(packument))
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${server.address().port}`
  return { url: `${base}/`, close: () => new Promise((resolve) => server.close(resolve)) }
}
