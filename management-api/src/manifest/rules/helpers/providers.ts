// Providers offered to agents through the credential broker, and the variables each is announced in.
import type { Manifest } from '../../generated/manifest-types.js';

/** A provider agents reach through the broker. */
export interface BrokeredProvider {
  name: string;
  baseUrl: string;
  envVar: string;
  /** The variable an agent finds the broker address in, e.g. `ANTHROPIC_BASE_URL`. */
  variable: string;
  /**
   * The variable an agent finds its credential for the broker in, e.g. `ANTHROPIC_API_KEY`: its own
   * agent token, never the provider's key. Provider SDKs and agent CLIs read the key from this
   * name and the address from the one above, so they reach the broker with no wrapper.
   */
  keyVariable: string;
}

/** The variable stem of provider `name`: upper case, every run of other characters as `_`. */
function stem(name: string): string {
  return name.toUpperCase().replace(/[^A-Z0-9]+/g, '_');
}

/** `<NAME>_BASE_URL` for provider `name`. */
export function baseUrlVariable(name: string): string {
  return `${stem(name)}_BASE_URL`;
}

/** `<NAME>_API_KEY` for provider `name`: where the agent's token is given for it. */
export function apiKeyVariable(name: string): string {
  return `${stem(name)}_API_KEY`;
}

/** Enabled providers with a base_url, in manifest order. */
export function brokeredProviders(m: Pick<Manifest, 'providers'>): BrokeredProvider[] {
  const out: BrokeredProvider[] = [];
  for (const [name, p] of Object.entries(m.providers)) {
    if (p?.enabled && p.base_url !== '')
      out.push({ name, baseUrl: p.base_url, envVar: p.env_var, variable: baseUrlVariable(name), keyVariable: apiKeyVariable(name) });
  }
  return out;
}
