import type { Role } from '../../vocabulary/roles.js';

/**
 * A rendered subject and bodies.
 *
 * @example
 * const content: MailContent = { subject: 'Reset your password', text: `Open ${link}`, html: `<a href="${link}">Reset</a>` };
 */
export interface MailContent {
  subject: string;
  text: string;
  html: string;
}

/**
 * The data each template gets. Every link is `appUrl + path + "?token=" + token`; the token appears
 * nowhere else.
 *
 * @example
 * const data: MailTemplateData['password_reset'] = { link, lifetimeSeconds: 1800, tenantName: 'Acme' };
 */
export interface MailTemplateData {
  invitation: {
    link: string;
    lifetimeSeconds: number;
    tenantName: string;
    role: Role;
    invitedBy: string | null;
  };
  password_reset: { link: string; lifetimeSeconds: number; tenantName: string };
  email_verification: { link: string; lifetimeSeconds: number; tenantName: string };
  /** To the new address: confirm the change. */
  email_change: { link: string; lifetimeSeconds: number; tenantName: string; newEmail: string };
  /** To the old address: a change was asked for (no link). */
  email_change_notice: { tenantName: string; newEmail: string };
  /**
   * To the user, the first time their second factor is locked after too many wrong answers: someone
   * knows their password (no link).
   */
  second_factor_locked: { tenantName: string; lockSeconds: number };
}

/**
 * The emails tenant-auth sends, one function per kind. Replace any of them with the `mail.templates`
 * option of `createTenantAuth`; the defaults are short, plain and escape everything they insert.
 *
 * @example
 * const templates: Partial<MailTemplates> = {
 *   password_reset: ({ link }) => ({ subject: 'Reset your Acme password', text: link, html: `<a href="${link}">Reset</a>` }),
 * };
 */
export type MailTemplates = { [K in keyof MailTemplateData]: (data: MailTemplateData[K]) => MailContent };

/**
 * The name of a template, and of the kind of an outbox message.
 *
 * @example
 * const name: MailTemplateName = 'invitation';
 */
export type MailTemplateName = keyof MailTemplateData;

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);

/** "30 minutes", "24 hours", "7 days". */
const lifetime = (seconds: number) => {
  const minutes = Math.max(1, Math.round(seconds / 60));
  if (minutes < 120) return `${minutes} minutes`;
  const hours = Math.round(minutes / 60);
  return hours < 48 ? `${hours} hours` : `${Math.round(hours / 24)} days`;
};

function page(paragraphs: string[], action?: { link: string; label: string }): string {
  const body = paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('\n');
  const button = action
    ? `<p><a href="${escapeHtml(action.link)}" style="display:inline-block;padding:10px 16px;background:#1f4fd1;color:#fff;border-radius:6px;text-decoration:none">${escapeHtml(action.label)}</a></p>\n<p style="color:#555;font-size:13px">Or paste this link into your browser: ${escapeHtml(action.link)}</p>`
    : '';
  return `<!doctype html>\n<html><body style="font-family:system-ui,sans-serif;line-height:1.5;color:#111">\n${body}\n${button}\n</body></html>`;
}

const text = (paragraphs: string[], link?: string) => [...paragraphs, ...(link ? [link] : [])].join('\n\n');

/** @internal The default templates. */
export const defaultTemplates: MailTemplates = {
  invitation: ({ link, lifetimeSeconds, tenantName, role, invitedBy }) => {
    const lines = [
      `${invitedBy ?? 'An administrator'} invited you to join ${tenantName} as ${role === 'admin' ? 'an admin' : `a ${role}`}.`,
      `Choose a password to accept. The invitation expires in ${lifetime(lifetimeSeconds)}.`,
    ];
    return {
      subject: `You are invited to ${tenantName}`,
      text: text(lines, link),
      html: page(lines, { link, label: 'Accept the invitation' }),
    };
  },
  password_reset: ({ link, lifetimeSeconds, tenantName }) => {
    const lines = [
      `Someone asked to reset the password of your ${tenantName} account.`,
      `Choose a new one within ${lifetime(lifetimeSeconds)}. Every device signed in to your account will be signed out.`,
      'If it was not you, ignore this email: your password stays as it is.',
    ];
    return {
      subject: 'Reset your password',
      text: text(lines, link),
      html: page(lines, { link, label: 'Reset my password' }),
    };
  },
  email_verification: ({ link, lifetimeSeconds, tenantName }) => {
    const lines = [
      `Confirm that this is your email address for ${tenantName}.`,
      `The link works for ${lifetime(lifetimeSeconds)}.`,
    ];
    return {
      subject: 'Verify your email address',
      text: text(lines, link),
      html: page(lines, { link, label: 'Verify my email' }),
    };
  },
  email_change: ({ link, lifetimeSeconds, tenantName, newEmail }) => {
    const lines = [
      `Confirm ${newEmail} as the new email address of your ${tenantName} account.`,
      `The link works for ${lifetime(lifetimeSeconds)}. Other devices signed in to your account will be signed out.`,
    ];
    return {
      subject: 'Confirm your new email address',
      text: text(lines, link),
      html: page(lines, { link, label: 'Confirm my new email' }),
    };
  },
  email_change_notice: ({ tenantName, newEmail }) => {
    const lines = [
      `Someone asked to change the email address of your ${tenantName} account to ${newEmail}.`,
      'Nothing changes until the new address is confirmed. If it was not you, change your password now.',
    ];
    return { subject: 'Your email address is about to change', text: text(lines), html: page(lines) };
  },
  second_factor_locked: ({ tenantName, lockSeconds }) => {
    const lines = [
      `Someone signed in to your ${tenantName} account with your password, then gave too many wrong second-factor codes.`,
      `Whoever it was knows your password. Codes are refused for the next ${lifetime(lockSeconds)}; a passkey still works.`,
      'If it was not you, change your password now.',
    ];
    return { subject: 'Someone knows your password', text: text(lines), html: page(lines) };
  },
};
