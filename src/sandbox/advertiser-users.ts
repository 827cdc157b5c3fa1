import {
  RELATIONSHIP_PARAM,
  WELCOME_NOTIFICATION_PARAM,
  advertiserUserProblems,
  type AdvertiserUserRequest,
} from '../api/resources/advertiser-users.js';
import { formatProblem } from '../api/resources/request-check.js';
import { errorAnswer, json, unixNow, type Answer } from './answers.js';

/**
 * POST /networks/advertisers/{advertiserId}/users in the sandbox.
 *
 * - Advertisers 1..ADVERTISERS_PER_NETWORK exist in every network; another id: 404
 *   {"error":"Advertiser not found"}.
 * - The body rules are the client's own (api/resources/advertiser-users.ts); a broken one:
 *   422 {"error":"<field>: <problem>","errors":[{field,problem},...]}. The spec does not show
 *   the error body or status of validation failures; this is our pick.
 * - email unique among all advertiser users of every network, case-insensitively: 409
 *   {"error":"email: already used by another advertiser user"}.
 * - Omitted fields are stored with defaults: strings "", instant_messaging_id 0, language_id 1,
 *   timezone_id 80, currency_id "USD", account_status "active".
 * - The e-mails the platform would send are recorded (Sandbox.notifications()): a password
 *   reset unless set_password_manually (rule 3), an activation when send_activation_email
 *   (rule 4), a welcome unless ?notification=false (rule 6; see WELCOME_NOTIFICATION_PARAM).
 * - ?relationship=NAME (repeatable) fills relationship.NAME with {} (contents not shown).
 */

export const ADVERTISERS_PER_NETWORK = 12;

export type NotificationKind = 'password-reset' | 'activation' | 'welcome';

/** An e-mail the platform would have sent. */
export interface SandboxNotification {
  network: string;
  kind: NotificationKind;
  email: string;
}

export class AdvertiserUserStore {
  readonly #emails = new Set<string>();
  readonly #notifications: SandboxNotification[] = [];
  #nextId = 1;

  notifications(): SandboxNotification[] {
    return [...this.#notifications];
  }

  create(input: {
    network: string;
    networkId: number;
    advertiserId: number;
    url: URL;
    body: unknown;
  }): Answer {
    const { advertiserId, url, body } = input;
    if (advertiserId < 1 || advertiserId > ADVERTISERS_PER_NETWORK) {
      return errorAnswer(404, 'Advertiser not found');
    }
    const notificationParam = url.searchParams.get(WELCOME_NOTIFICATION_PARAM);
    if (notificationParam !== null && !['true', 'false', '1', '0'].includes(notificationParam)) {
      return json(422, { error: `${WELCOME_NOTIFICATION_PARAM}: must be true or false` });
    }
    const problems = advertiserUserProblems(body);
    if (problems.length > 0) {
      return json(422, { error: formatProblem(problems[0]!), errors: problems });
    }
    const request = body as AdvertiserUserRequest;
    const key = request.email.toLowerCase();
    if (this.#emails.has(key)) {
      return json(409, { error: 'email: already used by another advertiser user' });
    }
    this.#emails.add(key);

    const welcome =
      notificationParam === null || notificationParam === 'true' || notificationParam === '1';
    const notify = (kind: NotificationKind) =>
      this.#notifications.push({ network: input.network, kind, email: request.email });
    if (request.set_password_manually !== true) notify('password-reset');
    if (request.send_activation_email === true) notify('activation');
    if (welcome) notify('welcome');

    const relationship: Record<string, unknown> = {};
    for (const name of url.searchParams.getAll(RELATIONSHIP_PARAM)) relationship[name] = {};
    const now = unixNow();
    return json(200, {
      network_advertiser_user_id: this.#nextId++,
      network_id: input.networkId,
      network_advertiser_id: advertiserId,
      first_name: request.first_name ?? '',
      last_name: request.last_name ?? '',
      email: request.email,
      title: request.title ?? '',
      work_phone: request.work_phone ?? '',
      cell_phone: request.cell_phone ?? '',
      instant_messaging_id: request.instant_messaging_id ?? 0,
      instant_messaging_identifier: request.instant_messaging_identifier ?? '',
      language_id: request.language_id ?? 1,
      timezone_id: request.timezone_id ?? 80,
      currency_id: request.currency_id ?? 'USD',
      account_status: request.account_status ?? 'active',
      time_created: now,
      time_saved: now,
      relationship,
    });
  }
}
