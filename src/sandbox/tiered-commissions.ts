import { formatProblem } from '../api/resources/request-check.js';
import {
  tieredCommissionProblems,
  type TieredCommissionRequest,
} from '../api/resources/tiered-commissions.js';
import { json, unixNow, type Answer } from './answers.js';

/**
 * POST /networks/tieredcommissions in the sandbox.
 *
 * The body rules are the client's (api/resources/tiered-commissions.ts), except rule 7 as the
 * API applies it: `exact` in payout_action or revenue_action is accepted and stored (and
 * returned) as `unknown`. A broken rule: 422 {"error":"<field>: <problem>","errors":[...]}
 * (our pick; the spec does not show validation errors). A missing relationship counts as {}.
 *
 * Stored defaults (the spec's where it gives them): name/notes "", status "active", start_date
 * the sandbox's as-of date, end_date "", period "global", ids 0 and [], network_advertiser_ids
 * null, flags false, values, goals and maximums 0, an unset action `unknown`.
 * Computed (our invention; the spec names the fields only): retroactive_*_type `blank` while the
 * retroactive part is off, else `cpa` / `rpa`; retroactive_*_percentage the value for the
 * percent actions (increase, decrease), else 0.
 */

const PERCENT_ACTIONS = new Set(['increase', 'decrease']);

export class TieredCommissionStore {
  #nextId = 1;

  create(input: { networkId: number; day: string; body: unknown }): Answer {
    const problems = tieredCommissionProblems(input.body, {
      exactInPayoutOrRevenueAction: 'store-unknown',
    });
    if (problems.length > 0) {
      return json(422, { error: formatProblem(problems[0]!), errors: problems });
    }
    const b = input.body as TieredCommissionRequest;
    const stored = (action: string | undefined, exactAllowed: boolean) =>
      action === undefined || (action === 'exact' && !exactAllowed) ? 'unknown' : action;
    const retroPayoutAction = stored(b.retroactive_payout_action, true);
    const retroRevenueAction = stored(b.retroactive_revenue_action, true);
    const percentage = (action: string, value: number | undefined) =>
      PERCENT_ACTIONS.has(action) ? (value ?? 0) : 0;
    const now = unixNow();
    return json(200, {
      network_tiered_commission_id: this.#nextId++,
      network_id: input.networkId,
      name: b.name ?? '',
      notes: b.notes ?? '',
      status: b.status ?? 'active',
      start_date: b.start_date ?? input.day,
      end_date: b.end_date ?? '',
      period: b.period ?? 'global',
      network_offer_payout_revenue_id: b.network_offer_payout_revenue_id ?? 0,
      is_apply_all_affiliates: b.is_apply_all_affiliates ?? false,
      network_affiliate_ids: b.network_affiliate_ids ?? [],
      network_offer_ids: b.network_offer_ids ?? [],
      network_advertiser_ids: b.network_advertiser_ids ?? null,
      is_payout_enabled: b.is_payout_enabled ?? false,
      payout_action: stored(b.payout_action, false),
      payout_value: b.payout_value ?? 0,
      is_revenue_enabled: b.is_revenue_enabled ?? false,
      revenue_action: stored(b.revenue_action, false),
      revenue_value: b.revenue_value ?? 0,
      payout_goal: b.payout_goal ?? 0,
      revenue_goal: b.revenue_goal ?? 0,
      sale_amount_goal: b.sale_amount_goal ?? 0,
      conversion_goal: b.conversion_goal ?? 0,
      event_goal: b.event_goal ?? 0,
      payout_max: b.payout_max ?? 0,
      revenue_max: b.revenue_max ?? 0,
      sale_amount_max: b.sale_amount_max ?? 0,
      conversion_max: b.conversion_max ?? 0,
      event_max: b.event_max ?? 0,
      relationship: {},
      is_retroactive_payout_enabled: b.is_retroactive_payout_enabled ?? false,
      retroactive_payout_action: retroPayoutAction,
      retroactive_payout_value: b.retroactive_payout_value ?? 0,
      retroactive_payout_type: b.is_retroactive_payout_enabled ? 'cpa' : 'blank',
      retroactive_payout_percentage: percentage(retroPayoutAction, b.retroactive_payout_value),
      is_retroactive_revenue_enabled: b.is_retroactive_revenue_enabled ?? false,
      retroactive_revenue_action: retroRevenueAction,
      retroactive_revenue_value: b.retroactive_revenue_value ?? 0,
      retroactive_revenue_type: b.is_retroactive_revenue_enabled ? 'rpa' : 'blank',
      retroactive_revenue_percentage: percentage(retroRevenueAction, b.retroactive_revenue_value),
      time_created: now,
      time_saved: now,
    });
  }
}
