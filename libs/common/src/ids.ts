import { randomBytes } from 'node:crypto';

// BSON ObjectId layout: 4-byte seconds, 5-byte per-process random, 3-byte counter.
const processUnique = randomBytes(5);
let counter = randomBytes(3).readUIntBE(0, 3);

/** A new 24-character lowercase hex record id (bson ObjectId string). */
export function newId(now: Date = new Date()): string {
  const buf = Buffer.alloc(12);
  buf.writeUInt32BE(Math.floor(now.getTime() / 1000) >>> 0, 0);
  processUnique.copy(buf, 4);
  counter = (counter + 1) % 0x1000000;
  buf.writeUIntBE(counter, 9, 3);
  return buf.toString('hex');
}

const ID_PATTERN = /^[0-9a-f]{24}$/;

/** True when the value is a well-formed record id (24 hex characters, any case). */
export function isId(value: unknown): value is string {
  return typeof value === 'string' && ID_PATTERN.test(value.toLowerCase());
}
