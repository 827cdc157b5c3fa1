import { ApiError } from '../errors.js';
import type { Paging } from './schemas.js';

/**
 * Walking a list or search endpoint page by page (seed: "Paging, common to all list and search
 * endpoints"): pages are 1-based, the page size defaults to 50 and is at most 2,000, or less
 * where an endpoint says so. The walk stops at the first empty page or once `total_count`
 * items have been seen, and never fetches more than `maxPages` pages: an API that keeps
 * answering full pages past its own total is an invalid response, not an endless loop.
 *
 * Where the page and page_size go (query or body) differs per endpoint, so the caller supplies
 * `fetchPage` and this module only decides which pages to ask for.
 */

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 2_000;
export const DEFAULT_MAX_PAGES = 1_000;

export interface PageRequest {
  /** 1-based */
  page: number;
  pageSize: number;
}

export interface Page<T> {
  items: T[];
  /** The envelope as sent; absent when the endpoint sent none (then only an empty page stops). */
  paging?: Paging;
}

export interface PagingOptions {
  /** @defaultValue 50 */
  pageSize?: number;
  /** The endpoint's own cap on page_size. @defaultValue 2000 */
  maxPageSize?: number;
  /** Refuse to walk more pages than this. @defaultValue 1000 */
  maxPages?: number;
  /** Names the endpoint in the error when `maxPages` is exceeded. */
  endpoint?: string;
}

/** Yields each non-empty page's items, in order. */
export async function* walkPages<T>(
  fetchPage: (request: PageRequest) => Promise<Page<T>>,
  options: PagingOptions = {},
): AsyncGenerator<T[], void, void> {
  const maxPageSize = Math.min(options.maxPageSize ?? MAX_PAGE_SIZE, MAX_PAGE_SIZE);
  const pageSize = Math.max(1, Math.min(options.pageSize ?? DEFAULT_PAGE_SIZE, maxPageSize));
  const maxPages = options.maxPages ?? DEFAULT_MAX_PAGES;
  let seen = 0;
  for (let page = 1; ; page += 1) {
    if (page > maxPages) {
      const endpoint = options.endpoint ?? 'paged endpoint';
      throw new ApiError(
        'THM_API_INVALID_RESPONSE',
        endpoint,
        `${endpoint}: invalid response: still more results after ${maxPages} pages of ${pageSize}`,
      );
    }
    const result = await fetchPage({ page, pageSize });
    if (result.items.length === 0) return;
    yield result.items;
    seen += result.items.length;
    const total = result.paging?.total_count;
    if (total !== undefined && seen >= total) return;
    // A short page is the last one even when the total is missing or stale.
    const served = result.paging?.page_size ?? pageSize;
    if (result.items.length < Math.min(served, pageSize)) return;
  }
}

/** All items of all pages. */
export async function collectPages<T>(
  fetchPage: (request: PageRequest) => Promise<Page<T>>,
  options: PagingOptions = {},
): Promise<T[]> {
  const all: T[] = [];
  for await (const items of walkPages(fetchPage, options)) all.push(...items);
  return all;
}

export interface CappedCollection<T> {
  items: T[];
  /** The last envelope's total_count (at least the items seen): every item, served or not. */
  totalCount: number;
  /** The cap cut the collection short: `items` is not everything. */
  capped: boolean;
  pages: number;
}

/**
 * All items up to `cap` (aggregated reports serve at most 10,000 rows, whatever the paging):
 * the walk stops once the cap is reached instead of asking for pages that cannot come, and
 * says whether anything was left out.
 */
export async function collectPagesUpTo<T>(
  fetchPage: (request: PageRequest) => Promise<Page<T>>,
  cap: number,
  options: PagingOptions = {},
): Promise<CappedCollection<T>> {
  const items: T[] = [];
  let totalCount = 0;
  let pages = 0;
  let beyond = false;
  const counted = async (request: PageRequest) => {
    const page = await fetchPage(request);
    pages += 1;
    totalCount = page.paging?.total_count ?? totalCount;
    return page;
  };
  for await (const batch of walkPages(counted, options)) {
    items.push(...batch);
    if (items.length >= cap) {
      beyond = items.length > cap || totalCount > cap;
      items.length = cap;
      break;
    }
  }
  return { items, totalCount: Math.max(totalCount, items.length), capped: beyond, pages };
}
