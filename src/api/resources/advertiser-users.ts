import { z } from 'zod';
import type { ApiClient } from '../client.js';
import { ACCOUNT_STATUSES, advertiserUserSchema, type AdvertiserUser } from '../schemas.js';
import {
  assertNoProblems,
  checkId,
  combineProblems,
  fieldsOf,
  idProblems,
  problemsOf,
  type RequestProblem,
} from './request-check.js';

/**
 * Advertiser users: POST /networks/advertisers/{advertiserId}/users (network portal).
 *
 * Rules (spec, "POST /networks/advertisers/{advertiserId}/users"), checked here before sending
 * and by the sandbox on arrival:
 *   1. email unique among all advertiser users (only the server can know: 409 in the sandbox);
 *   2. set_password_manually true: initial_password required, at least 12 characters;
 *   5. instant_messaging_id 1..5 (a platform): instant_messaging_identifier required;
 *   and the field rules: instant_messaging_id 0..5, language_id only 1, account_status one of
 *   active/inactive/suspended, currency_id an ISO code (three letters), email an address.
 *
 * Readings of what the spec leaves "not shown":
 *   - Required fields beyond the conditional ones: only `email`. Rule 1 makes every advertiser
 *     user have one (it is the login), so a request without it cannot succeed; nothing else is
 *     demanded, so the client never refuses what the API might accept.
 *   - The welcome-notification query parameter: `notification` (boolean, default true), the
 *     name the platform vendor's public reference gives for this endpoint. It is sent only when
 *     the caller sets `sendWelcome`, so with the name wrong, the omitted default still holds.
 *   - Unknown body fields are refused (a strict object): a typo like `emial` is named instead
 *     of silently dropped by the server. `thm api` checks the same rules before sending
 *     (`advertiserUserRequestProblems`), unless run with --no-validate.
 */

export const INITIAL_PASSWORD_MIN = 12;
/** The welcome-notification query parameter (spec rule 6: name not shown; see above). */
export const WELCOME_NOTIFICATION_PARAM = 'notification';
/** Query parameter selecting related data (rule 7), repeated once per relationship. */
export const RELATIONSHIP_PARAM = 'relationship';

export const advertiserUserRequestSchema = z.strictObject({
  first_name: z.string().optional(),
  last_name: z.string().optional(),
  email: z.email('must be an e-mail address'),
  title: z.string().optional(),
  work_phone: z.string().optional(),
  cell_phone: z.string().optional(),
  instant_messaging_id: z
    .number()
    .int('must be an integer 0 to 5')
    .min(0, 'must be an integer 0 to 5')
    .max(5, 'must be an integer 0 to 5')
    .optional(),
  instant_messaging_identifier: z.string().optional(),
  language_id: z.literal(1, 'must be 1 (English), the only language allowed').optional(),
  timezone_id: z.number().int().optional(),
  currency_id: z
    .string()
    .regex(/^[A-Za-z]{3}$/, 'must be an ISO currency code (three letters)')
    .optional(),
  account_status: z.enum(ACCOUNT_STATUSES, 'must be one of active, inactive, suspended').optional(),
  send_activation_email: z.boolean().optional(),
  set_password_manually: z.boolean().optional(),
  initial_password: z.string().optional(),
});
export type AdvertiserUserRequest = z.input<typeof advertiserUserRequestSchema>;

/** Every rule the body breaks (empty when it may be sent). */
export function advertiserUserProblems(body: unknown): RequestProblem[] {
  return combineProblems(problemsOf(advertiserUserRequestSchema, body), ruleProblems(body));
}

/** Rules 2 and 5: conditions across fields. */
function ruleProblems(body: unknown): RequestProblem[] {
  const b = fieldsOf(body);
  const problems: RequestProblem[] = [];
  if (b.set_password_manually === true) {
    if (b.initial_password === undefined) {
      problems.push({
        field: 'initial_password',
        problem: 'required when set_password_manually is true',
      });
    } else if (
      typeof b.initial_password === 'string' &&
      b.initial_password.length < INITIAL_PASSWORD_MIN
    ) {
      problems.push({
        field: 'initial_password',
        problem: `must be at least ${INITIAL_PASSWORD_MIN} characters`,
      });
    }
  }
  const im = b.instant_messaging_id;
  const identifier = b.instant_messaging_identifier;
  if (
    typeof im === 'number' &&
    Number.isInteger(im) &&
    im >= 1 &&
    im <= 5 &&
    !(typeof identifier === 'string' && identifier.trim())
  ) {
    problems.push({
      field: 'instant_messaging_identifier',
      problem: `required when instant_messaging_id selects a platform (${im})`,
    });
  }
  return problems;
}

export interface CreateAdvertiserUserOptions {
  /**
   * Whether the platform sends its welcome notification e-mail. Omitted: the parameter is not
   * sent and the API's default (true) applies.
   */
  sendWelcome?: boolean;
  /** Related data to return in `relationship` (e.g. `logins`, `api`). */
  relationships?: string[];
}

/** The path with its query; relationship repeats, which RequestOptions.query cannot express. */
export function advertiserUsersPath(
  advertiserId: number,
  options: CreateAdvertiserUserOptions = {},
): string {
  const params = new URLSearchParams();
  if (options.sendWelcome !== undefined) {
    params.set(WELCOME_NOTIFICATION_PARAM, String(options.sendWelcome));
  }
  for (const name of options.relationships ?? []) params.append(RELATIONSHIP_PARAM, name);
  const query = params.toString();
  return `/networks/advertisers/${advertiserId}/users${query ? `?${query}` : ''}`;
}

/**
 * The rules of the request as it goes over the wire (`thm api`): the advertiserId of the path,
 * the relationship parameters of the query, the body.
 */
export function advertiserUserRequestProblems(
  advertiserId: number,
  query: URLSearchParams,
  body: unknown,
): RequestProblem[] {
  return [
    ...idProblems('advertiserId', advertiserId),
    ...query
      .getAll(RELATIONSHIP_PARAM)
      .flatMap((name, i) =>
        name.trim() ? [] : [{ field: `${RELATIONSHIP_PARAM}[${i}]`, problem: 'must not be empty' }],
      ),
    ...advertiserUserProblems(body),
  ];
}

const WHAT = 'advertiser user';

/**
 * Creates a user of an advertiser. Refuses (RequestValidationError, THM_API_REQUEST_INVALID)
 * a body that breaks a stated rule, naming the field, without sending anything. Not retried
 * on a transient failure: a retried create could create twice.
 */
export async function createAdvertiserUser(
  client: ApiClient,
  advertiserId: number,
  body: AdvertiserUserRequest,
  options: CreateAdvertiserUserOptions = {},
): Promise<AdvertiserUser> {
  checkId(WHAT, 'advertiserId', advertiserId);
  assertNoProblems(WHAT, advertiserUserProblems(body));
  for (const [i, name] of (options.relationships ?? []).entries()) {
    if (!name.trim()) {
      assertNoProblems(WHAT, [{ field: `relationships[${i}]`, problem: 'must not be empty' }]);
    }
  }
  return client.request('POST', advertiserUsersPath(advertiserId, options), {
    body,
    schema: advertiserUserSchema,
  });
}
