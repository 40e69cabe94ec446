// How many warm copies of one snapshot may be kept ready: the route's bound, the saved counts' check, the dashboard's field.

/** Copies one snapshot may keep ready: ten forks at once, with room to spare. */
export const MAX_WARM_FORKS = 32;
