/**
 * Typed functions for the endpoints of the spec beyond the monitor's own three (those are
 * methods of ApiClient: getTrafficAccess, getIspTrends, getInvoiceSummary). One module per
 * resource; each validates its request by the spec's rules before sending and its response by
 * the schemas in ../schemas.ts.
 */
export * from './advertiser-users.js';
export * from './tiered-commissions.js';
export * from './creatives.js';
export * from './connections.js';
export * from './entity-report.js';
export * from './request-check.js';
