// Providers offered to agents through the credential broker, and the variable each is announced in.
import type { Manifest } from '../../generated/manifest-types.js';

/** A provider agents reach through the broker. */
export interface BrokeredProvider {
  name: string;
  baseUrl: string;
  envVar: string;
  /** The variable an agent finds the broker address in, e.g. `ANTHROPIC_BASE_URL`. */
  variable: string;
}

/** `<NAME>_BASE_URL` for provider `name` (upper case, every run of other characters as `_`). */
export function baseUrlVariable(name: string): string {
  return `${name.toUpperCase().replace(/[^A-Z0-9]+/g, '_')}_BASE_URL`;
}

/** Enabled providers with a base_url, in manifest order. */
export function brokeredProviders(m: Pick<Manifest, 'providers'>): BrokeredProvider[] {
  const out: BrokeredProvider[] = [];
  for (const [name, p] of Object.entries(m.providers)) {
    if (p?.enabled && p.base_url !== '') out.push({ name, baseUrl: p.base_url, envVar: p.env_var, variable: baseUrlVariable(name) });
  }
  return out;
}
