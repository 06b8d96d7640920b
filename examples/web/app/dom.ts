// A few DOM helpers: elements are built with textContent and attributes, never innerHTML, so nothing
// the server or a user typed can become markup.
import { isTenantAuthClientError } from 'tenant-auth-client';
import { fieldMessage, problemMessage } from './messages.js';

type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | undefined | ((event: Event) => void)>;

/** `h('button', { type: 'button', onclick: go }, 'Go')`: an element with attributes and children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') element.addEventListener(name.slice(2), value);
    else if (value === true) element.setAttribute(name, '');
    else element.setAttribute(name, String(value));
  }
  append(element, ...children);
  return element;
}

/** Appends children, skipping the empty ones. */
export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
}

let ids = 0;
/** A unique id for label/description pairs. */
export const uid = (prefix: string) => `${prefix}-${++ids}`;

/** A labelled input with its hint and its (empty) error line, wired with aria-describedby. */
export function field(options: {
  label: string;
  name: string;
  type?: string;
  autocomplete?: string;
  required?: boolean;
  hint?: string;
  value?: string;
  minlength?: number;
}): HTMLDivElement {
  const id = uid(options.name);
  const hintId = options.hint ? `${id}-hint` : undefined;
  const errorId = `${id}-error`;
  const input = h('input', {
    id,
    name: options.name,
    type: options.type ?? 'text',
    autocomplete: options.autocomplete,
    required: options.required ?? true,
    value: options.value,
    minlength: options.minlength,
    'aria-describedby': [hintId, errorId].filter(Boolean).join(' '),
  });
  return h(
    'div',
    { class: 'field' },
    h('label', { for: id }, options.label),
    options.hint ? h('p', { class: 'hint', id: hintId }, options.hint) : null,
    input,
    h('p', { class: 'field-error', id: errorId, hidden: true }),
  );
}

/** A labelled select. */
export function select(options: {
  label: string;
  name: string;
  choices: readonly { value: string; label: string }[];
  value?: string;
}): HTMLDivElement {
  const id = uid(options.name);
  const element = h('select', { id, name: options.name });
  for (const choice of options.choices) {
    element.append(
      h('option', { value: choice.value, selected: choice.value === options.value }, choice.label),
    );
  }
  return h('div', { class: 'field' }, h('label', { for: id }, options.label), element);
}

/** The form-level message line of a form (an alert: read out as soon as it changes). */
export function formAlert(): HTMLParagraphElement {
  return h('p', { class: 'form-alert', role: 'alert', hidden: true, tabindex: -1 });
}

/** Clears the field errors and the alert of a form. */
function clearErrors(form: HTMLFormElement): void {
  for (const input of form.querySelectorAll<HTMLInputElement>('[aria-invalid]')) {
    input.removeAttribute('aria-invalid');
  }
  for (const line of form.querySelectorAll<HTMLElement>('.field-error, .form-alert')) {
    line.hidden = true;
    line.textContent = '';
  }
}

/**
 * Shows an error on a form: each field error next to its input (aria-invalid, read through
 * aria-describedby), the problem as the form's alert, and focus on the first bad field (else the alert).
 */
export function showError(form: HTMLFormElement, err: unknown): void {
  clearErrors(form);
  const alert = form.querySelector<HTMLElement>('.form-alert');
  if (!isTenantAuthClientError(err)) {
    console.error(err);
    if (alert) {
      alert.textContent = 'Something unexpected happened. Please reload the page and try again.';
      alert.hidden = false;
      alert.focus();
    }
    return;
  }
  let firstInvalid: HTMLElement | null = null;
  const unplaced: string[] = [];
  for (const fieldError of err.errors) {
    const input = form.querySelector<HTMLInputElement>(`[name="${CSS.escape(fieldError.field)}"]`);
    const message = fieldMessage(fieldError.field, fieldError.code);
    const line = input ? form.querySelector<HTMLElement>(`#${CSS.escape(input.id)}-error`) : null;
    if (input && line) {
      input.setAttribute('aria-invalid', 'true');
      // A field may fail several rules (too short and too simple): say each once.
      if (!line.textContent?.includes(message))
        line.textContent = `${line.textContent ?? ''} ${message}`.trim();
      line.hidden = false;
      firstInvalid ??= input;
    } else if (!unplaced.includes(message)) {
      unplaced.push(message);
    }
  }
  if (alert) {
    // A field error with no input on the form (the token of a link) is the whole story: say it plainly.
    alert.textContent = unplaced.length > 0 ? unplaced.join(' ') : problemMessage(err);
    alert.hidden = false;
  }
  (firstInvalid ?? alert)?.focus();
}

/**
 * Wires a form: on submit, clears its errors, marks the submit button busy, runs `action` with the
 * form's values, and shows what failed. Returns the form.
 */
export function onSubmit(
  form: HTMLFormElement,
  action: (values: Record<string, string>) => Promise<void>,
): HTMLFormElement {
  form.noValidate = true;
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    clearErrors(form);
    const missing = [...form.querySelectorAll<HTMLInputElement>('input[required]')].filter(
      (i) => i.value.trim() === '',
    );
    if (missing.length > 0) {
      for (const input of missing) {
        input.setAttribute('aria-invalid', 'true');
        const line = form.querySelector<HTMLElement>(`#${CSS.escape(input.id)}-error`);
        if (line) {
          line.textContent = 'This field is required.';
          line.hidden = false;
        }
      }
      missing[0]?.focus();
      return;
    }
    const button = form.querySelector<HTMLButtonElement>('button[type="submit"]');
    const values = Object.fromEntries(
      [...new FormData(form).entries()].map(([k, v]) => [k, typeof v === 'string' ? v : '']),
    );
    button?.setAttribute('aria-busy', 'true');
    if (button) button.disabled = true;
    try {
      await action(values);
    } catch (err) {
      showError(form, err);
    } finally {
      button?.removeAttribute('aria-busy');
      if (button) button.disabled = false;
    }
  });
  return form;
}

/**
 * Asks for confirmation in a modal `<dialog>` (focus moves into it, Escape cancels, focus returns to
 * the button that opened it). Resolves with the choice.
 */
export function confirmDialog(options: { title: string; body: string; confirm: string }): Promise<boolean> {
  const opener = document.activeElement as HTMLElement | null;
  const titleId = uid('dialog-title');
  const dialog = h(
    'dialog',
    { class: 'dialog', 'aria-labelledby': titleId },
    h('h2', { id: titleId }, options.title),
    h('p', {}, options.body),
  );
  return new Promise((resolve) => {
    const close = (value: boolean) => {
      dialog.close();
      dialog.remove();
      opener?.focus();
      resolve(value);
    };
    const cancel = h('button', { type: 'button', class: 'secondary', onclick: () => close(false) }, 'Cancel');
    const ok = h('button', { type: 'button', class: 'danger', onclick: () => close(true) }, options.confirm);
    dialog.append(h('div', { class: 'actions' }, cancel, ok));
    dialog.addEventListener('cancel', (event) => {
      event.preventDefault();
      close(false);
    });
    document.body.append(dialog);
    dialog.showModal();
    cancel.focus();
  });
}

/** `2026-05-01T12:00:00Z` as the reader's local date and time. */
export function formatDate(iso: string): string {
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** A `<time>` element for an ISO date. */
export const time = (iso: string) => h('time', { datetime: iso }, formatDate(iso));
