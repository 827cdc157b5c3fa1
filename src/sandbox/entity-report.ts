import { REPORT_ROW_CAP, entityReportProblems } from '../api/resources/entity-report.js';
import { formatProblem } from '../api/resources/request-check.js';
import { daysBetween, addDays } from '../dates.js';
import {
  isAnswer,
  json,
  MAX_PAGE_SIZE,
  pagingEnvelope,
  readPaging,
  type Answer,
} from './answers.js';
import { rngFor } from './random.js';

/**
 * POST /networks/reporting/entity/table in the sandbox: an aggregated report whose rows are the
 * cartesian product of the requested columns' values, generated on demand (only the page asked
 * for), deterministically from the scenario seed, the network and the row's values.
 *
 * Columns the sandbox knows, with how many values each has: offer 40, affiliate 300,
 * advertiser 12, country 25, creative 6, date (one per day from..to). Another name: 422
 * naming `columns[i].column`. The row shape is not shown in the spec; ours follows the
 * platform's: {"columns":[{"column_type","id","label"}...],"reporting":{imp,total_click,
 * unique_click,cv,revenue,payout,profit}}.
 *
 * Paging in the body (defaults 1 and 50, page_size capped at 2,000). paging.total_count is
 * every row of the report, but no row past the 10,000th is ever served (spec, Limits): a page
 * beyond it is empty, a page across it is cut short.
 */

export const REPORT_MAX_PAGE_SIZE = MAX_PAGE_SIZE;

const DIMENSIONS: Record<string, { size: number; label: (i: number) => string }> = {
  offer: { size: 40, label: (i) => `Offer ${100 + i}` },
  affiliate: { size: 300, label: (i) => `Partner ${7_000 + i}` },
  advertiser: { size: 12, label: (i) => `Advertiser ${i}` },
  country: {
    size: 25,
    label: (i) =>
      'US CA GB DE FR ES IT NL BE SE NO DK FI PL PT IE AT CH AU NZ JP BR MX IN ZA'.split(' ')[
        i - 1
      ]!,
  },
  creative: { size: 6, label: (i) => `Creative ${i}` },
};
export const REPORT_COLUMNS = [...Object.keys(DIMENSIONS), 'date'];

interface ReportBody {
  from: string;
  to: string;
  columns: Array<{ column: string }>;
  page?: unknown;
  page_size?: unknown;
}

export function entityReportPage(input: { seed: number; network: string; body: unknown }): Answer {
  const problems = entityReportProblems(input.body);
  if (problems.length > 0) {
    return json(422, { error: formatProblem(problems[0]!), errors: problems });
  }
  const body = input.body as ReportBody;
  const dims: Array<{ type: string; size: number; label: (i: number) => string }> = [];
  for (const [i, { column }] of body.columns.entries()) {
    if (column === 'date') {
      const days = daysBetween(body.from, body.to) + 1;
      dims.push({ type: 'date', size: days, label: (k) => addDays(body.from, k - 1) });
      continue;
    }
    const dim = DIMENSIONS[column];
    if (!dim) {
      const problem = `unknown column "${column}" (known: ${REPORT_COLUMNS.join(', ')})`;
      return json(422, {
        error: `columns[${i}].column: ${problem}`,
        errors: [{ field: `columns[${i}].column`, problem }],
      });
    }
    dims.push({ type: column, ...dim });
  }
  const params = readPaging(body.page, body.page_size, REPORT_MAX_PAGE_SIZE);
  if (isAnswer(params)) return params;
  const total = dims.reduce((n, d) => n * d.size, 1);
  const served = Math.min(total, REPORT_ROW_CAP);
  const start = (params.page - 1) * params.pageSize;
  const end = Math.min(start + params.pageSize, served);
  const table: unknown[] = [];
  for (let index = start; index < end; index += 1) table.push(row(input, dims, index));
  return json(200, { table, paging: pagingEnvelope(params, total) });
}

/** Row `index` of the product, the last column varying fastest. */
function row(
  input: { seed: number; network: string },
  dims: Array<{ type: string; size: number; label: (i: number) => string }>,
  index: number,
): Record<string, unknown> {
  const columns: Array<{ column_type: string; id: string; label: string }> = [];
  let rest = index;
  for (let d = dims.length - 1; d >= 0; d -= 1) {
    const dim = dims[d]!;
    const value = (rest % dim.size) + 1;
    rest = Math.floor(rest / dim.size);
    const label = dim.label(value);
    columns.unshift({
      column_type: dim.type,
      id: dim.type === 'date' ? label : String(value),
      label,
    });
  }
  const random = rngFor(
    input.seed,
    input.network,
    'report',
    ...columns.map((c) => `${c.column_type}=${c.id}`),
  );
  const clicks = Math.floor(random() * 2_000);
  const conversions = Math.floor(clicks * random() * 0.05);
  const revenue = Math.round(conversions * (3 + random() * 7) * 100) / 100;
  const payout = Math.round(revenue * (0.5 + random() * 0.3) * 100) / 100;
  return {
    columns,
    reporting: {
      imp: clicks * 12,
      total_click: clicks,
      unique_click: Math.floor(clicks * 0.9),
      cv: conversions,
      revenue,
      payout,
      profit: Math.round((revenue - payout) * 100) / 100,
    },
  };
}
