/**
 * What the dashboard build prints (issue 34): `npm run demo` installs the workspace, whose
 * `prepare` builds this page, and the bundler's warnings came to 145 lines before the demo's first
 * line of its own. One warning only is dropped: @tanstack/react-query marks its modules
 * "use client" (a React Server Components directive), which a client-only bundle has no use for, so
 * the bundler's note that the directive "may not be preserved" says nothing about this page. Every
 * other warning, and every error, is printed as before.
 */

export interface BundlerWarning {
  code?: string | undefined
  message: string
  id?: string | undefined
}

/** True for the "use client" directive notes from dependencies, the only warnings dropped. */
export function isDependencyUseClientNote(w: BundlerWarning): boolean {
  const where = w.id ?? w.message
  return w.code === 'MODULE_LEVEL_DIRECTIVE' && w.message.includes('"use client"') && /[\\/]node_modules[\\/]/.test(where)
}

/** The one line a build prints: where the page went, how many files, how large, how long. */
export function builtLine(outDir: string, files: number, bytes: number, ms: number): string {
  return `dashboard built: ${outDir}, ${files} file${files === 1 ? '' : 's'}, ${(bytes / 1024).toFixed(0)} KiB, ${(ms / 1000).toFixed(1)} s`
}
