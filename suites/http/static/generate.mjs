// Writes the static scenario's two 64 KiB text files: deterministic, different from each other,
// so serving one file's cached bytes for the other fails verification.
import { mkdirSync, writeFileSync } from "node:fs";

const SIZE = 64 * 1024;
mkdirSync("files", { recursive: true });
for (const name of ["a", "b"]) {
  let text = "";
  for (let line = 0; text.length < SIZE; line++) text += `${name} line ${String(line).padStart(5, "0")}: the quick brown fox jumps over the lazy dog\n`;
  writeFileSync(`files/${name}.txt`, text.slice(0, SIZE - 1) + "\n");
}
