import assert from "node:assert/strict";
import { test } from "node:test";
import { makeString } from "../../apps/workers/shared/payloads.js";
import { loadApps, unsupportedApp } from "../../src/apps/manifest.ts";
import type { IdentifiedRuntime } from "../../src/runtimes/identify.ts";
import { TrialFailure } from "../../src/suites/suite.ts";
import { metricsOf, pointsOf, type WorkersConfig } from "../../src/suites/workers/index.ts";

test("throughput points transfer only Uint8Arrays: a string can only be copied", () => {
  const config: WorkersConfig = { kind: "throughput", payloads: ["string", "bytes"], sizes: [1024], batch: 64, transfer: [false, true] };
  assert.deepEqual(pointsOf(config), [
    { payload: "string", size: 1024, batch: 64, transfer: false },
    { payload: "bytes", size: 1024, batch: 64, transfer: false },
    { payload: "bytes", size: 1024, batch: 64, transfer: true },
  ]);
});

test("round-trip figures: each iteration's median round trip and messages per second, the trial's p99", () => {
  const config: WorkersConfig = { kind: "round-trip", batches: [4], payloads: ["number"] };
  const samples = { wall_ms: [2, 4], rtt_us: [100, 300, 200, 400, 1000, 1000, 1000, 4000] };
  const metrics = metricsOf(config, { batch: 4, payload: "number" }, samples, 50);
  assert.deepEqual(metrics.rtt_us, [250, 1000]);
  assert.deepEqual(metrics.messages_per_s, [2000, 1000]);
  assert.ok(metrics.rtt_p99_us![0]! > 3000 && metrics.rtt_p99_us![0]! <= 4000);
  assert.deepEqual(metrics.peak_rss_mb, [50]);
});

test("throughput in MB (10^6 bytes) per second of each iteration", () => {
  const config: WorkersConfig = { kind: "throughput", payloads: ["bytes"], sizes: [1_000_000], batch: 64, transfer: [false] };
  const metrics = metricsOf(config, { payload: "bytes", size: 1_000_000, batch: 64, transfer: false }, { wall_ms: [32, 64] }, 80);
  assert.deepEqual(metrics.throughput_mb_s, [2000, 1000]);
  assert.deepEqual(metrics.messages_per_s, [2000, 1000]);
});

test("a report with round trips missing is a failed trial, not a figure", () => {
  const config: WorkersConfig = { kind: "round-trip", batches: [10], payloads: ["number"] };
  assert.throws(() => metricsOf(config, { batch: 10, payload: "number" }, { wall_ms: [1, 1], rtt_us: [5] }, 50), TrialFailure);
});

test("a payload string is, character for character, the one built a character at a time (throughput's version 2)", () => {
  const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
  const byCharacter = (size: number, seed: number) => {
    let out = `message ${seed} `;
    for (let i = out.length; i < size; i++) out += alphabet[(i * 7 + seed) % alphabet.length];
    return out.slice(0, size);
  };
  for (const size of [0, 5, 11, 12, 13, 47, 48, 49, 1024, 65_536, 1_048_576]) {
    for (const seed of [0, 1, 35, 36, 63]) assert.equal(makeString(size, seed), byCharacter(size, seed), `size ${size}, seed ${seed}`);
  }
});

test("worker-threads leaves out the Deno releases whose Worker never says it is online, naming why, instead of hanging in every cell", () => {
  const app = loadApps("workers").find((candidate) => candidate.name === "worker-threads")!;
  const deno = (version: string) => ({ identity: { name: "deno", version } }) as IdentifiedRuntime;
  // Tried on each release the registry has: 1.46.0 never emitted 'online' to a listener, 1.46.2 and 1.46.3 did.
  assert.match(unsupportedApp(app, deno("1.46.0"))!, /^app worker-threads needs deno >= 1\.46\.2: .*'online' event .*denoland\/deno#25243/);
  for (const version of ["1.46.2", "1.46.3", "2.9.6"]) assert.equal(unsupportedApp(app, deno(version)), null, version);
});
