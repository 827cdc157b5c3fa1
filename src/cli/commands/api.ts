import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { HttpMethod } from '../../api/client.js';
import { findEndpoint, pathParams, type KnownEndpoint } from '../../api/endpoints.js';
import { MAX_PAGE_SIZE, collectPagesUpTo, type Page } from '../../api/paging.js';
import { rowCapNote } from '../../api/resources/entity-report.js';
import { RequestValidationError } from '../../api/resources/request-check.js';
import type { Config, NetworkConfig } from '../../config/load.js';
import { UsageError } from '../../errors.js';
import { cliLogger, loadCliConfig } from '../context.js';
import { printJsonAsIs } from '../output.js';

/**
 * `thm api METHOD PATH`: one authenticated call to the partner API with a configured network's
 * key, for operators and debugging.
 *
 * - A request to a known endpoint (the spec's summary table, api/endpoints.ts) is checked
 *   against the spec's rules for it before anything is sent, by the same rule functions the
 *   typed resources use (a tiered commission without a goal, `exact` in payout_action, an
 *   advertiser user's short initial_password ...): exit 2, the first broken rule named, nothing
 *   sent. `--no-validate` sends it as given, to see the API's own answer to any request.
 *   Requests to other paths are sent as given: the spec states no rules for them.
 * - The response of a known endpoint is validated against its schema (exit 1 when it does not
 *   match); others are printed as they came.
 * - --all-pages follows the pages of a known paged endpoint, in the query or the body as the
 *   endpoint takes them, and prints {"<items>": [...], "total_count", "pages"}; an aggregated
 *   report stops at its 10,000-row cap and says so on stderr ("capped": true).
 * - The key is only ever in the request header. A connection's own api_key in a validated
 *   response prints as [redacted] (it is parsed into a Secret).
 * - --json: stdout holds exactly one JSON document also on failure ({"ok":false,"error":...}).
 */

const METHODS: readonly HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

interface ApiOptions {
  network?: string;
  data?: string;
  allPages?: boolean;
  json?: boolean;
  /** false with --no-validate. */
  validate: boolean;
}

export function registerApiCommand(program: Command): void {
  program
    .command('api')
    .description("call the partner API with a configured network's key and print the JSON response")
    .argument('<method>', 'GET, POST, PUT, PATCH or DELETE')
    .argument(
      '<path>',
      'path under the network baseUrl, with any query, e.g. /networks/creatives/1',
    )
    .option('--network <id>', 'the configured network whose key to use (default: the only one)')
    .option('--data <json|@file>', 'JSON request body, inline or @file')
    .option('--all-pages', 'follow every page of a paged endpoint')
    .option('--no-validate', "send the request as given, without checking the spec's rules first")
    .option('--json', 'stdout holds one JSON document, also on failure')
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  $ thm api GET /networks/traffic/access',
        '  $ thm api GET /networks/creatives/12 --network acme',
        '  $ thm api POST /networks/reporting/entity/table --all-pages --data \'{"from":"2026-11-01","to":"2026-11-07","columns":[{"column":"offer"}]}\'',
        '  $ thm api POST /networks/tieredcommissions --data @commission.json',
        '  $ thm api POST /networks/tieredcommissions --no-validate --data \'{"payout_action":"exact"}\'',
      ].join('\n'),
    )
    // A failure with --json is printed as one JSON document by the CLI's entry (src/cli/main.ts).
    .action((method: string, path: string, options: ApiOptions, command: Command) =>
      runApi(method, path, options, command),
    );
}

