// Types of steady.js for the harness.

/** Whether `values` (successive throughputs or iteration times) has become steady: see steady.js. */
export function isSteady(values: readonly number[], block: number, tolerance: number): boolean;
