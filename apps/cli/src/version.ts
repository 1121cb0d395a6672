/**
 * The CLI's version, for `kerneltune --version`. A constant rather than a read of package.json:
 * the published build, the source run and the single-file bundle of the GPU kit all print it,
 * and only the first has package.json beside it. version.test.ts fails when the two disagree.
 */
export const CLI_VERSION = '0.1.0'
