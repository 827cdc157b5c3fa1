/** The e-mail renderers: pure functions of their inputs, one file per kind. */
export { renderAlertEmail, alertSubject, pairEvents, type AlertEmailInput } from './alert.js';
export { renderProblemEmail, whatToCheck, type ProblemEmailInput } from './problem.js';
export { renderRestoredEmail, type RestoredEmailInput } from './restored.js';
export { renderPremiumEmail, type PremiumEmailInput } from './premium.js';
export { renderInvoiceEmail, type InvoiceEmailInput } from './invoice.js';
