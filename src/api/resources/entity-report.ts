import { z } from 'zod';
import { isIsoDate } from '../../dates.js';
import type { ApiClient } from '../client.js';
import { MAX_PAGE_SIZE, collectPagesUpTo } from '../paging.js';
import { entityReportPageSchema, type EntityReportPage, type EntityReportRow } from '../schemas.js';
import {
  assertNoProblems,
  combineProblems,
  fieldsOf,
  problemsOf,
  type RequestProblem,
} from './request-check.js';

/**
 * The entity report: POST /networks/reporting/entity/table (network portal), paged in the
 * body. An aggregated report serves at most 10,000 rows in all, whatever the paging (spec,
 * Limits): `entityReport` stops there and says so (`capped`, `note`) instead of asking for
 * pages that cannot come. The row shape is not shown: rows are any objects. A read, so
 * retried on transient failures.
 *
 * Required fields: not shown. We demand from, to and at least one column, without which there
 * is no report to ask for; timezone_id and currency_id are left to the API's defaults.
 */

export const ENTITY_REPORT_PATH = '/networks/reporting/entity/table';
/** Aggregated reporting rows served in all, regardless of paging (spec, Limits). */
export const REPORT_ROW_CAP = 10_000;

const date = z.string().refine(isIsoDate, 'must be a date YYYY-MM-DD');
const positive = z.number().int('must be a positive integer').min(1, 'must be a positive integer');

export const entityReportRequestSchema = z.strictObject({
  from: date,
  to: date,
  timezone_id: z.number().int().optional(),
  currency_id: z.string().optional(),
  columns: z
    .array(z.strictObject({ column: z.string().min(1, 'must not be empty') }))
    .min(1, 'at least one column is required'),
  page: positive.optional(),
  page_size: positive.optional(),
});
export type EntityReportRequest = z.input<typeof entityReportRequestSchema>;

export function entityReportProblems(body: unknown): RequestProblem[] {
  const { from, to } = fieldsOf(body);
  const order: RequestProblem[] =
    typeof from === 'string' &&
    typeof to === 'string' &&
    isIsoDate(from) &&
    isIsoDate(to) &&
    to < from
      ? [{ field: 'to', problem: `must not be before from (${from})` }]
      : [];
  return combineProblems(problemsOf(entityReportRequestSchema, body), order);
}

const WHAT = 'entity report';

/** One page, as the body's page and page_size ask (API defaults 1 and 50). */
export async function entityReportPage(
  client: ApiClient,
  body: EntityReportRequest,
): Promise<EntityReportPage> {
  assertNoProblems(WHAT, entityReportProblems(body));
  return client.request('POST', ENTITY_REPORT_PATH, {
    body,
    schema: entityReportPageSchema,
    idempotent: true,
  });
}

export interface EntityReportResult {
  rows: EntityReportRow[];
  /** total_count of the last page's envelope: every row the report has, served or not. */
  totalCount: number;
  /** The 10,000-row cap cut the report short: `rows` is not the whole report. */
  capped: boolean;
  /** When capped: one sentence saying so, for a person. */
  note?: string;
  pages: number;
}

/**
 * Every row of the report, page by page, up to the 10,000-row cap. The body's own page is
 * ignored; its page_size (else `options.pageSize`, else 2,000: fewest requests) sets the pages.
 */
export async function entityReport(
  client: ApiClient,
  body: EntityReportRequest,
  options: { pageSize?: number; rowCap?: number } = {},
): Promise<EntityReportResult> {
  assertNoProblems(WHAT, entityReportProblems(body));
  const cap = options.rowCap ?? REPORT_ROW_CAP;
  const collected = await collectPagesUpTo<EntityReportRow>(
    async ({ page, pageSize }) => {
      const result = await entityReportPage(client, { ...body, page, page_size: pageSize });
      return { items: result.table, paging: result.paging };
    },
    cap,
    {
      pageSize: options.pageSize ?? body.page_size ?? MAX_PAGE_SIZE,
      endpoint: `POST ${ENTITY_REPORT_PATH}`,
    },
  );
  const { items: rows, totalCount, capped, pages } = collected;
  const result: EntityReportResult = { rows, totalCount, capped, pages };
  if (capped) result.note = rowCapNote(cap, rows.length, totalCount);
  return result;
}

/** What a person is told when the cap cut a report short. */
export function rowCapNote(cap: number, served: number, total: number): string {
  const n = (value: number) => value.toLocaleString('en-US');
  return (
    `the API serves at most ${n(cap)} rows of an aggregated report: returned ${n(served)} of ` +
    `${n(total)}; narrow the date range or the columns for the rest`
  );
}
