// Formatting of figures, times and ids for display.

/** Bytes as KiB/MiB/GiB with one decimal. */
export function bytes(n: number | undefined): string {
  if (n === undefined) return '—';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${i === 0 ? v : v.toFixed(1)} ${units[i]}`;
}

/** An ISO time as the browser's local date and time, or a dash. */
export function time(iso: string | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}

/** A long hash or key shortened for a table cell (the full value goes in a title). */
export function short(value: string | undefined, keep = 12): string {
  if (!value) return '—';
  return value.length > keep + 1 ? `${value.slice(0, keep)}…` : value;
}

/** A flat object as "key=value, …" for compact cells (capacity, limits). */
export function pairs(obj: Record<string, unknown> | null | undefined): string {
  if (!obj) return '—';
  const entries = Object.entries(obj).filter(([, v]) => v !== undefined && v !== null);
  return entries.length ? entries.map(([k, v]) => `${k}=${typeof v === 'object' ? JSON.stringify(v) : String(v)}`).join(', ') : '—';
}

/** A length of time as "45 s", "3 min 20 s", "2 h 5 min" or "3 d 4 h": the two largest units that matter. */
export function duration(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const [d, h, m, s] = [Math.floor(total / 86_400), Math.floor(total / 3600) % 24, Math.floor(total / 60) % 60, total % 60];
  if (d > 0) return `${d} d ${h} h`;
  if (h > 0) return `${h} h ${m} min`;
  if (m > 0) return `${m} min ${s} s`;
  return `${s} s`;
}

/** How long something ran: from `start` to `end`, or to `now` while it has not ended; a dash before it started. */
export function elapsed(start: string | undefined, end: string | undefined, now: number): string {
  const from = start ? Date.parse(start) : Number.NaN;
  if (Number.isNaN(from)) return '—';
  const to = end ? Date.parse(end) : now;
  return duration((Number.isNaN(to) ? now : to) - from);
}
