import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { renderAlertEmail } from './alert.js';
import { exampleAlertInput } from './example.js';

/**
 * Writes the example alert e-mail (HTML and text) to a directory, to look at in a browser:
 *
 *   npm run build && node dist/src/notify/render/write-example.js /tmp/alert-example
 *
 * The docs screenshots come from the demo instead (README, "Developing it").
 */
export function writeExample(dir: string): { html: string; text: string } {
  const email = renderAlertEmail(exampleAlertInput());
  if (!email) throw new Error('the example classification renders no e-mail');
  mkdirSync(dir, { recursive: true });
  const html = path.join(dir, 'alert.html');
  const text = path.join(dir, 'alert.txt');
  writeFileSync(html, email.html);
  writeFileSync(text, `Subject: ${email.subject}\n\n${email.text}\n`);
  return { html, text };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const written = writeExample(path.resolve(process.argv[2] ?? 'outbox/example'));
  console.log(`${written.html}\n${written.text}`);
}
