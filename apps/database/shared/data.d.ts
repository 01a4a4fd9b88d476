// Types of data.js for the harness (the apps themselves are plain JavaScript, run unchanged by every runtime).

export interface UserRow {
  id: number;
  name: string;
  email: string;
  created_at: string;
  score: number;
}
export interface WorldRow {
  id: number;
  randomnumber: number;
}

export const USERS: number;
export const WORLD: number;
export const SEQUENCE_SEED: number;
export function generator(seed: number): () => number;
export function sequence(seed?: number): { id(): number; number(): number };
export function userRow(id: number): UserRow;
export function worldRow(id: number): WorldRow;
export const USER_COLUMNS: readonly (keyof UserRow)[];
export const WORLD_COLUMNS: readonly (keyof WorldRow)[];
export function canonicalRow(row: object): string;
export function sha256(text: string): Promise<string>;
