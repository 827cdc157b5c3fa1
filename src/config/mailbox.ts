import { z } from 'zod';
import { HAS_INVISIBLE_CHARS } from '../unicode.js';

/**
 * One mailbox as a header shows it: `a@b.example`, `<a@b.example>` or `Display Name
 * <a@b.example>` (the name plain or "quoted"). What goes into mail.from goes into the From
 * header and the SMTP envelope: a CR/LF there writes headers of its own (Bcc: anyone), a second
 * address or a non-address changes who the message is from. So exactly one address, on one line.
 */

/** C0 and C1 control characters (CR, LF, NUL, ...), never allowed in a header value. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

const MAILBOX =
  /^\s*(?:(?<name>"(?:[^"\\]|\\.)*"|[^"<>@,;:\\]*?)\s*<(?<angled>[^<>\s]+)>|(?<bare>[^<>\s",;:]+))\s*$/;

const emailCheck = z.email();

/** Why a value is not one mailbox, or undefined when it is. */
export function mailboxProblem(value: string): string | undefined {
  if (CONTROL.test(value)) return 'must be one line (no CR, LF or other control characters)';
  const match = MAILBOX.exec(value);
  const address = match?.groups?.angled ?? match?.groups?.bare;
  if (!address || !emailCheck.safeParse(address).success)
    return 'must be exactly one e-mail address, optionally with a display name: "Name <a@b.example>"';
  return undefined;
}

/** Why a display text (a network's name) cannot go into a subject line, or undefined. */
export function displayTextProblem(value: string): string | undefined {
  if (CONTROL.test(value)) return 'must be one line (no CR, LF or other control characters)';
  if (HAS_INVISIBLE_CHARS.test(value))
    return 'must not contain invisible or bidirectional control characters';
  return undefined;
}

export const mailbox = z.string().superRefine((value, ctx) => {
  const problem = mailboxProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

export const displayText = z.string().superRefine((value, ctx) => {
  const problem = displayTextProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});
