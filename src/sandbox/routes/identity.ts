import { json } from '../answers.js';
import type { Route } from '../route.js';

/** Who the key belongs to, one endpoint per portal (the realm examples of the spec). */
export function identityRoutes(): Route[] {
  return [
    {
      method: 'GET',
      path: '/networks',
      endpoint: 'identity',
      handle: ({ network, networkId }) =>
        json(200, { network: { network_id: networkId, name: network.name ?? network.id } }),
    },
    {
      method: 'GET',
      path: '/affiliates/affiliate',
      endpoint: 'identity',
      handle: ({ networkId }) =>
        json(200, { affiliate: { network_affiliate_id: 1, network_id: networkId } }),
    },
    {
      method: 'GET',
      path: '/advertisers/advertiser',
      endpoint: 'identity',
      handle: ({ networkId }) =>
        json(200, { advertiser: { network_advertiser_id: 1, network_id: networkId } }),
    },
  ];
}
