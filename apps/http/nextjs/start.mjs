// `next start` of the one build in .next, the same file on every runtime (Bun then runs Next on Bun
// itself, as `bun --bun next start` does; Deno as `deno run -A npm:next start` does).
process.argv.splice(2, process.argv.length - 2, "start", "--port", process.env.PORT, "--hostname", process.env.HOST);
process.env.NEXT_TELEMETRY_DISABLED = "1";
await import("next/dist/bin/next");
