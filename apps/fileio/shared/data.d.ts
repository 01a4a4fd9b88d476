// Types of data.js for the harness's TypeScript.
export interface DataShape {
  readonly files: number;
  readonly file_bytes: number;
  readonly large_bytes: number;
  readonly tree_packages: number;
}
export interface TreeEntry {
  readonly path: string;
  /** Null for a folder. */
  readonly size: number | null;
}
export declare function smallFiles(shape: DataShape): Generator<Uint8Array>;
export declare function largeChunks(bytes: number, block?: Uint8Array): Generator<Uint8Array>;
export declare function writeSmallFiles(dir: string, shape: DataShape): Promise<void>;
export declare function writeLargeFile(path: string, bytes: number): Promise<void>;
export declare function treePlan(packages: number): TreeEntry[];
export declare function writeTree(root: string, entries: readonly TreeEntry[]): Promise<void>;
export declare function inputPath(operation: string, dir: string): string | null;
export declare function writeInput(operation: string, shape: DataShape, dir: string): Promise<string | null>;
