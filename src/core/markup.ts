/**
 * Escaping for the three formats result strings reach: HTML and XML (the site, the Atom feed), and
 * GitHub-flavoured Markdown (job summaries, pull-request comments). The result schema already
 * keeps versions and names to their shape; these keep any other string from becoming markup.
 */

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
 * code, emphasis, links or a table column are backslash-escaped, a line break becomes a space, and
 * an `@` that could start a mention (not inside a word, as in `node@22.11.0`) is followed by a
 * zero-width space so that it never mentions anyone (as Dependabot does). `_` stays: metric names
 * hold it, and at worst it emphasises.
 */
export function escapeMarkdown(text: string): string {
  return escapeMarkup(text)
    .replace(/[\\`*[\]|]/g, (c) => `\\${c}`)
    .replace(/[\r\n]+/g, " ")
    .replace(/(^|[^A-Za-z0-9])@/g, "$1@&#8203;");
}
