// The create forms' submit: read the fields, send them, and clear the form once the server took
// them (a failed send keeps what was typed, next to the error the page shows).

/** A field's text, trimmed; '' when the form has no such field. */
export const textField = (d: FormData, name: string): string => String(d.get(name) ?? '').trim();

/**
 * An onSubmit handler: `send` gets the form's fields and answers the created thing, or nothing when
 * the call failed; on an answer the form is reset and `done` runs with it.
 */
export function submitForm<R>(
  send: (d: FormData) => Promise<R | undefined>,
  done?: (result: R) => void,
): (e: Event) => Promise<void> {
  return async (e: Event) => {
    e.preventDefault();
    // Read before the await: the event's currentTarget is gone once dispatch is over.
    const form = e.currentTarget as HTMLFormElement;
    const result = await send(new FormData(form));
    if (!result) return;
    form.reset();
    done?.(result);
  };
}
