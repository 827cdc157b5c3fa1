import { z } from 'zod';
import { CONNECTION_STATUSES, connectionsPageSchema, type ConnectionsPage } from '../schemas.js';
import type { MarketplaceConnection } from '../schemas.js';
import type { ApiClient } from '../client.js';
import { collectPages, type PagingOptions } from '../paging.js';
import {
  RequestValidationError,
  positiveIntegerParamProblems,
  problemsOf,
  type RequestProblem,
} from './request-check.js';

/**
 * Marketplace connections: POST /partners/connections/table (marketplace portal: the client
 * must hold a marketplace key; a network key gets 403 Out of realm). Unlike other search
 * endpoints, page and page_size go in the query; the body carries `filters.status`. Filters
 * other than status: not shown, so none are offered.
 */

export const CONNECTIONS_PATH = '/partners/connections/table';

export type ConnectionStatus = (typeof CONNECTION_STATUSES)[number];

export interface ConnectionSearch {
  status?: ConnectionStatus;
  /** 1-based. Omitted: the API's default (1). */
  page?: number;
  /** Omitted: the API's default (50). The endpoint may serve fewer (its own cap). */
  pageSize?: number;
}

const WHAT = 'connection search';

function checkSearch(search: ConnectionSearch): void {
  const problems = [];
  if (search.status !== undefined && !CONNECTION_STATUSES.includes(search.status)) {
    problems.push({ field: 'status', problem: statusRule });
  }
  for (const [field, value] of [
    ['page', search.page],
    ['pageSize', search.pageSize],
  ] as const) {
    if (value !== undefined && (!Number.isSafeInteger(value) || value < 1)) {
      problems.push({ field, problem: 'must be a positive integer' });
    }
  }
  if (problems.length > 0) throw new RequestValidationError(WHAT, problems);
}

const statusRule = `must be one of ${CONNECTION_STATUSES.join(', ')}`;

/** A search body as sent: other filters and fields are not shown, so they pass. */
const searchBodySchema = z.looseObject({
  filters: z.looseObject({ status: z.enum(CONNECTION_STATUSES, statusRule).optional() }).optional(),
});

/**
 * The rules of a search as it goes over the wire (`thm api`): page and page_size in the query
 * positive integers, filters.status one of the statuses.
 */
export function connectionsRequestProblems(
  query: URLSearchParams,
  body: unknown,
): RequestProblem[] {
  return [
    ...positiveIntegerParamProblems(query, ['page', 'page_size']),
    ...(body === undefined ? [] : problemsOf(searchBodySchema, body)),
  ];
}

/** The body of a search: {"filters": {}} or {"filters": {"status": ...}}. */
export function connectionsBody(status?: ConnectionStatus): { filters: { status?: string } } {
  return { filters: status === undefined ? {} : { status } };
}

/** One page of connections (api_key of each parsed into a Secret). A read: retried. */
export async function searchConnections(
  client: ApiClient,
  search: ConnectionSearch = {},
): Promise<ConnectionsPage> {
  checkSearch(search);
  return client.request('POST', CONNECTIONS_PATH, {
    query: { page: search.page, page_size: search.pageSize },
    body: connectionsBody(search.status),
    schema: connectionsPageSchema,
    idempotent: true,
  });
}

/** Every connection (of a status), page by page. */
export async function allConnections(
  client: ApiClient,
  search: { status?: ConnectionStatus } = {},
  options: PagingOptions = {},
): Promise<MarketplaceConnection[]> {
  checkSearch(search);
  return collectPages(
    async ({ page, pageSize }) => {
      const result = await searchConnections(client, { ...search, page, pageSize });
      return { items: result.connections, paging: result.paging };
    },
    { endpoint: `POST ${CONNECTIONS_PATH}`, ...options },
  );
}
