import type { z } from 'zod';
import type { HttpMethod } from './client.js';
import { CONNECTIONS_PATH } from './resources/connections.js';
import { ENTITY_REPORT_PATH, REPORT_ROW_CAP } from './resources/entity-report.js';
import {
  advertiserUserSchema,
  connectionsPageSchema,
  creativeSchema,
  entityReportPageSchema,
  invoiceSummarySchema,
  tieredCommissionSchema,
  trafficAccessSchema,
} from './schemas.js';
import { parseIspTrendsResponse, parseWithSchema } from './validate.js';

/*
 * The endpoints of the API's summary table (docs/api-notes.md), by method and path: what `thm api` validates a
 * response against, whether it may retry, and how a paged endpoint pages (query or body,
 * which key holds the items, any row cap).
 */

export interface EndpointPaging {
  /** Where page and page_size go. */
  in: 'query' | 'body';
  /** The response field holding the page's items. */
  itemsKey: string;
  /** Rows served in all, whatever the paging (aggregated reports). */
  rowCap?: number;
}

export interface KnownEndpoint {
  method: HttpMethod;
  /** The path as the spec writes it, e.g. /networks/creatives/{creativeId}. */
  path: string;
  pattern: RegExp;
  /** Validates (and may transform) the response. */
  parse: (value: unknown) => unknown;
  /** Safe to retry: reads, and searches by POST. */
  idempotent: boolean;
  premium?: boolean;
  paging?: EndpointPaging;
}

/** Failures as ResponseValidationError, which the client reports as an invalid response. */
const bySchema = (schema: z.ZodType) => (value: unknown) => parseWithSchema(schema, value);

export const KNOWN_ENDPOINTS: readonly KnownEndpoint[] = [
  {
    method: 'GET',
    path: '/networks/traffic/access',
    pattern: /^\/networks\/traffic\/access$/,
    parse: bySchema(trafficAccessSchema),
    idempotent: true,
  },
  {
    method: 'GET',
    path: '/networks/traffic/isptrends',
    pattern: /^\/networks\/traffic\/isptrends$/,
    parse: parseIspTrendsResponse,
    idempotent: true,
    premium: true,
  },
  {
    method: 'POST',
    path: CONNECTIONS_PATH,
    pattern: /^\/partners\/connections\/table$/,
    parse: bySchema(connectionsPageSchema),
    idempotent: true,
    paging: { in: 'query', itemsKey: 'connections' },
  },
  {
    method: 'POST',
    path: '/networks/advertisers/{advertiserId}/users',
    pattern: /^\/networks\/advertisers\/\d+\/users$/,
    parse: bySchema(advertiserUserSchema),
    idempotent: false,
  },
  {
    method: 'POST',
    path: '/networks/tieredcommissions',
    pattern: /^\/networks\/tieredcommissions$/,
    parse: bySchema(tieredCommissionSchema),
    idempotent: false,
  },
  {
    method: 'POST',
    path: '/networks/billings/affiliates/summary',
    pattern: /^\/networks\/billings\/affiliates\/summary$/,
    parse: bySchema(invoiceSummarySchema),
    idempotent: true,
  },
  {
    method: 'GET',
    path: '/networks/creatives/{creativeId}',
    pattern: /^\/networks\/creatives\/\d+$/,
    parse: bySchema(creativeSchema),
    idempotent: true,
  },
  {
    method: 'POST',
    path: ENTITY_REPORT_PATH,
    pattern: /^\/networks\/reporting\/entity\/table$/,
    parse: bySchema(entityReportPageSchema),
    idempotent: true,
    paging: { in: 'body', itemsKey: 'table', rowCap: REPORT_ROW_CAP },
  },
];

/** The known endpoint a request goes to (path without query or trailing slash), if any. */
export function findEndpoint(method: string, pathname: string): KnownEndpoint | undefined {
  const path = pathname.replace(/\/+$/, '') || '/';
  return KNOWN_ENDPOINTS.find((e) => e.method === method && e.pattern.test(path));
}
