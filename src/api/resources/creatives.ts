import type { ApiClient } from '../client.js';
import { creativeSchema, type Creative } from '../schemas.js';
import { checkId } from './request-check.js';

/** Creatives: GET /networks/creatives/{creativeId} (network portal). */

export function creativePath(creativeId: number): string {
  return `/networks/creatives/${creativeId}`;
}

/** One creative with its relationship.offer (and resource_asset when it has a file). */
export async function getCreative(client: ApiClient, creativeId: number): Promise<Creative> {
  checkId('creative', 'creativeId', creativeId);
  return client.request('GET', creativePath(creativeId), { schema: creativeSchema });
}
