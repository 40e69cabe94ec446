// A button for an action that cannot be undone: the first press asks, inline, and only the second does it.
import { useEffect, useRef, useState } from 'preact/hooks';

/**
 * `label` opens a question (`question`) with a confirming button and Cancel; the focus moves to
 * Cancel, so a second Enter does not confirm by accident, and Escape cancels.
 */
export function ConfirmButton({
  label,
  question,
  confirmLabel,
  ariaLabel,
  testId,
  onConfirm,
}: {
  label: string;
  question: string;
  confirmLabel: string;
  ariaLabel: string;
  testId: string;
  onConfirm: () => void;
}) {
  const [asking, setAsking] = useState(false);
  const cancelRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) cancelRef.current?.focus();
  }, [asking]);

  if (!asking) {
    return (
      <button type="button" class="danger" aria-label={ariaLabel} data-testid={testId} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  }
  return (
    <fieldset class="confirm" aria-label={question} data-testid={`${testId}-confirm`} onKeyDown={(e) => e.key === 'Escape' && setAsking(false)}>
      <span class="small">{question}</span>
      <button
        type="button"
        class="danger"
        data-testid={`${testId}-yes`}
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
      >
        {confirmLabel}
      </button>
      <button type="button" class="secondary" ref={cancelRef} data-testid={`${testId}-cancel`} onClick={() => setAsking(false)}>
        Cancel
      </button>
    </fieldset>
  );
}
