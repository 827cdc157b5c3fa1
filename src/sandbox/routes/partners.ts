import { connectionsPage } from '../connections.js';
import type { Route } from '../route.js';
import type { SandboxState } from '../state.js';

/** The partner portal's marketplace connections, paged (connections.ts). */
export function partnerRoutes(state: SandboxState): Route[] {
  const page: Route['handle'] = (ctx) =>
    connectionsPage(ctx.network, ctx.networkId, ctx.url, ctx.body, state.scenario.seed);
  return [
    { method: 'GET', path: '/partners/connections', endpoint: 'connections', handle: page },
    { method: 'POST', path: '/partners/connections/table', endpoint: 'connections', handle: page },
  ];
}
