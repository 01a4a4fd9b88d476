// Types of content.js for the harness's TypeScript.
export declare const CHUNK_BYTES: number;
export declare const BLOCK_BYTES: number;
export declare function smallFileContent(index: number, size: number): Uint8Array;
export declare function smallFileName(index: number): string;
export declare function largeBlock(): Uint8Array;
