import { z } from 'zod'

/**
 * One rule for every name a client gives the server (registry kernels, deployments, engines,
 * token labels) and a stricter one for tenants. Names are shown in lists, tables and terminals:
 * a control character there truncates (a C string stops at NUL), rewrites the line (ESC, CR) or
 * reorders it (bidi overrides), while the store keeps every byte, so what an operator reads is not
 * what is stored. Leading or trailing whitespace makes two names look the same.
 */
// C0, DEL and C1 (U+0000-U+001F, U+007F-U+009F), the line and paragraph separators, and the bidi
// embedding/override/isolate controls (U+202A-U+202E, U+2066-U+2069).
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u

const codePoint = (ch: string) => `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`

/** Why `value` is no plain name (its first control character, as a message), or undefined. */
export function controlCharacterIn(value: string): string | undefined {
  const bad = CONTROL.exec(value)
  return bad ? `must not contain control characters (found ${codePoint(bad[0])} at position ${bad.index}); send the name as plain printable text` : undefined
}

function checkName(value: string, ctx: z.core.$RefinementCtx<string>): void {
  const bad = controlCharacterIn(value)
  if (bad) ctx.addIssue({ code: 'custom', message: bad })
  if (value.trim() !== value) ctx.addIssue({ code: 'custom', message: 'must not start or end with whitespace; trim it' })
}

/** A name of 1 to `max` characters (default 200) without control characters or outer whitespace. */
export function nameSchema(max = 200): z.ZodString {
  return z.string().min(1).max(max).superRefine(checkName)
}

export const NameSchema: z.ZodString = nameSchema()

// Free text (a kernel's source, a reason) needs tab, line feed and CRLF line endings, so this is
// CONTROL less those. A carriage return counts only before a line feed: alone it sends a
// terminal's cursor back to the line start, and what follows it overwrites what came before.
const HIDING = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]|\r(?!\n)/u

/**
 * Why `value` is no plain text (its first character that can hide text from a reader, as a
 * message), or undefined. Refused rather than shown escaped: what is stored is then what every
 * reader (dashboard, CLI table, audit log, a compiler) sees, without each having to escape alike.
 * The message names the code point and position, never the text around it.
 */
export function hiddenTextIn(value: string): string | undefined {
  const bad = HIDING.exec(value)
  return bad ? `must not contain ${codePoint(bad[0])} (at position ${bad.index}): control characters other than tab, line feed and CRLF, and bidi overrides, hide text from whoever reads it (a viewer stops at NUL; U+202E reverses what follows); remove it` : undefined
}

/** Free text of up to `max` characters (a kernel's source, a reason): lines and tabs, but nothing that hides text. */
export function textSchema(max: number): z.ZodString {
  return z.string().max(max).superRefine((value, ctx) => {
    const bad = hiddenTextIn(value)
    if (bad) ctx.addIssue({ code: 'custom', message: bad })
  })
}

/**
 * The form a tenant name is stored in: Unicode NFKC (so full-width `ＡＣＭＥ` is `ACME`), then
 * lower case (so `ACME` and `acme` are one tenant). Idempotent.
 */
export const normaliseTenant = (name: string): string => name.normalize('NFKC').toLowerCase()

/**
 * A tenant as a client may name it: normalised (normaliseTenant), then 1 to 100 of a-z, 0-9, `_`,
 * `.` and `-`, and not `.`, `..` or any other name made only of dots (which read as paths in logs,
 * exports and file names derived from a tenant).
 */
export const TenantNameSchema: z.ZodPipe<z.ZodPipe<z.ZodString, z.ZodTransform<string, string>>, z.ZodString> = z.string()
  .transform(normaliseTenant)
  .pipe(z.string()
    .min(1, 'must not be empty')
    .max(100)
    .regex(/^[a-z0-9_.-]+$/, 'tenants are letters, digits, _, . and - (case is ignored: ACME is acme)')
    .refine((t) => !/^\.+$/.test(t), 'must not be . or .. (or only dots); pick a name with a letter or digit'))
