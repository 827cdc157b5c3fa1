import { z } from 'zod';
import { isIsoDate } from '../../dates.js';
import type { ApiClient } from '../client.js';
import {
  COMMISSION_ACTIONS,
  RETROACTIVE_ACTIONS,
  TIERED_COMMISSION_PERIODS,
  TIERED_COMMISSION_STATUSES,
  tieredCommissionSchema,
  type TieredCommission,
} from '../schemas.js';
import {
  assertNoProblems,
  combineProblems,
  fieldsOf,
  problemsOf,
  type RequestProblem,
} from './request-check.js';

/**
 * Tiered commissions: POST /networks/tieredcommissions (network portal).
 *
 * Rules (spec, "POST /networks/tieredcommissions"), checked here and by the sandbox:
 *   1. some goal (conversion, event, sale_amount, payout, revenue) above 0;
 *   2-4. an enabled payout / revenue / retroactive payout / retroactive revenue part needs its
 *      action and a value above 0;
 *   5. a maximum that is set (non-zero) must be above its goal;
 *   6. relationship is an empty object;
 *   7. `exact` is valid only in the retroactive actions; in payout_action and revenue_action
 *      the API stores it as `unknown`.
 *   and the enums (status, period, actions) and dates (YYYY-MM-DD).
 *
 * Rule 7, our pick for the client: refuse `exact` in payout_action / revenue_action with a
 * message saying it would be stored as "unknown". Nobody sends it meaning "unknown", and a
 * commission stored with an unknown action is a silent mistake; the sandbox, like the API,
 * accepts it and stores `unknown` (see `TieredCommissionRuleOptions`).
 *
 * Required fields beyond the rules: not shown; none are demanded. A missing `relationship` is
 * sent as `{}` (rule 6). Unknown fields are refused (strict object), as for advertiser users.
 */

export const GOALS = ['payout', 'revenue', 'sale_amount', 'conversion', 'event'] as const;

/** The four parts that can be switched on, with their flag, action and value fields. */
export const COMMISSION_PARTS = [
  { flag: 'is_payout_enabled', action: 'payout_action', value: 'payout_value' },
  { flag: 'is_revenue_enabled', action: 'revenue_action', value: 'revenue_value' },
  {
    flag: 'is_retroactive_payout_enabled',
    action: 'retroactive_payout_action',
    value: 'retroactive_payout_value',
  },
  {
    flag: 'is_retroactive_revenue_enabled',
    action: 'retroactive_revenue_action',
    value: 'retroactive_revenue_value',
  },
] as const;

const date = z.string().refine(isIsoDate, 'must be a date YYYY-MM-DD');
const list = (values: readonly string[]) => `must be one of ${values.join(', ')}`;
/** payout_action / revenue_action: the four request values, and `exact` (rule 7, see above). */
const action = z.enum(RETROACTIVE_ACTIONS, list(COMMISSION_ACTIONS));
const retroactiveAction = z.enum(RETROACTIVE_ACTIONS, list(RETROACTIVE_ACTIONS));
const number = z.number();
const idList = z.array(z.number().int());
/** Rule 6: `{}` and nothing else (a strict object would name the extra key, not the rule). */
const emptyObject = z.custom<Record<string, never>>(
  (v) => typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 0,
  'must be an empty object',
);

