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
 * emphasis, code, links or a table column are backslash-escaped, a line break becomes a space, and
 * an `@` is followed by a zero-width space so that it never mentions anyone (as Dependabot does).
 */
export function escapeMarkdown(text: string): string {
  return escapeMarkup(text)
    .replace(/[\\`*_[\]|~!#]/g, (c) => `\\${c}`)
    .replace(/[\r\n]+/g, " ")
    .replace(/@/g, "@&#8203;");
}
