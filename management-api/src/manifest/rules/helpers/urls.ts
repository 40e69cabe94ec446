// The manifest's URL-valued keys, as rules walk them (the URL grammar itself is grammar/url.ts).
import type { Manifest } from '../../generated/manifest-types.js';
import { HTTP_SLOTS } from './slots.js';

/** One URL-valued key that is set. */
export interface UrlValue {
  segments: Array<string | number>;
  url: string;
}

/** Every non-empty URL in the manifest: integration urls, mesh.host_url, otlp_endpoint, relays, provider base_urls. */
export function urlValues(m: Manifest): UrlValue[] {
  const out: UrlValue[] = [];
  for (const slot of HTTP_SLOTS) out.push({ segments: ['integrations', slot, 'url'], url: m.integrations[slot].url });
  out.push({ segments: ['mesh', 'host_url'], url: m.mesh.host_url });
  out.push({ segments: ['observability', 'otlp_endpoint'], url: m.observability.otlp_endpoint });
  for (const [i, url] of m.sovereign_mesh.relays.entries()) out.push({ segments: ['sovereign_mesh', 'relays', i], url });
  for (const [name, p] of Object.entries(m.providers)) if (p) out.push({ segments: ['providers', name, 'base_url'], url: p.base_url });
  return out.filter((u) => u.url !== '');
}