async function runApi(
  rawMethod: string,
  rawPath: string,
  options: ApiOptions,
  command: Command,
): Promise<void> {
  const method = parseMethod(rawMethod);
  const target = parsePath(rawPath);
  const data = options.data === undefined ? undefined : parseData(options.data);
  if (data !== undefined && (method === 'GET' || method === 'DELETE')) {
    throw new UsageError(`--data: a ${method} request has no body`);
  }
  const endpoint = findEndpoint(method, target.pathname);
  if (options.allPages && !endpoint?.paging) {
    throw new UsageError(
      `--all-pages: ${method} ${target.pathname} is not a known paged endpoint ` +
        '(POST /partners/connections/table, POST /networks/reporting/entity/table)',
    );
  }
  if (options.validate && endpoint?.request) {
    const problems = endpoint.request.problems({
      params: pathParams(endpoint, target.pathname),
      query: target.searchParams,
      body: data,
    });
    if (problems.length > 0) {
      throw new RequestValidationError(
        endpoint.request.what,
        problems,
        'nothing sent (--no-validate sends it as given)',
      );
    }
  }
  const config = loadCliConfig(command);
  const network = selectNetwork(config, options.network);
  // The client (undici) loads here, not with the CLI: other commands start without it.
  const { createNetworkApiClient } = await import('../../api/client.js');
  const client = createNetworkApiClient({ ...network, apiKey: network.apiKey.read() }, config.api, {
    logger: cliLogger(config),
  });
  try {
    const call = (path: string, body: unknown) =>
      client.request(method, path, {
        ...(body !== undefined ? { body } : {}),
        ...(endpoint
          ? { parse: endpoint.parse, idempotent: endpoint.idempotent, premium: endpoint.premium }
          : {}),
      });
    if (!options.allPages || !endpoint?.paging) {
      printJsonAsIs(await call(target.pathname + target.search, data));
      return;
    }
    printJsonAsIs(await allPages(endpoint, target, data, call));
  } finally {
    await client.close();
  }
}

function parseMethod(raw: string): HttpMethod {
  const method = raw.toUpperCase() as HttpMethod;
  if (!METHODS.includes(method)) {
    throw new UsageError(`method: "${raw}" is not one of ${METHODS.join(', ')}`);
  }
  return method;
}

function parsePath(raw: string): URL {
  if (!raw.startsWith('/') || raw.startsWith('//')) {
    throw new UsageError(
      `path: "${raw}" must start with / and be relative to the network's baseUrl (e.g. /networks)`,
    );
  }
  return new URL(raw, 'http://api.invalid');
}

function parseData(raw: string): unknown {
  let text = raw;
  let source = '--data';
  if (raw.startsWith('@')) {
    const file = raw.slice(1);
    source = `--data ${raw}`;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      throw new UsageError(`${source}: file not found or unreadable`);
    }
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new UsageError(`${source}: not valid JSON (${reason})`);
  }
}

/** --network, or the only configured network. */
export function selectNetwork(config: Config, id: string | undefined): NetworkConfig {
  const configured = config.networks.map((n) => n.id).join(', ');
  if (id === undefined) {
    if (config.networks.length === 1) return config.networks[0]!;
    throw new UsageError(
      `--network: required when ${config.networks.length} networks are configured (${configured})`,
    );
  }
  const network = config.networks.find((n) => n.id === id);
  if (!network) {
    throw new UsageError(
      `--network: no network "${id}" in ${config.source} (configured: ${configured})`,
    );
  }
  return network;
}

async function allPages(
  endpoint: KnownEndpoint,
  target: URL,
  data: unknown,
  call: (path: string, body: unknown) => Promise<unknown>,
): Promise<Record<string, unknown>> {
  const paging = endpoint.paging!;
  const body = (data ?? {}) as Record<string, unknown>;
  if (paging.in === 'body' && (typeof body !== 'object' || body === null || Array.isArray(body))) {
    throw new UsageError('--data: must be a JSON object to page in the body');
  }
  const askedSize =
    paging.in === 'query' ? Number(target.searchParams.get('page_size')) : Number(body.page_size);
  const pageSize = Number.isSafeInteger(askedSize) && askedSize > 0 ? askedSize : MAX_PAGE_SIZE;
  const fetchPage = async ({ page, pageSize: size }: { page: number; pageSize: number }) => {
    let value: unknown;
    if (paging.in === 'query') {
      const params = new URLSearchParams(target.searchParams);
      params.set('page', String(page));
      params.set('page_size', String(size));
      value = await call(`${target.pathname}?${params.toString()}`, data);
    } else {
      value = await call(target.pathname + target.search, { ...body, page, page_size: size });
    }
    const answer = value as Record<string, unknown>;
    return {
      items: answer[paging.itemsKey] as unknown[],
      paging: answer.paging,
    } as Page<unknown>;
  };
  const cap = paging.rowCap ?? Number.POSITIVE_INFINITY;
  const collected = await collectPagesUpTo(fetchPage, cap, {
    pageSize,
    endpoint: `${endpoint.method} ${endpoint.path}`,
  });
  if (collected.capped) {
    process.stderr.write(
      `thm: note: ${rowCapNote(cap, collected.items.length, collected.totalCount)}\n`,
    );
  }
  return {
    [paging.itemsKey]: collected.items,
    total_count: collected.totalCount,
    pages: collected.pages,
    ...(paging.rowCap !== undefined ? { capped: collected.capped } : {}),
  };
}
