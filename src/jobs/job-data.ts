import { z } from 'zod';
import { isIsoDate } from '../dates.js';

/** Job data is a boundary too: validated when a job is taken, whoever put it there. */
export const checkJobDataSchema = z
  .object({
    networkId: z.string().min(1),
    /** Absent: the as-of date is today in the network's zone at the scheduled fire time. */
    asOf: z.string().refine(isIsoDate, 'must be a date YYYY-MM-DD').optional(),
    force: z.boolean().optional(),
    trigger: z.enum(['schedule', 'manual']).default('schedule'),
  })
  .strict();
export type CheckJobData = z.input<typeof checkJobDataSchema>;

/** `notificationId`: the outbox id, an e-mail's or a channel delivery's (never a secret). */
export const deliverJobDataSchema = z.object({ notificationId: z.string().min(1) }).strict();
export type DeliverJobData = z.infer<typeof deliverJobDataSchema>;
