import type { SandboxNetwork } from './scenario.js';

/**
 * Creatives of the sandbox: the same six in every network (ids 1..6, one per kind worth
 * telling apart: an image and a video with a file behind them, html, e-mail and link creatives
 * with html_code, a text creative with neither), built from the network's ids so each network's
 * creative 1 is its own. Other ids: 404 {"error":"Creative not found"} (server.ts).
 */

const BASE_TIME = 1_767_225_600; // 2026-01-01T00:00:00Z

interface CreativeSeed {
  type: 'image' | 'html' | 'email' | 'link' | 'text' | 'video';
  status: 'active' | 'paused';
  file?: { contentType: string; filename: string; width: number; height: number; size: number };
}

const SEEDS: readonly CreativeSeed[] = [
  {
    type: 'image',
    status: 'active',
    file: {
      contentType: 'image/png',
      filename: 'banner-300x250.png',
      width: 300,
      height: 250,
      size: 48_213,
    },
  },
  { type: 'html', status: 'active' },
  { type: 'email', status: 'active' },
  { type: 'link', status: 'active' },
  { type: 'text', status: 'active' },
  {
    type: 'video',
    status: 'paused',
    file: {
      contentType: 'video/mp4',
      filename: 'promo-15s.mp4',
      width: 1280,
      height: 720,
      size: 2_381_004,
    },
  },
];

export function creative(
  network: SandboxNetwork,
  networkId: number,
  creativeId: number,
): Record<string, unknown> | undefined {
  const seed = SEEDS[creativeId - 1];
  if (!seed || !Number.isSafeInteger(creativeId)) return undefined;
  const offerId = 100 + creativeId;
  const host = `cdn.${network.id}.example`;
  const hasHtml = seed.type === 'html' || seed.type === 'email' || seed.type === 'link';
  const isEmail = seed.type === 'email';
  const value: Record<string, unknown> = {
    network_offer_creative_id: creativeId,
    network_id: networkId,
    network_offer_id: offerId,
    name: `${network.name ?? network.id} ${seed.type} creative ${creativeId}`,
    creative_type: seed.type,
    is_private: creativeId % 2 === 0,
    creative_status: seed.status,
    resource_url: seed.file ? `https://${host}/creatives/${creativeId}/${seed.file.filename}` : '',
    width: seed.file?.width ?? 0,
    height: seed.file?.height ?? 0,
    email_from: isEmail ? 'Deals Team' : '',
    email_subject: isEmail ? 'This week only: 20% off' : '',
    email_subject_lines: isEmail ? 'Last chance: 20% off\nYour discount is waiting' : '',
    email_from_lines: isEmail ? 'Deals Team\nThe Offers Desk' : '',
    additional_offer_ids: creativeId === 1 ? [offerId + 1, offerId + 2] : [],
    is_apply_specific_affiliates: creativeId === 3,
    time_created: BASE_TIME + creativeId * 86_400,
    time_saved: BASE_TIME + creativeId * 86_400 + 3_600,
    relationship: {
      offer: {
        network_offer_id: offerId,
        network_id: networkId,
        network_advertiser_id: 1 + (creativeId % 12),
        network_offer_group_id: 0,
        name: `Offer ${offerId}`,
        offer_status: 'active',
        visibility: 'public',
        network_tracking_domain_id: 101,
        currency_id: 'USD',
      },
    },
  };
  if (hasHtml) {
    value.html_code = `<a href="{tracking_link}">Offer ${offerId}</a>`;
  }
  if (seed.file) {
    (value.relationship as Record<string, unknown>).resource_asset = {
      network_asset_id: 9_000 + creativeId,
      content_type: seed.file.contentType,
      filename: seed.file.filename,
      url: value.resource_url,
      file_size: seed.file.size,
      image_width: seed.file.width,
      image_height: seed.file.height,
    };
  }
  return value;
}
