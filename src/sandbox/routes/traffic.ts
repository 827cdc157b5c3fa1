import { errorAnswer, json } from '../answers.js';
import type { Route } from '../route.js';
import type { SandboxState } from '../state.js';
import { TrendsBodies } from '../trends-bodies.js';

/** The spec leaves this status and text unstated; the client recognises any of 401/402/403. */
const PREMIUM_REQUIRED_MESSAGE = 'Traffic Health Premium package is required';

/** Traffic Health: the access object, and the ISP trends of a network with premium. */
export function trafficRoutes(state: SandboxState): Route[] {
  const trends = new TrendsBodies(state);
  return [
    {
      method: 'GET',
      path: '/networks/traffic/access',
      endpoint: 'access',
      handle: ({ network }) => {
        const on = state.hasPremium(network.id);
        return json(200, {
          is_enabled: true,
          has_premium: on,
          has_blacklist_monitoring: on,
          has_monitoring_alerts: on,
          has_third_party_domain_monitoring: on,
          has_external_proxy_domain: on,
          has_external_notifications: on,
          has_domain_assignment_management: on,
          premium_monitored_domain_quota: on ? 25 : 0,
        });
      },
    },
    {
      method: 'GET',
      path: '/networks/traffic/isptrends',
      endpoint: 'isptrends',
      handle: ({ network, networkId }) => {
        if (!state.hasPremium(network.id)) return errorAnswer(403, PREMIUM_REQUIRED_MESSAGE);
        return { status: 200, body: trends.body(network, networkId) };
      },
    },
  ];
}
