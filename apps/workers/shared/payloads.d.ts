// Types of payloads.js for the harness's TypeScript.
export declare function makeString(size: number, seed: number): string;
export declare function makeBytes(size: number, seed: number): Uint8Array;
export declare function makeObject(seed: number): Record<string, unknown>;
export declare function makePayload(kind: "number" | "string" | "object" | "bytes", seed: number): unknown;
export declare function makeSized(kind: "string" | "bytes", size: number, seed: number): string | Uint8Array;
export declare function fingerprint(value: string | Uint8Array): number;
export declare function sameValue(a: unknown, b: unknown): boolean;
export declare function countPrimes(range: { start: number; stride: number; bound: number }): number;
export declare function handlerFor(mode: "echo" | "ack" | "primes"): (value: never) => unknown;