export const tieredCommissionRequestSchema = z.strictObject({
  name: z.string().optional(),
  notes: z.string().optional(),
  status: z.enum(TIERED_COMMISSION_STATUSES, list(TIERED_COMMISSION_STATUSES)).optional(),
  start_date: date.optional(),
  end_date: date.optional(),
  period: z.enum(TIERED_COMMISSION_PERIODS, list(TIERED_COMMISSION_PERIODS)).optional(),
  network_offer_payout_revenue_id: z.number().int().optional(),
  is_apply_all_affiliates: z.boolean().optional(),
  network_affiliate_ids: idList.optional(),
  network_offer_ids: idList.optional(),
  network_advertiser_ids: idList.nullable().optional(),
  is_payout_enabled: z.boolean().optional(),
  payout_action: action.optional(),
  payout_value: number.optional(),
  is_revenue_enabled: z.boolean().optional(),
  revenue_action: action.optional(),
  revenue_value: number.optional(),
  payout_goal: number.optional(),
  revenue_goal: number.optional(),
  sale_amount_goal: number.optional(),
  conversion_goal: number.optional(),
  event_goal: number.optional(),
  payout_max: number.optional(),
  revenue_max: number.optional(),
  sale_amount_max: number.optional(),
  conversion_max: number.optional(),
  event_max: number.optional(),
  relationship: emptyObject.optional(),
  is_retroactive_payout_enabled: z.boolean().optional(),
  retroactive_payout_action: retroactiveAction.optional(),
  retroactive_payout_value: number.optional(),
  is_retroactive_revenue_enabled: z.boolean().optional(),
  retroactive_revenue_action: retroactiveAction.optional(),
  retroactive_revenue_value: number.optional(),
});
export type TieredCommissionRequest = z.input<typeof tieredCommissionRequestSchema>;

export interface TieredCommissionRuleOptions {
  /**
   * `exact` in payout_action or revenue_action: 'reject' (the client's pick) or 'store-unknown'
   * (what the API does, and so the sandbox).
   * @defaultValue 'reject'
   */
  exactInPayoutOrRevenueAction?: 'reject' | 'store-unknown';
}

/** Every rule the body breaks (empty when it may be sent). */
export function tieredCommissionProblems(
  body: unknown,
  options: TieredCommissionRuleOptions = {},
): RequestProblem[] {
  const fields = fieldsOf(body);
  const problems = combineProblems(
    problemsOf(tieredCommissionRequestSchema, body),
    ruleProblems(fields),
  );
  if ((options.exactInPayoutOrRevenueAction ?? 'reject') === 'reject') {
    for (const field of ['payout_action', 'revenue_action']) {
      if (fields[field] === 'exact') {
        problems.push({
          field,
          problem:
            'exact is valid only in the retroactive actions; the API would store it as "unknown"',
        });
      }
    }
  }
  return problems;
}

/** A number field's value, or its default 0 when absent or mistyped (reported elsewhere). */
const numberOr0 = (value: unknown) => (typeof value === 'number' ? value : 0);

/** Rules 1 to 5: conditions across fields. */
function ruleProblems(b: Record<string, unknown>): RequestProblem[] {
  const problems: RequestProblem[] = [];
  if (!GOALS.some((g) => numberOr0(b[`${g}_goal`]) > 0)) {
    problems.push({
      field: 'conversion_goal',
      problem:
        'at least one goal (conversion_goal, event_goal, sale_amount_goal, payout_goal, revenue_goal) must be greater than 0',
    });
  }
  for (const part of COMMISSION_PARTS) {
    if (b[part.flag] !== true) continue;
    if (b[part.action] === undefined) {
      problems.push({ field: part.action, problem: `required when ${part.flag} is true` });
    }
    const value = b[part.value];
    if (value === undefined) {
      problems.push({ field: part.value, problem: `required when ${part.flag} is true` });
    } else if (typeof value === 'number' && !(value > 0)) {
      problems.push({
        field: part.value,
        problem: `must be greater than 0 when ${part.flag} is true`,
      });
    }
  }
  for (const goal of GOALS) {
    const max = numberOr0(b[`${goal}_max`]);
    const target = numberOr0(b[`${goal}_goal`]);
    if (max !== 0 && !(max > target)) {
      problems.push({
        field: `${goal}_max`,
        problem: `must be greater than ${goal}_goal (${target}) when set (0: no maximum)`,
      });
    }
  }
  return problems;
}

const WHAT = 'tiered commission';

/**
 * Creates a tiered commission. Refuses (THM_API_REQUEST_INVALID) a body breaking a stated rule
 * without sending it; adds `relationship: {}` when absent. Not retried (a create).
 */
export async function createTieredCommission(
  client: ApiClient,
  body: TieredCommissionRequest,
): Promise<TieredCommission> {
  const sent = { ...body, relationship: body.relationship ?? {} };
  assertNoProblems(WHAT, tieredCommissionProblems(sent));
  return client.request('POST', '/networks/tieredcommissions', {
    body: sent,
    schema: tieredCommissionSchema,
  });
}
