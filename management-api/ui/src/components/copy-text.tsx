// A long value shown whole (keys, hashes) with a button that copies it to the clipboard.
import { useState } from 'preact/hooks';

/** `value` in full, breakable anywhere, and a Copy button that says whether it worked. */
export function CopyText({ value, label, testId }: { value: string; label: string; testId?: string }) {
  const [copied, setCopied] = useState<'yes' | 'no'>();
  const copy = async () => {
    try {
      // Only on a secure page (https, 127.0.0.1); elsewhere the value stays selectable by hand.
      await navigator.clipboard.writeText(value);
      setCopied('yes');
    } catch {
      setCopied('no');
    }
  };
  return (
    <span class="copy-text">
      <code class="full" data-testid={testId}>
        {value}
      </code>{' '}
      <button type="button" class="secondary small-button" aria-label={`Copy ${label}`} onClick={() => void copy()}>
        Copy
      </button>
      <span class="small muted" role="status">
        {copied === 'yes' ? 'Copied' : copied === 'no' ? 'Select it to copy' : ''}
      </span>
    </span>
  );
}
