import type { Answer } from './answers.js';
import type { SandboxKey } from './keys.js';
import type { FaultEndpoint, SandboxNetwork } from './scenario.js';

/** What a route's handler is given of one authenticated request under /v1. */
export interface RequestContext {
  network: SandboxNetwork;
  networkId: number;
  key: SandboxKey;
  url: URL;
  body: unknown;
  /** The path's parameters ({advertiserId}, {creativeId}), in order. */
  params: string[];
}

/** One endpoint of the API: its method and path (under /v1), and how it answers. */
export interface Route {
  method: 'GET' | 'POST';
  /** An exact path, or a pattern whose groups are the path parameters. */
  path: string | RegExp;
  /** What a queued fault names to hit this route. */
  endpoint: FaultEndpoint;
  handle(ctx: RequestContext): Answer;
}

/** The route's path parameters when it matches `path`, else undefined. */
export function matchRoute(route: Route, path: string): string[] | undefined {
  if (typeof route.path === 'string') return route.path === path ? [] : undefined;
  const match = route.path.exec(path);
  return match ? match.slice(1) : undefined;
}
