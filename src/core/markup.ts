/**
 * Escaping for the formats result strings reach: HTML and XML (the site, the Atom feed),
 * GitHub-flavoured Markdown (job summaries, pull-request comments), shell scripts (a reproduction's
 * comments) and CSV (the site's downloads). The result schema already keeps versions and names to
 * their shape and every string free of control characters; these keep any string from becoming
 * markup, code or a formula wherever it is written, whether or not it was checked.
 */

/**
 * Characters no string of a result holds (schemas/result.schema.json, `$defs/line`): C0 controls,
 * DEL, C1 controls, the line and paragraph separators and the bidirectional controls. Free text
 * (`$defs/text`) may hold two of them: the tab and the line feed.
 */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;
const CONTROL_BUT_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

/** Text or an attribute value in HTML or XML; characters XML 1.0 cannot hold are dropped. */
export function escapeMarkup(text: string): string {
  return text
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

/**
 * Inline text in GitHub Markdown, table cells included: HTML is escaped, characters that start
 * code, emphasis, links or a table column are backslash-escaped, a line break (or any control
 * character) becomes a space, and an `@` that could start a mention (not inside a word, as in
 * `node@22.11.0`) is followed by a zero-width space so that it never mentions anyone (as Dependabot
 * does). `_` stays: metric names hold it, and at worst it emphasises.
 */
export function escapeMarkdown(text: string): string {
  return escapeMarkup(oneLine(text))
    .replace(/[\\`*[\]|]/g, (c) => `\\${c}`)
    .replace(/(^|[^A-Za-z0-9])@/g, "$1@&#8203;");
}

/** One line of text whatever it held: each control character (a line break included) becomes a space. */
export function oneLine(text: string): string {
  return text.replace(CONTROL, " ");
}

/**
 * The text of a shell comment (`# …`): one line, so nothing after a line break the string held
 * runs as a command.
 */
export function shellComment(text: string): string {
  return `# ${oneLine(text)}`;
}

/**
 * Free text as a result keeps it (a failure's reason, a process's output): line breaks (CR LF and
 * a lone CR become LF) and tabs stay, every other control character (a terminal's escape sequences)
 * is dropped.
 */
export function plainText(text: string): string {
  return text.replace(/\r\n?/g, "\n").replace(CONTROL_BUT_LINES, "");
}

/** A URL's scheme and authority (user, host, port), up to the path. */
const URL_AUTHORITY = /\b([a-z][a-z0-9+.-]*:\/\/)([^/\s"'<>]+)/gi;
const LOOPBACK = /^(?:[^@]*@)?(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])(?::\d+)?$/i;

/**
 * Text with the host of every URL but the machine's own (`127.0.0.1`, `localhost`) replaced: a
 * runtime's error can name the package registry it tried to reach (`error sending request for url
 * (https://<host>/pg)`), and results are published as they are; what failed and the path stay.
 */
export function remoteHostsHidden(text: string): string {
  return text.replace(URL_AUTHORITY, (url, scheme: string, authority: string) => (LOOPBACK.test(authority) ? url : `${scheme}[remote host]`));
}

/** Free text as a published result keeps it (a failure's reason): plain text, naming no remote host. */
export function publishedText(text: string): string {
  return remoteHostsHidden(plainText(text));
}

/** `publishedText` for every string in a value of lists and objects (a result's details), keys made one line. */
export function publishedValue(value: unknown): unknown {
  if (typeof value === "string") return publishedText(value);
  if (Array.isArray(value)) return value.map(publishedValue);
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([key, inner]) => [oneLine(key), publishedValue(inner)]));
  return value;
}

/**
 * A CSV field (RFC 4180: quoted when it holds a comma, a quote or a line break). A text field that
 * a spreadsheet would take for a formula (`=`, `+`, `-`, `@`, or a tab or CR first) is prefixed
 * with `'`, as OWASP advises, so it stays text; a number stays a number.
 */
export function csvField(value: string | number | null): string {
  const text = value === null ? "" : typeof value === "number" ? String(value) : value.replace(/^[=+\-@\t\r]/, "'$&");
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
