import { errorAnswer, json } from '../answers.js';
import { creative } from '../creatives.js';
import { entityReportPage } from '../entity-report.js';
import type { Route } from '../route.js';
import type { SandboxState } from '../state.js';

/**
 * The network portal's other resources: advertiser users (advertiser-users.ts), tiered
 * commissions (tiered-commissions.ts), creatives (creatives.ts) and the entity report
 * (entity-report.ts).
 */
export function networkResourceRoutes(state: SandboxState): Route[] {
  return [
    {
      method: 'POST',
      path: /^\/networks\/advertisers\/([^/]+)\/users$/,
      endpoint: 'advertiser-users',
      handle: ({ network, networkId, url, body, params }) => {
        const advertiserId = Number(params[0]);
        if (!Number.isSafeInteger(advertiserId)) return errorAnswer(404, 'Advertiser not found');
        return state.advertiserUsers.create({
          network: network.id,
          networkId,
          advertiserId,
          url,
          body,
        });
      },
    },
    {
      method: 'POST',
      path: '/networks/tieredcommissions',
      endpoint: 'tiered-commissions',
      handle: ({ networkId, body }) =>
        state.tieredCommissions.create({ networkId, day: state.day, body }),
    },
    {
      method: 'GET',
      path: /^\/networks\/creatives\/([^/]+)$/,
      endpoint: 'creatives',
      handle: ({ network, networkId, params }) => {
        const found = /^\d+$/.test(params[0] ?? '')
          ? creative(network, networkId, Number(params[0]))
          : undefined;
        return found ? json(200, found) : errorAnswer(404, 'Creative not found');
      },
    },
    {
      method: 'POST',
      path: '/networks/reporting/entity/table',
      endpoint: 'entity-report',
      handle: ({ network, body }) =>
        entityReportPage({ seed: state.scenario.seed, network: network.id, body }),
    },
  ];
}
