import { describe, expect, it } from 'vitest';
import {
  globMatch,
  isSilenceActive,
  silenceMatcher,
  silencesWhole,
} from '../../src/monitor/silences.js';
import type { Silence } from '../../src/monitor/types.js';

describe('globMatch', () => {
  const table: [pattern: string, text: string, expected: boolean][] = [
    ['Comcast', 'Comcast', true],
    ['Comcast', 'comcast', false],
    ['Com*', 'Comcast Cable', true],
    ['*Cable*', 'Comcast Cable Communications', true],
    ['*', '', true],
    ['*', 'anything', true],
    ['?', '', false],
    ['?', 'a', true],
    ['?', '🚀', true],
    ['a?c', 'abc', true],
    ['a?c', 'ac', false],
    ['a*b*c', 'a--b--c', true],
    ['a*b*c', 'a--c--b', false],
    ['*.example', 'mail.example', true],
    ['[abc]', 'a', false],
    ['[abc]', '[abc]', true],
    ['(a+)+$', '(a+)+$', true],
    ['**a**', 'xax', true],
  ];
  it.each(table)('%j ~ %j -> %s', (pattern, text, expected) => {
    expect(globMatch(pattern, text)).toBe(expected);
  });

  it('a pathological pattern is still answered (no exponential backtracking)', () => {
    const text = 'a'.repeat(20_000);
    expect(globMatch('*a*a*a*a*a*a*a*a*a*a*b', text)).toBe(false);
    expect(globMatch('*a*a*a*a*a*a*a*a*a*a*', text)).toBe(true);
  });
});

describe('silenceMatcher', () => {
  const base = { networkId: 'acme', reason: 'r', createdAt: 0, expiresAt: 10 };
  const silences: Silence[] = [
    { ...base, id: 's-domain', domainId: 5 },
    { ...base, id: 's-isp', isp: 'Verizon' },
    { ...base, id: 's-both', domainId: 6, isp: 'AT&T*' },
    { ...base, id: 's-glob', isp: '*Mail?' },
    { ...base, id: 's-exact-case', isp: 'Orange', caseSensitive: true },
    { ...base, id: 's-any-case-glob', isp: 'free*' },
  ];
  const match = silenceMatcher(silences);
  const table: [domainId: number, isp: string, expected: string | undefined][] = [
    [5, 'anything', 's-domain'],
    [1, 'Verizon', 's-isp'],
    [1, 'verizon', 's-isp'],
    [1, 'VERIZON', 's-isp'],
    [1, 'Orange', 's-exact-case'],
    [1, 'orange', undefined],
    [1, 'Free SAS', 's-any-case-glob'],
    [1, 'Verizon Wireless', undefined],
    [6, 'AT&T Internet', 's-both'],
    [7, 'AT&T Internet', undefined],
    [1, 'GMailX', 's-glob'],
    [1, 'GMail', undefined],
    [5, 'Verizon', 's-domain'],
  ];
  it.each(table)('domain %s, ISP %j -> %s', (domainId, isp, expected) => {
    expect(match(domainId, isp)?.id).toBe(expected);
  });

  it('no silences: nothing matches', () => {
    expect(silenceMatcher([])(1, 'x')).toBeUndefined();
  });

  it('expiry: active strictly before expiresAt', () => {
    expect(isSilenceActive({ expiresAt: 1000 }, 999)).toBe(true);
    expect(isSilenceActive({ expiresAt: 1000 }, 1000)).toBe(false);
  });

  it('a window that starts later: in force from startsAt, inclusive', () => {
    expect(isSilenceActive({ startsAt: 500, expiresAt: 1000 }, 499)).toBe(false);
    expect(isSilenceActive({ startsAt: 500, expiresAt: 1000 }, 500)).toBe(true);
  });
});

describe('silencesWhole', () => {
  const silence = (s: Partial<Silence>): Silence =>
    ({ id: 's', networkId: 'n', expiresAt: 1, ...s }) as Silence;
  it.each([
    ['a domain silenced whole', [{ domainId: 1 }], 'domain', true],
    ['its ISPs all, by *', [{ domainId: 1, isp: '*' }], 'domain', true],
    ['another domain', [{ domainId: 2 }], 'domain', false],
    ['one ISP of it', [{ domainId: 1, isp: 'Comcast' }], 'domain', false],
    ['everything', [{}], 'network', true],
    ['the network by one domain', [{ domainId: 1 }], 'network', false],
  ] as const)('%s', (_, silences, scope, expected) => {
    expect(silencesWhole(silences.map(silence), scope, 1)).toBe(expected);
  });
});
