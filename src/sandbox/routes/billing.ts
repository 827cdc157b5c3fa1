import { invoiceSummaryRequestSchema } from '../../api/schemas.js';
import { errorAnswer, json } from '../answers.js';
import { invoiceSummary } from '../invoices.js';
import type { Route } from '../route.js';
import type { SandboxState } from '../state.js';

/** The network's invoice summary (invoices.ts). */
export function billingRoutes(state: SandboxState): Route[] {
  return [
    {
      method: 'POST',
      path: '/networks/billings/affiliates/summary',
      endpoint: 'summary',
      handle: ({ network, body }) => {
        const parsed = invoiceSummaryRequestSchema.safeParse(body);
        if (!parsed.success) return errorAnswer(400, 'filters.status must be a string');
        return json(
          200,
          invoiceSummary(state.scenario.seed, network, state.day, parsed.data.filters.status),
        );
      },
    },
  ];
}
