import { describe, expect, it } from 'vitest';
import { BufferPool } from '../src/buffer-pool.js';

describe('BufferPool', () => {
  it('a buffer given back is the next lease that fits, given back as a view or whole', () => {
    const pool = new BufferPool(1024, 30_000);
    const first = pool.lease(1000);
    expect(first.length).toBe(1024);
    // A view of it (what a codec hands on) gives back the whole buffer.
    pool.release(first.subarray(10, 20));
    expect(pool.freeBytes()).toBe(1024);
    const again = pool.lease(500);
    expect(again.buffer).toBe(first.buffer);
    expect(again.length).toBe(1024);
    expect(pool.freeBytes()).toBe(0);
    // Too small for what is asked: a new one, rounded up to the granule.
    pool.release(again);
    const larger = pool.lease(3000);
    expect(larger.buffer).not.toBe(first.buffer);
    expect(larger.length).toBe(3072);
    pool.drop();
  });

  it('drops its free buffers once unused for its idle time', async () => {
    const pool = new BufferPool(1024, 50);
    pool.release(pool.lease(1));
    expect(pool.freeBytes()).toBe(1024);
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(pool.freeBytes()).toBe(0);
  });
});
