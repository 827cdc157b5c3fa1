import { describe, expect, it } from 'vitest';
import { automatedHeaders } from '../../src/notify/headers.js';

const FROM = 'Traffic Health <alerts@thm.example.com>';

describe('automatedHeaders', () => {
  it('no auto-replies, a List-Id per network from the From domain', () => {
    const h = automatedHeaders({ networkId: 'acme', asOf: '2026-11-21' }, FROM);
    expect(h.headers).toEqual({
      'Auto-Submitted': 'auto-generated',
      'X-Auto-Response-Suppress': 'All',
      'List-Id': '<acme.thm.example.com>',
    });
  });

  it.each([
    // [network, as-of, other network, other as-of, same thread?]
    ['acme', '2026-11-01', 'acme', '2026-11-30', true],
    ['acme', '2026-11-30', 'acme', '2026-12-01', false],
    ['acme', '2026-11-21', 'globex', '2026-11-21', false],
  ])('%s %s and %s %s: same thread %s', (a, asOfA, b, asOfB, same) => {
    const x = automatedHeaders({ networkId: a, asOf: asOfA }, FROM).threadRootId;
    const y = automatedHeaders({ networkId: b, asOf: asOfB }, FROM).threadRootId;
    expect(x === y).toBe(same);
  });

  it('the thread root is a well-formed msg-id on the From domain', () => {
    expect(automatedHeaders({ networkId: 'acme', asOf: '2026-11-21' }, FROM).threadRootId).toBe(
      '<thm-thread.acme.2026-11@thm.example.com>',
    );
  });

  it('whatever the network id and From, every value stays one safe token', () => {
    const h = automatedHeaders(
      { networkId: 'a b\r\n<x>@y', asOf: 'garbage' },
      'not an address\r\nBcc: x',
    );
    for (const value of [h.listId, h.threadRootId, ...Object.values(h.headers)]) {
      expect(value).toMatch(/^[\x21-\x7e]+$/);
    }
    expect(h.listId).toBe('<a-b---x--y.traffic-health.invalid>');
    expect(h.threadRootId).toBe('<thm-thread.a-b---x--y.undated@traffic-health.invalid>');
  });
});
