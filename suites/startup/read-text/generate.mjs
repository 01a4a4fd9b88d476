// Writes texts/: 2,000 UTF-8 text files of about 2 KiB (mostly ASCII, with accented letters,
// arrows and an emoji now and then, as in templates, translations and source files), and
// texts/expected.json with the characters and lines a reader must find. Deterministic, so every
// machine reads the same bytes.
import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";

const FILES = 2000;
const FILE_BYTES = 2 * 1024;
const WORDS = ["const", "value", "return", "template", "render", "config", "käse", "naïve", "→", "résumé", "🦕", "export", "function", "import"];

let seed = 0x2545f491;
function next() {
  seed ^= seed << 13;
  seed >>>= 0;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  seed >>>= 0;
  return seed;
}

const staging = `texts.tmp-${process.pid}`;
rmSync(staging, { recursive: true, force: true });
mkdirSync(staging);
let characters = 0;
let lines = 0;
for (let i = 0; i < FILES; i++) {
  let text = "";
  while (Buffer.byteLength(text) < FILE_BYTES) {
    const line = Array.from({ length: 4 + (next() % 9) }, () => WORDS[next() % WORDS.length]).join(" ");
    text += `${line}\n`;
    lines += 1;
  }
  characters += text.length;
  writeFileSync(`${staging}/t${i}.txt`, text);
}
writeFileSync(`${staging}/expected.json`, JSON.stringify({ files: FILES, characters, lines }));
rmSync("texts", { recursive: true, force: true });
renameSync(staging, "texts");
