// The current time as a hook that ticks once a second while asked to, for durations of what is still running.
import { useEffect, useState } from 'preact/hooks';

/** Date.now(), renewed every second while `ticking` (nothing runs while it is false). */
export function useNow(ticking: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!ticking) return undefined;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [ticking]);
  return now;
}
