import { describe, expect, it } from 'vitest';
import {
  documentedIspTrendSchema,
  documentedIspTrendsResponseSchema,
  ispTrendSchema,
} from '../../src/api/schemas.js';
import {
  ResponseValidationError,
  formatPath,
  parseDocumentedIspTrends,
  parseIspTrendsResponse,
  parseWithSchema,
} from '../../src/api/validate.js';
import { sampleTrendsEntry } from '../harness/api.js';

const valid = sampleTrendsEntry;

/** What zod says about a whole response against every documented field, in the same format. */
function zodVerdict(body: unknown): string {
  try {
    parseWithSchema(documentedIspTrendsResponseSchema, body);
    return 'ok';
  } catch (error) {
    return (error as Error).message.replace(/ \(and \d+ more issue\(s\)\)$/, '');
  }
}

function trendsVerdict(body: unknown): string {
  try {
    parseIspTrendsResponse(body);
    return 'ok';
  } catch (error) {
    expect(error).toBeInstanceOf(ResponseValidationError);
    return (error as Error).message.replace(/ \(\d+ invalid entries in all\)$/, '');
  }
}

function documentedVerdict(body: unknown): string {
  try {
    parseDocumentedIspTrends(body);
    return 'ok';
  } catch (error) {
    expect(error).toBeInstanceOf(ResponseValidationError);
    return (error as Error).message.replace(/ \(\d+ invalid entries in all\)$/, '');
  }
}

const MUTATIONS: unknown[] = [undefined, null, 'x', '12', 1.5, -1, 0, 2 ** 53, true, {}, [], 1e300];

describe('the ISP trends validator', () => {
  it('keeps what a run reads of valid entries; thm api keeps every field, extra ones too', () => {
    const body = { entries: [valid(), { ...valid(), new_field: 1 }], extra: true };
    const read = parseIspTrendsResponse(body);
    const readFields = Object.keys(ispTrendSchema.shape).sort();
    for (const entry of read.entries) expect(Object.keys(entry).sort()).toEqual(readFields);
    expect(read.entries[1]).toEqual(ispTrendSchema.parse(valid()));
    expect(parseDocumentedIspTrends(body)).toEqual(body);
    expect(zodVerdict(body)).toBe('ok');
  });

  it('refuses a wrong value in every field a run reads, as zod says; a delta only for thm api', () => {
    const fields = Object.keys(documentedIspTrendSchema.shape);
    expect(fields.length).toBeGreaterThan(30);
    const read = new Set(Object.keys(ispTrendSchema.shape));
    let refused = 0;
    for (const field of [...fields, 'relationship.url']) {
      for (const value of MUTATIONS) {
        const entry: Record<string, unknown> = valid();
        if (field === 'relationship.url') entry.relationship = { url: value };
        else entry[field] = value;
        if (value === undefined && field !== 'relationship.url') delete entry[field];
        const body = { entries: [valid(), valid(), entry] };
        const documented = zodVerdict(body);
        expect(documentedVerdict(body), `${field} = ${String(value)}`).toBe(documented);
        const expected = read.has(field) || field === 'relationship.url' ? documented : 'ok';
        expect(trendsVerdict(body), `${field} = ${String(value)}`).toBe(expected);
        if (documented !== 'ok') refused += 1;
      }
    }
    expect(refused).toBeGreaterThan(200);
  });

  it('names the field path and the entry index, and counts the bad entries', () => {
    const entries = Array.from({ length: 20 }, valid);
    (entries[17] as Record<string, unknown>).yesterday_total_clicks = '12';
    (entries[19] as Record<string, unknown>).isp = 5;
    expect(() => parseIspTrendsResponse({ entries })).toThrow(
      'entries[17].yesterday_total_clicks: expected number, received string (2 invalid entries in all)',
    );
  });

  it('reports a bad envelope the same way', () => {
    expect(() => parseIspTrendsResponse({ entries: 'none' })).toThrow(
      'entries: expected array, received string',
    );
    expect(() => parseIspTrendsResponse([])).toThrow('expected object, received array');
    expect(() => parseIspTrendsResponse({ entries: [null] })).toThrow(
      'entries[0]: expected object, received null',
    );
  });

  it('names only the first issue of a single bad entry, and counts issues outside the entries', () => {
    const entries = Array.from({ length: 3 }, valid);
    (entries[1] as Record<string, unknown>).isp = 5;
    (entries[1] as Record<string, unknown>).yesterday_total_clicks = '12';
    expect(() => parseIspTrendsResponse({ entries })).toThrow(
      /^entries\[1\]\.isp: expected string, received number$/,
    );
    expect(() => parseIspTrendsResponse({ entries: 1, more: 2 })).toThrow(
      /^entries: expected array, received number$/,
    );
  });

  it('formats paths', () => {
    expect(formatPath(['entries', 3, 'relationship', 'url'])).toBe('entries[3].relationship.url');
    expect(formatPath([])).toBe('');
  });
});
