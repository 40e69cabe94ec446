// The form of a snapshot's id: the store makes them, the routes check them, and agent names may not take it.

/** A snapshot id: `snp_` and 12 url-safe characters. */
export const SNAPSHOT_ID = /^snp_[A-Za-z0-9_-]{12}$/;
