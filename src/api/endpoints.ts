import type { z } from 'zod';
import type { HttpMethod } from './client.js';
import { advertiserUserRequestProblems } from './resources/advertiser-users.js';
import { CONNECTIONS_PATH, connectionsRequestProblems } from './resources/connections.js';
import {
  ENTITY_REPORT_PATH,
  REPORT_ROW_CAP,
  entityReportProblems,
} from './resources/entity-report.js';
import { idProblems, problemsOf, type RequestProblem } from './resources/request-check.js';
import { tieredCommissionProblems } from './resources/tiered-commissions.js';
import {
  advertiserUserSchema,
  connectionsPageSchema,
  creativeSchema,
  entityReportPageSchema,
  invoiceSummaryRequestSchema,
  invoiceSummarySchema,
  tieredCommissionSchema,
  trafficAccessSchema,
} from './schemas.js';
import { parseDocumentedIspTrends, parseWithSchema } from './validate.js';

/*
 * The endpoints of the API's summary table (docs/api-notes.md), by method and path: the rules
 * `thm api` checks a request against before sending it (the same rule functions the typed
 * resources and the sandbox use), what it validates a response against, whether it may retry,
 * and how a paged endpoint pages (query or body, which key holds the items, any row cap).
 */

/** A request as `thm api` is about to send it. */
export interface EndpointRequest {
  /** The path parameters, in order ({advertiserId}, {creativeId}). */
  params: string[];
  query: URLSearchParams;
  /** The parsed JSON body; undefined: none. */
  body: unknown;
}

export interface RequestRules {
  /** What the request makes, for the message: `tiered commission: ...`. */
  what: string;
  /** Every rule of the spec the request breaks (empty: it may be sent). */
  problems: (request: EndpointRequest) => RequestProblem[];
}

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
  /** The spec's rules for the request; absent: the spec states none. */
  request?: RequestRules;
}

/** Failures as ResponseValidationError, which the client reports as an invalid response. */
const bySchema = (schema: z.ZodType) => (value: unknown) => parseWithSchema(schema, value);
/** The numeric path parameter as a number (the patterns capture digits only). */
const idParam = (request: EndpointRequest) => Number(request.params[0]);

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
    parse: parseDocumentedIspTrends,
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
    request: {
      what: 'connection search',
      problems: ({ query, body }) => connectionsRequestProblems(query, body),
    },
  },
  {
    method: 'POST',
    path: '/networks/advertisers/{advertiserId}/users',
    pattern: /^\/networks\/advertisers\/(\d+)\/users$/,
    parse: bySchema(advertiserUserSchema),
    idempotent: false,
    request: {
      what: 'advertiser user',
      problems: (r) => advertiserUserRequestProblems(idParam(r), r.query, r.body),
    },
  },
  {
    method: 'POST',
    path: '/networks/tieredcommissions',
    pattern: /^\/networks\/tieredcommissions$/,
    parse: bySchema(tieredCommissionSchema),
    idempotent: false,
    request: {
      what: 'tiered commission',
      problems: ({ body }) => tieredCommissionProblems(body),
    },
  },
  {
    method: 'POST',
    path: '/networks/billings/affiliates/summary',
    pattern: /^\/networks\/billings\/affiliates\/summary$/,
    parse: bySchema(invoiceSummarySchema),
    idempotent: true,
    request: {
      what: 'invoice summary',
      problems: ({ body }) => problemsOf(invoiceSummaryRequestSchema, body),
    },
  },
  {
    method: 'GET',
    path: '/networks/creatives/{creativeId}',
    pattern: /^\/networks\/creatives\/(\d+)$/,
    parse: bySchema(creativeSchema),
    idempotent: true,
    request: {
      what: 'creative',
      problems: (r) => idProblems('creativeId', idParam(r)),
    },
  },
  {
    method: 'POST',
    path: ENTITY_REPORT_PATH,
    pattern: /^\/networks\/reporting\/entity\/table$/,
    parse: bySchema(entityReportPageSchema),
    idempotent: true,
    paging: { in: 'body', itemsKey: 'table', rowCap: REPORT_ROW_CAP },
    request: {
      what: 'entity report',
      problems: ({ body }) => entityReportProblems(body),
    },
  },
];

/** The known endpoint a request goes to (path without query or trailing slash), if any. */
export function findEndpoint(method: string, pathname: string): KnownEndpoint | undefined {
  const path = normalPath(pathname);
  return KNOWN_ENDPOINTS.find((e) => e.method === method && e.pattern.test(path));
}

/** The path parameters of a path of this endpoint ({advertiserId}, {creativeId}), in order. */
export function pathParams(endpoint: KnownEndpoint, pathname: string): string[] {
  return endpoint.pattern.exec(normalPath(pathname))?.slice(1) ?? [];
}

function normalPath(pathname: string): string {
  return pathname.replace(/\/+$/, '') || '/';
}
