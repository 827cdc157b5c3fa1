/*
 * What a sandbox handler answers, and the small helpers every endpoint shares: JSON answers,
 * error answers ({"error": "..."}, the shape the client's error mapping reads first), and the
 * paging parameters with the spec's defaults (page 1, page_size 50) and caps.
 */

export interface Answer {
  status: number;
  /**
   * The body; a list of Buffers is sent in order without being joined (a large isptrends body
   * assembled from parts shared by every network; see `bodyBytes`).
   */
  body: string | Buffer | readonly Buffer[];
  contentType?: string;
}

/** The body as one Buffer (a list is joined: only the fault paths need that). */
export function bodyBytes(body: Answer['body']): Buffer {
  if (typeof body === 'string') return Buffer.from(body);
  return Buffer.isBuffer(body) ? body : Buffer.concat(body as readonly Buffer[]);
}

export const json = (status: number, value: unknown): Answer => ({
  status,
  body: JSON.stringify(value),
});

export const errorAnswer = (status: number, message: string): Answer =>
  json(status, { error: message });

export const DEFAULT_PAGE = 1;
export const DEFAULT_PAGE_SIZE = 50;
/** The spec's usual maximum page size; endpoints may enforce less. */
export const MAX_PAGE_SIZE = 2_000;

export interface PageParams {
  page: number;
  /** Already capped to the endpoint's maximum (and reported so in paging.page_size). */
  pageSize: number;
}

/**
 * page and page_size from the query (strings) or the body (numbers). Absent: the defaults. A
 * page_size over the cap is served at the cap rather than refused (a client walking pages
 * reads the served size from the envelope). Anything else: a 400 answer naming the field.
 */
export function readPaging(
  rawPage: unknown,
  rawSize: unknown,
  maxPageSize: number,
): PageParams | Answer {
  const read = (raw: unknown, fallback: number): number | undefined => {
    if (raw === undefined || raw === null) return fallback;
    const value = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : raw;
    return typeof value === 'number' && Number.isSafeInteger(value) && value >= 1
      ? value
      : undefined;
  };
  const page = read(rawPage, DEFAULT_PAGE);
  if (page === undefined) return errorAnswer(400, 'page must be a positive integer');
  const size = read(rawSize, DEFAULT_PAGE_SIZE);
  if (size === undefined) return errorAnswer(400, 'page_size must be a positive integer');
  return { page, pageSize: Math.min(size, maxPageSize) };
}

export function isAnswer(value: PageParams | Answer): value is Answer {
  return 'status' in value;
}

export function pagingEnvelope(params: PageParams, totalCount: number) {
  return { page: params.page, page_size: params.pageSize, total_count: totalCount };
}

export function unixNow(): number {
  return Math.floor(Date.now() / 1000);
}
