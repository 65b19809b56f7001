import { randomBytes, randomUUID } from "node:crypto";

/**
 * A short entry id: 8 lowercase hex characters, retried on collision, and a full UUID when
 * collisions keep happening (as the format asks).
 */
const POOL_SIZE = 4096;
let pool = Buffer.alloc(0);
let poolOffset = 0;

/** Four random bytes as hex, drawn from a pooled buffer (one system call per thousand ids). */
function randomHex8(): string {
  if (poolOffset + 4 > pool.length) {
    pool = randomBytes(POOL_SIZE);
    poolOffset = 0;
  }
  const id = pool.toString("hex", poolOffset, poolOffset + 4);
  poolOffset += 4;
  return id;
}

export function generateEntryId(taken: { has(id: string): boolean }): string {
  for (let attempt = 0; attempt < 100; attempt++) {
    const id = randomHex8();
    if (!taken.has(id)) return id;
  }
  return randomUUID();
}

/** A time-ordered UUID (version 7), so that session ids sort by creation time. */
export function createSessionId(now: number = Date.now()): string {
  const bytes = randomBytes(16);
  const ms = BigInt(now);
  for (let i = 0; i < 6; i++) bytes[i] = Number((ms >> BigInt(8 * (5 - i))) & 0xffn);
  bytes[6] = (bytes[6]! & 0x0f) | 0x70;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The ISO timestamp every entry carries (milliseconds, UTC). */
export function nowIso(): string {
  return new Date().toISOString();
}
